"""The Result of a run: a typed summary with stable, documented JSON keys (docs/simulation.md).

Every part is a pydantic model whose attribute order is the JSON key order, so the document
reads the same whether it is built by the engine, loaded back with :meth:`Result.from_json`
or written by :meth:`Result.to_json`.  Same design + scenario + seed give byte-identical JSON
except the wall-clock fields ``engine.wall_time_s`` and ``engine.events_per_s``;
``to_json(timing=False)`` writes those as null so whole documents can be compared.

Adding a field (e.g. ``totals.deadlock``):

1. add the attribute to the sub-model where it belongs, at the position its key should take
   in the JSON (new keys go after the existing ones; existing keys never change name, order
   or meaning), with a type, a default when old documents lack it, and a ``description``;
2. fill it where the run produces it (``sim/run.py``, or the engine's ``totals()``/
   ``stats()``, whose dicts are validated into these models: ``extra="forbid"`` makes a key
   the model does not declare an error, so nothing is silently dropped);
3. document the key in docs/simulation.md; ``tests/sim/test_result_schema.py`` checks the
   published keys of every example run and the round trip.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SerializerFunctionWrapHandler,
    Tag,
    model_serializer,
)

from fabricstudio.model import Technology, units
from fabricstudio.model.fabric import Transport
from fabricstudio.sim.engine.config import Routing
from fabricstudio.sim.scenario import COLLECTIVE_TYPES

RESULT_FORMAT: Final = "fabricstudio-result"
RESULT_VERSION: Final = 1
#: Engine fields measured on the wall clock (not reproducible).
TIMING_FIELDS = ("wall_time_s", "events_per_s")

#: A JSON number kept exactly as the run produced it: SimPy's clock starts at the integer 0,
#: so a time may be ``0`` or ``0.25``; converting would change the JSON text.
Num = int | float


class ResultPart(BaseModel):
    """Base of every part of a Result: plain values, unknown keys refused, JSON keys by
    alias (``from``/``to`` of a link are ``src``/``dst`` attributes)."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_by_name=True,
                              validate_by_alias=True, serialize_by_alias=True)


class RunInfo(ResultPart):
    """What was run: design, scenario and the effective run settings."""

    design: str = Field(description="design name")
    scenario: str = Field(description="scenario name")
    technology: Technology = Field(description="infiniband, roce or ethernet (after overrides)")
    dcqcn: bool = Field(description="DCQCN in effect (RoCE)")
    routing: Routing = Field(description="routing mode asked for (default = the technology's)")
    cell_bytes: int | None = Field(description="engine cell size (null at flow level)")
    seed: int
    until_s: Num | None = Field(description="horizon; null = until the traffic completed")
    measure_from_s: Num = Field(description="start of the statistics window")
    sample_period_s: Num = Field(description="metric frame period")
    engine: Literal["cell", "flow"] = Field(default="cell", description="engine that ran")
    transport: Transport | None = Field(
        default=None, description="lossy Ethernet transport (null on lossless fabrics)")


class Deadlock(ResultPart):
    """``{"detected": false}``, or when a frozen dependency cycle ended the run: when it was
    detected, since when the cycle had not moved, its links (cable ids in dependency order)
    and the devices along it (the first repeated at the end)."""

    detected: bool = False
    at_s: Num | None = None
    since_s: Num | None = None
    cycle: list[str] | None = None
    path: list[str] | None = None

    @model_serializer(mode="wrap")
    def _only_when_detected(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return data if self.detected else {"detected": False}


class Totals(ResultPart):
    """Fabric-wide counts over the whole run (offered = delivered + dropped + in flight)."""

    offered_bytes: int = 0
    delivered_bytes: int = 0
    dropped_bytes: int = 0
    retransmitted_bytes: int = 0
    in_flight_bytes: int = 0
    duplicate_bytes: int = 0
    goodput_bytes: int = 0
    nvlink_bytes: int = 0
    drops: int = Field(default=0, description="packets dropped")
    pfc_pauses: int = Field(default=0, description="PFC PAUSE frames sent")
    paused_time_s: Num = Field(default=0.0, description="sender-seconds held by PAUSE")
    ecn_marks: int = 0
    cnps: int = 0
    credit_stall_time_s: Num = Field(default=0.0, description="seconds waiting for IB credits")
    lossless_violations: int = Field(default=0, description="drops on a lossless fabric")
    watchdog_drops: int = 0
    timeouts: int = Field(default=0, description="retransmission timeouts (lossy Ethernet)")
    pfc_frames: int = Field(default=0, description="PFC frames sent (PAUSE, refresh, RESUME)")
    pfc_watchdog_triggers: int = Field(default=0, description="switch PFC watchdog triggers")
    deadlock: Deadlock = Field(default_factory=lambda: Deadlock(),
                               description="a frozen cycle of paused/credit-starved links")
    fast_retransmits: int = Field(default=0, description="loss recoveries entered (TCP)")
    tail_loss_probes: int = Field(default=0, description="TCP tail loss probes sent")
    control_wire_bytes: int = Field(
        default=0, description="link bytes of in-band control frames (per hop crossed)")


class CollectiveSummary(ResultPart):
    """A collective's nccl-tests figures (``time_s`` is the mean over its runs)."""

    name: str
    ranks: int
    size_bytes: int
    algorithm: str
    channels: int
    time_s: Num | None
    algbw_gbps: Num | None
    busbw_gbps: Num | None
    algorithm_reason: str = Field(
        default="", description="chosen by the scenario, or NCCL's predicted times behind auto")


class TrainingSummary(ResultPart):
    """Means over the completed training iterations."""

    iterations: int
    compute_s: Num
    overlap: Num
    step_time_s: Num
    allreduce_time_s: Num
    exposed_comm_s: Num
    gpu_utilisation: Num = Field(description="compute time over step time (0..1)")
    dispatch_time_s: Num | None = Field(
        default=None, description="mean MoE token dispatch time (expert_dispatch runs only)")


class WorkEstimateInfo(ResultPart):
    """The work estimate the engine was chosen by (fabricstudio.sim.work)."""

    transfers: int
    fabric_transfers: int
    fabric_bytes: int
    cell_hops: int
    mean_hops: Num
    frames: int
    links: int
    rate_updates: int
    concurrent_entries: int
    cell_seconds: Num = Field(description="predicted wall time on the cell engine")
    flow_seconds: Num = Field(description="predicted wall time on the flow engine")
    explicit_flows: int = Field(0, description="entries of the scenario's flows list")
    memory_bytes: int = Field(0, description="predicted peak memory of the explicit flows")
    cell_hop_s: Num = Field(0.0, description="predicted seconds per cell-hop (cell engine)")
    array_steps: int = Field(0, description="unit steps the cell engine's ring arrays sweep")
    ring_arrays: bool = Field(False, description="the cell engine will solve the run's ring "
                              "as arrays (its prediction is theirs)")
    arrays_reason: str = Field("", description="why the ring arrays apply or not (a lone "
                               "collective on the cell or auto engine; empty otherwise)")


class EngineInfo(ResultPart):
    """Engine work and speed (``wall_time_s``, ``events_per_s``: wall-clock figures), which
    engine ran and why."""

    events: int
    cell_bytes: int | None
    cell_hops: int | None
    wall_time_s: Num | None
    events_per_s: Num | None
    kind: Literal["cell", "flow"] = "cell"
    requested: Literal["auto", "cell", "flow"] = "cell"
    reason: str = ""
    estimate: WorkEstimateInfo | None = None
    not_modelled: list[str] = Field(default_factory=list,
                                    description="what the flow-level engine leaves out")
    rate_updates: int | None = Field(default=None, description="max-min updates (flow level)")


class HotspotLink(ResultPart):
    """A link whose offered load exceeded its capacity (flow level)."""

    link: str
    id: str
    src: str = Field(alias="from")
    dst: str = Field(alias="to")
    overloaded_s: Num = Field(description="seconds offered more than its capacity")
    peak_offered: Num = Field(description="largest offered load / capacity")


class Hotspots(ResultPart):
    """Where a cell-level run would queue, pause or drop (flow level)."""

    count: int
    links: list[HotspotLink] = Field(default_factory=list)


class FlowSummary(ResultPart):
    """Every flow of the run, listed or not."""

    flows: int
    finished: int
    bytes: int
    finished_bytes: int
    mean_fct_s: Num | None
    max_fct_s: Num | None


class IterationFigures(ResultPart):
    """One LLM training iteration: time and where it went (the slowest rank's ledger)."""

    iteration_time_s: Num | None
    compute_s: Num | None = None
    bubble_s: Num | None = None
    exposed_comm_s: dict[str, Num] | None = Field(
        default=None, description="exposed communication by kind: tp, pp, dp, ep, cp")
    gpu_utilisation: Num | None = None
    mfu: Num | None = None
    model_tflops_per_gpu: Num | None = None
    tokens_per_s: Num | None = None


class CollectiveChoice(ResultPart):
    """The algorithm a job's data-parallel collectives ran and why."""

    algorithm: str
    reason: str


class LlmTrainingSummary(IterationFigures):
    """The LLM training workload (docs/llm.md): the iteration on the fabric, on an ideal
    network, and the difference (the network tax)."""

    model: str
    gpu: str
    gpus: int
    parallelism: dict[str, int | str]
    placement: str
    compute_efficiency: Num
    memory_gb_per_gpu: Num
    iterations: int
    ideal: IterationFigures
    warnings: list[str] = Field(default_factory=list)
    dp_collectives: dict[str, CollectiveChoice] | None = None
    network_tax_s: Num | None = None
    network_tax_fraction: Num | None = None
    network_tax_gpu_hours: Num | None = None


class LinkStats(ResultPart):
    """One direction of a cable over the statistics window."""

    id: str
    src: str = Field(alias="from")
    dst: str = Field(alias="to")
    from_port: int
    to_port: int
    speed_gbps: Num
    utilisation: Num
    max_queue_bytes: int
    pfc_pauses_sent: int
    paused_time_s: Num
    ecn_marks: int
    cnps: int
    drops: int
    credit_stall_time_s: Num


class FlowStats(ResultPart):
    """One flow; ``throughput_gbps`` over its part of the statistics window."""

    id: int
    src: str
    dst: str
    bytes: int
    delivered_bytes: int
    start_s: Num
    finish_s: Num | None
    throughput_gbps: Num | None
    tag: str


class WorkloadReport(ResultPart):
    """What every workload reports."""

    type: str
    tag: str
    start_s: Num | None
    finish_s: Num | None
    time_s: Num | None
    flows: int


class FlowsReport(WorkloadReport):
    """Explicit flows, incast, permutation, storage bursts."""

    bytes: int


class StallReport(WorkloadReport):
    """A stalled receiver (``start_s``..``finish_s`` is the stall)."""

    receiver: str


class CollectiveReport(WorkloadReport):
    """A collective workload (its ``time_s`` is the collective's mean run time)."""

    name: str
    ranks: int
    size_bytes: int
    algorithm: str
    channels: int
    algbw_gbps: Num | None
    busbw_gbps: Num | None
    algorithm_reason: str = ""


class TrainingReport(WorkloadReport):
    """A training workload: its gradient all-reduce and the step figures."""

    collective: CollectiveSummary
    training: TrainingSummary | None


class LlmTrainingReport(WorkloadReport):
    """An LLM training workload."""

    llm_training: LlmTrainingSummary | None


#: Workload ``type`` values reported as collectives (the scenario's; the rest are flow sets).
_COLLECTIVE_TYPES = frozenset(COLLECTIVE_TYPES)


def _report_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if kind in ("training", "llm_training", "stall"):
        return str(kind)
    return "collective" if kind in _COLLECTIVE_TYPES else "flows"


AnyWorkloadReport = Annotated[
    Annotated[TrainingReport, Tag("training")] | Annotated[CollectiveReport, Tag("collective")]
    | Annotated[FlowsReport, Tag("flows")] | Annotated[LlmTrainingReport, Tag("llm_training")]
    | Annotated[StallReport, Tag("stall")],
    Discriminator(_report_kind),
]


class FailureEvent(ResultPart):
    """Something that happened to the fabric during the run."""

    at_s: Num
    event: Literal["fail", "repair", "reroute"]
    what: str = Field(description="the failure ('device spine1') or what the reroute moved")


class RunFigures(ResultPart):
    """The figures a failure changes, for one run."""

    finished: bool = Field(description="every workload completed")
    completion_time_s: Num | None
    collective_time_s: Num | None = Field(description="the first collective's mean time")
    iterations: int | None = Field(description="training iterations completed")
    step_time_s: Num | None = Field(description="mean over the completed iterations")
    gpu_utilisation: Num | None = Field(
        description="compute time over training time, including the time an unfinished step "
                    "had waited when the run ended (0..1)")


class FailureCost(ResultPart):
    """With failures minus without (positive times and negative utilisation are losses)."""

    completion_time_s: Num | None
    slowdown: Num | None = Field(description="completion time with / without")
    collective_time_s: Num | None
    step_time_s: Num | None
    gpu_utilisation: Num | None = Field(description="difference of the two (0..1 scale)")


class FailureReport(ResultPart):
    """What the scenario's failures did and cost (present when it lists failures)."""

    failures: list[str] = Field(description="e.g. 'link L7 at 1 ms (repaired at 5 ms)'")
    convergence_s: Num = Field(description="failure to rerouted routes, for this run's "
                                           "technology and routing")
    repair_convergence_s: Num = Field(description="repair to routes using it again")
    events: list[FailureEvent]
    cells_lost: int = Field(description="cells lost on dead cables or routed into them")
    packets_lost: int
    bytes_lost: int
    reroutes: int
    flows_rerouted: int = Field(description="flow paths changed by the reroutes")
    unroutable_routes: int = Field(description="routes with no live path at a reroute (their "
                                               "traffic is lost until the repair)")
    with_failures: RunFigures
    without_failures: RunFigures | None = Field(
        description="the same scenario without failures (the twin run); null when not run")
    cost: FailureCost | None = Field(description="null without the twin")


class ForegroundSummary(ResultPart):
    """The region's own flows: cell-level completion over flow-level completion."""

    flows: int
    finished: int
    mean_slowdown: Num | None
    max_slowdown: Num | None


class FocusSummary(ResultPart):
    """A focused run's cell-level region (docs/simulation.md, "Focused runs")."""

    region: str
    servers: int
    switches: int
    stubs: int = Field(description="one-NIC servers standing for the fabric outside")
    from_s: Num
    until_s: Num
    cell_bytes: int
    foreground: ForegroundSummary
    background_flows: int = Field(description="pieces of outside traffic in the region")
    background_unpaced: int = Field(
        default=0, description="pieces whose flow-level bottleneck was in the region")
    background_bytes: int
    skipped: int = Field(default=0, description="flows that only touch the region's edge")
    events: int
    cell_hops: int
    wall_time_s: Num | None
    totals: Totals
    links: list[LinkStats] = Field(default_factory=list,
                                   description="the region's busiest cables, cell level")
    warnings: list[str] = Field(default_factory=list)


class Result(ResultPart):
    """Summary of one simulation run; attribute order is the JSON key order."""

    format: Literal["fabricstudio-result"] = RESULT_FORMAT
    version: Literal[1] = RESULT_VERSION
    run: RunInfo
    completion_time_s: Num | None = Field(
        description="when the last workload finished; null when the run did not finish")
    end_s: Num = Field(description="simulated time reached")
    collective: CollectiveSummary | None = Field(
        default=None, description="the first collective (or training all-reduce)")
    training: TrainingSummary | None = Field(default=None, description="the training workload")
    totals: Totals = Totals()
    engine: EngineInfo
    warnings: list[str] = Field(default_factory=list)
    workloads: list[AnyWorkloadReport] = Field(default_factory=list)
    links: list[LinkStats] = Field(default_factory=list)
    flows: list[FlowStats] = Field(default_factory=list)
    flows_omitted: int = Field(default=0, description="flows beyond the listed ones")
    hotspots: Hotspots | None = Field(
        default=None, description="flow level: links offered more than their capacity")
    flow_summary: FlowSummary | None = Field(
        default=None, description="counts, bytes and completion times over every flow")
    llm_training: LlmTrainingSummary | None = Field(
        default=None, description="the first LLM training workload")
    focus: FocusSummary | None = Field(
        default=None, description="focused run: the region at cell level")
    failures: FailureReport | None = Field(
        default=None, description="what the scenario's failures did and cost; null without")

    @property
    def finished(self) -> bool:
        """True when every flow and workload completed within the horizon."""
        return self.completion_time_s is not None

    def flow(self, flow_id: int) -> FlowStats:
        """The entry of ``flows`` with this id."""
        for entry in self.flows:
            if entry.id == flow_id:
                return entry
        raise KeyError(flow_id)

    def link(self, src: str, dst: str) -> LinkStats:
        """The entry of ``links`` for the direction ``src`` -> ``dst`` (first if parallel)."""
        for entry in self.links:
            if entry.src == src and entry.dst == dst:
                return entry
        raise KeyError(f"{src}>{dst}")

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """The JSON document as a dict; ``timing=False`` nulls the wall-clock fields."""
        data = self.model_dump()
        if not timing:
            data["engine"].update({name: None for name in TIMING_FIELDS})
            if data.get("focus") is not None:
                data["focus"]["wall_time_s"] = None
        return data

    def to_json(self, timing: bool = True, indent: int | None = 1) -> str:
        """The JSON text (stable key order; ``timing=False`` for byte-comparable output)."""
        return json.dumps(self.to_dict(timing), indent=indent, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> Result:
        """Read a Result JSON document back (ValueError when it is not one)."""
        return cls.model_validate_json(text)


def throughput_gbps(delivered_bytes: float, seconds: float) -> float | None:
    """Gb/s of ``delivered_bytes`` over ``seconds`` (None for an empty window)."""
    if seconds <= 0:
        return None
    return units.throughput_gbps(delivered_bytes, seconds)
