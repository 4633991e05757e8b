"""Painting the story's big elements: the fleet GPU-utilisation gauge and the caption bar.

Plain painter functions, so the live canvas (widgets floating over the view), the presenter
and the off-screen recorder draw exactly the same thing.  ``scale`` is the UI scale (1.0 =
100 %); ``dark`` picks the colours of the dark or light theme.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen

from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.moments import gpu_utilisation
from fabricstudio.sim.result import Result
from fabricstudio.ui.simview.gpu_rings import STATE_COLOURS

#: Gauge size at 100 % (px).
GAUGE_SIZE = (250.0, 168.0)
#: Caption accent colour per caption kind (left strip).
CAPTION_ACCENTS = {"pause": "#D55E00", "timeout": "#D55E00", "drop": "#CC0066",
                   "ecn": "#E69F00", "credit": "#0072B2", "burst": "#F0E442",
                   "end": "#009E73", "step": "#009E73"}


@dataclass(frozen=True)
class GaugeData:
    """What the gauge shows: the fleet's GPU utilisation so far (0..1), how many GPUs are in
    each state now (computing, communicating, waiting, idle) and an optional title."""

    utilisation: float
    counts: tuple[int, int, int, int]
    title: str = "GPU utilisation"


def gauge_data(timeline: GpuTimeline | None, index: int, result: Result | None = None,
               done: bool = False) -> GaugeData:
    """The gauge's figures at frame ``index`` of ``timeline``; ``done`` (the shown time is
    past the run's end): the run's own GPU utilisation and every GPU idle."""
    if timeline is None or not len(timeline):
        return GaugeData(0.0, (0, 0, 0, 0))
    k = min(index, len(timeline) - 1)
    counts = tuple(int(n) for n in timeline.fleet_counts(k))
    utilisation = timeline.utilisation_so_far(k)
    last = k == len(timeline) - 1
    overall = gpu_utilisation(result)
    if (done or last) and overall is not None:
        utilisation = overall
    if done:
        counts = (0, 0, 0, len(timeline.gpus))
    return GaugeData(utilisation, (counts[0], counts[1], counts[2], counts[3]))


def _panel(dark: bool) -> tuple[QColor, QColor, QColor, QColor]:
    """(background, border, text, muted text)."""
    if dark:
        return (QColor(24, 27, 33, 232), QColor(255, 255, 255, 45), QColor("#EEF0F3"),
                QColor("#A9B0BB"))
    return (QColor(255, 255, 255, 238), QColor(0, 0, 0, 55), QColor("#1B1E23"),
            QColor("#5A616C"))


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def gauge_size(scale: float = 1.0) -> QSizeF:
    """Size of the gauge at UI scale ``scale``."""
    return QSizeF(GAUGE_SIZE[0] * scale, GAUGE_SIZE[1] * scale)


def paint_gauge(painter: QPainter, rect: QRectF, data: GaugeData, dark: bool = True,
                scale: float = 1.0) -> None:
    """A half-circle gauge of the fleet's GPU utilisation so far, the big number, and a bar of
    the GPUs by state now."""
    background, border, text, muted = _panel(dark)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(border, 1))
    painter.setBrush(background)
    painter.drawRoundedRect(rect, 10 * scale, 10 * scale)
    pad = 10 * scale
    painter.setFont(_font(13 * scale, bold=True))
    painter.setPen(text)
    painter.drawText(QRectF(rect.left() + pad, rect.top() + 6 * scale, rect.width() - 2 * pad,
                            18 * scale), Qt.AlignmentFlag.AlignHCenter, data.title)
    # the arc: 180 degrees, left (0 %) to right (100 %)
    thickness = 16 * scale
    radius = min(rect.width() / 2 - pad - thickness / 2, 64 * scale)
    centre = QPointF(rect.center().x(), rect.top() + 30 * scale + radius + thickness / 2)
    arc = QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius)
    track = QPen(QColor(128, 134, 145, 90), thickness)
    track.setCapStyle(Qt.PenCapStyle.FlatCap)
    painter.setPen(track)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawArc(arc, 0, 180 * 16)
    value = min(max(data.utilisation, 0.0), 1.0)
    if value > 0:
        fill = QPen(STATE_COLOURS[0], thickness)
        fill.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(fill)
        painter.drawArc(arc, 180 * 16, -round(value * 180 * 16))
    painter.setFont(_font(30 * scale, bold=True))
    painter.setPen(text)
    number = QRectF(centre.x() - radius, centre.y() - 34 * scale, 2 * radius, 36 * scale)
    painter.drawText(number, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
                     f"{100 * value:.1f}%")
    painter.setFont(_font(10.5 * scale))
    painter.setPen(muted)
    painter.drawText(QRectF(rect.left(), centre.y() + 2 * scale, rect.width(), 14 * scale),
                     Qt.AlignmentFlag.AlignHCenter, "of GPU time spent computing so far")
    _paint_state_bar(painter, QRectF(rect.left() + pad, centre.y() + 20 * scale,
                                     rect.width() - 2 * pad, 12 * scale), data.counts)
    _paint_state_key(painter, QRectF(rect.left() + pad, centre.y() + 35 * scale,
                                     rect.width() - 2 * pad, 14 * scale), data.counts, muted,
                     scale)
    painter.restore()


def _paint_state_bar(painter: QPainter, rect: QRectF, counts: tuple[int, ...]) -> None:
    total = sum(counts)
    if not total:
        return
    x = rect.left()
    painter.setPen(Qt.PenStyle.NoPen)
    for colour, count in zip(STATE_COLOURS, counts, strict=True):
        width = rect.width() * count / total
        if width > 0:
            painter.setBrush(colour)
            painter.drawRect(QRectF(x, rect.top(), width, rect.height()))
        x += width


def _paint_state_key(painter: QPainter, rect: QRectF, counts: tuple[int, ...], muted: QColor,
                     scale: float) -> None:
    """``■ 48 computing ■ 16 waiting`` for the states present now."""
    painter.setFont(_font(10.5 * scale))
    metrics = QFontMetricsF(painter.font())
    names = ("computing", "communicating", "waiting", "idle")
    parts = [(colour, f"{count} {name}") for colour, count, name
             in zip(STATE_COLOURS, counts, names, strict=True) if count]
    widths = [10 * scale + metrics.horizontalAdvance(text) for _c, text in parts]
    gap = 8 * scale
    x = rect.center().x() - (sum(widths) + gap * max(0, len(parts) - 1)) / 2
    for (colour, text), width in zip(parts, widths, strict=True):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRect(QRectF(x, rect.center().y() - 3.5 * scale, 7 * scale, 7 * scale))
        painter.setPen(muted)
        painter.drawText(QRectF(x + 10 * scale, rect.top(), width, rect.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        x += width + gap


def caption_layout(text: str, max_width: float, scale: float = 1.0) -> tuple[QSizeF, QFont]:
    """Size of the caption box for ``text`` at most ``max_width`` wide, and its font."""
    font = _font(19 * scale, bold=False)
    metrics = QFontMetricsF(font)
    pad = 14 * scale
    inner = max(40.0, max_width - 2 * pad - 8 * scale)
    bound = metrics.boundingRect(QRectF(0, 0, inner, 10_000),
                                 int(Qt.TextFlag.TextWordWrap), text)
    return QSizeF(min(max_width, bound.width() + 2 * pad + 8 * scale),
                  bound.height() + 2 * pad * 0.7), font


def paint_caption(painter: QPainter, rect: QRectF, text: str, kind: str = "",
                  dark: bool = True, scale: float = 1.0) -> None:
    """The caption: large text in a box, a coloured strip on its left for the kind of
    moment (PAUSE, drop, timeout, ECN, credits, burst)."""
    background, border, fg, _muted = _panel(dark)
    _size, font = caption_layout(text, rect.width(), scale)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(border, 1))
    painter.setBrush(background)
    radius = 10 * scale
    painter.drawRoundedRect(rect, radius, radius)
    accent = CAPTION_ACCENTS.get(kind)
    if accent:
        strip = QPainterPath()
        strip.addRoundedRect(QRectF(rect.left(), rect.top(), 12 * scale, rect.height()),
                             radius, radius)
        painter.setClipRect(QRectF(rect.left(), rect.top(), 6 * scale, rect.height()))
        painter.fillPath(strip, QBrush(QColor(accent)))
        painter.setClipping(False)
    pad = 14 * scale
    painter.setFont(font)
    painter.setPen(fg)
    painter.drawText(rect.adjusted(pad + 4 * scale, pad * 0.7, -pad, -pad * 0.7),
                     int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignHCenter)
                     | int(Qt.TextFlag.TextWordWrap), text)
    painter.restore()




def pane_header_height(scale: float = 1.0) -> float:
    """Height of a side-by-side pane's header strip."""
    return 46.0 * scale


def paint_pane_header(painter: QPainter, rect: QRectF, label: str, data: GaugeData,
                      dark: bool = True, scale: float = 1.0) -> None:
    """A side-by-side pane's header: the fabric, its GPU utilisation so far in large type
    and a bar of its GPUs by state now (once the run is over and every GPU idle: a bar
    filled to the utilisation, as the gauge's figure reads)."""
    background, border, text, muted = _panel(dark)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(border, 1))
    painter.setBrush(background)
    painter.drawRoundedRect(rect, 8 * scale, 8 * scale)
    pad = 10 * scale
    painter.setFont(_font(16 * scale, bold=True))
    painter.setPen(text)
    name = QRectF(rect.left() + pad, rect.top() + 4 * scale, rect.width() * 0.5, 22 * scale)
    # a long name (a design's) is elided before the "GPU utilisation" note, not under it
    room = (rect.width() - 2 * pad - QFontMetricsF(_font(22 * scale, bold=True))
            .horizontalAdvance("100.0%") - QFontMetricsF(_font(10 * scale))
            .horizontalAdvance("GPU utilisation") - 16 * scale)
    label = QFontMetricsF(_font(16 * scale, bold=True)).elidedText(
        label, Qt.TextElideMode.ElideRight, max(0.0, min(name.width(), room)))
    painter.drawText(name, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
    painter.setFont(_font(22 * scale, bold=True))
    value = QRectF(rect.left(), rect.top() + 2 * scale, rect.width() - pad, 26 * scale)
    painter.drawText(value, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                     f"{100 * data.utilisation:.1f}%")
    painter.setFont(_font(10 * scale))
    painter.setPen(muted)
    metrics = QFontMetricsF(_font(22 * scale, bold=True))
    note = QRectF(rect.left(), rect.top() + 2 * scale,
                  rect.width() - pad - metrics.horizontalAdvance("100.0%") - 6 * scale,
                  26 * scale)
    painter.drawText(note, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                     "GPU utilisation")
    bar = QRectF(rect.left() + pad, rect.bottom() - 14 * scale, rect.width() - 2 * pad,
                 8 * scale)
    if any(data.counts[:3]):
        _paint_state_bar(painter, bar, data.counts)
    else:  # the run is over (every GPU idle): the bar shows the figure beside it
        _paint_share_bar(painter, bar, data.utilisation, border)
    painter.restore()


def _paint_share_bar(painter: QPainter, rect: QRectF, share: float, track: QColor) -> None:
    """``share`` (0..1) of the bar in the computing colour over a ``track`` of the rest."""
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(track)
    painter.drawRect(rect)
    painter.setBrush(STATE_COLOURS[0])
    painter.drawRect(QRectF(rect.left(), rect.top(), rect.width() * min(1.0, max(0.0, share)),
                            rect.height()))
