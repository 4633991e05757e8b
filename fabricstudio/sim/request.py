"""The one simulation boundary: a :class:`RunRequest` (what the user asked for in the scenario
panel or on the command line) becomes a validated :class:`Scenario` in :func:`scenario_for`.

Both front ends build a RunRequest and nothing else; neither writes workload dicts::

    request = RunRequest(workload="all_reduce", size_bytes=256 * 2**20,
                         technology=Technology.ROCE, dcqcn=False)
    scenario = scenario_for(design, request)        # ScenarioError when it cannot run
    sim = build_simulation(design, scenario)

A request may start from a base scenario (a loaded scenario file): its workloads and flows
run, plus the request's own ``workload`` when that is not None.  Run settings (technology,
DCQCN, routing, cell size, seed, horizon, statistics window) given explicitly in the request
override the base scenario's; settings left out keep the scenario's (pydantic records which
fields were given: ``model_fields_set``).

Adding a workload type: declare it in ``sim/scenario.py`` (WorkloadType and its spec), give it
a label below (WORKLOAD_LABELS, WORKLOAD_NOUNS) and its parameters in
:meth:`RunRequest.workload_spec`; the CLI and the GUI offer it from these tables.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fabricstudio.model import Design, GpuServer, Technology, format_validation_error
from fabricstudio.model.fabric import Transport
from fabricstudio.model.failures import Failure
from fabricstudio.sim.engine.config import Routing
from fabricstudio.sim.scenario import (
    COLLECTIVE_TYPES,
    EngineKind,
    FocusSpec,
    LlmTrainingSpec,
    Scenario,
    ScenarioError,
    WorkloadType,
)

#: Menu text of each workload type (GUI combo; also the default scenario name).
WORKLOAD_LABELS: dict[WorkloadType, str] = {
    "all_reduce": "Ring all-reduce",
    "all_gather": "All-gather",
    "reduce_scatter": "Reduce-scatter",
    "all_to_all": "All-to-all (MoE)",
    "incast": "Incast N:1",
    "permutation": "Random permutation",
    "storage_write": "Storage checkpoint burst",
    "storage_read": "Storage read burst",
    "training": "Training step",
    "llm_training": "LLM training iteration",
    "stall": "Stalled receiver (pause storm)",
}
#: How a workload reads inside a sentence ("training step + incast 7:1").
WORKLOAD_NOUNS: dict[WorkloadType, str] = {
    "all_reduce": "all-reduce", "all_gather": "all-gather", "reduce_scatter": "reduce-scatter",
    "all_to_all": "all-to-all", "incast": "incast", "permutation": "permutation",
    "storage_read": "storage read", "storage_write": "checkpoint write",
    "training": "training step", "llm_training": "LLM training iteration",
    "stall": "stalled receiver",
}
#: Request fields that are run settings (override a base scenario's when given).
RUN_SETTINGS = ("technology", "dcqcn", "routing", "engine", "focus", "cell_bytes", "seed",
                "until_s", "measure_from_s", "transport")


class RunRequest(BaseModel):
    """A simulation as asked for: a workload and/or a base scenario, and run settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # ------------------------------------------------------------- what runs
    workload: WorkloadType | None = Field(
        default="all_reduce", description="None: only the base scenario's workloads")
    size_bytes: int = Field(default=8 * 2**20, gt=0, description=(
        "collective size, bytes per flow (incast, permutation), per client (storage) or "
        "gradient bytes (training)"))
    ranks: tuple[str, ...] = Field(default=(), description="GPU addresses; () = every GPU")
    compute_s: float = Field(default=0.002, ge=0, description="training: compute per step")
    overlap: float = Field(default=0.0, ge=0, le=1, description="training: overlap fraction")
    iterations: int = Field(default=1, ge=1, le=10_000, description="training: iterations")
    receiver: str | None = Field(
        default=None, description="incast (and stall) receiver; None = the first GPU server "
                                  "of the ranks")
    duration_s: float = Field(default=0.001, gt=0, le=1e4,
                              description="stall: how long the receiver's NIC stays stuck")
    senders: tuple[str, ...] = Field(
        default=(), description="incast senders; () = every other GPU server of the ranks")
    llm: LlmTrainingSpec | None = Field(
        default=None, description="LLM training: model, GPU, batch and parallelism (the "
                                  "defaults of an llm_training workload when None)")
    scenario: Scenario | None = Field(
        default=None, description="a base scenario (a loaded file) whose workloads also run")
    scenario_label: str = Field(default="", description="what the base scenario runs")
    name: str = Field(default="", description="scenario name; '' = the base's, or the label")
    failures: tuple[Failure, ...] = Field(
        default=(), description="elements that fail (e.g. marked failed in the designer), "
                                "added to the base scenario's failures")

    # ------------------------------------------------------------ run settings
    technology: Technology | None = Field(default=None, description="None = the design's")
    dcqcn: bool | None = Field(default=None, description="None = the design's setting")
    routing: Routing = "default"
    engine: EngineKind = Field(default="auto", description="cell, flow or auto")
    focus: FocusSpec | None = Field(default=None, description="focused run: a cell-level region")
    cell_bytes: int = Field(default=16384, gt=0)
    seed: int = Field(default=1, ge=0)
    until_s: float | None = Field(default=None, description="None = until traffic completes")
    measure_from_s: float = Field(default=0.0, ge=0)
    transport: Transport | None = Field(
        default=None, description="lossy Ethernet transport; None = the design's")

    def with_changes(self, **changes: Any) -> RunRequest:
        """A validated copy with some fields changed (they count as given explicitly)."""
        return RunRequest.model_validate({**self.model_dump(exclude_unset=True), **changes})

    # ------------------------------------------------------------------ labels
    @property
    def label(self) -> str:
        """Short description, e.g. ``RoCE + DCQCN, Ring all-reduce``."""
        down = ""
        if self.failures:
            down = (", " + " and ".join(f.target for f in self.failures) + " down"
                    if len(self.failures) <= 2 else f", {len(self.failures)} elements down")
        if self.technology is None:
            return self.workload_label + down
        tech = (self.technology.label if self.dcqcn is None
                else self.technology.fabric_label(self.dcqcn))
        return f"{tech}, {self.workload_label}{down}"

    @property
    def workload_label(self) -> str:
        """What runs, without the fabric: ``Ring all-reduce``, or for a base scenario what it
        runs (``training step + incast 7:1``)."""
        parts = []
        if self.scenario is not None:
            parts.append(self.scenario_label or describe_workloads(self.scenario))
        if self.workload is not None:
            parts.append(WORKLOAD_LABELS[self.workload])
        return " + ".join(parts)

    # --------------------------------------------------------------- workloads
    def workload_specs(self, design: Design) -> list[dict[str, Any]]:
        """The request's own workload in the scenario schema: one spec, or for ``stall`` an
        incast toward the receiver whose NIC stalls from the start for ``duration_s`` (the
        pause storm).  ValueError when the design cannot carry it (e.g. one GPU server)."""
        if self.workload == "stall":
            incast = self._incast(design)
            return [incast, {"type": "stall", "receiver": incast["receiver"],
                             "duration_s": self.duration_s}]
        return [self.workload_spec(design)]

    def workload_spec(self, design: Design) -> dict[str, Any]:
        """The request's own workload (one spec) in the scenario schema."""
        kind = self.workload
        ranks: Any = list(self.ranks) if self.ranks else "all"
        if kind in COLLECTIVE_TYPES:
            return {"type": kind, "ranks": ranks, "size_bytes": self.size_bytes}
        if kind == "training":
            return {"type": kind, "ranks": ranks, "gradient_bytes": self.size_bytes,
                    "compute_s": self.compute_s, "overlap": self.overlap,
                    "iterations": self.iterations}
        if kind == "permutation":
            return {"type": kind, "hosts": ranks, "bytes": self.size_bytes}
        if kind in ("storage_read", "storage_write"):
            return {"type": kind, "clients": ranks, "bytes": self.size_bytes}
        if kind == "incast":
            return self._incast(design)
        if kind == "llm_training":
            spec = self.llm or LlmTrainingSpec(type="llm_training")
            data = spec.model_dump(exclude_unset=True)
            data["type"] = "llm_training"
            if self.ranks:
                data["ranks"] = ranks
            return data
        raise ValueError(f"unknown workload {kind!r}")

    def _incast(self, design: Design) -> dict[str, Any]:
        hosts = (sorted({r.split("/")[0] for r in self.ranks}) if self.ranks else
                 [d.id for d in design.devices.values() if isinstance(d, GpuServer)])
        receiver = self.receiver or (hosts[0] if hosts else "")
        receiving = receiver.split("/")[0]
        senders = list(self.senders) or [h for h in hosts if h != receiving]
        if not receiver or not senders:
            raise ValueError("incast needs at least two GPU servers")
        return {"type": "incast", "senders": senders, "receiver": receiver,
                "bytes": self.size_bytes}


def describe_workloads(scenario: Scenario) -> str:
    """What a Scenario runs, e.g. ``2 training steps + incast 7:1``."""
    parts = []
    for spec in scenario.workloads:
        if spec.type == "training":
            steps = spec.iterations
            parts.append("training step" if steps == 1 else f"{steps} training steps")
        elif spec.type == "incast":
            parts.append(f"incast {len(spec.senders)}:1")
        elif spec.type == "llm_training":
            parts.append(f"{spec.model_spec.name} training")
        else:
            parts.append(WORKLOAD_NOUNS[spec.type])
    if scenario.flows:
        parts.append(f"{len(scenario.flows)} flow" + ("s" if len(scenario.flows) > 1 else ""))
    return " + ".join(parts)


def scenario_for(design: Design, request: RunRequest) -> Scenario:
    """The validated Scenario ``request`` asks for on ``design``; ScenarioError (one readable
    line) when it cannot run."""
    base: dict[str, Any] = request.scenario.model_dump() if request.scenario else {}
    workloads = list(base.get("workloads", []))
    if request.workload is not None:
        try:
            workloads += request.workload_specs(design)
        except ValueError as exc:
            raise ScenarioError(str(exc)) from None
    data = {**base, "workloads": workloads}
    data["name"] = request.name or base.get("name") or request.label
    if request.failures:
        data["failures"] = [*base.get("failures", []),
                            *(failure.model_dump(exclude_none=True)
                              for failure in request.failures)]
    data.update(request.model_dump(include=set(RUN_SETTINGS), exclude_unset=True))
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc, limit=1)) from None


__all__ = ["RUN_SETTINGS", "WORKLOAD_LABELS", "WORKLOAD_NOUNS", "RunRequest",
           "describe_workloads", "scenario_for"]
