"""Does a straight link pass over a device?  Used to step a device aside to a clear spot.

A device occupies its tile (about 40 px) with its name below; a link is the straight line
between the centres of its ends.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from fabricstudio.model import Link
from fabricstudio.topology.builders.placement import PITCH

#: A device's footprint around its centre: its tile (half width, above, below) and the name
#: under it (half width, top, bottom).
HALF_WIDTH, ABOVE, BELOW = 26.0, 26.0, 26.0
NAME_HALF_WIDTH, NAME_TOP, NAME_BOTTOM = 39.0, 18.0, 38.0
#: How far (in half pitches) a device may step to either side.
MAX_STEPS = 12

Rect = tuple[float, float, float, float]


def footprint(x: float, y: float) -> tuple[Rect, Rect]:
    """The rectangles a device at (x, y) covers: tile and name."""
    return ((x - HALF_WIDTH, y - ABOVE, x + HALF_WIDTH, y + BELOW),
            (x - NAME_HALF_WIDTH, y + NAME_TOP, x + NAME_HALF_WIDTH, y + NAME_BOTTOM))


def segment_meets_device(p: tuple[float, float], q: tuple[float, float], x: float,
                         y: float) -> bool:
    """True when the segment p-q passes over the device at (x, y)."""
    return any(segment_meets(p, q, r) for r in footprint(x, y))


def segment_meets(p: tuple[float, float], q: tuple[float, float], r: Rect) -> bool:
    """True when the segment p-q meets rectangle r (Liang-Barsky)."""
    x0, y0 = p
    dx, dy = q[0] - x0, q[1] - y0
    t0, t1 = 0.0, 1.0
    for edge, dist in ((-dx, x0 - r[0]), (dx, r[2] - x0), (-dy, y0 - r[1]), (dy, r[3] - y0)):
        if edge == 0:
            if dist < 0:
                return False
            continue
        t = dist / edge
        if edge < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


class Obstacles:
    """Positions and the drawn lines (one per linked pair) of a layout in progress."""

    def __init__(self, positions: dict[str, tuple[float, float]], links: Iterable[Link]) -> None:
        self.pos = positions
        self.partners: dict[str, set[str]] = defaultdict(set)
        for link in links:
            if link.a in positions and link.b in positions:
                self.partners[link.a].add(link.b)
                self.partners[link.b].add(link.a)

    def move(self, ident: str, x: float) -> None:
        """Move ``ident`` sideways to ``x``."""
        self.pos[ident] = (x, self.pos[ident][1])

    def blocked(self, ident: str, x: float, y: float,
                 lines: Sequence[tuple[str, str]]) -> bool:
        for other, (ox, oy) in self.pos.items():
            if other != ident and abs(ox - x) < PITCH - 1 and abs(oy - y) < ABOVE + NAME_BOTTOM:
                return True
        for a, b in lines:
            (ax, ay), (bx, by) = self.pos[a], self.pos[b]
            if (ident in (a, b) or x + NAME_HALF_WIDTH < min(ax, bx)
                    or x - NAME_HALF_WIDTH > max(ax, bx) or y + NAME_BOTTOM < min(ay, by)
                    or y - ABOVE > max(ay, by)):
                continue
            if segment_meets_device((ax, ay), (bx, by), x, y):
                return True
        for partner in self.partners[ident]:
            p, q = (x, y), self.pos[partner]
            lo_x, hi_x = min(p[0], q[0]) - NAME_HALF_WIDTH, max(p[0], q[0]) + NAME_HALF_WIDTH
            lo_y, hi_y = min(p[1], q[1]) - NAME_BOTTOM, max(p[1], q[1]) + ABOVE
            for other, (ox, oy) in self.pos.items():
                if other in (ident, partner) or not (lo_x <= ox <= hi_x and lo_y <= oy <= hi_y):
                    continue
                if segment_meets_device(p, q, ox, oy):
                    return True
        return False


def first_clear_x(ident: str, obstacles: Obstacles, lines: Sequence[tuple[str, str]]) -> float:
    """The x nearest ``ident``'s own where no line of ``lines`` crosses it and its own links
    cross no device; its own x when no spot within ``MAX_STEPS`` half pitches is clear."""
    x, y = obstacles.pos[ident]
    for step in range(MAX_STEPS + 1):
        for sign in ((1,) if step == 0 else (-1, 1)):
            candidate = x + sign * step * PITCH / 2
            if not obstacles.blocked(ident, candidate, y, lines):
                return candidate
    return x
