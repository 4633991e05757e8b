"""A device drawn on the canvas: a rounded box coloured by kind, with its label."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from fabricstudio.model import Device, DeviceKind

#: Fill colour per device kind (Okabe-Ito based, colour-blind safe).
KIND_COLOURS = {
    DeviceKind.GPU_SERVER: QColor("#009E73"),
    DeviceKind.STORAGE_SERVER: QColor("#CC79A7"),
    DeviceKind.LEAF: QColor("#0072B2"),
    DeviceKind.SPINE: QColor("#56B4E9"),
    DeviceKind.CORE: QColor("#E69F00"),
    DeviceKind.MGMT_SWITCH: QColor("#999999"),
}
KIND_SHORT = {
    DeviceKind.GPU_SERVER: "GPU", DeviceKind.STORAGE_SERVER: "STOR", DeviceKind.LEAF: "LEAF",
    DeviceKind.SPINE: "SPINE", DeviceKind.CORE: "CORE", DeviceKind.MGMT_SWITCH: "MGMT",
}
WIDTH, HEIGHT = 64.0, 36.0


class DeviceItem(QGraphicsItem):
    """Canvas item of one device; knows only its device value, never the Design."""

    def __init__(self, device: Device) -> None:
        super().__init__()
        self.device_id = device.id
        self._device = device
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(10)
        self.set_device(device)

    def set_device(self, device: Device) -> None:
        """Show a new value of the device (no-op if unchanged)."""
        if device == self._device and self.toolTip():
            return
        self._device = device
        self.setPos(device.x, device.y)
        self.setToolTip(_tooltip(device))
        self.update()

    @property
    def device(self) -> Device:
        """The device value currently shown."""
        return self._device

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return QRectF(-WIDTH / 2 - 2, -HEIGHT / 2 - 2, WIDTH + 4, HEIGHT + 18)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        kind = DeviceKind(self._device.kind)
        colour = KIND_COLOURS[kind]
        rect = QRectF(-WIDTH / 2, -HEIGHT / 2, WIDTH, HEIGHT)
        pen = QPen(QColor("#FFD54F") if self.isSelected() else colour.darker(160),
                   3 if self.isSelected() else 1.2)
        painter.setPen(pen)
        painter.setBrush(QBrush(colour))
        painter.drawRoundedRect(rect, 6, 6)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if lod < 0.35:
            return
        painter.setPen(QColor("white"))
        font = QFont()
        font.setPixelSize(10)
        font.setBold(True)
        painter.setFont(font)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, KIND_SHORT[kind])
        painter.setPen(QColor("#202020"))
        font.setBold(False)
        painter.setFont(font)
        painter.drawText(QRectF(-WIDTH, HEIGHT / 2, 2 * WIDTH, 14),
                         Qt.AlignmentFlag.AlignCenter, self._device.label)


def _tooltip(device: Device) -> str:
    kind = DeviceKind(device.kind)
    lines = [f"<b>{device.label}</b> ({kind.value})"]
    if kind is DeviceKind.GPU_SERVER:
        lines.append(f"{device.gpus} GPUs, {device.nics} x {device.nic_speed_gbps:g} Gb/s NICs")
    elif device.is_switch:
        lines.append(f"{device.radix} ports x {device.port_speed_gbps:g} Gb/s")
    return "<br>".join(lines)
