"""The palette dock: a searchable catalogue of device presets dragged onto the canvas with a
custom MIME type (Shift+drop asks how many, placed in a row)."""

from __future__ import annotations

import json
from functools import lru_cache

from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import QDrag, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import DeviceKind
from fabricstudio.ui.canvas.view import DEVICE_MIME
from fabricstudio.ui.icons import kind_pixmap, resource_bytes, unit_pixmap

ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
#: The ``kind`` of palette entries that place a whole unit (scalable unit, rack).
UNIT = "unit"


@lru_cache(maxsize=1)
def catalogue() -> tuple[dict, ...]:
    """Device presets from resources/catalogue.json."""
    entries = json.loads(resource_bytes("catalogue.json"))["entries"]
    for entry in entries:
        if entry["kind"] != UNIT:
            DeviceKind(entry["kind"])
    return tuple(entries)


def entry_pixmap(entry: dict, size: int) -> QPixmap:
    """The picture of a palette entry: a device kind's tile, or a unit's."""
    if entry["kind"] == UNIT:
        return unit_pixmap(entry["fields"]["type"], size)
    return kind_pixmap(DeviceKind(entry["kind"]), size)


def entry_mime(entry: dict) -> QMimeData:
    """The drag payload of a palette entry."""
    mime = QMimeData()
    mime.setData(DEVICE_MIME, json.dumps(entry).encode())
    return mime


class PaletteList(QListWidget):
    """List of presets whose drags carry :data:`DEVICE_MIME`."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setIconSize(QSize(34, 34))
        self.setSpacing(2)
        self.setUniformItemSizes(True)
        for entry in catalogue():
            item = QListWidgetItem(QIcon(entry_pixmap(entry, 34)),
                                   f"{entry['title']}\n{entry['subtitle']}")
            item.setData(ENTRY_ROLE, entry)
            item.setToolTip("Drag onto the canvas; hold Shift when dropping to place several.")
            self.addItem(item)

    def startDrag(self, actions) -> None:  # noqa: N802 - Qt override
        item = self.currentItem()
        if item is None:
            return
        entry = item.data(ENTRY_ROLE)
        drag = QDrag(self)
        drag.setMimeData(entry_mime(entry))
        drag.setPixmap(entry_pixmap(entry, 44))
        drag.setHotSpot(drag.pixmap().rect().center() / drag.pixmap().devicePixelRatio())
        drag.exec(Qt.DropAction.CopyAction)


class PalettePanel(QWidget):
    """Search box over the preset list."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.search = QLineEdit(placeholderText="Search devices…")
        self.search.setClearButtonEnabled(True)
        self.list = PaletteList()
        hint = QLabel("Drag onto the canvas · Shift+drop places several")
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        hint.setStyleSheet("color: palette(placeholder-text); font-size: 11px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(hint)
        self.search.textChanged.connect(self.filter)

    def filter(self, text: str) -> None:
        """Show only entries whose title, subtitle or kind contains every word of ``text``."""
        words = text.lower().split()
        for row in range(self.list.count()):
            item = self.list.item(row)
            entry = item.data(ENTRY_ROLE)
            haystack = f"{entry['title']} {entry['subtitle']} {entry['kind']}".lower()
            haystack = haystack.replace("_", " ")
            item.setHidden(not all(w in haystack for w in words))

    def visible_titles(self) -> list[str]:
        """Titles of the entries currently shown."""
        return [self.list.item(r).data(ENTRY_ROLE)["title"] for r in range(self.list.count())
                if not self.list.item(r).isHidden()]
