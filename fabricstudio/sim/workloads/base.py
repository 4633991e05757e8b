"""What every workload has: a SimPy process on the engine's clock and a report."""

from __future__ import annotations

import random
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fabricstudio.model import Design

if TYPE_CHECKING:
    from fabricstudio.sim.duration import HopTimes


@dataclass(frozen=True)
class Activity:
    """A stretch of time in which some GPUs compute or have communication outstanding.

    ``addresses`` are the endpoints involved (``server/gpuN``, ``server/nicN`` or ``server``);
    ``end_s`` is None while the stretch still lasts.  The live view derives each GPU's state
    (computing / communicating / waiting on the network / idle) from these and the link
    metrics (fabricstudio.sim.activity).
    """

    addresses: tuple[str, ...]
    #: "compute", "comm" (network or NVLink transfers the engine carries) or "nvlink" (a
    #: fixed-time NVLink exchange the engine does not carry: it always counts as moving)
    kind: str
    start_s: float
    end_s: float | None = None


@dataclass
class WorkloadContext:
    """Shared by the workloads of one run: the engine, the (frozen) design and a seeded RNG."""

    engine: Any
    design: Design
    rng: random.Random


class Workload:
    """Base class: ``start()`` registers a SimPy process; ``report()`` summarises it.

    Subclasses implement ``_run()`` (a SimPy generator) and set ``planned_bytes`` (bytes the
    workload will offer to the network or NVLink, for progress) and ``network_bytes`` (the
    part that crosses the fabric between servers, for work estimates).
    """

    kind = "workload"

    def __init__(self, ctx: WorkloadContext, index: int) -> None:
        self.ctx = ctx
        self.index = index
        self.start_s: float | None = None
        self.finish_s: float | None = None
        self.planned_bytes = 0
        self.network_bytes = 0
        #: Bytes of this workload's completed flows (progress; safe to read from any thread).
        self.done_bytes = 0
        #: Engine transfers the workload will create, those crossing the fabric, max-min
        #: rate updates they cause on the flow engine, and how many run at once at most
        #: (counted from the plan before anything is built: see fabricstudio.sim.work).
        self.planned_flows = 0
        self.planned_fabric_flows = 0
        self.planned_rate_updates = 0
        self.planned_concurrent = 0
        #: Unit steps the cell engine's ring arrays (sim.workloads.ring_arrays) would sweep:
        #: per phase, the most units one of its streams sends (0: nothing to solve as arrays).
        self.planned_array_steps = 0
        #: Expected length when it is not set by bytes at line rate (e.g. compute), seconds.
        self.duration_hint_s = 0.0
        #: Smallest piece its transfers are cut into (a ring step's unit): cells are never
        #: bigger, so the cell engine moves at least fabric bytes / this many cells.
        self.unit_bytes_hint: int | None = None
        self.flow_ids: list[int] = []

    def rate_updates_on(self, engine: Any) -> int:
        """Rate updates on the flow engine ``engine`` (built, nothing run yet): the planned
        count, or one that reads the engine's routes (LLM pipeline sends)."""
        del engine
        return self.planned_rate_updates

    @property
    def done(self) -> bool:
        """True once the workload has finished."""
        return self.finish_s is not None

    @property
    def hops(self) -> list[tuple[str, str]]:  # pragma: no cover - overridden
        """(src, dst) address pairs the workload sends over (path checks, work estimates)."""
        raise NotImplementedError

    @property
    def route_pairs(self) -> list[tuple[str, str]]:
        """(src, dst) pairs whose route lengths stand for the workload's fabric bytes (work
        estimates): its ``hops`` unless those are only a chain proving reachability."""
        return self.hops

    @property
    def tag(self) -> str:
        """Tag given to this workload's flows (``"w0:all_reduce"``)."""
        return f"w{self.index}:{self.kind}"

    @property
    def progress_bytes(self) -> int:
        """Bytes of completed flows so far (compare with ``planned_bytes``)."""
        return self.done_bytes

    def account(self, nbytes: int) -> None:
        """Count ``nbytes`` of completed flows."""
        self.done_bytes += nbytes

    def start(self) -> None:
        """Register the workload's process on the engine's environment."""
        self.ctx.engine.env.process(self._run())

    def _run(self) -> Generator[Any, Any, None]:  # pragma: no cover - overridden
        raise NotImplementedError
        yield

    def estimate_s(self, times: HopTimes) -> float:
        """Expected length without contention (see :mod:`fabricstudio.sim.duration`), never
        short of it.  Default: its bytes spread over its senders at the slowest one's NIC
        rate (or its hint, when longer) and one path latency."""
        senders = {src for src, _ in self.hops}
        rate = min((times.send_rate(s) for s in senders), default=1e9) * max(1, len(senders))
        latency = max((times.delay(a, b) for a, b in self.hops[:1]), default=0.0)
        return max(self.planned_bytes / rate, self.duration_hint_s) + latency

    def activity(self) -> list[Activity]:
        """When this workload's endpoints compute or communicate, so far.  Default: its whole
        lifetime is communication between the ends of its ``hops``."""
        if self.start_s is None:
            return []
        hops = getattr(self, "hops", ())
        addresses = tuple(sorted({address for hop in hops for address in hop}))
        return [Activity(addresses, "comm", self.start_s, self.finish_s)]

    def report(self) -> dict[str, Any]:
        """JSON-ready summary (common keys; subclasses add their own)."""
        duration = (self.finish_s - self.start_s
                    if self.finish_s is not None and self.start_s is not None else None)
        return {"type": self.kind, "tag": self.tag, "start_s": self.start_s,
                "finish_s": self.finish_s, "time_s": duration, "flows": len(self.flow_ids)}
