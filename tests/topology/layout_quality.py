"""Geometry checks of a laid-out design as the canvas draws it (Qt-free helpers for tests).

A device is a 40-px tile with its name (up to ~84 px wide) below; a link is a straight line
between centres; parallel links of one network and speed are drawn as one bundle whose count
label ("8 x 400G", ~60 x 16 px) sits at ``LABEL_AT`` of the way from end a.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from fabricstudio.model import Device, Link
from fabricstudio.topology.geometry import Rect, segment_meets

#: Half the tile plus a few pixels of air.
TILE_HALF = 23.0
#: The name under a tile: centred, from the tile's bottom edge down.
TEXT_HALF_WIDTH = 36.0
TEXT_TOP, TEXT_BOTTOM = 20.0, 36.0
#: Bundle count label.
LABEL_HALF = (30.0, 8.0)
#: Canvas: more than this many parallel links become one bundle with a label.
BUNDLE_ABOVE = 4



def tile_rect(d: Device) -> Rect:
    return (d.x - TILE_HALF, d.y - TILE_HALF, d.x + TILE_HALF, d.y + TILE_HALF)


def text_rect(d: Device) -> Rect:
    return (d.x - TEXT_HALF_WIDTH, d.y + TEXT_TOP, d.x + TEXT_HALF_WIDTH, d.y + TEXT_BOTTOM)


def rects_overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def drawn_lines(links: Iterable[Link]) -> dict[tuple[str, str], list[Link]]:
    """Links grouped as the canvas draws them: one line per device pair, network and speed."""
    lines: dict[tuple, list[Link]] = defaultdict(list)
    for link in links:
        lines[(link.a, link.b, link.plane, link.speed_gbps)].append(link)
    return lines


def _cells(rect: Rect, size: float) -> Iterable[tuple[int, int]]:
    for i in range(int(rect[0] // size), int(rect[2] // size) + 1):
        for j in range(int(rect[1] // size), int(rect[3] // size) + 1):
            yield i, j


class _Grid:
    """Device rectangles bucketed by area, so a segment only meets nearby devices."""

    SIZE = 200.0

    def __init__(self, devices: Sequence[Device], rect_of) -> None:
        self.cells: dict[tuple[int, int], list[tuple[Device, Rect]]] = defaultdict(list)
        for d in devices:
            r = rect_of(d)
            for cell in _cells(r, self.SIZE):
                self.cells[cell].append((d, r))

    def near(self, box: Rect) -> Iterable[tuple[Device, Rect]]:
        seen = set()
        for cell in _cells(box, self.SIZE):
            for d, r in self.cells.get(cell, ()):
                if d.id not in seen:
                    seen.add(d.id)
                    yield d, r


def _bbox(p, q) -> Rect:
    return (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))


def links_through_tiles(devices: Sequence[Device], links: Iterable[Link],
                        with_names: bool = False) -> list[str]:
    """'a-b crosses c' for every drawn line that passes over a device it does not end at
    (its tile, and with ``with_names`` also its name)."""
    by_id = {d.id: d for d in devices}
    grids = [_Grid(devices, tile_rect)] + ([_Grid(devices, text_rect)] if with_names else [])
    found = []
    for a, b, *_ in drawn_lines(links):
        p, q = (by_id[a].x, by_id[a].y), (by_id[b].x, by_id[b].y)
        for grid in grids:
            for d, r in grid.near(_bbox(p, q)):
                if d.id not in (a, b) and segment_meets(p, q, r):
                    found.append(f"{a}-{b} crosses {d.id}")
    return sorted(set(found))


def bundle_labels_on_devices(devices: Sequence[Device], links: Iterable[Link],
                             label_at: float) -> list[str]:
    """'a-b label on c' for every bundle whose count label covers a device's tile or name."""
    by_id = {d.id: d for d in devices}
    tiles, names = _Grid(devices, tile_rect), _Grid(devices, text_rect)
    found = []
    for (a, b, *_), members in drawn_lines(links).items():
        if len(members) <= BUNDLE_ABOVE:
            continue
        pa, pb = by_id[a], by_id[b]
        cx, cy = pa.x + (pb.x - pa.x) * label_at, pa.y + (pb.y - pa.y) * label_at
        label = (cx - LABEL_HALF[0], cy - LABEL_HALF[1], cx + LABEL_HALF[0], cy + LABEL_HALF[1])
        for grid in (tiles, names):
            for d, r in grid.near(label):
                if rects_overlap(label, r):
                    found.append(f"{a}-{b} label on {d.id}")
    return sorted(set(found))


def aspect_ratio(devices: Sequence[Device]) -> float:
    """Width / height of the area the devices cover, tiles and names included."""
    xs, ys = [d.x for d in devices], [d.y for d in devices]
    width = max(xs) - min(xs) + 2 * 45.0
    height = max(ys) - min(ys) + 30.0 + 50.0
    return width / height
