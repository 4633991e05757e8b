"""The Result of a run: a summary with stable, documented JSON keys (docs/simulation.md).

Every value is a plain JSON type.  Same design + scenario + seed give byte-identical JSON
except the wall-clock fields ``engine.wall_time_s`` and ``engine.events_per_s``;
``to_json(timing=False)`` writes those as null so whole documents can be compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

RESULT_FORMAT = "fabricstudio-result"
RESULT_VERSION = 1
#: Engine fields measured on the wall clock (not reproducible).
TIMING_FIELDS = ("wall_time_s", "events_per_s")


@dataclass
class Result:
    """Summary of one simulation run (see :meth:`to_dict` for the JSON layout)."""

    run: dict[str, Any]
    completion_time_s: float | None
    end_s: float
    flows: list[dict[str, Any]]
    flows_omitted: int
    links: list[dict[str, Any]]
    totals: dict[str, Any]
    collective: dict[str, Any] | None
    training: dict[str, Any] | None
    workloads: list[dict[str, Any]]
    engine: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    #: Flow engine: links offered more than their capacity (``count``, worst ``links``).
    hotspots: dict[str, Any] | None = None
    #: Counts, bytes and completion times over every flow (the listed ones and the rest).
    flow_summary: dict[str, Any] | None = None
    #: The first LLM training workload: iteration, breakdown, MFU, ideal network, tax.
    llm_training: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        """True when every flow and workload completed within the horizon."""
        return self.completion_time_s is not None

    def flow(self, flow_id: int) -> dict[str, Any]:
        """The entry of ``flows`` with this id."""
        for entry in self.flows:
            if entry["id"] == flow_id:
                return entry
        raise KeyError(flow_id)

    def link(self, src: str, dst: str) -> dict[str, Any]:
        """The entry of ``links`` for the direction ``src`` -> ``dst`` (first if parallel)."""
        for entry in self.links:
            if entry["from"] == src and entry["to"] == dst:
                return entry
        raise KeyError(f"{src}>{dst}")

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """The JSON document as a dict; ``timing=False`` nulls the wall-clock fields."""
        engine = dict(self.engine)
        if not timing:
            engine.update({name: None for name in TIMING_FIELDS})
        return {
            "format": RESULT_FORMAT,
            "version": RESULT_VERSION,
            "run": self.run,
            "completion_time_s": self.completion_time_s,
            "end_s": self.end_s,
            "collective": self.collective,
            "training": self.training,
            "llm_training": self.llm_training,
            "totals": self.totals,
            "engine": engine,
            "warnings": self.warnings,
            "hotspots": self.hotspots,
            "flow_summary": self.flow_summary,
            "workloads": self.workloads,
            "links": self.links,
            "flows": self.flows,
            "flows_omitted": self.flows_omitted,
        }

    def to_json(self, timing: bool = True, indent: int | None = 1) -> str:
        """The JSON text (stable key order; ``timing=False`` for byte-comparable output)."""
        return json.dumps(self.to_dict(timing), indent=indent, allow_nan=False) + "\n"


def throughput_gbps(delivered_bytes: float, seconds: float) -> float | None:
    """Gb/s of ``delivered_bytes`` over ``seconds`` (None for an empty window)."""
    if seconds <= 0:
        return None
    return delivered_bytes * 8 / seconds / 1e9
