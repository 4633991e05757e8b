"""Work estimates: what a run will cost on each engine, known before anything is built.

The ceiling on a run used to be a flow count (5 million) that ignored what actually costs and
was reached only after the flows existed.  :class:`WorkEstimate` counts, from the workloads'
plans (an all-to-all's N(N-1) pairs are counted, not built):

- **transfers**: engine flows (aggregated collective streams count once per hop);
- **cell-hops**: fabric bytes that can move within the horizon / cell size x mean hops - the
  cell engine's dominant cost;
- **samples**: metric frames x directed links;
- **rate updates** (flow engine): flow starts and ends, each a max-min recomputation over the
  active flows' links.

Each count times a per-item cost measured with ``benchmarks/scale.py`` (2-core machine, one
core per run) gives a predicted wall time per engine: ``auto`` runs the cell engine when its
prediction fits :data:`AUTO_CELL_BUDGET_S`, else the flow engine; a run whose chosen engine
would exceed its limit is refused with the figures and a suggestion.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

#: Seconds per cell-hop of the cell engine (~330 k cell-hops/s, docs/engine.md "Speed").
CELL_S_PER_CELL_HOP = 3.0e-6
#: Seconds per engine flow (record, route, start and finish events).
S_PER_FLOW = 3.0e-5
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

    @property
    def cell_seconds(self) -> float:
        """Predicted wall time on the cell engine."""
        return (self.cell_hops * CELL_S_PER_CELL_HOP + self.transfers * S_PER_FLOW
                + self.frames * self.links * S_PER_SAMPLE)

    @property
    def flow_seconds(self) -> float:
        """Predicted wall time on the flow engine."""
        return (self.transfers * S_PER_FLOW + self.frames * self.links * S_PER_SAMPLE / 4
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
        return out


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
