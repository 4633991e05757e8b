"""Dependency-driven ring passes: the data movement of NCCL-like ring collectives.

A ring pass has N positions; position p sends to position p+1 (mod N) over ``hops[p]``.  Each
of ``steps`` dependent steps moves one chunk per position; a chunk is cut into slices
(NCCL's pipelining unit) and slice j of step k may leave position p only after slice j of step
k-1 has arrived at p from p-1.  Each position keeps at most ``window`` slices in flight, sent
in (step, slice) order, so its NIC stays busy while the previous slice's tail is on the wire.

Sends are flows of the engine; their ``on_done`` callbacks (fired at the last byte) drive the
ring, so a pass costs no SimPy process per slice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Slices each position keeps in flight (NCCL keeps up to 8 steps of a channel in flight;
#: two suffice to keep a link busy without sharing its bandwidth among many slices).
DEFAULT_WINDOW = 2


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` bytes cut into ``parts`` integers that differ by at most one and sum to it."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class RingPass:
    """One ring of ``len(hops)`` positions running ``steps`` dependent steps of ``chunk_bytes``.

    ``on_finish(time_s)`` is called once, when the last slice of the last step has arrived;
    ``on_bytes(n)``, if given, after every slice with its size (progress accounting).  All
    slices of a hop travel on queue pair ``qp`` of that connection (one ECMP path, as NCCL
    reuses a connection for every step).
    """

    def __init__(self, engine: Any, hops: list[tuple[str, str]], steps: int, chunk_bytes: int,
                 slice_bytes: int, tag: str, on_finish: Callable[[float], None],
                 window: int = DEFAULT_WINDOW,
                 on_bytes: Callable[[int], None] | None = None, qp: int = 0) -> None:
        if len(hops) < 2 or steps < 1:
            raise ValueError("a ring pass needs at least two positions and one step")
        self._engine = engine
        self._hops = hops
        self._n = len(hops)
        chunk_bytes = max(1, int(chunk_bytes))
        slices = max(1, -(-chunk_bytes // max(1, slice_bytes)))
        self._slice_sizes = split_evenly(chunk_bytes, min(slices, chunk_bytes))
        self._m = len(self._slice_sizes)
        self._items = steps * self._m
        self._tag = tag
        self._window = window
        self._on_finish = on_finish
        self._on_bytes = on_bytes
        self._qp = qp
        self._next = [0] * self._n
        self._inflight = [0] * self._n
        self._arrived = [[-1] * self._m for _ in range(self._n)]
        self._early: list[set[tuple[int, int]]] = [set() for _ in range(self._n)]
        self._remaining = self._n * self._items
        self.flow_ids: list[int] = []
        self.bytes_per_position = steps * chunk_bytes

    def start(self) -> None:
        """Issue the first slices of every position."""
        for p in range(self._n):
            self._issue(p)

    def _issue(self, p: int) -> None:
        m = self._m
        arrived = self._arrived[p]
        while self._inflight[p] < self._window and self._next[p] < self._items:
            k, j = divmod(self._next[p], m)
            if k and arrived[j] < k - 1:
                return
            self._next[p] += 1
            self._inflight[p] += 1
            src, dst = self._hops[p]
            fid = self._engine.add_flow(
                src, dst, self._slice_sizes[j], tag=self._tag, qp=self._qp,
                on_done=lambda record, p=p, k=k, j=j: self._done(p, k, j))
            self.flow_ids.append(fid)

    def _done(self, p: int, k: int, j: int) -> None:
        self._inflight[p] -= 1
        q = p + 1 if p + 1 < self._n else 0
        arrived = self._arrived[q]
        if arrived[j] == k - 1:
            arrived[j] = k
            early = self._early[q]
            while early and (arrived[j] + 1, j) in early:
                early.discard((arrived[j] + 1, j))
                arrived[j] += 1
        else:
            self._early[q].add((k, j))
        self._remaining -= 1
        if self._on_bytes is not None:
            self._on_bytes(self._slice_sizes[j])
        self._issue(q)
        self._issue(p)
        if not self._remaining:
            self._on_finish(self._engine.now)
