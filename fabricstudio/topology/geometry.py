"""Plane geometry shared by the layout code and the canvas (Qt-free)."""

from __future__ import annotations

#: An axis-aligned rectangle (left, top, right, bottom).
Rect = tuple[float, float, float, float]


def clip_segment(p: tuple[float, float], q: tuple[float, float],
                 r: Rect) -> tuple[float, float] | None:
    """Parameter range (t0, t1) of the segment p-q inside rectangle r, None when it misses
    (Liang-Barsky clipping; t = 0 at p, 1 at q)."""
    x0, y0 = p
    dx, dy = q[0] - x0, q[1] - y0
    t0, t1 = 0.0, 1.0
    for edge, dist in ((-dx, x0 - r[0]), (dx, r[2] - x0), (-dy, y0 - r[1]), (dy, r[3] - y0)):
        if edge == 0:
            if dist < 0:
                return None
            continue
        t = dist / edge
        if edge < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return t0, t1


def segment_meets(p: tuple[float, float], q: tuple[float, float], r: Rect) -> bool:
    """True when the segment p-q meets rectangle r."""
    return clip_segment(p, q, r) is not None
