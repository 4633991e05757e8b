"""The scenario file: what to simulate on a design, ``{"format": "fabricstudio-scenario", ...}``.

A scenario names the run settings (technology override, DCQCN on/off, routing, cell size,
seed, horizon ``until_s`` and the start of the statistics window ``measure_from_s``), optional
fabric-parameter overrides, explicit flows and workloads (collectives, incast, permutation,
storage bursts, training steps).  docs/simulation.md documents every field.

Endpoints are addressed as ``"server"`` (its first compute NIC), ``"server/gpuN"`` (GPU N,
reaching the fabric through its rail NIC) or ``"server/nicN"`` (compute NIC N).  Sizes are
bytes, given as numbers (``1e12``) or text with units (``"256MiB"``, ``"1GB"``).

Loading never trusts its input: every failure raises :class:`ScenarioError` with one readable
message naming the file and the problem.
"""

from __future__ import annotations

import json
import os
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from fabricstudio.formats.envelope import EnvelopeError, FileKind, body_of, check_envelope
from fabricstudio.formats.reading import InputError, decode_json, read_input
from fabricstudio.model import FabricSettings, Technology, format_validation_error
from fabricstudio.model.fabric import Transport
from fabricstudio.model.failures import MAX_FAILURES, FailoverSettings, Failure
from fabricstudio.model.strict import StrictNumbers
from fabricstudio.sim.engine.config import (
    MAX_FRAMES,
    MAX_SAMPLE_PERIOD_S,
    MIN_SAMPLE_PERIOD_S,
    ROUTING_MODES,
    Routing,
)
from fabricstudio.sim.llm.models import GPUS, MODELS, GpuSpec, ModelSpec

FORMAT_NAME = "fabricstudio-scenario"
CURRENT_VERSION = 1
#: How the envelope check names scenario files.
SCENARIO_FILE = FileKind(noun="scenario", format_name=FORMAT_NAME,
                         current_version=CURRENT_VERSION, version_label="scenario version")
MAX_FILE_BYTES = 16 * 1024 * 1024

_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
}
_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


class ScenarioError(ValueError):
    """A scenario is unreadable or cannot run on the design; ``str()`` is the user message."""

    def __init__(self, problem: str, source: str | os.PathLike[str] | None = None) -> None:
        self.source = None if source is None else str(source)
        self.problem = problem
        super().__init__(problem if source is None else f"{source}: {problem}")


def parse_size(value: Any) -> int:
    """Bytes from a number or a text such as ``"256MiB"``, ``"1GB"``, ``"64k"`` or ``"1e12"``.

    Decimal units (kB, MB, GB, TB) are powers of ten, binary ones (KiB, MiB, GiB, TiB and the
    bare letters k, M, G, T) powers of two.  Raises ValueError with a readable message.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, (int, float)):
        number, unit = float(value), ""
    elif isinstance(value, str):
        match = _SIZE_RE.match(value)
        if not match:
            raise ValueError(f"{value!r} is not a size (use e.g. 4096, 256MiB or 1GB)")
        number, unit = float(match.group(1)), match.group(2).lower()
        if unit not in _UNITS:
            raise ValueError(f"{value!r}: unknown unit {match.group(2)!r} "
                             "(use B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)")
    else:
        raise ValueError(f"{value!r} is not a size")
    size = number * _UNITS[unit]
    if size != size:
        raise ValueError(f"{value!r} is not a size")
    if size > 1e18:
        raise ValueError(f"{value!r} is too large (at most 1e18 bytes)")
    if round(size) <= 0:
        raise ValueError(f"size must be positive, got {value!r}")
    return int(round(size))


#: The one declaration of each set of names: scenario files, the CLI's choices and the GUI's
#: combos all derive from these Literals (``get_args`` gives the tuples below).
#: Activation recomputation of the LLM training workload.
Recompute = Literal["none", "selective", "full"]
RECOMPUTE_MODES: tuple[Recompute, ...] = get_args(Recompute)
CollectiveType = Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
StorageType = Literal["storage_read", "storage_write"]
WorkloadType = Literal[CollectiveType, "incast", "permutation", StorageType, "training",
                       "llm_training", "stall"]
Algorithm = Literal["auto", "ring", "hierarchical", "tree", "nvls_tree"]
EngineKind = Literal["auto", "cell", "flow"]
#: Workload type names (as in scenario files; the CLI also accepts dashes).
WORKLOAD_TYPES: tuple[WorkloadType, ...] = get_args(WorkloadType)
COLLECTIVE_TYPES: tuple[CollectiveType, ...] = get_args(CollectiveType)
ROUTINGS: tuple[Routing, ...] = ROUTING_MODES
ALGORITHMS: tuple[Algorithm, ...] = get_args(Algorithm)
ENGINES: tuple[EngineKind, ...] = get_args(EngineKind)

Size = Annotated[int, BeforeValidator(parse_size), Field(gt=0, description="bytes")]
Time = Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False, description="seconds")]
Address = Annotated[str, Field(min_length=1, max_length=300,
                               description='"server", "server/gpuN" or "server/nicN"')]
Ranks = Literal["all"] | Annotated[list[Address], Field(min_length=2)]


class _Spec(StrictNumbers):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FlowSpec(_Spec):
    """One explicit flow: ``bytes`` from ``src`` to ``dst`` starting at ``start_s``."""

    src: Address
    dst: Address
    bytes: Size
    start_s: Time = 0.0
    tag: str = Field(default="", max_length=200, description="free label, copied to the result")

    @model_validator(mode="after")
    def _distinct(self) -> FlowSpec:
        if self.src == self.dst:
            raise ValueError(f"flow from {self.src} to itself")
        return self


class CollectiveSpec(_Spec):
    """A collective over ``ranks`` (GPU addresses, or ``"all"`` GPUs of the compute fabric).

    ``size_bytes`` follows nccl-tests: the whole buffer for all-reduce, the full (gathered)
    buffer for all-gather and reduce-scatter, the bytes each rank sends in total for all-to-all.
    """

    type: CollectiveType
    ranks: Ranks = "all"
    size_bytes: Size
    start_s: Time = 0.0
    slice_bytes: Size = Field(
        default=512 * 1024,
        description="pipelining unit of a ring step (NCCL Simple protocol slot: 512 KiB)",
    )
    channels: int | None = Field(
        default=None, ge=1, le=64,
        description="parallel rings; None = one per rail used by the ranks (NCCL channels)",
    )
    algorithm: Algorithm = Field(
        default="auto",
        description="ring = NCCL flat ring; hierarchical = NVLink rings + per-rail rings; "
                    "tree = NCCL double binary tree (all-reduce); nvls_tree = NVLink SHARP "
                    "inside servers + trees between them (all-reduce); auto = what NCCL's "
                    "tuning model picks",
    )


class IncastSpec(_Spec):
    """N:1 incast: every sender sends ``bytes`` to ``receiver`` at ``start_s``."""

    type: Literal["incast"]
    senders: Annotated[list[Address], Field(min_length=1)]
    receiver: Address
    bytes: Size
    start_s: Time = 0.0


class PermutationSpec(_Spec):
    """Random permutation: each host sends ``bytes`` to one other host, each receives once."""

    type: Literal["permutation"]
    hosts: Ranks = "all"
    bytes: Size
    start_s: Time = 0.0


class StorageSpec(_Spec):
    """Storage burst: ``storage_read`` moves ``bytes`` from the storage servers to each client,
    ``storage_write`` (a checkpoint) from each client to the storage servers, spread evenly
    over the servers."""

    type: StorageType
    clients: Ranks = "all"
    servers: Literal["all"] | Annotated[list[Address], Field(min_length=1)] = "all"
    bytes: Size = Field(description="bytes per client")
    start_s: Time = 0.0


class TrainingSpec(_Spec):
    """Data-parallel training: per iteration ``compute_s`` of GPU work and a ring all-reduce of
    ``gradient_bytes``.  The all-reduce starts when ``1 - overlap`` of the compute is done
    (``overlap`` = 0: communication fully exposed; 1: it may run under the whole compute)."""

    type: Literal["training"]
    ranks: Ranks = "all"
    gradient_bytes: Size
    compute_s: Annotated[float, Field(gt=0, le=1e4, allow_inf_nan=False)]
    overlap: float = Field(default=0.0, ge=0, le=1)
    iterations: int = Field(default=1, ge=1, le=10_000)
    start_s: Time = 0.0
    slice_bytes: Size = 512 * 1024
    channels: int | None = Field(default=None, ge=1, le=64)
    algorithm: Algorithm = "auto"


class LlmTrainingSpec(_Spec):
    """One or more training iterations of a transformer (docs/llm.md): a model preset or
    custom shape, a GPU preset or custom figures, batch and parallelism.  ``dp`` None uses
    every GPU the other dimensions leave (``ranks``: the GPUs, default all)."""

    type: Literal["llm_training"]
    model: str | ModelSpec = Field(
        default="llama3-70b", description=f"preset ({', '.join(MODELS)}) or a custom shape")
    gpu: str | GpuSpec = Field(
        default="h100", description=f"preset ({', '.join(GPUS)}) or custom figures")
    compute_efficiency: float = Field(
        default=0.6, gt=0, le=1, allow_inf_nan=False,
        description="share of the BF16 peak the kernels reach while computing")
    seq_len: int = Field(default=8192, ge=16, le=4_194_304)
    global_batch: int = Field(default=2048, ge=1, le=10_000_000, description="sequences")
    micro_batch: int = Field(default=1, ge=1, le=65536, description="sequences")
    tp: int = Field(default=8, ge=1, le=1024)
    pp: int = Field(default=1, ge=1, le=1024)
    dp: int | None = Field(default=None, ge=1, le=1_000_000)
    ep: int = Field(default=1, ge=1, le=4096)
    cp: int = Field(default=1, ge=1, le=1024)
    zero: int = Field(default=1, ge=0, le=3, description="ZeRO stage of the optimizer")
    recompute: Recompute = "selective"
    overlap_grad_reduce: bool = Field(
        default=True, description="gradient reduction starts with the last backward pass")
    overlap_param_gather: bool = Field(
        default=True, description="ZeRO weight all-gather hides under the next forward")
    iterations: int = Field(default=1, ge=1, le=1000)
    ranks: Ranks = "all"
    start_s: Time = 0.0
    algorithm: Algorithm = "auto"

    @model_validator(mode="after")
    def _presets(self) -> LlmTrainingSpec:
        if isinstance(self.model, str) and self.model not in MODELS:
            raise ValueError(f"unknown model {self.model!r} (presets: {', '.join(MODELS)})")
        if isinstance(self.gpu, str) and self.gpu not in GPUS:
            raise ValueError(f"unknown GPU {self.gpu!r} (presets: {', '.join(GPUS)})")
        return self

    @property
    def model_spec(self) -> ModelSpec:
        """The model shape (preset resolved)."""
        return MODELS[self.model] if isinstance(self.model, str) else self.model

    @property
    def gpu_spec(self) -> GpuSpec:
        """The GPU figures (preset resolved)."""
        return GPUS[self.gpu] if isinstance(self.gpu, str) else self.gpu


class StallSpec(_Spec):
    """A receiving NIC that stops draining for ``duration_s`` from ``start_s`` (a host or PCIe
    hang; Guo et al., SIGCOMM 2016): on RoCE with PFC its switch port pauses, the pause spreads
    upstream (a pause storm) until the NIC watchdog gives up after 100 ms; InfiniBand returns
    no credits; lossy Ethernet drops.  It sends nothing itself: pair it with traffic toward
    ``receiver``.  Needs the cell engine (the flow level does not model pauses)."""

    type: Literal["stall"]
    receiver: Address
    start_s: Time = 0.0
    duration_s: float = Field(gt=0, le=1e4, allow_inf_nan=False, description="seconds")


class FocusSpec(_Spec):
    """A focused run (docs/simulation.md, "Focused runs"): the cell engine on this region,
    the rest of the fabric at flow level.  The region is a group of the design (a pod,
    scalable unit or rack), the leaves of a rail with every server's NIC on it, and/or listed
    devices; ``with_switches`` adds the switches the region's servers are cabled to."""

    group: str | None = Field(default=None, max_length=200)
    rail: int | None = Field(default=None, ge=0, le=63)
    devices: list[str] = Field(default_factory=list, max_length=100_000)
    with_switches: bool = True
    from_s: Time = Field(default=0.0, description="start of the cell-level window")
    until_s: float | None = Field(default=None, gt=0, le=1e4, allow_inf_nan=False,
                                  description="end of the cell-level window; None = the run's")

    @model_validator(mode="after")
    def _something(self) -> FocusSpec:
        if self.group is None and self.rail is None and not self.devices:
            raise ValueError("focus needs a group, a rail or devices")
        if self.until_s is not None and self.until_s <= self.from_s:
            raise ValueError("focus.until_s must be after focus.from_s")
        return self


Workload = Annotated[
    CollectiveSpec | IncastSpec | PermutationSpec | StorageSpec | TrainingSpec
    | LlmTrainingSpec | StallSpec,
    Field(discriminator="type"),
]


class Scenario(_Spec):
    """Everything a simulation run needs besides the design."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="FabricStudio scenario")

    name: str = Field(default="", max_length=500)
    description: str = Field(default="", max_length=100_000)
    seed: int = Field(default=1, ge=0, le=2**63 - 1)
    until_s: float | None = Field(
        default=None, ge=MIN_SAMPLE_PERIOD_S, le=1e4, allow_inf_nan=False,
        description="simulated horizon; None = until all traffic completes",
    )
    measure_from_s: Time = Field(default=0.0, description="start of the statistics window")
    technology: Technology | None = Field(default=None, description="None = the design's")
    dcqcn: bool | None = Field(default=None, description="None = the design's setting")
    transport: Transport | None = Field(
        default=None, description="lossy Ethernet transport; None = the design's tcp.transport")
    routing: Routing = "default"
    engine: EngineKind = Field(
        default="auto",
        description="cell = cell-level (queues, PFC, ECN, drops); flow = max-min fair rates "
                    "for whole clusters; auto = cell when its predicted run time fits the "
                    "budget, else flow",
    )
    focus: FocusSpec | None = Field(
        default=None, description="cell engine on a region, the rest at flow level")
    cell_bytes: Size = Field(default=16384, ge=256, le=16 * 2**20)
    sample_period_s: float | None = Field(
        default=None, ge=MIN_SAMPLE_PERIOD_S, le=MAX_SAMPLE_PERIOD_S, allow_inf_nan=False,
        description="metrics frame period; None = about 1,000 frames over the run")
    control_frames_in_band: bool = Field(
        default=False,
        description="ACKs, CNPs and PFC frames occupy link time (docs/engine.md); default: they "
                    "arrive after fixed delays and cost no bandwidth")
    deadlock_after_s: float | None = Field(
        default=1e-3, ge=1e-7, le=1e3, allow_inf_nan=False,
        description="a cycle of paused or credit-starved ports frozen this long ends the run "
                    "as a deadlock; null = never check",
    )
    fabric: dict[str, Any] = Field(
        default_factory=dict,
        description="overrides of the design's fabric settings (same keys as in a design file)",
    )
    flows: list[FlowSpec] = Field(default_factory=list)
    workloads: list[Workload] = Field(default_factory=list)
    failures: list[Failure] = Field(
        default_factory=list, max_length=MAX_FAILURES,
        description="links, devices or rails that go down during the run (docs/failures.md)")
    failover: FailoverSettings = Field(
        default_factory=FailoverSettings,
        description="how long the fabric takes to route around a failure")

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if self.until_s is not None and self.measure_from_s >= self.until_s:
            raise ValueError(f"measure_from_s ({self.measure_from_s:g} s) must be before "
                             f"until_s ({self.until_s:g} s)")
        if self.until_s is not None and self.sample_period_s is not None:
            check_frame_count(self.until_s, self.sample_period_s)
        if not self.flows and not self.workloads:
            raise ValueError("the scenario has no flows and no workloads")
        if self.until_s is None and self.deadlock_after_s is None:
            raise ValueError("a run without a horizon (until_s null) needs deadlock detection "
                             "(deadlock_after_s), or it could run forever")
        if self.fabric:
            fabric_with_overrides(FabricSettings(), self.fabric)
        return self

    def with_changes(self, **changes: Any) -> Scenario:
        """A validated copy with some fields replaced (e.g. CLI overrides)."""
        data = self.model_dump()
        data.update(changes)
        return Scenario.model_validate(data)


def check_frame_count(horizon_s: float, period_s: float) -> None:
    """ValueError when a run of ``horizon_s`` sampled every ``period_s`` would record more than
    :data:`~fabricstudio.sim.engine.config.MAX_FRAMES` frames (checked before allocating)."""
    frames = horizon_s / period_s
    if frames > MAX_FRAMES:
        raise ValueError(
            f"sample_period_s {period_s:g} s over {horizon_s:g} s would record {frames:,.0f} "
            f"frames (at most {MAX_FRAMES:,}); use a period of at least "
            f"{horizon_s / MAX_FRAMES:.3g} s or leave it out")


def fabric_with_overrides(fabric: FabricSettings, overrides: dict[str, Any]) -> FabricSettings:
    """``fabric`` with ``overrides`` merged in (nested objects merge key by key)."""
    merged = _deep_merge(fabric.model_dump(mode="json"), overrides)
    try:
        return FabricSettings.model_validate(merged)
    except ValidationError as exc:
        raise ValueError(f"fabric: {format_validation_error(exc)}") from None


def _deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file (a regular file of at most :data:`MAX_FILE_BYTES`)."""
    try:
        raw = read_input(path, MAX_FILE_BYTES)
    except InputError as exc:
        raise ScenarioError(exc.problem, path) from None
    return parse_scenario(raw, source=path)


def parse_scenario(raw: bytes | str, source: str | os.PathLike[str] = "<input>") -> Scenario:
    """Parse scenario-file text into a validated :class:`Scenario`."""
    try:
        doc = decode_json(raw, source, MAX_FILE_BYTES)
    except InputError as exc:
        raise ScenarioError(exc.problem, source) from None
    return scenario_from_dict(doc, source)


def scenario_from_dict(doc: Any, source: str | os.PathLike[str] = "<input>") -> Scenario:
    """Validate a decoded scenario document (with its envelope)."""
    try:
        check_envelope(doc, SCENARIO_FILE)
    except EnvelopeError as exc:
        raise ScenarioError(exc.problem, source) from None
    body = body_of(doc)
    try:
        return Scenario.model_validate(body)
    except ValidationError as exc:
        raise ScenarioError(format_validation_error(exc), source) from None


def dump_scenario(scenario: Scenario) -> str:
    """The scenario as scenario-file JSON text (defaults omitted)."""
    body = scenario.model_dump(mode="json", exclude_defaults=True)
    doc = {"format": FORMAT_NAME, "version": CURRENT_VERSION, **body}
    return json.dumps(doc, indent=1) + "\n"
