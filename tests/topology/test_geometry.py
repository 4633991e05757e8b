"""Segment/rectangle clipping shared by the layout and the canvas."""

import pytest

from fabricstudio.topology.geometry import clip_segment, segment_meets

BOX = (0.0, 0.0, 10.0, 10.0)


@pytest.mark.parametrize("p, q, expected", [
    ((-5, 5), (15, 5), (0.25, 0.75)),     # crosses the box
    ((2, 2), (8, 8), (0.0, 1.0)),         # wholly inside
    ((-5, -5), (-1, 20), None),           # passes beside it
    ((5, -5), (5, -1), None),             # stops short (vertical)
    ((12, 5), (12, 5), None),             # a point outside
])
def test_clip_segment(p, q, expected):
    got = clip_segment(p, q, BOX)
    if expected is None:
        assert got is None and not segment_meets(p, q, BOX)
    else:
        assert got == pytest.approx(expected) and segment_meets(p, q, BOX)
