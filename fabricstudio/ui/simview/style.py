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


LEGEND_SIZE = (290.0, 194.0)


def paint_legend(painter: QPainter, rect: QRectF, caption: str = "", dark: bool = False) -> None:
    """The overlay legend: utilisation ramp and the event markers, with an optional caption."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    text = QColor("#E6E8EB") if dark else QColor("#202020")
    painter.setPen(QPen(QColor(255, 255, 255, 50) if dark else QColor(0, 0, 0, 60), 1))
    painter.setBrush(QBrush(QColor(34, 37, 43, 235) if dark else QColor(255, 255, 255, 235)))
    painter.drawRoundedRect(rect, 6, 6)
    font = QFont()
    font.setPixelSize(11)
    painter.setFont(font)
    x, y = rect.left() + 10, rect.top() + 8
    if caption:  # "t = … · what runs": the time in bold, what runs on a line of its own
        time_text, _, label = caption.partition(" · ")
        width = int(rect.width() - 20)
        painter.setPen(text)
        for line, bold in ((time_text, True), (label, False)):
            font.setBold(bold)
            painter.setFont(font)
            shown = QFontMetrics(font).elidedText(line, Qt.TextElideMode.ElideRight, width)
            painter.drawText(QRectF(x, y, width, 16), Qt.AlignmentFlag.AlignLeft, shown)
            y += 16
        font.setBold(False)
        painter.setFont(font)
        y += 4
    painter.setPen(text)
    painter.drawText(QPointF(x, y + 10), "Link utilisation")
    bar = QRectF(x, y + 16, rect.width() - 20, 10)
    gradient = QLinearGradient(bar.topLeft(), bar.topRight())
    for i, colour in enumerate(RAMP):
        gradient.setColorAt(i / (BINS - 1), colour)
    painter.fillRect(bar, gradient)
    metrics = QFontMetrics(font)
    for frac, tick in ((0.0, "0%"), (0.5, "50%"), (1.0, "100%")):
        tx = bar.left() + frac * bar.width() - frac * metrics.horizontalAdvance(tick)
        painter.drawText(QPointF(tx, bar.bottom() + 13), tick)
    y = bar.bottom() + 22
    rows = ((draw_pause, 6.0, "PFC PAUSE at the held sender"),
            (draw_ecn, 5.5, "ECN marks at the egress queue"),
            (lambda p, a, s: draw_drop(p, a, s, 1.0), 6.0, "Drops (flash)"),
            (draw_stall, 8.0, "IB credit stall"))
    for draw, size, label in rows:
        draw(painter, QPointF(x + 8, y + 8), size)
        painter.setPen(text)
        painter.drawText(QPointF(x + 22, y + 12), label)
        y += 19
    painter.setPen(QPen(text, 1))
    painter.setBrush(QBrush(QColor("#F0E442")))
    painter.drawRect(QRectF(x + 5, y + 2, 6, 12))
    painter.drawText(QPointF(x + 22, y + 12), "Queue depth at the port")
    painter.restore()
