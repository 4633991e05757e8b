"""PNG and SVG export of the whole design or the selection, with an optional legend.

SVG uses QSvgGenerator from QtSvg, which ships in PySide6-Essentials (no Addons needed).
Item caching is switched off while rendering so SVG output stays vector, not pixmaps.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsItem

from fabricstudio.formats import write_output
from fabricstudio.model import Design
from fabricstudio.model.text import printable
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.legend import legend_entries, legend_size, paint_legend

MARGIN = 40.0
MAX_PIXELS = 400_000_000
LEGEND_GAP = 20.0
#: Longest side of a PNG exported without --scale or --width (Preferences > Export): 8,192 px
#: stays within what image viewers, mail systems and Qt's own reader (256 MB allocation limit,
#: 4 bytes a pixel) open.
DEFAULT_LONGEST_SIDE = 8192
#: Largest automatic scale: 2 px per canvas unit is crisp on any screen.
MAX_AUTO_SCALE = 2.0
#: In an export a group folds when its members would be smaller than this (px each): below
#: it devices lose their names, so a labelled tile reads better.
EXPORT_MEMBER_PX = 58.0
#: Largest SVG written.  Measured: ~5 KB per device (tile, glyph, label) and 450-800 B per
#: link (65,536-GPU rail fabric: 221 MB, 2 GB of memory, 2 minutes); QSvgGenerator holds the
#: whole document (and more) in memory, so a 300,000-device design (~1.5 GB of SVG) aborted
#: inside Qt with bad_alloc and left an empty file.
MAX_SVG_BYTES = 256 * 2**20
SVG_BYTES_PER_DEVICE = 5_000
SVG_BYTES_PER_LINK = 800
#: Room around device centres for the tile and its label, and for the legend column.
_ITEM_REACH = 60.0
_LEGEND_ROOM = 400.0


class ExportError(ValueError):
    """The export could not be written; the message says why."""


def svg_estimate(devices: int, links: int) -> int:
    """Approximate size in bytes of the SVG of a design with these counts."""
    return devices * SVG_BYTES_PER_DEVICE + links * SVG_BYTES_PER_LINK


def check_svg_size(devices: int, links: int) -> None:
    """ExportError, before anything is drawn, when the SVG would exceed MAX_SVG_BYTES."""
    size = svg_estimate(devices, links)
    if size > MAX_SVG_BYTES:
        raise ExportError(f"an SVG of {devices:,} devices and {links:,} links would need about "
                          f"{size / 2**20:,.0f} MiB (the limit is {MAX_SVG_BYTES / 2**20:.0f} "
                          "MiB); export a selection, or a PNG")


def png_estimate(design: Design, scale: float) -> tuple[int, int]:
    """Approximate pixel size of a PNG export of the whole ``design`` at ``scale``."""
    xs = [d.x for d in design.devices.values()] or [0.0]
    ys = [d.y for d in design.devices.values()] or [0.0]
    reach = 2 * (_ITEM_REACH + MARGIN)
    width = (max(xs) - min(xs) + reach + _LEGEND_ROOM) * scale
    height = (max(ys) - min(ys) + reach) * scale
    return max(1, round(width)), max(1, round(height))


def check_png_size(width: int, height: int, scale: float) -> None:
    """ExportError when a ``width`` x ``height`` PNG exceeds MAX_PIXELS (with the memory it
    would need and a scale that fits)."""
    if width * height <= MAX_PIXELS:
        return
    fits = scale * (MAX_PIXELS / (width * height)) ** 0.5
    memory = width * height * 4 / 2**20
    raise ExportError(f"a {width:,} x {height:,} px PNG would need {memory:,.0f} MiB of memory "
                      f"(the limit is {MAX_PIXELS / 1e6:.0f} million pixels); use a scale of "
                      f"{fits:.2g} or less")


def preflight(design: Design, png_scale: float | None = None, svg: bool = False) -> None:
    """Refuse, before a scene is built, exports of ``design`` that are too large to draw."""
    if svg:
        check_svg_size(len(design.devices), len(design.links))
    if png_scale is not None:
        check_png_size(*png_estimate(design, png_scale), png_scale)


@dataclass(frozen=True)
class ExportOptions:
    """What to export and how.  ``scale`` (px per canvas unit) or ``width`` (px) fix the size;
    with neither, the scale is picked from the design's size so that the longest side is at
    most ``longest_side`` px (and at most 2 px per unit)."""

    scale: float | None = None
    background: str = "theme"  # 'theme', 'white' or 'transparent'
    legend: bool = True
    selection_only: bool = False
    width: int | None = None
    longest_side: int = DEFAULT_LONGEST_SIDE


def export_rect(scene: FabricScene, selection_only: bool = False) -> QRectF:
    """Scene area to export: visible devices (or the selected ones) plus a margin."""
    rect = scene.content_rect(selection_only)
    if rect.isEmpty():
        raise ExportError("nothing to export" + (" (no device selected)" if selection_only else ""))
    return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)


def _legend(scene: FabricScene):
    rails = scene.rails() if scene.colour_by == "rail" else None
    return legend_entries(scene.design, scene.colour_by, frozenset(scene.hidden_planes), rails)


def page_size(scene: FabricScene, rect: QRectF, options: ExportOptions) -> QSizeF:
    """Size (scene units) of the picture: the drawing plus a legend column on its right."""
    width, height = rect.width(), rect.height()
    if options.legend:
        sections = _legend(scene)
        if sections:
            legend = legend_size(sections)
            width += legend.width() + LEGEND_GAP
            height = max(height, legend.height() + 2 * LEGEND_GAP)
    return QSizeF(width, height)


def export_scale(page: QSizeF, options: ExportOptions) -> float:
    """Pixels per canvas unit: the given scale or width, else the automatic one."""
    if options.width is not None:
        return options.width / page.width()
    if options.scale is not None:
        return options.scale
    longest = max(page.width(), page.height(), 1.0)
    return min(MAX_AUTO_SCALE, options.longest_side / longest)


def _pixels(page: QSizeF, scale: float) -> QSize:
    return QSize(max(1, round(page.width() * scale)), max(1, round(page.height() * scale)))


def output_size(scene: FabricScene, options: ExportOptions) -> QSize:
    """Pixel size of a PNG export: (drawing + legend) x scale."""
    page = page_size(scene, export_rect(scene, options.selection_only), options)
    return _pixels(page, export_scale(page, options))


def estimate_png_bytes(scene: FabricScene, options: ExportOptions) -> int:
    """About how large the PNG will be: a 3 x 3 grid of 512-px samples of the drawing is
    rendered at the export's scale and encoded, and their bytes per pixel are applied to the
    whole picture (on the examples within about 30 %)."""
    rect = export_rect(scene, options.selection_only)
    page = page_size(scene, rect, options)
    scale = export_scale(page, options)
    full = _pixels(page, scale)
    side = SAMPLE_PX / scale  # a sample's size in scene units
    samples = []
    for fy in (1 / 6, 1 / 2, 5 / 6):
        for fx in (1 / 6, 1 / 2, 5 / 6):
            centre = QPointF(rect.left() + fx * rect.width(), rect.top() + fy * rect.height())
            box = QRectF(centre.x() - side / 2, centre.y() - side / 2, side, side)
            samples.append(box.intersected(rect))
    encoded = pixels = 0
    background = _background(scene, options)
    with _prepared(scene, options, vector=False, fold_scale=scale):
        for box in samples:
            size = _pixels(box.size(), scale)
            image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
            image.fill(background if background.alpha() else QColor(0, 0, 0, 0))
            painter = QPainter(image)
            painter.setRenderHints(QPainter.RenderHint.Antialiasing
                                   | QPainter.RenderHint.TextAntialiasing)
            scene.render(painter, QRectF(0, 0, size.width(), size.height()), box)
            painter.end()
            encoded += len(png_bytes(image))
            pixels += size.width() * size.height()
    return round(encoded / max(pixels, 1) * full.width() * full.height())


#: Side of the samples the PNG size estimate renders (px).
SAMPLE_PX = 512


def _background(scene: FabricScene, options: ExportOptions) -> QColor:
    if options.background == "transparent":
        return QColor(0, 0, 0, 0)
    if options.background == "white":
        return QColor("white")
    return scene.theme.canvas


@contextmanager
def _prepared(scene: FabricScene, options: ExportOptions, vector: bool,
              fold_scale: float | None = None):
    """Fold groups as the export's scale asks (``fold_scale``: labels stay legible), hide what
    must not show (unselected items, selection marks, grid); restore after."""
    with scene.folded_for(fold_scale, EXPORT_MEMBER_PX), _hidden(scene, options, vector):
        yield


@contextmanager
def _hidden(scene: FabricScene, options: ExportOptions, vector: bool):
    selected = list(scene.selectedItems())
    hidden = []
    if options.selection_only:
        keep = set(scene.selected_device_ids())
        rep = scene.folding.rep
        kept_nodes = {rep.get(d, d) for d in keep}
        nodes: list[tuple[QGraphicsItem, str]] = [
            *((item, item.device_id) for item in scene.device_items.values()),
            *((item, item.group_id) for item in scene.group_items.values()),
            *((item, item.group_id) for item in scene.frame_items.values())]
        for item, node in nodes:
            if item.isVisible() and node not in kept_nodes:
                item.setVisible(False)
                hidden.append(item)
        for link_item in scene.links.all_items():
            link = link_item.link
            ends = (rep.get(link.a, link.a), rep.get(link.b, link.b))
            if link_item.isVisible() and not (ends[0] in kept_nodes and ends[1] in kept_nodes):
                link_item.setVisible(False)
                hidden.append(link_item)
    scene.clearSelection()
    cached = []
    if vector:
        for item in scene.device_items.values():
            cached.append((item, item.cacheMode()))
            item.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    batching = scene.batching
    scene.set_batching(False)  # exports draw every link antialiased at export scale
    fine = scene.fine_batching(False)  # and by itself (an SVG keeps one element per link)
    brush = scene.backgroundBrush()
    old_draw = scene.drawBackground
    scene.drawBackground = lambda painter, rect: None  # no grid in exports
    try:
        yield
    finally:
        scene.drawBackground = old_draw
        scene.set_batching(batching)
        scene.fine_batching(fine)
        scene.setBackgroundBrush(brush)
        for item, mode in cached:
            item.setCacheMode(mode)
        for item in hidden:
            item.setVisible(True)
        for item in selected:
            item.setSelected(True)


def _paint(scene: FabricScene, painter: QPainter, source: QRectF, options: ExportOptions,
           background: QColor) -> None:
    """Paint the page in scene-sized units (the painter is already scaled to the output)."""
    page = page_size(scene, source, options)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing
                           | QPainter.RenderHint.TextAntialiasing
                           | QPainter.RenderHint.SmoothPixmapTransform)
    if background.alpha():
        painter.fillRect(QRectF(0, 0, page.width(), page.height()), background)
    top = (page.height() - source.height()) / 2
    scene.render(painter, QRectF(0, top, source.width(), source.height()), source,
                 Qt.AspectRatioMode.KeepAspectRatio)
    if options.legend:
        sections = _legend(scene)
        if sections:
            size = legend_size(sections)
            corner = QPointF(source.width() + LEGEND_GAP * 0.25,
                             (page.height() - size.height()) / 2)
            paint_legend(painter, corner, sections, scene.theme)


def render_image(scene: FabricScene, options: ExportOptions = ExportOptions()) -> QImage:
    """The design (or the selection) as an image of :func:`output_size`."""
    return _render_rect(scene, export_rect(scene, options.selection_only), options)


def save_png(scene: FabricScene, path: str | Path, options: ExportOptions = ExportOptions(),
             *, inputs: tuple[str, ...] = (), force: bool = False) -> QSize:
    """Write a PNG (through :func:`~fabricstudio.formats.output.write_output`); returns its
    pixel size.  The rect is taken before anything is hidden."""
    image = render_image(scene, options)
    write_output(path, png_bytes(image), inputs=inputs, force=force)
    return image.size()


def png_bytes(image: QImage) -> bytes:
    """``image`` encoded as PNG; ExportError when Qt cannot encode it."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    ok = image.save(buffer, "PNG")
    buffer.close()
    if not ok:
        raise ExportError(f"could not encode a {image.width()} x {image.height()} px PNG")
    return bytes(data.data())


def _render_rect(scene: FabricScene, rect: QRectF, options: ExportOptions,
                 fold_scale: float | None = None) -> QImage:
    page = page_size(scene, rect, options)
    scale = export_scale(page, options)
    size = _pixels(page, scale)
    check_png_size(size.width(), size.height(), scale)
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(0, 0, 0, 0))
    with _prepared(scene, options, vector=False, fold_scale=fold_scale or scale):
        painter = QPainter(image)
        painter.scale(size.width() / page.width(), size.height() / page.height())
        _paint(scene, painter, rect, options, _background(scene, options))
        painter.end()
    return image


def paint_into(scene: FabricScene, painter: QPainter, target: QRectF,
               options: ExportOptions = ExportOptions(scale=1.0, background="white")) -> None:
    """Draw the design (and its legend) scaled to fit ``target`` of any painter, centred; on a
    PDF or SVG painter the drawing stays vector."""
    rect = export_rect(scene, options.selection_only)
    page = page_size(scene, rect, options)
    factor = min(target.width() / page.width(), target.height() / page.height())
    device = painter.device()
    fold = factor * 96.0 / device.logicalDpiX() if device and device.logicalDpiX() else factor
    with _prepared(scene, options, vector=True, fold_scale=fold):
        painter.save()
        painter.translate(target.x() + (target.width() - page.width() * factor) / 2,
                          target.y() + (target.height() - page.height() * factor) / 2)
        painter.scale(factor, factor)
        _paint(scene, painter, rect, options, _background(scene, options))
        painter.restore()


def save_svg(scene: FabricScene, path: str | Path, options: ExportOptions = ExportOptions(),
             *, inputs: tuple[str, ...] = (), force: bool = False) -> None:
    """Write an SVG of the design (vector: devices, links, labels and legend) through
    :func:`~fabricstudio.formats.output.write_output`."""
    rect = export_rect(scene, options.selection_only)
    if options.selection_only:
        devices = [i for i in scene.device_items.values() if i.isSelected()]
        check_svg_size(len(devices), len(scene.link_items))
    else:
        check_svg_size(len(scene.design.devices), len(scene.design.links))
    page = page_size(scene, rect, options)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(round(page.width()), round(page.height())))
    generator.setViewBox(QRectF(0, 0, page.width(), page.height()))
    generator.setTitle(printable(scene.design.name))
    generator.setDescription("FabricStudio design export")
    fold = export_scale(page, ExportOptions(longest_side=options.longest_side))
    with _prepared(scene, options, vector=True, fold_scale=fold):
        painter = QPainter()
        if not painter.begin(generator):
            raise ExportError(f"{path}: could not draw the SVG")
        _paint(scene, painter, rect, options, _background(scene, options))
        painter.end()
    buffer.close()
    write_output(path, bytes(data.data()), inputs=inputs, force=force)
