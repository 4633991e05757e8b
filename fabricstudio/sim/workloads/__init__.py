"""Workloads: SimPy processes that offer traffic to the engine and report what they measured.

:func:`build_workloads` turns a scenario's ``flows`` and ``workloads`` into :class:`Workload`
objects (checking every address against the design); ``start()`` registers each on the
engine's clock.
"""

from __future__ import annotations

from fabricstudio.model import Design
from fabricstudio.sim.scenario import (
    CollectiveSpec,
    IncastSpec,
    LlmTrainingSpec,
    PermutationSpec,
    Scenario,
    ScenarioError,
    StallSpec,
    StorageSpec,
    TrainingSpec,
)
from fabricstudio.sim.scenario import Workload as WorkloadSpec
from fabricstudio.sim.workloads.addresses import (
    all_gpus,
    check_address,
    gpu_servers,
    resolve_ranks,
    server_of,
    storage_endpoint,
    storage_servers,
)
from fabricstudio.sim.workloads.base import Workload, WorkloadContext
from fabricstudio.sim.workloads.collectives import Collective, bandwidths, bus_factor
from fabricstudio.sim.workloads.stall import ReceiverStall
from fabricstudio.sim.workloads.traffic import (
    FlowSet,
    explicit_flows,
    incast,
    permutation,
    storage_burst,
)
from fabricstudio.sim.workloads.training import TrainingStep


def build_workloads(ctx: WorkloadContext, scenario: Scenario) -> list[Workload]:
    """The scenario's workloads (explicit flows first), addresses checked against the design."""
    design = ctx.design
    built: list[Workload] = []
    if scenario.flows:
        for i, flow in enumerate(scenario.flows):
            check_address(design, flow.src, f"flows[{i}].src")
            check_address(design, flow.dst, f"flows[{i}].dst")
        built.append(explicit_flows(ctx, 0, scenario.flows))
    for i, spec in enumerate(scenario.workloads):
        built.append(_build_one(ctx, design, len(built), i, spec))
    return built


def _build_one(ctx: WorkloadContext, design: Design, index: int, i: int,
               spec: WorkloadSpec) -> Workload:
    where = f"workloads[{i}] ({spec.type})"
    if isinstance(spec, CollectiveSpec):
        ranks = resolve_ranks(design, spec.ranks, where)
        return Collective(ctx, index, spec.type, ranks, spec.size_bytes, spec.slice_bytes,
                          spec.channels, spec.algorithm, spec.start_s)
    if isinstance(spec, TrainingSpec):
        return TrainingStep(ctx, index, resolve_ranks(design, spec.ranks, where), spec, where)
    if isinstance(spec, LlmTrainingSpec):
        from fabricstudio.sim.llm.workload import LlmTraining  # the LLM layer uses workloads

        return LlmTraining(ctx, index, spec, resolve_ranks(design, spec.ranks, where), where)
    if isinstance(spec, IncastSpec):
        check_address(design, spec.receiver, f"{where} receiver")
        for sender in spec.senders:
            check_address(design, sender, f"{where} sender")
            if sender == spec.receiver:
                raise ScenarioError(f"{where}: the receiver {sender!r} is also a sender")
        return incast(ctx, index, spec)
    if isinstance(spec, PermutationSpec):
        return permutation(ctx, index, resolve_ranks(design, spec.hosts, where), spec)
    if isinstance(spec, StorageSpec):
        clients = gpu_servers(design) if spec.clients == "all" else spec.clients
        servers = storage_servers(design) if spec.servers == "all" else spec.servers
        if not servers:
            raise ScenarioError(f"{where}: the design has no storage server")
        if not clients:
            raise ScenarioError(f"{where}: the design has no GPU server")
        for address in [*clients, *servers]:
            check_address(design, address, where)
        return storage_burst(ctx, index, [storage_endpoint(design, c) for c in clients],
                             [storage_endpoint(design, s) for s in servers], spec)
    if isinstance(spec, StallSpec):
        check_address(design, spec.receiver, f"{where} receiver")
        return ReceiverStall(ctx, index, spec)
    raise ScenarioError(f"{where}: unknown workload type")  # pragma: no cover - pydantic


__all__ = [
    "Collective", "FlowSet", "TrainingStep", "Workload", "WorkloadContext", "all_gpus",
    "bandwidths", "build_workloads", "bus_factor", "check_address", "resolve_ranks",
    "server_of",
]
