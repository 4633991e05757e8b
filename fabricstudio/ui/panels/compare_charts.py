"""The Compare panel's charts: one small horizontal bar chart per figure, one row per fabric.

Painted by hand (no plotting library) so every value label is placed from its measured text:
each chart keeps room on the right of its longest bar for the longest label, shrinks the label
font when the chart is too narrow for that, and elides only below the smallest readable size.
A label's box therefore always lies inside its chart's box, at any widget size (the old
vertical bars wrote "3,47" for 3,476 at 1366 x 768).  The labels are the table's own strings,
so a chart never says a figure differently from the table beside it.

:func:`chart_layout` computes the geometry (pure, testable); the widget only paints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetricsF, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

#: Smallest value-label size in pixels before a label is elided instead.
MIN_LABEL_PX = 8
_GAP = 4.0  # between a bar's end and its label
_COLUMN_GAP = 14.0
_MARGIN = 6.0
_MIN_BAR = 10.0  # the bar area a chart keeps, however long its labels


@dataclass(frozen=True)
class Chart:
    """One figure across the fabrics: ``values`` (None: no result yet) drawn against
    ``full_scale`` (None: the largest value), labelled with ``texts``."""

    key: str
    title: str
    values: Sequence[float | None]
    texts: Sequence[str]
    full_scale: float | None = None


@dataclass(frozen=True)
class Bar:
    """One fabric's bar in one chart, and its value label (text, box, pixel size)."""

    row: int
    rect: QRectF
    #: The whole length a bar could have (drawn faintly when the chart has a full scale).
    track: QRectF | None
    text: str
    label_rect: QRectF
    label_px: int


@dataclass(frozen=True)
class ChartBox:
    """Where one chart goes: its whole box, its title and its bars."""

    key: str
    rect: QRectF
    title: str
    title_rect: QRectF
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Layout:
    """The fabric names on the left (text, box) and the charts beside them."""

    names: tuple[tuple[str, QRectF], ...]
    charts: tuple[ChartBox, ...]
    font_px: int
    #: The titles' size (smaller than ``font_px`` when a column is too narrow for them).
    title_px: int = 0


def _font(px: int, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, px))
    font.setBold(bold)
    return font


def _width(text: str, px: int, bold: bool = False) -> float:
    return QFontMetricsF(_font(px, bold)).horizontalAdvance(text)


def _label_fit(texts: Sequence[str], room: float, px: int) -> tuple[int, list[str]]:
    """The largest pixel size (``px`` down to MIN_LABEL_PX) at which every text fits ``room``
    wide; at the smallest size, texts still too wide are elided."""
    for size in range(px, MIN_LABEL_PX - 1, -1):
        if all(_width(t, size, True) <= room for t in texts):
            return size, list(texts)
    metrics = QFontMetricsF(_font(MIN_LABEL_PX, True))
    return MIN_LABEL_PX, [t if metrics.horizontalAdvance(t) <= room
                          else metrics.elidedText(t, Qt.TextElideMode.ElideRight, room)
                          for t in texts]


def chart_layout(area: QRectF, names: Sequence[str], charts: Sequence[Chart],
                 font_px: int) -> Layout:
    """Place the fabric names and the charts in ``area``.

    Rows share the height below one title line; the name column is as wide as the longest
    name (at most a quarter of the width); the charts share the rest.  In each chart the bars
    scale to ``full_scale`` (or the largest value) over the width left after the widest label,
    so every label box lies inside its chart's box."""
    inner = area.adjusted(_MARGIN, _MARGIN, -_MARGIN, -_MARGIN)
    px = max(MIN_LABEL_PX, min(font_px, int(inner.height() / (len(names) + 1.6))))
    name_w = min(max((_width(n, px) for n in names), default=0.0), inner.width() / 4)
    left = inner.left() + name_w + _COLUMN_GAP / 2
    count = max(1, len(charts))
    col_w = max(1.0, (inner.right() - left - _COLUMN_GAP * (count - 1)) / count)
    # a title too wide for its column takes two lines (all titles then do), in a smaller
    # font if need be: "GPU util…" only below the smallest readable size
    title_px, titles = _titles([chart.title for chart in charts], col_w, px)
    title_h = QFontMetricsF(_font(title_px, True)).height() * max((len(t) for t in titles),
                                                                   default=1)
    rows_top = inner.top() + title_h + 4
    row_h = max(1.0, (inner.bottom() - rows_top) / max(1, len(names)))
    name_boxes = tuple((QFontMetricsF(_font(px)).elidedText(n, Qt.TextElideMode.ElideRight,
                                                             name_w),
                        QRectF(inner.left(), rows_top + i * row_h, name_w, row_h))
                       for i, n in enumerate(names))
    boxes = []
    for index, (chart, title) in enumerate(zip(charts, titles, strict=True)):
        x = left + index * (col_w + _COLUMN_GAP)
        box = QRectF(x, inner.top(), col_w, inner.height())
        boxes.append(ChartBox(chart.key, box, "\n".join(title),
                              QRectF(x, inner.top(), col_w, title_h),
                              _bars(chart, box, rows_top, row_h, px)))
    return Layout(name_boxes, tuple(boxes), px, title_px)


def _titles(titles: Sequence[str], width: float, px: int) -> tuple[int, list[list[str]]]:
    """The largest size (``px`` down to MIN_LABEL_PX) at which every title fits ``width`` on
    one or two lines without eliding, and the lines (elided at the smallest size)."""
    for size in range(px, MIN_LABEL_PX - 1, -1):
        lines = [_title_lines(t, width, size) for t in titles]
        if not any("…" in line for found in lines for line in found):
            return size, lines
    return MIN_LABEL_PX, [_title_lines(t, width, MIN_LABEL_PX) for t in titles]


def _title_lines(title: str, width: float, px: int) -> list[str]:
    """``title`` in bold at ``px`` on one line, else broken between words onto two (the
    second elided only when even that is too narrow)."""
    metrics = QFontMetricsF(_font(px, True))
    if metrics.horizontalAdvance(title) <= width or " " not in title:
        return [metrics.elidedText(title, Qt.TextElideMode.ElideRight, width)]
    words = title.split(" ")
    first = words[0]
    for count in range(len(words) - 1, 0, -1):  # the longest first line that fits
        candidate = " ".join(words[:count])
        if metrics.horizontalAdvance(candidate) <= width:
            first = candidate
            break
    rest = title[len(first):].strip()
    return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width)
            for line in (first, rest)]


def _bars(chart: Chart, box: QRectF, rows_top: float, row_h: float, px: int) -> tuple[Bar, ...]:
    shown = [(row, v, t) for row, (v, t) in enumerate(zip(chart.values, chart.texts,
                                                              strict=True)) if v is not None]
    if not shown:
        return ()
    room = max(1.0, box.width() - _MIN_BAR - _GAP)
    size, texts = _label_fit([t for _r, _v, t in shown], room, px)
    widest = max(_width(t, size, True) for t in texts)
    bar_room = max(0.0, box.width() - widest - _GAP)
    top = chart.full_scale or max((float(v) for _r, v, _t in shown), default=0.0)
    thickness = min(row_h * 0.6, 1.5 * px + 4)
    label_h = min(row_h, QFontMetricsF(_font(size, True)).height())
    bars = []
    for (row, value, _text), text in zip(shown, texts, strict=True):
        length = bar_room * min(1.0, max(0.0, float(value)) / top) if top > 0 else 0.0
        middle = rows_top + (row + 0.5) * row_h
        rect = QRectF(box.left(), middle - thickness / 2, length, thickness)
        # against a full scale the labels line up after the whole track, else after the bar
        track = (QRectF(box.left(), rect.top(), bar_room, thickness)
                 if chart.full_scale else None)
        start = box.left() + (bar_room if track is not None else length) + _GAP
        width = min(_width(text, size, True), box.right() - start)
        label = QRectF(start, middle - label_h / 2, max(0.0, width), label_h)
        bars.append(Bar(row, rect, track, text, label, size))
    return tuple(bars)


class CompareCharts(QWidget):
    """Paints :func:`chart_layout` for the fabrics ``names`` in their ``colours``."""

    def __init__(self, names: Sequence[str], colours: Sequence[str], parent=None) -> None:
        super().__init__(parent)
        self.names = list(names)
        self.colours = [QColor(c) for c in colours]
        self.charts: list[Chart] = []
        self.background = QColor("#16181D")
        self.text_colour = QColor("#E6E8EB")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(330, 120)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(460, 170)

    def set_charts(self, charts: Sequence[Chart]) -> None:
        """Show these charts (one per figure) from now on."""
        self.charts = list(charts)
        self.update()

    def set_colours(self, background: QColor, text: QColor) -> None:
        """Follow the canvas theme."""
        self.background, self.text_colour = QColor(background), QColor(text)
        self.update()

    def geometry_now(self) -> Layout:
        """Where everything goes at the widget's current size (the widget's font size)."""
        font_px = max(MIN_LABEL_PX, QFontInfo(self.font()).pixelSize())
        return chart_layout(QRectF(self.rect()), self.names, self.charts, font_px)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.background)
        found = self.geometry_now()
        painter.setPen(self.text_colour)
        painter.setFont(_font(found.font_px))
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for text, rect in found.names:
            painter.drawText(rect, left, text)
        axis = QColor(self.text_colour)
        axis.setAlpha(90)
        track = QColor(self.text_colour)
        track.setAlpha(28)
        for chart in found.charts:
            painter.setFont(_font(found.title_px or found.font_px, bold=True))
            painter.setPen(self.text_colour)
            painter.drawText(chart.title_rect, Qt.AlignmentFlag.AlignLeft
                             | Qt.AlignmentFlag.AlignTop, chart.title)
            painter.setPen(axis)
            painter.drawLine(chart.rect.topLeft() + _dy(chart.title_rect.height() + 2),
                             chart.rect.bottomLeft())
            for bar in chart.bars:
                if bar.track is not None:
                    painter.fillRect(bar.track, track)
                painter.fillRect(bar.rect, self.colours[bar.row % len(self.colours)])
                painter.setPen(self.text_colour)
                painter.setFont(_font(bar.label_px, bold=True))
                painter.drawText(bar.label_rect, left, bar.text)
        painter.end()


def _dy(dy: float) -> QPointF:
    return QPointF(0.0, dy)
