"""Elements marked failed in the designer ("what if spine1 dies?").

A right click on links or devices offers *Mark failed (what-if)*: the marks are not part of
the design (they are not saved and not undone with edits), they are a question asked of it.
The Analysis dock then analyses the fabric without them, and the next run starts with them
down (``RunRequest.failures``).  :class:`FailureLayer` draws them on the canvas, and during a
run it draws the run's failures as they happen (``show_run_state``).
"""

from __future__ import annotations

from collections.abc import Sequence

import shiboken6
from PySide6.QtCore import QLineF, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from fabricstudio.model import Design
from fabricstudio.model.failures import Failure, failed_elements, marked
from fabricstudio.sim.failure_timeline import FailureState
from fabricstudio.ui.model_signals import ModelSignals

#: Colour of a failed element (down: traffic into it is lost) and of one routed around.
DOWN_COLOUR = QColor("#E0312B")
REROUTED_COLOUR = QColor("#F08C00")
CROSS = 7.0  # half size of the cross on a failed cable (scene units)


class FailureMarks(QObject):
    """The ids of the links and devices marked failed on one design."""

    #: Emitted whenever the marks change.
    changed = Signal()

    def __init__(self, design: Design, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.design = design
        self.links: list[str] = []
        self.devices: list[str] = []
        self.model_signals = ModelSignals(self)
        self.model_signals.connect(design.changed, self._prune)
        self.model_signals.connect(design.reset, self.clear)

    def __bool__(self) -> bool:
        return bool(self.links or self.devices)

    def mark(self, links: Sequence[str] = (), devices: Sequence[str] = ()) -> int:
        """Mark links and devices failed; returns how many were not marked yet."""
        new_links = [lk for lk in links if lk in self.design.links and lk not in self.links]
        new_devices = [d for d in devices if d in self.design.devices and d not in self.devices]
        self.links += new_links
        self.devices += new_devices
        if new_links or new_devices:
            self.changed.emit()
        return len(new_links) + len(new_devices)

    def repair(self, links: Sequence[str] = (), devices: Sequence[str] = ()) -> int:
        """Unmark links and devices; returns how many were marked."""
        gone_links, gone_devices = set(links) & set(self.links), set(devices) & set(self.devices)
        self.links = [lk for lk in self.links if lk not in gone_links]
        self.devices = [d for d in self.devices if d not in gone_devices]
        if gone_links or gone_devices:
            self.changed.emit()
        return len(gone_links) + len(gone_devices)

    def clear(self) -> None:
        """Unmark everything."""
        if self:
            self.links, self.devices = [], []
            self.changed.emit()

    def failures(self) -> list[Failure]:
        """The marks as failures down from the start, never repaired."""
        return marked(self.links, self.devices)

    def state(self) -> FailureState:
        """The marks as a FailureState: every element down, a device with its cables."""
        failures = self.failures()
        links = failed_elements(self.design, failures).down_links(self.design)
        return FailureState(dict.fromkeys(links, "down"), dict.fromkeys(self.devices, "down"),
                            tuple(f.label for f in failures))

    def describe(self) -> str:
        """``spine1, leaf2-spine1`` (at most four names, then a count)."""
        names = self.devices + self.links
        text = ", ".join(names[:4])
        return text + (f" and {len(names) - 4} more" if len(names) > 4 else "")

    def _prune(self) -> None:
        """Forget marks on elements the design no longer has (deleted, undone)."""
        links = [lk for lk in self.links if lk in self.design.links]
        devices = [d for d in self.devices if d in self.design.devices]
        if links != self.links or devices != self.devices:
            self.links, self.devices = links, devices
            self.changed.emit()


class FailureLayer(QGraphicsItem):
    """Draws failed cables (a red dashed line with a cross, above the simulation overlay)
    or failed devices (a red frame with a cross, above the device tiles); orange once the
    fabric has routed around them."""

    def __init__(self, scene, part: str = "links") -> None:
        super().__init__()
        self._scene = scene
        self.part = part
        self.state = FailureState({}, {}, ())
        self._bounds = QRectF()
        self.setZValue(7 if part == "links" else 11)  # links 1, overlay 5, devices 10
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        scene.addItem(self)

    def show_state(self, state: FailureState) -> None:
        """Draw ``state`` (what is down, and how)."""
        self.state = state
        self.refresh()

    def refresh(self) -> None:
        """Re-read positions (devices moved) and repaint."""
        rect = QRectF()
        items = (self._scene.link_items if self.part == "links" else self._scene.device_items)
        for element in self._elements():
            item = items.get(element)
            if item is not None:
                rect = rect.united(item.sceneBoundingRect())
        self.prepareGeometryChange()
        self._bounds = rect.adjusted(-40, -40, 40, 40) if not rect.isNull() else QRectF()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option, widget=None) -> None:  # noqa: D102
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self.part == "links":
            for link_id, how in self.state.links.items():
                item = self._scene.link_items.get(link_id)
                if item is not None and item.isVisible():
                    self._paint_link(painter, item.line(), _colour(how))
            return
        for device_id, how in self.state.devices.items():
            item = self._scene.device_items.get(device_id)
            if item is not None and item.isVisible():
                self._paint_device(painter, item.sceneBoundingRect(), _colour(how))

    def _elements(self) -> dict[str, str]:
        return self.state.links if self.part == "links" else self.state.devices

    @staticmethod
    def _paint_link(painter: QPainter, line: QLineF, colour: QColor) -> None:
        pen = QPen(colour, 2.5, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawLine(line)
        mid = line.center()
        _cross(painter, mid, CROSS, colour)

    @staticmethod
    def _paint_device(painter: QPainter, rect: QRectF, colour: QColor) -> None:
        pen = QPen(colour, 3.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect.adjusted(-3, -3, 3, 3), 6, 6)
        _cross(painter, rect.center(), min(rect.width(), rect.height()) * 0.35, colour)
        font = QFont()
        font.setPixelSize(11)
        font.setBold(True)
        painter.setFont(font)
        label = QRectF(rect.left(), rect.top() - 16, rect.width(), 14)
        painter.setPen(colour)
        painter.drawText(label, Qt.AlignmentFlag.AlignCenter, "FAILED")


def _colour(how: str) -> QColor:
    return REROUTED_COLOUR if how == "rerouted" else DOWN_COLOUR


def _cross(painter: QPainter, at: QPointF, size: float, colour: QColor) -> None:
    painter.setBrush(QBrush(QColor("white")))
    pen = QPen(colour, 3.0)
    pen.setCosmetic(True)
    painter.setPen(pen)
    painter.drawLine(QLineF(at.x() - size, at.y() - size, at.x() + size, at.y() + size))
    painter.drawLine(QLineF(at.x() - size, at.y() + size, at.x() + size, at.y() - size))


def layer_of(scene, layer: FailureLayer | None, part: str) -> FailureLayer:
    """``layer``, or a new one when the scene dropped it (a rebuild clears every item)."""
    if layer is None or not shiboken6.isValid(layer) or layer.scene() is not scene:
        return FailureLayer(scene, part)
    return layer
