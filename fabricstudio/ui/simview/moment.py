"""Export a moment: the canvas at simulated time T with the animation state and the legend."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from fabricstudio.model import Design
from fabricstudio.model.units import format_time
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.simview.overlay import SimOverlay
from fabricstudio.ui.simview.style import legend_size, paint_legend


def render_scene_image(scene: FabricScene, caption: str = "", legend: bool = True,
                       scale: float = 2.0, background: str = "theme",
                       flow: bool = False) -> QImage:
    """The design drawn by the designer's exporter (the overlay included, being a scene item),
    with the simulation legend in a column on the right."""
    from fabricstudio.ui.export import ExportOptions, render_image

    base = render_image(scene, ExportOptions(scale=scale, background=background, legend=False))
    if not legend:
        return base
    legend_w, legend_h = legend_size(gpus=False, flow=flow)
    width = base.width() + round((legend_w + 20) * scale)
    height = max(base.height(), round((legend_h + 20) * scale))
    image = QImage(width, height, QImage.Format.Format_ARGB32_Premultiplied)
    theme = scene.theme
    dark = theme.dark and background == "theme"
    image.fill(theme.canvas if dark else QColor("white"))
    painter = QPainter(image)
    try:
        painter.drawImage(0, (height - base.height()) // 2, base)
        painter.scale(scale, scale)
        paint_legend(painter, QRectF(base.width() / scale + 10, 10, legend_w, legend_h),
                     caption, dark=dark, gpus=False, flow=flow)
    finally:
        painter.end()
    return image


def moment_caption(t: float, label: str = "") -> str:
    """Legend caption of a moment, e.g. ``t = 12.00 µs · RoCE + DCQCN``."""
    return f"t = {format_time(t)}" + (f" · {label}" if label else "")


def export_moment(design: Design, stream: MetricStream, t: float, path: str | Path,
                  label: str = "", scale: float = 2.0, *, inputs: tuple[str, ...] = (),
                  force: bool = False) -> QImage:
    """Render ``design`` at simulated time ``t`` of ``stream`` to a PNG (needs a QApplication)."""
    from fabricstudio.topology.layout import design_layout, needs_layout

    design = design.copy()
    if needs_layout(design):
        design.move_devices(design_layout(design))
    scene = FabricScene(design)
    overlay = SimOverlay(scene, design)
    overlay.bind(stream.links, stream.fabric)
    frame = stream.frame_at(t)
    overlay.apply_frame(frame)
    shown = frame.t if frame is not None else t
    try:
        image = render_scene_image(scene, moment_caption(shown, label), scale=scale,
                                   flow=stream.engine == "flow")
        save_png(image, path, inputs=inputs, force=force)
    finally:
        scene.detach()
    return image


def save_png(image: QImage, path: str | Path, *, inputs: tuple[str, ...] = (),
             force: bool = False) -> None:
    """Write ``image`` as PNG through :func:`~fabricstudio.formats.output.write_output`
    (ValueError with the path when it cannot be encoded or written)."""
    from fabricstudio.formats import write_output
    from fabricstudio.ui.export import png_bytes

    write_output(path, png_bytes(image), inputs=inputs, force=force)
