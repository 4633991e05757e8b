"""Export a moment: the canvas at simulated time T with the animation state and the legend."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene

from fabricstudio.model import Design
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.ui.simview.controls import format_time
from fabricstudio.ui.simview.overlay import SimOverlay
from fabricstudio.ui.simview.style import LEGEND_SIZE, paint_legend

MARGIN = 40.0
MAX_PIXELS = 16_000


def content_rect(scene: QGraphicsScene) -> QRectF:
    """Scene area of the design's devices and links plus a margin (the overlay ignored)."""
    rect = QRectF()
    for items in (getattr(scene, "device_items", {}), getattr(scene, "link_items", {})):
        for item in items.values():
            rect = rect.united(item.sceneBoundingRect())
    if rect.isNull():
        rect = scene.itemsBoundingRect()
    return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)


def render_scene_image(scene: QGraphicsScene, caption: str = "", legend: bool = True,
                       scale: float = 2.0) -> QImage:
    """The whole scene on white at ``scale`` pixels per scene unit, legend at the top right."""
    rect = content_rect(scene)
    legend_w, legend_h = LEGEND_SIZE
    extra = (legend_w + 20) if legend else 0.0
    scale = min(scale, MAX_PIXELS / max(rect.width() * 1.0 + extra, rect.height(), 1.0))
    width = int(rect.width() * scale + extra)
    height = int(max(rect.height() * scale, legend_h + 20 if legend else 0))
    image = QImage(max(width, 1), max(height, 1), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    target = QRectF(0, 0, rect.width() * scale, rect.height() * scale)
    scene.render(painter, target, rect, Qt.AspectRatioMode.KeepAspectRatio)
    if legend:
        paint_legend(painter, QRectF(width - legend_w - 10, 10, legend_w, legend_h), caption)
    painter.end()
    return image


def moment_caption(t: float, label: str = "") -> str:
    """Legend caption of a moment, e.g. ``t = 12.00 µs · RoCE + DCQCN``."""
    return f"t = {format_time(t)}" + (f" · {label}" if label else "")


def export_moment(design: Design, stream: MetricStream, t: float, path: str | Path,
                  label: str = "", scale: float = 2.0) -> QImage:
    """Render ``design`` at simulated time ``t`` of ``stream`` to a PNG (needs a QApplication)."""
    from fabricstudio.topology.layout import auto_layout, needs_layout
    from fabricstudio.ui.canvas.scene import FabricScene

    design = design.copy()
    if needs_layout(design):
        design.move_devices(auto_layout(list(design.devices.values())))
    scene = FabricScene(design)
    overlay = SimOverlay(scene, design)
    overlay.bind(stream.links)
    frame = stream.frame_at(t)
    overlay.apply_frame(frame)
    shown = frame.t if frame is not None else t
    image = render_scene_image(scene, moment_caption(shown, label), scale=scale)
    save_png(image, path)
    scene.detach()
    return image


def save_png(image: QImage, path: str | Path) -> None:
    """Write ``image`` as PNG; OSError with the path when it cannot be written."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    from fabricstudio.formats.design_file import atomic_write_bytes

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OSError(f"could not encode the PNG for {path}")
    buffer.close()
    atomic_write_bytes(Path(path), bytes(data.data()))
