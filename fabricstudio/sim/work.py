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

Each count times a per-item cost measured with ``benchmarks/scale.py`` (2-core machine, one
core per run) gives a predicted wall time per engine: ``auto`` runs the cell engine when its
prediction fits :data:`AUTO_CELL_BUDGET_S`, else the flow engine; a run whose chosen engine
would exceed its limit is refused with the figures and a suggestion.
"""

from __future__ import annotations

import resource
from dataclasses import asdict, dataclass
from typing import Any

#: Seconds per cell-hop of the cell engine (~330 k cell-hops/s, docs/engine.md "Speed").
CELL_S_PER_CELL_HOP = 3.0e-6
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
#: Flow engine: seconds per rate update, fixed part and per active (flow x link) entry.
FLOW_S_PER_UPDATE = 4.0e-4
FLOW_S_PER_UPDATE_ENTRY = 2.0e-7
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

    @property
    def flow_records_seconds(self) -> float:
        """Predicted wall time of the transfers' records, explicit flows at their own cost."""
        explicit = min(self.explicit_flows, self.transfers)
        return (self.transfers - explicit) * S_PER_FLOW + explicit * S_PER_EXPLICIT_FLOW

    @property
    def memory_bytes(self) -> int:
        """Predicted peak memory of the explicit flows (parse to result)."""
        return self.explicit_flows * BYTES_PER_EXPLICIT_FLOW

    @property
    def cell_seconds(self) -> float:
        """Predicted wall time on the cell engine."""
        return (self.cell_hops * CELL_S_PER_CELL_HOP + self.flow_records_seconds
                + self.frames * self.links * S_PER_SAMPLE)

    @property
    def flow_seconds(self) -> float:
        """Predicted wall time on the flow engine."""
        return (self.flow_records_seconds + self.frames * self.links * S_PER_SAMPLE / 4
                + self.rate_updates * (FLOW_S_PER_UPDATE
                                       + FLOW_S_PER_UPDATE_ENTRY * self.concurrent_entries))

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
    """(engine, reason) for ``requested`` = "cell", "flow" or "auto"."""
    cell = estimate.cell_seconds
    if requested == "cell":
        return "cell", "cell: chosen by the scenario"
    if requested == "flow":
        return "flow", "flow: chosen by the scenario"
    if cell <= AUTO_CELL_BUDGET_S:
        return "cell", (f"auto: the cell engine is predicted to take {cell:.3g} s "
                        f"(budget {AUTO_CELL_BUDGET_S:g} s): packet-level effects included")
    return "flow", (f"auto: the cell engine would take about {cell:,.0f} s (budget "
                    f"{AUTO_CELL_BUDGET_S:g} s; {estimate.cell_hops / 1e6:,.0f} million "
                    f"cell-hops): flow level, {estimate.flow_seconds:.3g} s predicted")
