"""The legend: device kinds present and link colours in use (on the canvas and in exports)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from fabricstudio.model import Design, DeviceKind, Plane
from fabricstudio.topology.rails import link_tier, tier_name
from fabricstudio.ui.icons import paint_kind_tile
from fabricstudio.ui.theme import (
    OTHER_TIER,
    PLANE_COLOURS,
    RAIL_COLOURS,
    TIER_COLOURS,
    Theme,
    rail_colour,
    speed_colour,
)

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


def legend_entries(design: Design, colour_by: str = "speed", hidden: frozenset = frozenset(),
                   rails: Mapping[str, int | None] | None = None
                   ) -> list[tuple[str, list[LegendEntry]]]:
    """Sections ('Devices', 'Links') for what the design shows (``hidden`` networks left out;
    ``rails``: each link's rail, needed when colouring by rail)."""
    shown = [d for d in design.devices.values()
             if not d.planes or any(p not in hidden for p in d.planes)]
    kinds = sorted({DeviceKind(d.kind) for d in shown}, key=lambda k: -k.tier)
    devices = [LegendEntry(DeviceKind(k).label, kind=k) for k in kinds]
    links_shown = [lk for lk in design.links.values() if lk.plane not in hidden]
    if colour_by == "plane":
        planes = [p for p in Plane if any(lk.plane is p for lk in links_shown)]
        links = [LegendEntry(f"{p.value.capitalize()} network", colour=PLANE_COLOURS[p])
                 for p in planes]
    elif colour_by == "rail":
        used = {(rails or {}).get(lk.id) for lk in links_shown}
        numbered = sorted(r for r in used if r is not None)
        links = [LegendEntry(f"Rail {r + 1}", colour=rail_colour(r))
                 for r in numbered[:len(RAIL_COLOURS)]]
        if len(numbered) > len(RAIL_COLOURS):
            links.append(LegendEntry(f"... {len(numbered)} rails, colours repeat",
                                     colour=rail_colour(numbered[len(RAIL_COLOURS)])))
        if None in used:
            links.append(LegendEntry("Several rails / none", colour=rail_colour(None)))
    elif colour_by == "tier":
        pairs = sorted({link_tier(design, lk) for lk in links_shown})
        links = [LegendEntry(tier_name(p), colour=TIER_COLOURS.get(p, OTHER_TIER))
                 for p in pairs]
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
    painter.setPen(QPen(theme.border, 1))
    painter.setBrush(QColor(theme.panel))  # opaque: the canvas draws no scene under it
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
