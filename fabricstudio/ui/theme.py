"""Colours and Qt styling: a dark and a light theme sharing one accent and colour-blind-safe
kind/speed/plane palettes (Okabe-Ito based)."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from fabricstudio.model import DeviceKind, Plane

#: Tile colour per device kind (DeviceKind.colour).
KIND_COLOURS = {kind: QColor(f"#{kind.colour}") for kind in DeviceKind}
#: Link colour by line rate (upper bound in Gb/s -> colour), ordered.
SPEED_COLOURS = (
    (1.0, QColor("#94A3B8")),
    (25.0, QColor("#56B4E9")),
    (100.0, QColor("#10B981")),
    (200.0, QColor("#3B82F6")),
    (400.0, QColor("#8B5CF6")),
    (800.0, QColor("#F59E0B")),
    (float("inf"), QColor("#EF4444")),
)
PLANE_COLOURS = {
    Plane.COMPUTE: QColor("#3B82F6"),
    Plane.STORAGE: QColor("#D946EF"),
    Plane.MANAGEMENT: QColor("#94A3B8"),
}
#: Link colour per rail (NIC index), cycling: the Okabe-Ito colour-blind-safe set first,
#: then Tol's "bright" set for rails 9-14; grey for links on no single rail.
RAIL_COLOURS = tuple(QColor(c) for c in (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#BBBBBB",
    "#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377"))
NO_RAIL = QColor("#6B7280")
#: Link colour by the tiers it joins (servers 0, leaves 1, spines 2, cores 3).
TIER_COLOURS = {
    (0, 1): QColor("#10B981"),
    (1, 2): QColor("#3B82F6"),
    (2, 3): QColor("#F59E0B"),
}
OTHER_TIER = QColor("#94A3B8")


def rail_colour(rail: int | None) -> QColor:
    """Colour of rail ``rail`` (0-based), grey for None."""
    return NO_RAIL if rail is None else RAIL_COLOURS[rail % len(RAIL_COLOURS)]


ACCENT = QColor("#3D8BFD")
VALID = QColor("#22C55E")
INVALID = QColor("#EF4444")
WARNING = QColor("#F59E0B")


def speed_colour(speed_gbps: float) -> QColor:
    """Colour of a link of ``speed_gbps``."""
    for limit, colour in SPEED_COLOURS:
        if speed_gbps <= limit:
            return colour
    return SPEED_COLOURS[-1][1]


def speed_text(speed_gbps: float) -> str:
    """'400G', '1.6T', '25G'."""
    if speed_gbps >= 1000:
        return f"{speed_gbps / 1000:g}T"
    return f"{speed_gbps:g}G"


@dataclass(frozen=True)
class Theme:
    """Colours of one theme; the canvas reads these when painting."""

    name: str
    window: QColor
    panel: QColor
    canvas: QColor
    grid: QColor
    text: QColor
    muted: QColor
    border: QColor
    label_bg: QColor
    highlight: QColor = field(default_factory=lambda: QColor(ACCENT))

    @property
    def dark(self) -> bool:
        """True for a theme with a dark canvas (dark, high contrast)."""
        return self.canvas.lightness() < 128


DARK = Theme("dark", window=QColor("#1B1D22"), panel=QColor("#22252B"), canvas=QColor("#16181D"),
             grid=QColor("#2A2E36"), text=QColor("#E6E8EB"), muted=QColor("#9AA3AF"),
             border=QColor("#343943"), label_bg=QColor(22, 24, 29, 200))
LIGHT = Theme("light", window=QColor("#F4F5F7"), panel=QColor("#FFFFFF"), canvas=QColor("#FAFBFC"),
              grid=QColor("#E3E6EA"), text=QColor("#1F2328"), muted=QColor("#5B6472"),
              border=QColor("#D0D5DC"), label_bg=QColor(250, 251, 252, 215))
THEMES = {"dark": DARK, "light": LIGHT}
#: Presenter mode's high-contrast option (projectors wash out greys): black, white, yellow.
HIGH_CONTRAST = Theme("contrast", window=QColor("#000000"), panel=QColor("#000000"),
                      canvas=QColor("#000000"), grid=QColor("#000000"), text=QColor("#FFFFFF"),
                      muted=QColor("#F0F0F0"), border=QColor("#FFFFFF"),
                      label_bg=QColor(0, 0, 0, 235), highlight=QColor("#FFD60A"))


def apply_theme(app: QApplication, theme: Theme) -> None:
    """Fusion style with the theme's palette and a small style sheet for docks and bars."""
    if app.property("fabricstudio-theme") == theme.name:
        return
    app.setProperty("fabricstudio-theme", theme.name)
    app.setStyle("Fusion")
    pal = QPalette()
    role = QPalette.ColorRole
    pal.setColor(role.Window, theme.window)
    pal.setColor(role.WindowText, theme.text)
    pal.setColor(role.Base, theme.panel)
    pal.setColor(role.AlternateBase, theme.window)
    pal.setColor(role.Text, theme.text)
    pal.setColor(role.Button, theme.panel)
    pal.setColor(role.ButtonText, theme.text)
    pal.setColor(role.ToolTipBase, theme.panel)
    pal.setColor(role.ToolTipText, theme.text)
    pal.setColor(role.Highlight, ACCENT)
    pal.setColor(role.HighlightedText, QColor("white"))
    pal.setColor(role.PlaceholderText, theme.muted)
    pal.setColor(role.Link, ACCENT)
    for group in (QPalette.ColorGroup.Disabled,):
        pal.setColor(group, role.Text, theme.muted)
        pal.setColor(group, role.ButtonText, theme.muted)
        pal.setColor(group, role.WindowText, theme.muted)
    app.setPalette(pal)
    app.setStyleSheet(_style_sheet(theme))


def _style_sheet(t: Theme) -> str:
    text, muted, border = t.text.name(), t.muted.name(), t.border.name()
    panel, window = t.panel.name(), t.window.name()
    return f"""
QMainWindow::separator {{ background: {border}; width: 1px; height: 1px; }}
QDockWidget {{ color: {text}; font-weight: 600; }}
QDockWidget::title {{ background: {window}; padding: 6px 8px; border-bottom: 1px solid {border}; }}
QToolBar {{ background: {window}; border: none; border-bottom: 1px solid {border};
            spacing: 2px; padding: 3px 6px; }}
QToolBar QToolButton {{ padding: 4px 7px; border-radius: 5px; }}
QToolBar QToolButton:hover {{ background: {border}; }}
QToolBar QToolButton:checked {{ background: {ACCENT.name()}; color: white; }}
QToolBar QToolButton#qt_toolbar_ext_button {{ padding: 0px; border: 1px solid {border}; }}
QStatusBar {{ background: {window}; color: {muted}; border-top: 1px solid {border}; }}
QStatusBar QLabel {{ color: {muted}; padding: 0 8px; }}
QLineEdit, QComboBox {{ background: {panel}; border: 1px solid {border};
            border-radius: 5px; padding: 3px 6px; min-height: 20px; }}
QLineEdit:focus, QComboBox:focus {{ border: 1px solid {ACCENT.name()}; }}
QSpinBox, QDoubleSpinBox {{ min-height: 24px; }}
QListView, QTreeView, QTableView {{ background: {panel}; border: none; }}
QGroupBox {{ border: 1px solid {border}; border-radius: 6px; margin-top: 14px; padding-top: 6px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; color: {muted}; }}
QLabel#sectionTitle {{ color: {muted}; font-weight: 600; text-transform: uppercase; }}
QLabel#errorLabel {{ color: {INVALID.name()}; }}
QPushButton {{ padding: 5px 12px; border: 1px solid {border}; border-radius: 5px;
               background: {panel}; }}
QPushButton:hover {{ border-color: {ACCENT.name()}; }}
QPushButton:default {{ background: {ACCENT.name()}; color: white; border-color: {ACCENT.name()}; }}
QTabBar::tab {{ padding: 6px 12px; }}
QMenu::item:selected {{ background: {ACCENT.name()}; color: white; }}
"""
