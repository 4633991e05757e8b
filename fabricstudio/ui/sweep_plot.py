"""The Pareto plot of a sweep: every point (grey), the Pareto front (joined, coloured by
technology when the sweep varies it), axes named with units.  One pyqtgraph plot serves the
GUI's Sweep dock and the PNG / SVG files of ``fabricstudio sweep --plot``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt

from fabricstudio.sim.sweep.results import KPIS, axis_label, pareto_front

POINT_COLOUR = (150, 150, 160)
FRONT_COLOUR = (230, 90, 40)
#: Colours of the points by technology (others grey).
TECH_COLOURS = {"infiniband": (76, 114, 176), "roce": (85, 168, 104), "ethernet": (196, 78, 82)}


def fill_plot(plot: pg.PlotItem, rows: Sequence[dict[str, Any]], x: str, y: str,
              title: str = "") -> list[int]:
    """Draw the sweep ``rows`` on ``plot`` (cleared first); returns the front's indices."""
    plot.clear()
    plot.addLegend(offset=(-10, 10))
    for side, key in (("bottom", x), ("left", y)):
        axis = plot.getAxis(side)
        if KPIS.get(key) is not None and KPIS[key].unit == "s":  # µs / ms ticks
            axis.enableAutoSIPrefix(True)
            plot.setLabel(side, KPIS[key].label, units="s")
        else:
            axis.enableAutoSIPrefix(False)
            plot.setLabel(side, axis_label(key))
    plot.getAxis("bottom").setHeight(48)
    plot.showGrid(x=True, y=True, alpha=0.25)
    if title:
        plot.setTitle(title)
    usable = [i for i, r in enumerate(rows) if _num(r.get(x)) and _num(r.get(y))]
    groups: dict[str, list[int]] = {}
    for i in usable:
        groups.setdefault(str(rows[i].get("technology") or ""), []).append(i)
    for tech, indices in sorted(groups.items()):
        colour = TECH_COLOURS.get(tech, POINT_COLOUR)
        plot.addItem(pg.ScatterPlotItem(
            [float(rows[i][x]) for i in indices], [float(rows[i][y]) for i in indices],
            size=9, pen=pg.mkPen(40, 40, 40, 120), brush=pg.mkBrush(*colour, 170),
            name=tech or "points"))
    front = pareto_front(rows, x, y)
    if front:
        plot.addItem(pg.PlotDataItem(
            [float(rows[i][x]) for i in front], [float(rows[i][y]) for i in front],
            pen=pg.mkPen(FRONT_COLOUR, width=2), symbol="o", symbolSize=12,
            symbolBrush=None, symbolPen=pg.mkPen(FRONT_COLOUR, width=2),
            name=f"Pareto front ({len(front)})"))
    return front


def render_pareto(rows: Sequence[dict[str, Any]], x: str, y: str, path: str | os.PathLike[str],
                  *, title: str = "", inputs: Sequence[str | os.PathLike[str]] = (),
                  force: bool = False, size: tuple[int, int] = (900, 600)) -> list[int]:
    """Write the Pareto plot as PNG or SVG (by suffix) through the safe writer; returns the
    front's indices."""
    import pyqtgraph.exporters as exporters

    from fabricstudio.formats import write_output
    from fabricstudio.ui.app import ensure_app

    app = ensure_app()
    widget = pg.PlotWidget(background="w")
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)  # laid out, never seen
    widget.resize(*size)
    widget.show()
    plot = widget.getPlotItem()
    for side in ("bottom", "left"):  # dark text on the white page, whatever the GUI theme
        plot.getAxis(side).setPen("k")
        plot.getAxis(side).setTextPen("k")
    front = fill_plot(plot, rows, x, y, title)
    if plot.legend is not None:
        plot.legend.setLabelTextColor("k")
        plot.legend.setBrush(pg.mkBrush(255, 255, 255, 210))
    if title:
        plot.setTitle(title, color="k")
    app.processEvents()  # the plot's layout at this size
    kind = os.fspath(path).lower().rsplit(".", 1)[-1]
    try:
        if kind == "svg":
            data = _svg(widget, size)
        elif kind == "png":
            exporter = exporters.ImageExporter(widget.getPlotItem())
            exporter.parameters()["width"] = size[0]
            image = exporter.export(toBytes=True)
            data: bytes = _png(image)
        else:
            raise ValueError(f"{path}: the plot is written as .png or .svg")
    finally:
        widget.hide()
        widget.deleteLater()
    write_output(path, data, inputs=inputs, force=force)
    return front


def _svg(widget: pg.PlotWidget, size: tuple[int, int]) -> bytes:
    """The plot as vector SVG (QSvgGenerator: pyqtgraph's own SVG exporter trips over the
    coordinates this Qt writes)."""
    from PySide6.QtCore import QRectF, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(*size))
    generator.setViewBox(QRectF(0, 0, *size))
    generator.setTitle("FabricStudio sweep: Pareto front")
    painter = QPainter()
    if not painter.begin(generator):
        raise ValueError("could not draw the SVG")
    widget.scene().render(painter, QRectF(0, 0, *size), widget.sceneRect())
    painter.end()
    buffer.close()
    return bytes(array.data())


def _png(image) -> bytes:
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(array.data())


def _num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
