"""Paced flows: background traffic that enters a focused cell-level region at the rate the
flow-level run computed for it (see fabricstudio.sim.focus)."""

from __future__ import annotations

from typing import Any

from fabricstudio.sim.engine.flows import Flow
from fabricstudio.sim.engine.ports import Cell


class PacedFlow(Flow):
    """A flow whose cells leave at most at ``rate`` (payload bytes per second): the next cell
    may start one cell's payload time after the previous one.  No end-to-end congestion
    control of its own (it is load, not the transport under study); it still waits for PFC,
    credits and its NIC like any other flow, and recovers losses by go-back-N."""

    __slots__ = ("pace",)

    def __init__(self, *args: Any, rate: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pace = rate

    def make_cell(self, now: float, limit: int = 0) -> Cell:
        """Cut the next cell; the following one waits for its turn at the paced rate."""
        cell = Flow.make_cell(self, now, limit)
        self.next_time = now + cell.bytes / self.pace
        return cell
