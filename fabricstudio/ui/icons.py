"""Icons from fabricstudio/resources: SVG glyphs per device kind, rendered crisply at any size.

Resources are read with importlib.resources, so they load from an installed wheel as well as
from a checkout.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from fabricstudio.model import DeviceKind
from fabricstudio.ui.theme import KIND_COLOURS


def resource_bytes(name: str) -> bytes:
    """Bytes of ``fabricstudio/resources/<name>``."""
    return resources.files("fabricstudio").joinpath("resources", name).read_bytes()


@cache
def svg_renderer(name: str) -> QSvgRenderer:
    """A cached renderer for ``resources/icons/<name>.svg``."""
    renderer = QSvgRenderer(QByteArray(resource_bytes(f"icons/{name}.svg")))
    if not renderer.isValid():
        raise ValueError(f"icon {name!r} is not a valid SVG")
    return renderer


def kind_glyph(kind: DeviceKind) -> QSvgRenderer:
    """White glyph of a device kind."""
    return svg_renderer(DeviceKind(kind).value)


_GLYPHS: dict[tuple[str, int], QPixmap] = {}


def glyph_pixmap(kind: DeviceKind, pixels: float) -> QPixmap:
    """The kind's white glyph as a pixmap of at least ``pixels`` (rounded up to a power of
    two, 8 to 256): drawing a cached pixmap is far cheaper than rendering the SVG per item."""
    size = 8
    while size < pixels and size < 256:
        size *= 2
    key = (DeviceKind(kind).value, size)
    pixmap = _GLYPHS.get(key)
    if pixmap is None:
        pixmap = QPixmap(size, size)
        pixmap.fill(QColor(0, 0, 0, 0))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        kind_glyph(kind).render(painter, QRectF(0, 0, size, size))
        painter.end()
        _GLYPHS[key] = pixmap
    return pixmap


def paint_kind_tile(painter: QPainter, rect: QRectF, kind: DeviceKind, radius: float = 8.0) -> None:
    """A rounded tile in the kind's colour with its white glyph (palette, legend, canvas)."""
    colour = KIND_COLOURS[DeviceKind(kind)]
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawRoundedRect(rect, radius, radius)
    inset = rect.width() * 0.2
    kind_glyph(kind).render(painter, rect.adjusted(inset, inset, -inset, -inset))


def kind_pixmap(kind: DeviceKind, size: int = 40, ratio: float = 2.0) -> QPixmap:
    """A high-DPI pixmap of the kind's tile."""
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    paint_kind_tile(painter, QRectF(1, 1, size - 2, size - 2), kind, size * 0.2)
    painter.end()
    return pixmap


def unit_pixmap(unit_type: str, size: int = 40, ratio: float = 2.0) -> QPixmap:
    """A palette unit's picture: a frame around small tiles (leaves over servers for a
    scalable unit; servers under a top-of-rack leaf for a rack)."""
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    frame = QColor(KIND_COLOURS[DeviceKind.GPU_SERVER])
    painter.setPen(frame)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(QRectF(1.5, 1.5, size - 3, size - 3), size * 0.18, size * 0.18)
    cell = size * 0.22
    gap = size * 0.06
    top = [DeviceKind.LEAF] * (3 if unit_type == "scalable_unit" else 1)
    rows = (top, [DeviceKind.GPU_SERVER] * 3, [DeviceKind.GPU_SERVER] * 3)
    y = size * 0.13
    for row in rows:
        x = (size - len(row) * cell - (len(row) - 1) * gap) / 2
        for kind in row:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(KIND_COLOURS[kind])
            painter.drawRoundedRect(QRectF(x, y, cell, cell), cell * 0.25, cell * 0.25)
            x += cell + gap
        y += cell + gap
    painter.end()
    return pixmap


def app_icon() -> QIcon:
    """The application icon."""
    renderer = svg_renderer("app")
    pixmap = QPixmap(128, 128)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    renderer.render(painter)
    painter.end()
    return QIcon(pixmap)


def action_icon(name: str, colour: QColor, size: int = 20) -> QIcon:
    """A toolbar icon from ``resources/actions/<name>.svg`` drawn in ``colour`` (the SVGs use
    currentColor, replaced here so each theme gets crisp icons in its own text colour); white
    when a checkable action is on (it sits on the accent colour)."""
    svg = resource_bytes(f"actions/{name}.svg").decode()
    icon = QIcon()
    for state, fill in ((QIcon.State.Off, colour), (QIcon.State.On, QColor("white"))):
        renderer = QSvgRenderer(QByteArray(svg.replace("currentColor", fill.name()).encode()))
        if not renderer.isValid():
            raise ValueError(f"action icon {name!r} is not a valid SVG")
        for ratio in (1, 2):
            pixmap = QPixmap(size * ratio, size * ratio)
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(QColor(0, 0, 0, 0))
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            renderer.render(painter, QRectF(0, 0, size, size))
            painter.end()
            icon.addPixmap(pixmap, QIcon.Mode.Normal, state)
    return icon
