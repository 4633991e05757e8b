"""Colours and the legend of the simulation overlay (colour-blind-safe viridis ramp)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QLinearGradient,
    QPainter,
    QPen,
    QPolygonF,
)

#: Number of discrete utilisation colour bins (links are batched per bin when drawn).
BINS = 20
# viridis without its darkest fifth, so lightly used links stay visible on a dark canvas
_LUT = pg.colormap.get("viridis").getLookupTable(0.2, 1.0, BINS, alpha=False)
#: Colour of each utilisation bin, from idle (dark blue) to saturated (yellow).
RAMP = tuple(QColor(int(r), int(g), int(b)) for r, g, b in _LUT)
PAUSE_COLOUR = QColor("#D55E00")  # Okabe-Ito vermillion
ECN_COLOUR = QColor("#E69F00")  # Okabe-Ito orange
DROP_COLOUR = QColor("#CC0066")
STALL_COLOUR = QColor("#0072B2")  # Okabe-Ito blue
OUTLINE = QColor("#4A4A4A")
IDLE_DARK = QColor("#3A3F48")  # idle links while a run is shown (dark theme)
IDLE_LIGHT = QColor("#C9CED6")  # ... and on the light theme
BUSY_THRESHOLD = 0.005


def utilisation_bins(util: np.ndarray) -> np.ndarray:
    """Colour bin of each utilisation value (0..1 -> 0..BINS-1)."""
    return np.clip((np.asarray(util) * BINS).astype(np.int32), 0, BINS - 1)


def link_width(util: float) -> float:
    """Screen width (pixels) of a link drawn at utilisation ``util``."""
    return 2.0 + 4.0 * min(max(util, 0.0), 1.0)


def draw_pause(painter: QPainter, at: QPointF, radius: float) -> None:
    """A PAUSE sign: a filled octagon with two white bars."""
    points = [at + QPointF(radius * np.cos(a), radius * np.sin(a))
              for a in np.linspace(np.pi / 8, 2 * np.pi + np.pi / 8, 9)[:-1]]
    painter.setPen(QPen(QColor("white"), 1.0))
    painter.setBrush(QBrush(PAUSE_COLOUR))
    painter.drawPolygon(QPolygonF(points))
    bar_w, bar_h = radius * 0.25, radius * 0.9
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QBrush(QColor("white")))
    for dx in (-radius * 0.3, radius * 0.3):
        painter.drawRect(QRectF(at.x() + dx - bar_w / 2, at.y() - bar_h / 2, bar_w, bar_h))


def draw_ecn(painter: QPainter, at: QPointF, size: float) -> None:
    """An ECN mark: an upward orange triangle."""
    painter.setPen(QPen(QColor(60, 40, 0), 0.8))
    painter.setBrush(QBrush(ECN_COLOUR))
    painter.drawPolygon(QPolygonF([at + QPointF(0, -size), at + QPointF(size * 0.9, size * 0.6),
                                   at + QPointF(-size * 0.9, size * 0.6)]))


def draw_drop(painter: QPainter, at: QPointF, size: float, strength: float) -> None:
    """A drop flash: a magenta starburst fading with ``strength`` (0..1)."""
    colour = QColor(DROP_COLOUR)
    colour.setAlphaF(max(0.0, min(1.0, strength)))
    painter.setPen(QPen(colour, 2.2))
    for a in np.linspace(0, np.pi, 4, endpoint=False):
        d = QPointF(size * np.cos(a), size * np.sin(a))
        painter.drawLine(at - d, at + d)


def draw_stall(painter: QPainter, at: QPointF, size: float) -> None:
    """An InfiniBand credit stall: a blue hollow square with a dashed ring."""
    pen = QPen(STALL_COLOUR, 2.0)
    painter.setPen(pen)
    painter.setBrush(QBrush(QColor("white")))
    painter.drawRect(QRectF(at.x() - size / 2, at.y() - size / 2, size, size))
    pen.setStyle(Qt.PenStyle.DashLine)
    pen.setWidthF(1.2)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawEllipse(at, size, size)


#: Legend width at 100 % (px); its height follows from its rows (legend_size).
LEGEND_WIDTH = 300.0
_ROW = 19.0


#: Legend lines of a flow-level run, in place of the event markers it cannot show.
FLOW_LEGEND = ("Flow level: max-min fair rates. PFC pauses,",
               "ECN marks, drops and queues are not modelled",
               "(markers hidden); links offered more than",
               "their capacity are listed as hotspots.")
_NOTE_ROW = 15.0


def legend_size(scale: float = 1.0, collapsed: bool = False,
                gpus: bool = True, flow: bool = False) -> tuple[float, float]:
    """(width, height) of the simulation legend at UI scale ``scale`` (``flow``: a
    flow-level run, whose note replaces the event markers)."""
    if collapsed:
        return LEGEND_WIDTH * scale, 30.0 * scale
    markers = len(FLOW_LEGEND) * _NOTE_ROW + 4 if flow else 3 * _ROW
    states = 2 * _ROW if gpus else 0.0  # markers and GPU states in two columns
    return LEGEND_WIDTH * scale, (30.0 + 44.0 + markers + states + 14.0) * scale


def paint_legend(painter: QPainter, rect: QRectF, caption: str = "", dark: bool = False,
                 scale: float = 1.0, collapsed: bool = False, gpus: bool = True,
                 flow: bool = False) -> None:
    """The simulation legend: a header with the shown time and what runs (and a collapse
    arrow), the utilisation ramp, the event markers and the GPU states, at UI scale
    ``scale``; ``collapsed`` draws the header only; ``flow`` (a flow-level run) says what it
    does not model instead of showing the event markers."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    text = QColor("#E6E8EB") if dark else QColor("#202020")
    painter.setPen(QPen(QColor(255, 255, 255, 50) if dark else QColor(0, 0, 0, 60), 1))
    painter.setBrush(QBrush(QColor(34, 37, 43, 235) if dark else QColor(255, 255, 255, 235)))
    painter.drawRoundedRect(rect, 6 * scale, 6 * scale)
    painter.translate(rect.topLeft())
    painter.scale(scale, scale)
    width = rect.width() / scale
    font = QFont()
    font.setPixelSize(11)
    x = 10.0
    if flow and caption:  # said even when folded: the markers are missing for a reason
        shown, _, label = caption.partition(" · ")
        caption = f"{shown} · flow level" + (f", {label}" if label else "")
    _paint_header(painter, caption, width, text, collapsed)
    if collapsed:
        painter.restore()
        return
    y = 30.0
    painter.setFont(font)
    painter.setPen(text)
    painter.drawText(QPointF(x, y + 10), "Link utilisation")
    bar = QRectF(x, y + 16, width - 20, 10)
    gradient = QLinearGradient(bar.topLeft(), bar.topRight())
    for i, colour in enumerate(RAMP):
        gradient.setColorAt(i / (BINS - 1), colour)
    painter.fillRect(bar, gradient)
    metrics = QFontMetrics(font)
    for frac, tick in ((0.0, "0%"), (0.5, "50%"), (1.0, "100%")):
        tx = bar.left() + frac * bar.width() - frac * metrics.horizontalAdvance(tick)
        painter.drawText(QPointF(tx, bar.bottom() + 13), tick)
    y = bar.bottom() + 20
    column = (width - 20) / 2
    if flow:
        for line in FLOW_LEGEND:
            painter.drawText(QPointF(x, y + 12), line)
            y += _NOTE_ROW
        y += 4
    else:
        _paint_markers(painter, QPointF(x, y), column, text)
        y += 3 * _ROW
    if gpus:
        from fabricstudio.ui.simview.gpu_rings import STATE_COLOURS

        names = ("GPU computing", "communicating", "waiting on network", "idle")
        for k, (colour, label) in enumerate(zip(STATE_COLOURS, names, strict=True)):
            cx, cy = x + (k % 2) * column, y + (k // 2) * _ROW
            pen = QPen(colour, 5)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawArc(QRectF(cx + 2, cy + 2, 13, 13), 30 * 16, 240 * 16)
            painter.setPen(text)
            painter.drawText(QPointF(cx + 22, cy + 12), label)
    painter.restore()


def _paint_markers(painter: QPainter, at: QPointF, column: float, text: QColor) -> None:
    """The event markers and their names in two columns from ``at``."""
    markers = ((draw_pause, 6.0, "PFC PAUSE (held)"), (draw_ecn, 5.5, "ECN marks"),
               (lambda p, a, s: draw_drop(p, a, s, 1.0), 6.0, "Drops"),
               (draw_stall, 6.5, "IB credit stall"), (_draw_queue, 0.0, "Queue at port"))
    for k, (draw, size, label) in enumerate(markers):
        cx, cy = at.x() + (k % 2) * column, at.y() + (k // 2) * _ROW
        draw(painter, QPointF(cx + 8, cy + 8), size)
        painter.setPen(text)
        painter.drawText(QPointF(cx + 22, cy + 12), label)


def _draw_queue(painter: QPainter, at: QPointF, _size: float) -> None:
    painter.setPen(QPen(QColor("#202020"), 1))
    painter.setBrush(QBrush(QColor("#F0E442")))
    painter.drawRect(QRectF(at.x() - 3, at.y() - 6, 6, 12))


def _paint_header(painter: QPainter, caption: str, width: float, text: QColor,
                  collapsed: bool) -> None:
    """``t = 2.500 ms`` in bold, then what runs (elided), and the collapse arrow."""
    font = QFont()
    font.setPixelSize(11)
    time_text, _, label = caption.partition(" · ")
    if not caption:
        time_text = "Simulation legend"
    painter.setPen(text)
    font.setBold(True)
    painter.setFont(font)
    metrics = QFontMetrics(font)
    painter.drawText(QPointF(10, 19), time_text)
    used = metrics.horizontalAdvance(time_text) + 16
    font.setBold(False)
    painter.setFont(font)
    if label:
        shown = QFontMetrics(font).elidedText(label, Qt.TextElideMode.ElideRight,
                                              int(width - used - 34))
        painter.drawText(QPointF(used, 19), shown)
    arrow = QPolygonF([QPointF(width - 22, 11), QPointF(width - 12, 11), QPointF(width - 17, 17)]
                      if not collapsed else
                      [QPointF(width - 20, 9), QPointF(width - 20, 19), QPointF(width - 14, 14)])
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(text)
    painter.drawPolygon(arrow)
