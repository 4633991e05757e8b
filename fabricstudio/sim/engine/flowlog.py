"""The engines' flow records, streamed: the first few thousand are kept for the Result, the
rest only while they are alive, and every finished flow is folded into running totals.

A 32,768-GPU training iteration creates millions of transfers; keeping a record of each for
the whole run cost ~330 B per flow (over 1 GB).  :class:`FlowLog` keeps the records the
Result lists (ids below ``keep``), the live ones (workloads and the live view read their
progress) and a :class:`FlowSummary` of all of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, overload

from fabricstudio.sim.engine.config import EngineError, FlowRecord

#: Records kept after they finish (the Result lists these; see sim.run.MAX_RESULT_FLOWS).
KEEP_FIRST = 10_000


@dataclass
class FlowSummary:
    """Running totals over every flow of a run (finished or not)."""

    flows: int = 0
    finished: int = 0
    bytes: int = 0
    finished_bytes: int = 0
    fct_sum_s: float = 0.0
    fct_max_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures: counts, bytes and flow completion times (mean, max)."""
        return {"flows": self.flows, "finished": self.finished, "bytes": self.bytes,
                "finished_bytes": self.finished_bytes,
                "mean_fct_s": self.fct_sum_s / self.finished if self.finished else None,
                "max_fct_s": self.fct_max_s if self.finished else None}


class FlowLog:
    """Flow records by id: ``log[i]`` for a kept or live record, ``len(log)`` = flows ever
    added.  Ids are consecutive from 0 (:meth:`next_id`)."""

    def __init__(self, keep: int = KEEP_FIRST) -> None:
        self.keep = keep
        self._kept: list[FlowRecord] = []
        self._live: dict[int, FlowRecord] = {}
        self._count = 0
        self.summary = FlowSummary()

    def next_id(self) -> int:
        """Id the next added record must have."""
        return self._count

    def request(self, src: str, dst: str, size_bytes: float, start_s: float | None,
                now: float, tag: str = "") -> FlowRecord:
        """The record of a requested transfer (not added yet; :meth:`append` adds it), checked
        as both engines check it: a positive whole number of bytes, starting now (None) or
        later.  EngineError names the problem."""
        try:
            size = int(size_bytes)
        except (TypeError, ValueError, OverflowError):
            raise EngineError(f"flow {src} -> {dst}: size {size_bytes!r} is not a number") from None
        if size <= 0:
            raise EngineError(f"flow {src} -> {dst}: size {size_bytes} must be positive")
        start = now if start_s is None else float(start_s)
        if start < now - 1e-15:
            raise EngineError(f"flow {src} -> {dst}: start {start} s is before now ({now} s)")
        return FlowRecord(self.next_id(), str(src), str(dst), size, 0, start, None, tag)

    def append(self, rec: FlowRecord) -> None:
        """Add a new record (its id must be :meth:`next_id`)."""
        if rec.id != self._count:
            raise ValueError(f"flow id {rec.id} out of order (expected {self._count})")
        self._count += 1
        if rec.id < self.keep:
            self._kept.append(rec)
        self._live[rec.id] = rec
        self.summary.flows += 1
        self.summary.bytes += rec.size_bytes

    def finished(self, rec: FlowRecord) -> None:
        """``rec`` delivered its last byte: count it; forget it unless it is kept."""
        if self._live.pop(rec.id, None) is None:
            return
        s = self.summary
        s.finished += 1
        s.finished_bytes += rec.size_bytes
        if rec.finish_s is not None:
            fct = rec.finish_s - rec.start_s
            s.fct_sum_s += fct
            s.fct_max_s = max(s.fct_max_s, fct)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, flow_id: int) -> FlowRecord: ...
    @overload
    def __getitem__(self, flow_id: slice) -> list[FlowRecord]: ...

    def __getitem__(self, flow_id: int | slice) -> FlowRecord | list[FlowRecord]:
        if isinstance(flow_id, slice):  # over the retained records, as a list
            return list(self)[flow_id]
        if 0 <= flow_id < len(self._kept):
            return self._kept[flow_id]
        rec = self._live.get(flow_id)
        if rec is None:
            raise KeyError(f"flow {flow_id} is finished and no longer kept")
        return rec

    def __iter__(self) -> Iterator[FlowRecord]:
        """Kept records, then live ones beyond them (by id)."""
        yield from self._kept
        for fid in sorted(self._live):
            if fid >= len(self._kept):
                yield self._live[fid]

    def kept(self) -> list[FlowRecord]:
        """The first ``keep`` records (the ones a Result lists)."""
        return list(self._kept)

    def live(self) -> list[FlowRecord]:
        """Records of flows not finished yet."""
        return list(self._live.values())

    @property
    def omitted(self) -> int:
        """Flows not among the kept ones."""
        return self._count - len(self._kept)
