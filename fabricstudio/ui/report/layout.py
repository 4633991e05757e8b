"""A small flow layout for PDF pages drawn with QPainter: headings, paragraphs, tables that
continue on the next page (header repeated), key-figure tiles, bar charts and pictures.

Units are PDF points (the writer runs at 72 dpi), the page is A4 portrait; every page gets a
footer.  Text stays text (selectable and searchable in the PDF).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QMarginsF, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
)

DPI = 72
MARGIN_X = 48.0
MARGIN_TOP = 52.0
MARGIN_BOTTOM = 58.0
INK = QColor("#1B2430")
MUTED = QColor("#5B6675")
ACCENT = QColor("#0B5CAD")
HEAD = QColor("#14345A")
RULE = QColor("#C9D2DD")
HEADER_FILL = QColor("#E6ECF3")
ZEBRA = QColor("#F5F7FA")
WARN = QColor("#9A4A00")
BAR_COLOURS = ("#0072B2", "#009E73", "#56B4E9", "#D55E00")


def font(size: float, bold: bool = False, family: str = "") -> QFont:
    """A font of ``size`` points."""
    f = QFont(family) if family else QFont()
    f.setPointSizeF(size)
    f.setBold(bold)
    if hasattr(f, "setFeature"):  # Qt 6.7+: no ligatures, so copied text reads "fi", not "ﬁ"
        for tag in ("liga", "clig"):
            f.setFeature(QFont.Tag(tag), 0)
    return f


@dataclass
class Column:
    """A table column: title, share of the width, right-aligned numbers."""

    title: str
    share: float
    right: bool = False


class PageWriter:
    """Lays content top-down on A4 pages of a QPdfWriter."""

    def __init__(self, writer: QPdfWriter, footer_left: str, footer_right: str) -> None:
        writer.setResolution(DPI)
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4),
                                         QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
        self.writer = writer
        self.painter = QPainter()
        if not self.painter.begin(writer):
            raise OSError("the PDF could not be started")
        self.painter.setRenderHints(QPainter.RenderHint.Antialiasing
                                    | QPainter.RenderHint.TextAntialiasing)
        size = writer.pageLayout().fullRectPoints().size()
        self.page = QSizeF(size.width(), size.height())
        self.left = MARGIN_X
        self.width = self.page.width() - 2 * MARGIN_X
        self.bottom = self.page.height() - MARGIN_BOTTOM
        self.y = MARGIN_TOP
        self.number = 1
        self.footer_left, self.footer_right = footer_left, footer_right
        self._footer()

    # ------------------------------------------------------------------- pages
    def finish(self) -> None:
        """End the document."""
        self.painter.end()

    def new_page(self) -> None:
        """Start a new page."""
        self.writer.newPage()
        self.number += 1
        self.y = MARGIN_TOP
        self._footer()

    def ensure(self, height: float) -> None:
        """Start a new page unless ``height`` points fit below the cursor."""
        if self.y + height > self.bottom and self.y > MARGIN_TOP + 1:
            self.new_page()

    def space(self, points: float) -> None:
        """Vertical space."""
        self.y += points

    def _footer(self) -> None:
        p = self.painter
        y = self.page.height() - MARGIN_BOTTOM + 22
        p.setPen(QPen(RULE, 0.6))
        p.drawLine(QPointF(self.left, y - 8), QPointF(self.left + self.width, y - 8))
        p.setFont(font(7.5))
        p.setPen(MUTED)
        rect = QRectF(self.left, y, self.width, 14)
        p.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   self.footer_left)
        p.drawText(rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                   f"{self.footer_right} · page {self.number}")

    # -------------------------------------------------------------------- text
    def text_height(self, text: str, f: QFont, width: float) -> float:
        """Height of ``text`` wrapped to ``width``."""
        metrics = QFontMetricsF(f, self.writer)
        rect = metrics.boundingRect(QRectF(0, 0, width, 10_000),
                                    int(Qt.TextFlag.TextWordWrap), text)
        return rect.height()

    def heading(self, text: str, level: int = 1) -> None:
        """A section (level 1, new band with a rule) or sub-section heading."""
        size = {1: 15.0, 2: 11.5}.get(level, 10.5)
        f = font(size, bold=True)
        height = self.text_height(text, f, self.width)
        self.ensure(height + (60 if level == 1 else 40))
        if level == 1:
            self.space(4)
        p = self.painter
        p.setFont(f)
        p.setPen(HEAD)
        p.drawText(QRectF(self.left, self.y, self.width, height),
                   int(Qt.TextFlag.TextWordWrap), text)
        self.y += height + 3
        if level == 1:
            p.setPen(QPen(ACCENT, 1.2))
            p.drawLine(QPointF(self.left, self.y), QPointF(self.left + 60, self.y))
            self.y += 8
        else:
            self.y += 2

    def paragraph(self, text: str, size: float = 9.5, colour: QColor = INK,
                  bold: bool = False, indent: float = 0.0, after: float = 6.0) -> None:
        """Wrapped text."""
        f = font(size, bold)
        width = self.width - indent
        height = self.text_height(text, f, width)
        self.ensure(height)
        p = self.painter
        p.setFont(f)
        p.setPen(colour)
        p.drawText(QRectF(self.left + indent, self.y, width, height),
                   int(Qt.TextFlag.TextWordWrap), text)
        self.y += height + after

    def bullets(self, items: Sequence[str], size: float = 9.0, colour: QColor = INK) -> None:
        """A bulleted list."""
        for item in items:
            f = font(size)
            height = self.text_height(item, f, self.width - 14)
            self.ensure(height)
            self.painter.setFont(f)
            self.painter.setPen(ACCENT)
            self.painter.drawText(QPointF(self.left + 2, self.y + size), "•")
            self.paragraph(item, size, colour, indent=14, after=3)

    # ------------------------------------------------------------------ tables
    def table(self, columns: Sequence[Column], rows: Sequence[Sequence[str]],
              size: float = 8.5, colours: Sequence[QColor | None] | None = None,
              bold_rows: Sequence[int] = ()) -> None:
        """A table that breaks across pages (header repeated); ``colours`` per row."""
        total = sum(c.share for c in columns)
        widths = [self.width * c.share / total for c in columns]
        pad = 4.0
        body, head_font = font(size), font(size, bold=True)

        def row_height(cells: Sequence[str], f: QFont) -> float:
            return max(self.text_height(str(c), f, w - 2 * pad)
                       for c, w in zip(cells, widths, strict=True)) + 2 * pad

        header = [c.title for c in columns]
        head_h = row_height(header, head_font)

        def draw_row(cells: Sequence[str], f: QFont, fill: QColor | None,
                     ink: QColor = INK) -> None:
            h = row_height(cells, f)
            p = self.painter
            if fill is not None:
                p.fillRect(QRectF(self.left, self.y, self.width, h), fill)
            p.setFont(f)
            p.setPen(ink)
            x = self.left
            for cell, width, column in zip(cells, widths, columns, strict=True):
                align = (Qt.AlignmentFlag.AlignRight if column.right
                         else Qt.AlignmentFlag.AlignLeft) | Qt.AlignmentFlag.AlignTop
                p.drawText(QRectF(x + pad, self.y + pad, width - 2 * pad, h - 2 * pad),
                           int(align) | int(Qt.TextFlag.TextWordWrap), str(cell))
                x += width
            self.y += h

        self.ensure(head_h + row_height(rows[0], body) if rows else head_h)
        draw_row(header, head_font, HEADER_FILL, HEAD)
        for n, cells in enumerate(rows):
            h = row_height(cells, body)
            if self.y + h > self.bottom:
                self.new_page()
                draw_row(header, head_font, HEADER_FILL, HEAD)
            ink = (colours[n] if colours is not None and colours[n] is not None else INK)
            draw_row(cells, font(size, bold=n in bold_rows), ZEBRA if n % 2 else None, ink)
        self.painter.setPen(QPen(RULE, 0.6))
        self.painter.drawLine(QPointF(self.left, self.y), QPointF(self.left + self.width, self.y))
        self.y += 10

    # ------------------------------------------------------------ figures, art
    def tiles(self, figures: Sequence[tuple[str, str]], per_row: int = 4,
              height: float = 54.0) -> None:
        """Key figures as tiles: big value, small label."""
        gap = 8.0
        width = (self.width - gap * (per_row - 1)) / per_row
        for start in range(0, len(figures), per_row):
            self.ensure(height + gap)
            for i, (value, label) in enumerate(figures[start:start + per_row]):
                rect = QRectF(self.left + i * (width + gap), self.y, width, height)
                p = self.painter
                p.setPen(QPen(RULE, 0.8))
                p.setBrush(QColor("#F3F6FA"))
                p.drawRoundedRect(rect, 4, 4)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.setPen(HEAD)
                p.setFont(font(14, bold=True))
                p.drawText(rect.adjusted(8, 6, -8, -height / 2),
                           int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), value)
                p.setPen(MUTED)
                p.setFont(font(7.5))
                p.drawText(rect.adjusted(8, height / 2, -8, -4),
                           int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
                           | int(Qt.TextFlag.TextWordWrap), label)
            self.y += height + gap
        self.y += 4

    def picture(self, draw: Callable[[QPainter, QRectF], None], height: float) -> None:
        """Reserve ``height`` points and let ``draw`` paint into that rectangle."""
        self.ensure(height)
        rect = QRectF(self.left, self.y, self.width, height)
        self.painter.save()
        draw(self.painter, rect)
        self.painter.restore()
        self.y += height + 8

    def bar_charts(self, charts: Sequence[tuple[str, Sequence[str], Sequence[float | None],
                                                str]], height: float = 150.0) -> None:
        """Side-by-side bar charts: (title, labels, values, unit) each."""
        self.ensure(height)
        gap = 14.0
        width = (self.width - gap * (len(charts) - 1)) / max(len(charts), 1)
        for n, (title, labels, values, unit) in enumerate(charts):
            rect = QRectF(self.left + n * (width + gap), self.y, width, height)
            _bar_chart(self.painter, rect, title, labels, values, unit)
        self.y += height + 10


def _short(value: float) -> str:
    """'7.04', '56.9', '5,948'."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _bar_chart(p: QPainter, rect: QRectF, title: str, labels: Sequence[str],
               values: Sequence[float | None], unit: str) -> None:
    p.setPen(HEAD)
    p.setFont(font(8.5, bold=True))
    p.drawText(QRectF(rect.x(), rect.y(), rect.width(), 14),
               int(Qt.AlignmentFlag.AlignLeft), title)
    area = rect.adjusted(0, 20, 0, -26)
    known = [v for v in values if v is not None]
    top = max(known) * 1.15 if known and max(known) > 0 else 1.0
    p.setPen(QPen(RULE, 0.6))
    p.drawLine(QPointF(area.left(), area.bottom()), QPointF(area.right(), area.bottom()))
    slot = area.width() / max(len(values), 1)
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        x = area.left() + i * slot + slot * 0.18
        w = slot * 0.64
        if value is not None:
            h = area.height() * value / top
            p.fillRect(QRectF(x, area.bottom() - h, w, h), QColor(BAR_COLOURS[i % 4]))
            p.setPen(INK)
            p.setFont(font(7))
            p.drawText(QRectF(x - 6, area.bottom() - h - 11, w + 12, 10),
                       int(Qt.AlignmentFlag.AlignHCenter), _short(value) + unit)
        else:
            p.setPen(MUTED)
            p.setFont(font(7))
            p.drawText(QRectF(x - 6, area.bottom() - 11, w + 12, 10),
                       int(Qt.AlignmentFlag.AlignHCenter), "n/a")
        p.setPen(MUTED)
        p.setFont(font(6.5))
        p.drawText(QRectF(area.left() + i * slot, area.bottom() + 3, slot, 22),
                   int(Qt.AlignmentFlag.AlignHCenter) | int(Qt.TextFlag.TextWordWrap), label)
