"""A set of packet numbers kept as sorted, disjoint half-open ranges (a receiver's
out-of-order data, the blocks a SACK option reports)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable


class RangeSet:
    """Disjoint ranges ``[start, end)`` of packet numbers, kept sorted and merged."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def __bool__(self) -> bool:
        return bool(self.starts)

    def __len__(self) -> int:
        """Packets held."""
        return sum(e - s for s, e in zip(self.starts, self.ends, strict=True))

    def ranges(self) -> list[tuple[int, int]]:
        """The ranges, lowest first."""
        return list(zip(self.starts, self.ends, strict=True))

    def add(self, start: int, end: int, span_bytes: Callable[[int, int], int]) -> int:
        """Add ``[start, end)``; returns ``span_bytes(first, count)`` summed over the packets
        that were not held yet (their payload)."""
        if end <= start:
            return 0
        starts, ends = self.starts, self.ends
        lo = bisect_left(ends, start)  # first range that ends at or after start
        hi = bisect_right(starts, end)  # ranges [lo, hi) touch or overlap [start, end)
        new = 0
        cursor = start
        for k in range(lo, hi):
            if starts[k] > cursor:
                new += span_bytes(cursor, min(starts[k], end) - cursor)
            cursor = max(cursor, ends[k])
        if cursor < end:
            new += span_bytes(cursor, end - cursor)
        if lo < hi:
            start = min(start, starts[lo])
            end = max(end, ends[hi - 1])
        starts[lo:hi] = [start]
        ends[lo:hi] = [end]
        return new

    def advance(self, point: int) -> int:
        """The in-order point after ``point`` once ranges that reach it are taken out."""
        starts, ends = self.starts, self.ends
        while starts and starts[0] <= point:
            if ends[0] > point:
                point = ends[0]
            del starts[0], ends[0]
        return point
