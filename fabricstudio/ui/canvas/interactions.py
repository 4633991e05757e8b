"""Gestures on the canvas as small objects (orange-canvas style), each cancellable with Esc."""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsLineItem

from fabricstudio.ui.canvas.items.device_item import DeviceItem
from fabricstudio.ui.theme import ACCENT, INVALID, VALID

#: Above this many devices, only the device under the cursor is highlighted while linking.
HIGHLIGHT_ALL_BELOW = 600


class NewLinkInteraction:
    """Drag from a device to another: a rubber line follows the cursor, valid ends light up
    green and invalid ones red (the status bar says why), release connects, Esc cancels."""

    def __init__(self, view, source: DeviceItem, scene_pos: QPointF) -> None:
        self.view = view
        self.scene = view.scene()
        self.editor = view.editor
        self.source = source
        self.target: DeviceItem | None = None
        self._verdicts: dict[str, object] = {}
        self.line = QGraphicsLineItem(QLineF(source.pos(), scene_pos))
        pen = QPen(ACCENT, 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.line.setPen(pen)
        self.line.setZValue(50)
        self.scene.addItem(self.line)
        source.set_feedback("source")
        if len(self.scene.device_items) < HIGHLIGHT_ALL_BELOW:
            for device_id, item in self.scene.device_items.items():
                if item is not source and item.isVisible():
                    item.set_feedback("valid" if self._verdict(device_id).valid else None)

    def _verdict(self, device_id: str):
        if device_id not in self._verdicts:
            self._verdicts[device_id] = self.editor.propose(self.source.device_id, device_id)
        return self._verdicts[device_id]

    def move(self, scene_pos: QPointF) -> None:
        """Follow the cursor; snap to a device under it and show whether it is a valid end."""
        target = self._device_at(scene_pos)
        if self.target is not None and self.target is not target:
            valid_before = self._verdict(self.target.device_id).valid
            self.target.set_feedback("valid" if valid_before and self._highlighting_all() else None)
        self.target = target
        pen = self.line.pen()
        if target is None:
            self.line.setLine(QLineF(self.source.pos(), scene_pos))
            pen.setColor(ACCENT)
            self.view.notify("Drag onto another device to connect (Esc cancels)")
        else:
            verdict = self._verdict(target.device_id)
            self.line.setLine(QLineF(self.source.pos(), target.pos()))
            pen.setColor(VALID if verdict.valid else INVALID)
            target.set_feedback("valid" if verdict.valid else "invalid")
            self.view.notify(("Connect " if verdict.valid else "Cannot connect: ")
                             + verdict.describe())
        self.line.setPen(pen)

    def _highlighting_all(self) -> bool:
        return len(self.scene.device_items) < HIGHLIGHT_ALL_BELOW

    def _device_at(self, scene_pos: QPointF) -> DeviceItem | None:
        for item in self.scene.items(scene_pos):
            if isinstance(item, DeviceItem) and item is not self.source and item.isVisible():
                return item
        return None

    def finish(self, scene_pos: QPointF) -> None:
        """Connect to the device under the cursor (refused with a reason if invalid)."""
        target = self._device_at(scene_pos)
        source_id = self.source.device_id
        self._clean_up()
        if target is None:
            self.view.notify("Link cancelled: released on empty canvas")
            return
        self.editor.connect(source_id, target.device_id)

    def cancel(self) -> None:
        """Abandon the gesture."""
        self._clean_up()
        self.view.notify("Link cancelled")

    def _clean_up(self) -> None:
        if self.line.scene() is not None:
            self.scene.removeItem(self.line)
        for item in self.scene.device_items.values():
            item.set_feedback(None)
