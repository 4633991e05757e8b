"""The cost book in use by the designer: the default book with the user's override file
(Edit > Preferences > Cost book) merged over it, remembered in QSettings.

One collaborator object on the main window (``window.costs``); the Analysis dock, Compare
fabrics, the cable plan and the proposal read ``costs.book`` and follow ``changed``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QSettings, Signal

from fabricstudio.formats.costbook import CostBookError, load_cost_book
from fabricstudio.model.costbook import CostBook

#: QSettings key of the override file ('' = defaults only).
SETTINGS_KEY = "costBookPath"


class CostBookSetting(QObject):
    """The cost book in use and the override file it came from."""

    #: Emitted with the new CostBook after the override file changed.
    changed = Signal(object)

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.problem = ""
        path = str(settings.value(SETTINGS_KEY, "") or "")
        try:
            self.book: CostBook = load_cost_book(path or None)
            self.path = path
        except CostBookError as exc:  # the remembered file went away or broke
            self.problem = f"Cost book not used: {exc}"
            self.book = load_cost_book(None)
            self.path = ""

    def set_path(self, path: str) -> CostBook:
        """Use the override file ``path`` ('' = defaults only); CostBookError (one line) when
        it cannot be used, and then nothing changes."""
        book = load_cost_book(path or None)
        self.book, self.path, self.problem = book, path, ""
        self.settings.setValue(SETTINGS_KEY, path)
        self.changed.emit(book)
        return book

    @property
    def description(self) -> str:
        """'default cost book' or 'default cost book + quote.json'."""
        from pathlib import Path

        return "default cost book" + (f" + {Path(self.path).name}" if self.path else "")
