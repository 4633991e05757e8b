"""Application preferences: a small registry of settings, persisted in QSettings, shown by
THE Preferences dialog (Edit > Preferences, :mod:`fabricstudio.ui.dialogs.preferences`).

Adding a preference is one :func:`register` call (anywhere the GUI imports at start)::

    register(Setting("presenterHighContrast", "High contrast", default=False, kind="bool",
                     page="Presenter", tip="...", apply=lambda window, on: ...))

A setting is a plain value (``choice``, ``int``, ``bool``) with a default, a valid range and
an optional ``apply(window, value)`` that puts a new value into effect at once; a setting
whose editing needs more than a plain field gives a ``widget(window)`` factory instead (a
widget with ``apply() -> str`` returning '' or a one-line reason, like the cost book).
:func:`get` reads a value with its default and range, so a damaged settings file never gives
the program a value it cannot use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSettings

#: Pages of the dialog, in order (a setting names one; unknown pages come last).
PAGES = ("General", "Canvas", "Files", "Export", "Presenter")


@dataclass(frozen=True)
class Setting:
    """One preference."""

    key: str
    label: str
    default: Any
    kind: str = "choice"  # 'choice', 'int', 'bool' or 'custom'
    page: str = "General"
    tip: str = ""
    #: ('choice') (value, text) pairs.
    choices: tuple[tuple[Any, str], ...] = ()
    #: ('int') range and unit shown after the number.
    minimum: int = 0
    maximum: int = 1_000_000
    suffix: str = ""
    #: Called with (window, value) when the value changes in the dialog (None: takes effect
    #: at the next start, which the dialog says).
    apply: Callable[[Any, Any], None] | None = None
    #: ('custom') builds the field widget for a window: it has ``apply() -> str``.
    widget: Callable[[Any], Any] | None = None
    restart: bool = False
    #: A line of explanation shown under the field.
    note: str = ""

    def coerce(self, raw: Any) -> Any:
        """``raw`` (as QSettings returns it, often text) as a valid value, else the default."""
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in ("true", "false"):
                return raw.lower() == "true"
            return self.default
        if self.kind == "int":
            try:
                value = int(float(raw))
            except (TypeError, ValueError):
                return self.default
            return value if self.minimum <= value <= self.maximum else self.default
        if self.kind == "choice":
            for value, _text in self.choices:
                if str(value) == str(raw):
                    return value
            return self.default
        return raw if raw is not None else self.default


REGISTRY: dict[str, Setting] = {}


def register(setting: Setting) -> Setting:
    """Add (or replace) a preference; returns it."""
    REGISTRY[setting.key] = setting
    return setting


def get(settings: QSettings, key: str) -> Any:
    """The value of preference ``key`` (its default when unset or unusable)."""
    setting = REGISTRY[key]
    return setting.coerce(settings.value(key, setting.default))


def put(settings: QSettings, key: str, value: Any) -> None:
    """Store preference ``key``."""
    settings.setValue(key, REGISTRY[key].coerce(value))


def pages() -> list[tuple[str, list[Setting]]]:
    """(page, settings) in dialog order."""
    order = {p: i for i, p in enumerate(PAGES)}
    names = sorted({s.page for s in REGISTRY.values()}, key=lambda p: (order.get(p, 99), p))
    return [(p, [s for s in REGISTRY.values() if s.page == p]) for p in names]


# ------------------------------------------------------------------ built-in settings
UI_SCALE = register(Setting(
    "uiScale", "Interface scale", default=0, kind="choice", page="General",
    choices=((0, "Automatic (the screen's)"), (100, "100 %"), (125, "125 %"), (150, "150 %"),
             (175, "175 %"), (200, "200 %")),
    tip="Size of text, icons and panels (a projector or a high-resolution screen may want "
        "more); takes effect at the next start", restart=True))
THEME = register(Setting(
    "theme", "Theme", default="dark", kind="choice", page="General",
    choices=(("dark", "Dark"), ("light", "Light")),
    apply=lambda window, name: window.set_theme(name)))
AUTOSAVE = register(Setting(
    "autosaveSeconds", "Autosave every", default=60, kind="int", page="Files",
    minimum=0, maximum=3600, suffix=" s",
    tip="Unsaved changes are written to a recovery file this often (0 = never) and offered "
        "back the next time FabricStudio starts after a crash",
    apply=lambda window, seconds: window.autosave.set_interval(seconds)))
EXPORT_PIXELS = register(Setting(
    "exportLongestSide", "Default PNG size", default=8192, kind="int", page="Export",
    minimum=1024, maximum=32768, suffix=" px on the longest side",
    tip="PNG exports are scaled to fit this (labels stay legible: large designs are drawn "
        "with their groups folded); 8,192 px opens in every viewer and mail program"))
SEMANTIC = register(Setting(
    "semanticZoom", "Fold groups when zoomed out", default=True, kind="bool", page="Canvas",
    tip="Racks, scalable units and pods become single tiles when small on screen",
    apply=lambda window, on: window.canvas_tools.act_semantic.setChecked(on)))
MINIMAP = register(Setting(
    "minimap", "Show the minimap when zoomed in", default=True, kind="bool", page="Canvas",
    apply=lambda window, on: window.canvas_tools.act_minimap.setChecked(on)))


def _cost_book_field(window: Any) -> Any:
    from fabricstudio.ui.dialogs.preferences import CostBookField

    return CostBookField(window.costs)


COST_BOOK = register(Setting(
    "costBookPath", "Cost book", default="", kind="custom", page="General",
    tip="Prices and power figures for the Analysis dock, Compare, the cable plan and the "
        "proposal (docs/cost.md)", widget=_cost_book_field,
    note="Prices, power figures and the GPU-hour price used by the Analysis dock, Compare "
         "fabrics, the cable plan and the proposal. Items in the file override the defaults "
         "one by one."))
