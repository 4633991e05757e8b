"""Does a straight link pass over a device?  Used to step a device aside to a clear spot.

A device occupies its tile (about 40 px) with its name below; a link is the straight line
between the centres of its ends.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from fabricstudio.model import Link
from fabricstudio.model import footprint as drawn
from fabricstudio.topology.builders.placement import PITCH
from fabricstudio.topology.geometry import Rect, segment_meets

#: A device's footprint around its centre (model.footprint): its tile with 6 of air (half
#: width, above, below) and the name under it (half width less 3, top with 5 of air, bottom).
HALF_WIDTH = ABOVE = BELOW = drawn.TILE_HALF + 6.0
NAME_HALF_WIDTH = drawn.LABEL_WIDTH / 2 - 3.0
NAME_TOP = drawn.TILE_HALF + drawn.LABEL_GAP - 5.0
NAME_BOTTOM = drawn.NAME_BOTTOM
#: How far (in half pitches) a device may step to either side.
MAX_STEPS = 24


def footprint(x: float, y: float) -> tuple[Rect, Rect]:
    """The rectangles a device at (x, y) covers: tile and name."""
    return ((x - HALF_WIDTH, y - ABOVE, x + HALF_WIDTH, y + BELOW),
            (x - NAME_HALF_WIDTH, y + NAME_TOP, x + NAME_HALF_WIDTH, y + NAME_BOTTOM))


def segment_meets_device(p: tuple[float, float], q: tuple[float, float], x: float,
                         y: float) -> bool:
    """True when the segment p-q passes over the device at (x, y)."""
    return any(segment_meets(p, q, r) for r in footprint(x, y))


CELL = 200.0


def _cells(x0: float, y0: float, x1: float, y1: float) -> Iterable[tuple[int, int]]:
    for i in range(int(x0 // CELL), int(x1 // CELL) + 1):
        for j in range(int(y0 // CELL), int(y1 // CELL) + 1):
            yield i, j


class Obstacles:
    """Positions and drawn lines of a layout in progress, bucketed by area.

    ``mobile`` devices are the ones that may still move (checked one by one, at their
    current position); ``lines`` are the (a, b) pairs that must not pass over a moved device.
    """

    def __init__(self, positions: dict[str, tuple[float, float]], links: Iterable[Link],
                 mobile: Iterable[str] = (), lines: Iterable[tuple[str, str]] = ()) -> None:
        self.pos = positions
        self.mobile = [m for m in dict.fromkeys(mobile) if m in positions]
        moving = set(self.mobile)
        #: Mobile devices not placed yet: they neither block nor have cables.
        self.parked: set[str] = set()
        self.partners: dict[str, set[str]] = defaultdict(set)
        for link in links:
            if link.a in positions and link.b in positions:
                self.partners[link.a].add(link.b)
                self.partners[link.b].add(link.a)
        self.devices: dict[tuple[int, int], list[str]] = defaultdict(list)
        for ident, (x, y) in positions.items():
            if ident not in moving:
                self.devices[(int(x // CELL), int(y // CELL))].append(ident)
        self.lines: dict[tuple[int, int], list[tuple[str, str]]] = defaultdict(list)
        self.mobile_lines = []
        for a, b in lines:
            if a in moving or b in moving:
                self.mobile_lines.append((a, b))
                continue
            (ax, ay), (bx, by) = positions[a], positions[b]
            for cell in _cells(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)):
                self.lines[cell].append((a, b))

    def move(self, ident: str, x: float) -> None:
        """Move the mobile device ``ident`` sideways to ``x`` (placing it if parked)."""
        self.pos[ident] = (x, self.pos[ident][1])
        self.parked.discard(ident)

    def _near(self, x0: float, y0: float, x1: float, y1: float) -> Iterable[str]:
        """Devices whose centres may lie in the box (static by cell, then the mobile ones)."""
        for cell in _cells(x0 - CELL, y0 - CELL, x1 + CELL, y1 + CELL):
            yield from self.devices.get(cell, ())
        yield from (m for m in self.mobile if m not in self.parked)

    def _lines_near(self, box: tuple[float, float, float, float]) -> Iterable[tuple[str, str]]:
        seen = set()
        for cell in _cells(*box):
            for line in self.lines.get(cell, ()):
                if line not in seen:
                    seen.add(line)
                    yield line
        yield from (line for line in self.mobile_lines
                    if line[0] not in self.parked and line[1] not in self.parked)

    def blocked(self, ident: str, x: float, y: float) -> bool:
        """True when ``ident`` at (x, y) would overlap a device, stand under a line, or have
        one of its own links pass over a device."""
        for other in self._near(x - PITCH, y - ABOVE - NAME_BOTTOM, x + PITCH,
                                y + ABOVE + NAME_BOTTOM):
            ox, oy = self.pos[other]
            if other != ident and abs(ox - x) < PITCH - 1 and abs(oy - y) < ABOVE + NAME_BOTTOM:
                return True
        box = (x - NAME_HALF_WIDTH, y - ABOVE, x + NAME_HALF_WIDTH, y + NAME_BOTTOM)
        for a, b in self._lines_near(box):
            if ident not in (a, b) and segment_meets_device(self.pos[a], self.pos[b], x, y):
                return True
        for partner in self.partners[ident] - self.parked:
            p, q = (x, y), self.pos[partner]
            lo_x, hi_x = min(p[0], q[0]) - NAME_HALF_WIDTH, max(p[0], q[0]) + NAME_HALF_WIDTH
            lo_y, hi_y = min(p[1], q[1]) - NAME_BOTTOM, max(p[1], q[1]) + ABOVE
            for other in self._near(lo_x, lo_y, hi_x, hi_y):
                ox, oy = self.pos[other]
                if other in (ident, partner) or not (lo_x <= ox <= hi_x and lo_y <= oy <= hi_y):
                    continue
                if segment_meets_device(p, q, ox, oy):
                    return True
        return False


def first_clear_x(ident: str, obstacles: Obstacles) -> float:
    """The x nearest ``ident``'s own where it overlaps no placed device, no line crosses it
    and its own links cross no device; its own x when no spot within ``MAX_STEPS`` half
    pitches is clear."""
    x, y = obstacles.pos[ident]
    for step in range(MAX_STEPS + 1):
        for sign in ((1,) if step == 0 else (-1, 1)):
            candidate = x + sign * step * PITCH / 2
            if not obstacles.blocked(ident, candidate, y):
                return candidate
    return x
