"""Positions for a built fabric: role-sorted tiers (core > spine > leaf > servers) in blocks.

A *unit* is a rack (one leaf, its servers in a row below it) or a scalable unit (its rail
leaves above one row of servers).  Units are arranged in rows that wrap to suit a 16:10
screen; pods are units grouped under their own spines; the tiers above sit over the blocks.
Vertical gaps grow with the width a tier spans, so that a straight link between two rows
clears the neighbours of its ends instead of grazing them.

All coordinates are scene pixels: x to the right, y down; a device's tile is ~40 px with its
name below, so a device needs ``PITCH`` of width and ``TOP + BOTTOM`` of height.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from fabricstudio.model import footprint

#: Horizontal distance between neighbours in a row; least vertical distance between tiers;
#: room above and below a device's centre.
PITCH = 90.0
ROW_GAP = 160.0
TOP, BOTTOM = 30.0, 50.0
#: Leaf to server row (at least); server spacing in a rack of bundles (a count label is
#: ~60 px wide and sits a third to a half of the way along its bundle); air between units.
SERVER_DROP = 190.0
BUNDLE_PITCH = 1.35 * PITCH
UNIT_GAP = 60.0
POD_GAP = 2 * PITCH
WRAP_GAP = 1.5 * PITCH
#: Width : height the blocks aim for (a 16:10 screen) and the cost of wrapping at all (a
#: wrapped row's uplinks cross the rows above, so wrapping must pay for itself).
TARGET_ASPECT = 1.6
WRAP_COST = 0.3
#: Clearance a line needs where it passes a neighbour of its end: below a row (tile top) and
#: above it (tile and name).
CLEAR_ABOVE = 26.0
CLEAR_BELOW = 40.0
TILE_HALF = footprint.TILE_HALF + 4.0  # the tile with 4 of air (model.footprint)
NAME_HALF = footprint.LABEL_WIDTH / 2 - 4.0  # a name, trimmed at its rounded corners
MAX_TIER_GAP = 1200.0
WRAPPED_TIER_GAP = 2.5 * ROW_GAP
#: Servers of a scalable unit: the arc starts this far (radians) below the leaves' row and is
#: this flat (height : half width).
ARC_FROM = 0.3
ARC_FLATNESS = 0.6
ARC_SAMPLES = 512
#: Rail leaves stand wider apart than a row needs, so that the cables fanning out of them
#: clear their neighbours at a shallower depth.
RAIL_PITCH = 2 * PITCH


@dataclass
class Block:
    """Devices in local coordinates: x in [0, width], y in [0, height], footprints included;
    ``top_xs`` are the x of the devices in the top row (where links from above arrive)."""

    pos: dict[str, tuple[float, float]] = field(default_factory=dict)
    width: float = 0.0
    height: float = 0.0
    top_xs: list[float] = field(default_factory=list)
    #: True when some of its cables cross other devices (its units wrap into rows).
    wrapped: bool = False

    def place(self, dx: float, dy: float, out: dict[str, tuple[float, float]]) -> None:
        """Copy the positions into ``out``, shifted by (dx, dy)."""
        for ident, (x, y) in self.pos.items():
            out[ident] = (x + dx, y + dy)


def spread(count: int, width: float) -> list[float]:
    """``count`` x positions spread evenly over ``width`` (each in the middle of its share),
    never closer than ``PITCH``; centred on ``width`` when they need more room."""
    if count <= 0:
        return []
    step = max(PITCH, width / count)
    start = width / 2 - step * (count - 1) / 2
    return [start + i * step for i in range(count)]


def _min_step(xs: Sequence[float]) -> float:
    ordered = sorted(xs)
    steps = [b - a for a, b in pairwise(ordered)]
    return min(steps) if steps else math.inf


def tier_gap(upper: Sequence[float], lower: Sequence[float], minimum: float) -> float:
    """Vertical distance between a row at x ``upper`` and one at x ``lower`` (every upper
    device may link to every lower one) so that no link grazes a neighbour of its ends: a
    link reaching ``reach`` sideways passes a neighbour ``step`` away at ``step / reach`` of
    the height, which must clear the neighbour's tile (and, above the row, its name)."""
    if not upper or not lower:
        return minimum
    reach = max(max(upper) - min(lower), max(lower) - min(upper), 0.0)
    need = minimum
    step_low, step_up = _min_step(lower), _min_step(upper)
    if 0 < step_low < math.inf and reach > step_low - TILE_HALF:
        need = max(need, CLEAR_ABOVE * reach / max(step_low - TILE_HALF, 1.0))
    if 0 < step_up < math.inf and reach > step_up - NAME_HALF:
        need = max(need, CLEAR_BELOW * reach / max(step_up - NAME_HALF, 1.0),
                   TILE_HALF * reach / max(step_up - TILE_HALF, 1.0))
    return min(need, MAX_TIER_GAP)


def rack_block(leaf: str, servers: Sequence[str], bundled: bool) -> Block:
    """A leaf above its servers in one row; ``bundled`` racks (several cables per server,
    drawn as one bundle with a count) space their servers wider, so that neighbouring
    counts stand apart."""
    pitch = BUNDLE_PITCH if bundled else PITCH
    width = max(len(servers), 1) * pitch
    leaf_x = width / 2
    xs = [pitch / 2 + i * pitch for i in range(len(servers))]
    drop = tier_gap([leaf_x], xs, SERVER_DROP)
    block = Block(width=width, height=TOP + drop + BOTTOM, top_xs=[leaf_x])
    block.pos[leaf] = (leaf_x, TOP)
    for server, x in zip(servers, xs, strict=True):
        block.pos[server] = (x, TOP + drop)
    return block


def unit_block(leaves: Sequence[str], servers: Sequence[str]) -> Block:
    """A scalable unit: its rail leaves in a row, its servers on an arc below them (every
    server is cabled to every rail leaf, so each cable runs clear of the other servers)."""
    leaf_xs = spread(len(leaves), len(leaves) * RAIL_PITCH)
    points = _arc(len(servers), leaf_xs[-1] - leaf_xs[0] if leaf_xs else 0.0)
    if points:
        low = min(y for _, y in points)
        need = tier_gap(leaf_xs, [x for x, _ in points], SERVER_DROP)
        points = [(x, y + max(need - low, 0.0)) for x, y in points]
    xs = [x for x, _ in points] + [x - PITCH / 2 for x in leaf_xs] + \
        [x + PITCH / 2 for x in leaf_xs]
    left = min(xs) - PITCH / 2 if points else -PITCH / 2
    width = max(xs) + PITCH / 2 - left if points else len(leaves) * PITCH
    block = Block(width=width, top_xs=[x - left for x in leaf_xs])
    for leaf, x in zip(leaves, leaf_xs, strict=False):
        block.pos[leaf] = (x - left, TOP)
    for server, (x, y) in zip(servers, points, strict=False):
        block.pos[server] = (x - left, TOP + y)
    block.height = TOP + max((y for _, y in points), default=0.0) + BOTTOM
    return block


def _arc(count: int, leaf_span: float) -> list[tuple[float, float]]:
    """``count`` points on the lower half of an ellipse around (0, 0), ``PITCH`` or more
    apart and clear of a row of leaves ``leaf_span`` wide; left to right."""
    if count == 0:
        return []
    if count == 1:
        return [(leaf_span / 2, SERVER_DROP)]
    lo, hi = ARC_FROM, math.pi - ARC_FROM
    samples = [(math.cos(lo + (hi - lo) * i / ARC_SAMPLES),
                ARC_FLATNESS * math.sin(lo + (hi - lo) * i / ARC_SAMPLES))
               for i in range(ARC_SAMPLES + 1)]
    along = [0.0]
    for p, q in pairwise(samples):
        along.append(along[-1] + math.dist(p, q))
    radius = max((count - 1) * PITCH * 1.05 / along[-1], (leaf_span / 2 + PITCH) / math.cos(lo))
    points, j = [], 0
    for i in range(count):
        target = along[-1] * i / (count - 1)
        while j < ARC_SAMPLES and along[j + 1] < target:
            j += 1
        ux, uy = samples[j]
        points.append((leaf_span / 2 - radius * ux, radius * uy))
    return points


def _rows(blocks: Sequence[Block], per_row: int) -> list[list[Block]]:
    return [list(blocks[i:i + per_row]) for i in range(0, len(blocks), per_row)]


def _row_width(row: Sequence[Block], gap: float) -> float:
    return sum(b.width for b in row) + gap * (len(row) - 1)


def _shape(blocks: Sequence[Block], per_row: int, tiers: Sequence[Sequence[str]],
           gap: float) -> tuple[float, float]:
    """(width, height) of ``blocks`` wrapped ``per_row`` to a row under ``tiers``."""
    rows = _rows(blocks, per_row)
    width = max(_row_width(r, gap) for r in rows)
    height = sum(max(b.height for b in r) for r in rows) + WRAP_GAP * (len(rows) - 1)
    below = _first_row_top_xs(rows[0], width, gap)
    for tier in tiers:
        xs = _over(tier, below)
        width = max(width, len(tier) * PITCH)
        height += _band(xs, below, len(rows))
        below = xs
    return width, height


def _band(upper: Sequence[float], lower: Sequence[float], rows: int) -> float:
    """Height of the band between a tier and the row below it.  Once units wrap, the lower
    rows' cables cross the upper rows anyway: a band kept low keeps the picture compact."""
    gap = tier_gap(upper, lower, ROW_GAP)
    return gap if rows == 1 else min(gap, WRAPPED_TIER_GAP)


def _over(tier: Sequence[str], below: Sequence[float]) -> list[float]:
    """x of a tier spread over the row below it."""
    span = max(below) - min(below) + PITCH
    return [min(below) - PITCH / 2 + x for x in spread(len(tier), span)]


def _first_row_top_xs(row: Sequence[Block], width: float, gap: float) -> list[float]:
    x = (width - _row_width(row, gap)) / 2
    xs = []
    for b in row:
        xs += [x + t for t in b.top_xs]
        x += b.width + gap
    return xs


def aspect_cost(block: Block, extra_height: float = 0.0) -> float:
    """How far ``block`` (made ``extra_height`` taller) is from the target shape."""
    return abs(math.log(block.width / max(block.height + extra_height, 1.0) / TARGET_ASPECT))


def _best_per_row(blocks: Sequence[Block], tiers: Sequence[Sequence[str]], gap: float,
                  extra_height: float) -> int:
    best, best_cost = len(blocks), math.inf
    wrap_cost = 0.0 if any(b.wrapped for b in blocks) else WRAP_COST
    for per_row in range(len(blocks), 0, -1):
        width, height = _shape(blocks, per_row, tiers, gap)
        height += extra_height
        rows = math.ceil(len(blocks) / per_row)
        cost = abs(math.log(width / height / TARGET_ASPECT)) + wrap_cost * (rows > 1)
        if cost < best_cost - 1e-9:
            best, best_cost = per_row, cost
    return best


def arrange(blocks: Sequence[Block], tiers: Sequence[Sequence[str]], gap: float,
            extra_height: float = 0.0, per_row: int | None = None) -> Block:
    """``blocks`` in rows (wrapped for a 16:10 overall shape, counting ``extra_height`` that
    will be added below) with the switch ``tiers`` above them, nearest tier first, each
    spread over the row below it.  ``per_row`` fixes how many blocks share a row."""
    if not blocks:
        block = Block()
        y = TOP
        for tier in tiers:
            xs = spread(len(tier), len(tier) * PITCH)
            for ident, x in zip(tier, xs, strict=True):
                block.pos[ident] = (x, y)
            block.width = max(block.width, len(tier) * PITCH)
            y += ROW_GAP
        block.height = y - ROW_GAP + BOTTOM if tiers else 0.0
        return block
    per_row = per_row or _best_per_row(blocks, tiers, gap, extra_height)
    rows = _rows(blocks, per_row)
    width = max(max(_row_width(r, gap) for r in rows), max((len(t) * PITCH for t in tiers),
                                                           default=0.0))
    out = Block(width=width, wrapped=len(rows) > 1 or any(b.wrapped for b in blocks))
    # Tiers first, top down: measure the band heights from the first row upwards.
    below = _first_row_top_xs(rows[0], width, gap)
    bands = []
    for tier in tiers:
        xs = _over(tier, below)
        bands.append((tier, xs, _band(xs, below, len(rows))))
        below = xs
    y = TOP + sum(g for _, _, g in bands)
    top_y = y
    for tier, xs, band in bands:
        y -= band
        for ident, x in zip(tier, xs, strict=True):
            out.pos[ident] = (x, y)
    y = top_y - TOP
    for row in rows:
        x = (width - _row_width(row, gap)) / 2
        for b in row:
            b.place(x, y, out.pos)
            x += b.width + gap
        y += max(b.height for b in row) + WRAP_GAP
    out.height = y - WRAP_GAP
    out.top_xs = below
    return out
