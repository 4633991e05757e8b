"""The legend: device kinds present and link colours in use (on the canvas and in exports)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from fabricstudio.model import Design, DeviceKind, Plane
from fabricstudio.ui.icons import paint_kind_tile
from fabricstudio.ui.theme import PLANE_COLOURS, Theme, speed_colour

_FONT = QFont()
_FONT.setPixelSize(11)
_TITLE_FONT = QFont()
_TITLE_FONT.setPixelSize(10)
_TITLE_FONT.setBold(True)
ROW = 18.0
PAD = 10.0
SWATCH = 14.0


@dataclass(frozen=True)
class LegendEntry:
    """A device kind (tile) or a link colour (line) with its text."""

    text: str
    kind: DeviceKind | None = None
    colour: QColor | None = None


def legend_entries(design: Design, colour_by: str = "speed",
                   hidden: frozenset = frozenset()) -> list[tuple[str, list[LegendEntry]]]:
    """Sections ('Devices', 'Links') for what the design shows (``hidden`` networks left out)."""
    shown = [d for d in design.devices.values()
             if not d.planes or any(p not in hidden for p in d.planes)]
    kinds = sorted({DeviceKind(d.kind) for d in shown}, key=lambda k: -k.tier)
    devices = [LegendEntry(DeviceKind(k).label, kind=k) for k in kinds]
    links_shown = [lk for lk in design.links.values() if lk.plane not in hidden]
    if colour_by == "plane":
        planes = [p for p in Plane if any(lk.plane is p for lk in links_shown)]
        links = [LegendEntry(f"{p.value.capitalize()} network", colour=PLANE_COLOURS[p])
                 for p in planes]
    else:
        speeds = sorted({lk.speed_gbps for lk in links_shown})
        links = [LegendEntry(f"{s:g} Gb/s", colour=speed_colour(s)) for s in speeds]
    return [(title, entries) for title, entries in (("Devices", devices), ("Links", links))
            if entries]


def legend_size(sections) -> QSizeF:
    """Size of the legend box."""
    metrics = QFontMetricsF(_FONT)
    width = max((metrics.horizontalAdvance(e.text) for _, es in sections for e in es), default=0)
    rows = sum(len(es) + 1 for _, es in sections)
    return QSizeF(width + SWATCH + 3 * PAD + 8, rows * ROW + 2 * PAD)


def paint_legend(painter: QPainter, top_left: QPointF, sections, theme: Theme) -> QRectF:
    """Draw the legend box with its top-left corner at ``top_left``; returns its rect."""
    size = legend_size(sections)
    box = QRectF(top_left, size)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    panel = QColor(theme.panel)
    panel.setAlpha(235)
    painter.setPen(QPen(theme.border, 1))
    painter.setBrush(panel)
    painter.drawRoundedRect(box, 8, 8)
    y = box.top() + PAD
    x = box.left() + PAD
    for title, entries in sections:
        painter.setFont(_TITLE_FONT)
        painter.setPen(theme.muted)
        painter.drawText(QRectF(x, y, size.width(), ROW), Qt.AlignmentFlag.AlignVCenter,
                         title.upper())
        y += ROW
        painter.setFont(_FONT)
        for entry in entries:
            swatch = QRectF(x, y + (ROW - SWATCH) / 2, SWATCH, SWATCH)
            if entry.kind is not None:
                paint_kind_tile(painter, swatch, entry.kind, 3.5)
            else:
                pen = QPen(entry.colour, 3.5)
                pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                painter.setPen(pen)
                painter.drawLine(QPointF(swatch.left() + 1, swatch.center().y()),
                                 QPointF(swatch.right() - 1, swatch.center().y()))
            painter.setPen(theme.text)
            painter.drawText(QRectF(x + SWATCH + 8, y, size.width(), ROW),
                             Qt.AlignmentFlag.AlignVCenter, entry.text)
            y += ROW
    painter.restore()
    return box
