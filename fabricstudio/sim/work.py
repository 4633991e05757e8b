"""Work estimates: what a run will cost on each engine, known before anything is built.

The ceiling on a run used to be a flow count (5 million) that ignored what actually costs and
was reached only after the flows existed.  :class:`WorkEstimate` counts, from the workloads'
plans (an all-to-all's N(N-1) pairs are counted, not built):

- **transfers**: engine flows (aggregated collective streams count once per hop);
- **cell-hops**: fabric bytes that can move within the horizon / cell size x mean hops - the
  cell engine's dominant cost;
- **samples**: metric frames x directed links;
- **rate updates** (flow engine): flow starts and ends, each a max-min recomputation over the
  active flows' links;
- **explicit flows**: a scenario's ``flows`` list is read, validated, built and run one entry at
  a time, and each costs far more than a generated transfer, in time and in memory
  (:data:`S_PER_EXPLICIT_FLOW`, :data:`BYTES_PER_EXPLICIT_FLOW`, measured with
  ``benchmarks/explicit_flows.py``).  Their memory is checked against what this process can
  still get (:func:`memory_available`) before anything is built.

A lone ring collective (RoCE with PFC, or InfiniBand with credits to spare) is solved by the
cell engine as arrays
(:mod:`fabricstudio.sim.workloads.ring_arrays`), at a small fraction of its cost cell by cell:
when the arrays' pre-check says they apply (``ring_arrays``), the cell engine's prediction is
theirs (unit steps and cell-hops, :data:`ARRAY_S_PER_STEP`, :data:`ARRAY_S_PER_CELL_HOP`).

Each count times a per-item cost measured with ``benchmarks/scale.py`` (2-core machine, one
core per run) gives a predicted wall time per engine: ``auto`` runs the cell engine when its
prediction fits :data:`AUTO_CELL_BUDGET_S`, else the flow engine; a run whose chosen engine
would exceed its limit is refused with the figures and a suggestion.
"""

from __future__ import annotations

import dataclasses
import resource
from dataclasses import asdict, dataclass
from typing import Any

#: CPU seconds per cell-hop of the cell engine (RoCE, InfiniBand).  Source: ``benchmarks/
#: scale.py --cases ring --engines cell --gpus 256 512 --fit`` (256 MiB flat ring, 64 KiB cells,
#: rail-optimised 400G RoCE; 2026-12-02 03:37, load 2.5-4, nice 5): 12.1 us per cell-hop at 256
#: GPUs, 16.0 us at 512 (16.8 us at 1,024 GPUs, load ~4) - 10-11.5 bare SimPy timeout events
#: timed in the same processes (1.2-1.4 us each there, ~0.77 us on a quiet machine: docs/
#: engine.md "Speed"), so about 8-9 us on an idle machine and more on big fabrics (cache
#: misses).  The per-cell-hop cost of the small leaf-spine of benchmarks/engine.py (~3 us,
#: 4.4 bare events) underestimated real fabrics 4-6x.
CELL_S_PER_CELL_HOP = 1.2e-5
#: Lossy Ethernet runs TCP per packet (acknowledged, SACKed, timed): cell-hops per bare SimPy
#: event 0.148 against RoCE's 0.227 and InfiniBand's 0.221 (benchmarks/engine.py, 2026-12-02
#: 02:42, docs/engine.md "Speed"): 1.5x the cost per cell-hop.
ETHERNET_CELL_HOP_FACTOR = 1.5
#: Seconds per engine flow (record, route, start and finish events).
S_PER_FLOW = 3.0e-5
#: Seconds per explicit flow of a scenario's ``flows`` list: file read and validation, workload
#: and engine records, run (benchmarks/explicit_flows.py, 2-core machine, CPU time per flow from
#: 20,000 vs 80,000 flows, medians of 3 runs: 59-71 us = 7-9 us parse + 26-30 us build +
#: 25-33 us run, cell engine; the flow engine's run part is charged by its rate updates).
S_PER_EXPLICIT_FLOW = 6.5e-5
#: Peak memory per explicit flow, parse to result (same measurement: 3,045 bytes).
BYTES_PER_EXPLICIT_FLOW = 3_100
#: Of which still to be allocated once the flows are parsed, when the estimate is checked
#: (same measurement: 1,571 bytes; 1,474 are held by the parsed scenario).
BYTES_PER_EXPLICIT_FLOW_TO_RUN = 1_600
#: Memory kept free for the rest of a run (engine of a small design, result, output).
MEMORY_RESERVE_BYTES = 64 * 2**20
#: Seconds per (frame x directed link) of metric sampling.
S_PER_SAMPLE = 4.0e-7
#: Flow engine: CPU seconds per transfer (record, route, start and finish; for an LLM
#: iteration also the schedule's own SimPy steps), per rate update, and per rate update and
#: estimated concurrent (flow x link) entry.  Source: ``benchmarks/scale.py --cases llm --gpus
#: 512 1024 2048 4096 8192 32768 --fit`` (Llama-3-70B iteration, RoCE rail-optimised fabric,
#: run CPU time against the counted transfers and rate updates, 2026-12-02 08:07 UTC, load
#: about 2, nice 5, after the element-wise re-solves of branch flowspeed): 48.2 us, 121 us and
#: 4.08 ns explain every run within 0.78-1.12x.  (The same fit at load 6-7 gave 58.3 us,
#: 137 us and 6.26 ns, 0.88-1.07x; before those changes, at load 2-5: 46.6 us, 221 us and
#: 7.12 ns.  Before the incremental solver: 400 us + 0.2 us per entry and S_PER_FLOW, 139 s
#: predicted against 28 s run at 8,192 GPUs.)
FLOW_S_PER_TRANSFER = 4.8e-5
FLOW_S_PER_UPDATE = 1.2e-4
FLOW_S_PER_UPDATE_ENTRY = 4.1e-9
#: Cell engine, a lone ring solved as arrays (sim.workloads.ring_arrays): CPU seconds per unit
#: step (both sweeps over every stream of a phase, numpy calls of fixed cost) and per
#: cell-hop.  Source: ``benchmarks/scale.py --cases ring --engines cell --gpus 512 1024 2048
#: 4096 8192 --fit`` (256 MiB flat ring, 64 KiB cells, rail-optimised 400G RoCE, seed 1;
#: 2026-12-02 06:12-06:17, load 1.4-2.2, nice 5): 1.6 / 3.5 / 6.4 / 22.3 / 95.2 s run CPU for
#: 1,022-16,382 steps and 1.08-279 million cell-hops; 1.13 ms and 0.20 us explain them within
#: 0.78-1.26x.  Fitted on 512-4,096 GPUs alone the 8,192-GPU run is predicted at 0.59x (cache
#: misses of the bigger arrays), so the fit takes all five.
ARRAY_S_PER_STEP = 1.13e-3
ARRAY_S_PER_CELL_HOP = 2.0e-7
#: ``engine: "auto"`` uses the cell engine when it is predicted to take at most this long.
AUTO_CELL_BUDGET_S = 60.0
#: Runs predicted above this wall time are refused (``--no-limit`` lifts it).
LIMIT_S = 900.0


@dataclass
class WorkEstimate:
    """Predicted size of a run (see the module docstring)."""

    transfers: int
    fabric_transfers: int
    fabric_bytes: float
    cell_hops: float
    mean_hops: float
    frames: int
    links: int
    rate_updates: int
    concurrent_entries: int
    #: Entries of the scenario's explicit ``flows`` list (also counted in ``transfers``).
    explicit_flows: int = 0
    #: Cost of a cell-hop against RoCE's (:data:`ETHERNET_CELL_HOP_FACTOR` for lossy Ethernet).
    cell_hop_factor: float = 1.0
    #: Unit steps the ring arrays sweep (the workloads' ``planned_array_steps``).
    array_steps: int = 0
    #: The cell engine will solve the run's ring as arrays (the ring-arrays pre-check).
    ring_arrays: bool = False
    #: The pre-check's reason (why the arrays apply or not; empty when not asked).
    arrays_reason: str = ""

    @property
    def cell_hop_s(self) -> float:
        """Predicted seconds per cell-hop of this run's fabric."""
        return CELL_S_PER_CELL_HOP * self.cell_hop_factor

    @property
    def flow_records_seconds(self) -> float:
        """Predicted wall time of the transfers' records, explicit flows at their own cost."""
        return self._records_seconds(S_PER_FLOW)

    def _records_seconds(self, per_transfer: float) -> float:
        explicit = min(self.explicit_flows, self.transfers)
        return (self.transfers - explicit) * per_transfer + explicit * S_PER_EXPLICIT_FLOW

    @property
    def memory_bytes(self) -> int:
        """Predicted peak memory of the explicit flows (parse to result)."""
        return self.explicit_flows * BYTES_PER_EXPLICIT_FLOW

    @property
    def cell_seconds(self) -> float:
        """Predicted wall time on the cell engine (as ring arrays where they apply)."""
        if self.ring_arrays:
            return self.array_seconds
        return (self.cell_hops * self.cell_hop_s + self.flow_records_seconds
                + self.frames * self.links * S_PER_SAMPLE)

    @property
    def array_seconds(self) -> float:
        """Predicted wall time of the cell engine solving the ring as arrays."""
        return (self.array_steps * ARRAY_S_PER_STEP + self.cell_hops * ARRAY_S_PER_CELL_HOP
                + self.flow_records_seconds)

    @property
    def flow_seconds(self) -> float:
        """Predicted wall time on the flow engine."""
        return flow_engine_seconds(self, self.transfers, self.rate_updates)

    def seconds(self, engine: str) -> float:
        """Predicted wall time on ``engine`` ("cell" or "flow")."""
        return self.cell_seconds if engine == "cell" else self.flow_seconds

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures, predictions included."""
        out = asdict(self)
        out["cell_hops"] = round(self.cell_hops)
        out["fabric_bytes"] = round(self.fabric_bytes)
        out["mean_hops"] = round(self.mean_hops, 3)
        out["cell_seconds"] = round(self.cell_seconds, 3)
        out["flow_seconds"] = round(self.flow_seconds, 3)
        out["memory_bytes"] = self.memory_bytes
        out["cell_hop_s"] = self.cell_hop_s
        del out["cell_hop_factor"]
        return out

    def memory_problem(self) -> str | None:
        """One-line reason when the explicit flows (already parsed) would not fit the memory
        this process can still get (None when they fit or there are none)."""
        if not self.explicit_flows:
            return None
        free = memory_available()
        to_come = self.explicit_flows * BYTES_PER_EXPLICIT_FLOW_TO_RUN
        if free is None or to_come + MEMORY_RESERVE_BYTES <= free:
            return None
        return (f"the scenario's {self.explicit_flows:,} explicit flows would need about "
                f"{_mb(self.memory_bytes)} ({BYTES_PER_EXPLICIT_FLOW:,} bytes each, "
                f"{_mb(to_come)} of it still to come) and ~{self.flow_records_seconds:,.0f} s, "
                f"but only {_mb(free)} of memory is available; use fewer flows or a "
                "workload that generates them (incast, permutation, all-to-all)")


def flow_engine_seconds(work: WorkEstimate, transfers: int, rate_updates: int) -> float:
    """Flow-engine seconds of ``work`` with these transfer and rate-update counts (the
    estimate's own, or a run's counted ones to check the estimate against)."""
    records = dataclasses.replace(work, transfers=transfers)._records_seconds(
        FLOW_S_PER_TRANSFER)
    return (records + work.frames * work.links * S_PER_SAMPLE / 4
            + rate_updates * (FLOW_S_PER_UPDATE
                              + FLOW_S_PER_UPDATE_ENTRY * work.concurrent_entries))


def _mb(nbytes: float) -> str:
    return f"{nbytes / 1e6:,.0f} MB"


def memory_available() -> int | None:
    """Bytes this process can still allocate: the smaller of the machine's available memory
    (/proc/meminfo MemAvailable) and the room under its address-space limit (RLIMIT_AS minus
    the address space in use); None where neither can be read."""
    room: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    room.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/statm", encoding="ascii") as statm:
                used = int(statm.read().split()[0]) * resource.getpagesize()
            room.append(max(0, soft - used))
        except (OSError, ValueError, IndexError):
            room.append(soft)
    return min(room) if room else None


def choose_engine(requested: str, estimate: WorkEstimate) -> tuple[str, str]:
    """(engine, reason) for ``requested`` = "cell", "flow" or "auto".  ``auto`` runs the cell
    engine when its predicted time fits :data:`AUTO_CELL_BUDGET_S`, else the flow engine; the
    reason names the choice, why, and both engines' predicted times with their counts."""
    cell, flow = estimate.cell_seconds, estimate.flow_seconds
    if estimate.ring_arrays:
        cell_work = (f"{_count(estimate.cell_hops)} cell-hops in {estimate.array_steps:,} "
                     "unit steps, solved as ring arrays: the lone ring passed their "
                     "pre-check")
    else:
        cell_work = (f"{_count(estimate.cell_hops)} cell-hops x "
                     f"{estimate.cell_hop_s * 1e6:.3g} us")
        if estimate.arrays_reason:  # a lone ring the arrays cannot take: say why
            cell_work += f", cell by cell: {estimate.arrays_reason}"
    flow_work = f"{estimate.transfers:,} transfers, {estimate.rate_updates:,} rate updates"
    if requested in ("cell", "flow"):
        seconds, work = (cell, cell_work) if requested == "cell" else (flow, flow_work)
        return requested, (f"{requested}: chosen by the scenario (predicted {_seconds(seconds)}"
                           f": {work})")
    if cell <= AUTO_CELL_BUDGET_S:
        return "cell", (f"auto: the cell engine is predicted to take {_seconds(cell)} "
                        f"({cell_work}), within the {AUTO_CELL_BUDGET_S:g} s budget: "
                        f"packet-level effects included (flow level: {_seconds(flow)})")
    return "flow", (f"auto: the cell engine would take {_seconds(cell)} ({cell_work}), "
                    f"over the {AUTO_CELL_BUDGET_S:g} s budget: flow level instead, "
                    f"{_seconds(flow)} predicted ({flow_work})")


def _count(n: float) -> str:
    """``1,790``, ``4.32 million``, ``1,343 million``."""
    if n < 1e6:
        return f"{n:,.0f}"
    millions = n / 1e6
    return (f"{millions:,.0f}" if millions >= 100 else f"{millions:.3g}") + " million"


def _seconds(seconds: float) -> str:
    """``~0.12 s``, ``~42 s``, ``~2,800 s``."""
    return f"~{seconds:.2g} s" if seconds < 10 else f"~{seconds:,.0f} s"
