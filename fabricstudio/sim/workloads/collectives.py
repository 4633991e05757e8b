"""Collectives: ring all-reduce, all-gather, reduce-scatter (flat or hierarchical) and
direct all-to-all, reported like nccl-tests (algbw = S / t, busbw = algbw x factor).

Flat ring (NCCL's ring algorithm): the ranks form ``channels`` rings that each carry
``S / channels``.  With several GPUs per server, channel c enters every server on GPU c's rail
and leaves it through the same rail NIC (NCCL's PXN: the last GPU of the server hands its data
over NVLink to the rail GPU), so consecutive servers talk over one rail.  All-reduce takes
2(N-1) steps, reduce-scatter and all-gather N-1, each moving S/(N x channels) per rank.

Hierarchical (2-D ring): an NVLink ring inside every server, then one ring per rail across
servers on S/g, then NVLink again; it sends 2(n-1)/n x S/g per NIC instead of 2(N-1)/N x S/g
and takes 2(n-1) instead of 2(N-1) network steps, which is what makes 1,024-GPU rings cheap to
simulate.  Its phases run one after another (not overlapped), and because it moves fewer bytes
over the NICs its busbw can exceed the NICs' aggregate, unlike NCCL's flat ring.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fabricstudio.model.units import throughput_gbps
from fabricstudio.sim.engine.clock import after_all
from fabricstudio.sim.engine.config import EngineError
from fabricstudio.sim.scenario import ScenarioError
from fabricstudio.sim.workloads.addresses import group_by_server, rail_of, server_of
from fabricstudio.sim.workloads.base import Activity, Workload, WorkloadContext
from fabricstudio.sim.workloads.nccl_model import HOPPER_NVLINK_GBPS, Topology, choose
from fabricstudio.sim.workloads.pipeline import (
    RingRun,
    RingSpec,
    TreeRun,
    TreeSpec,
    double_binary_tree,
    nvlink_time,
    ring_latency_s,
    ring_units,
    split_evenly,
    tree_latency_s,
)
from fabricstudio.sim.workloads.ring_arrays import try_array_rings

if TYPE_CHECKING:
    from fabricstudio.sim.duration import HopTimes


def bus_factor(name: str, n: int) -> float:
    """nccl-tests bus-bandwidth factor: all-reduce 2(n-1)/n; reduce-scatter, all-gather and
    all-to-all (n-1)/n (NVIDIA/nccl-tests doc/PERFORMANCE.md)."""
    if n < 1:
        raise ValueError("a collective needs at least one rank")
    if name == "all_reduce":
        return 2 * (n - 1) / n
    if name in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    raise ValueError(f"unknown collective {name!r}")


def bandwidths(name: str, ranks: int, size_bytes: float, time_s: float) -> tuple[float, float]:
    """(algbw, busbw) in Gb/s (bits; divide by 8 for nccl-tests' GB/s)."""
    algbw = throughput_gbps(size_bytes, time_s)
    return algbw, algbw * bus_factor(name, ranks)


def _ring_hops(order: list[str], exits: dict[str, str] | None = None) -> tuple[Any, ...]:
    """Hops of a ring through ``order``; a hop leaving a server starts at ``exits[server]``."""
    hops = []
    for p, src in enumerate(order):
        dst = order[(p + 1) % len(order)]
        if exits and server_of(src) != server_of(dst):
            src = exits[server_of(src)]
        hops.append((src, dst))
    return tuple(hops)


def default_channels(design: Any, ranks: list[str]) -> int:
    """One channel per rail the first server's ranks use (1 when every server has one rank)."""
    groups = group_by_server(ranks)
    if len(groups) < 2 or max(len(g) for g in groups) < 2:
        return 1
    return len({rail_of(design, address) for address in groups[0]})


def flat_ring_phases(name: str, ranks: list[str], size: int, channels: int) -> list[list[RingSpec]]:
    """The flat (NCCL ring) algorithm: one phase of ``channels`` parallel rings."""
    n = len(ranks)
    steps = 2 * (n - 1) if name == "all_reduce" else n - 1
    groups = group_by_server(ranks)
    rings = []
    for channel, share in enumerate(split_evenly(size, channels)):
        rotated = [g[channel * len(g) // channels:] + g[:channel * len(g) // channels]
                   for g in groups]
        order = [address for group in rotated for address in group]
        exits = ({server_of(g[0]): g[0] for g in rotated}
                 if len(groups) > 1 and max(len(g) for g in groups) > 1 else None)
        rings.append(RingSpec(_ring_hops(order, exits), steps, math.ceil(share / n), channel))
    return [rings]


def hierarchical_phases(name: str, ranks: list[str], size: int) -> list[list[RingSpec]]:
    """NVLink rings inside servers and per-rail rings across servers (equal GPUs per server)."""
    groups = group_by_server(ranks)
    g, n = len(groups[0]), len(groups)
    intra_chunk = math.ceil(size / g)
    intra = [RingSpec(_ring_hops(group), g - 1, intra_chunk) for group in groups]
    rails = [[group[r] for group in groups] for r in range(g)]
    inter_chunk = math.ceil(size / (g * n))
    if name == "all_reduce":
        inter = [RingSpec(_ring_hops(rail), 2 * (n - 1), inter_chunk) for rail in rails]
        return [intra, inter, intra]
    inter = [RingSpec(_ring_hops(rail), n - 1, inter_chunk) for rail in rails]
    return [intra, inter] if name == "reduce_scatter" else [inter, intra]


#: Algorithms each collective can run (``auto`` picks among NCCL's: ring, tree, nvls_tree).
ALGORITHMS = {
    "all_reduce": ("ring", "hierarchical", "tree", "nvls_tree"),
    "reduce_scatter": ("ring", "hierarchical"),
    "all_gather": ("ring", "hierarchical"),
}


def _is_regular(ranks: list[str]) -> bool:
    groups = group_by_server(ranks)
    return len(groups) > 1 and len({len(g) for g in groups}) == 1 and len(groups[0]) > 1


def tree_phases(ranks: list[str], size: int, channels: int, nvls: bool) -> list[list[TreeSpec]]:
    """NCCL's tree all-reduce: per channel a double binary tree over the servers (one rank
    per server, on the channel's rail), each tree carrying half of the channel's share; inside
    a server a chain of its GPUs over NVLink (``nvls``: one NVSwitch reduction instead)."""
    groups = group_by_server(ranks)
    first, second = double_binary_tree(len(groups))
    intra = 1 if nvls else max(len(g) for g in groups) - 1
    trees = []
    for channel, share in enumerate(split_evenly(size, channels)):
        nodes = tuple(group[channel % len(group)] for group in groups)
        for parents, half in zip((first, second), split_evenly(share, 2), strict=True):
            if half:
                trees.append(TreeSpec(nodes, tuple(parents), half, channel, intra))
    return [trees]


def nccl_topology(design: Any, ranks: list[str], channels: int, nvls: bool = False) -> Topology:
    """NCCL's view of the ranks (see :mod:`.nccl_model`): servers, channels, per-channel
    NIC goodput and NVLink share, GPU generation from the NVLink rate."""
    groups = group_by_server(ranks)
    server = design.devices.get(server_of(ranks[0]))
    fabric = design.fabric
    goodput = fabric.mtu_bytes / (fabric.mtu_bytes + fabric.wire_overhead_bytes())
    nic = getattr(server, "nic_speed_gbps", 100.0)
    nvlink = getattr(server, "nvlink_gbps", HOPPER_NVLINK_GBPS)
    return Topology(ranks=len(ranks), nodes=len(groups), channels=channels,
                    inter_gbytes=nic * goodput / 8, intra_gbytes=nvlink / 8 / channels,
                    hopper=nvlink >= HOPPER_NVLINK_GBPS, nvls=nvls)


def plan(design: Any, name: str, ranks: list[str], size: int, channels: int | None,
         algorithm: str, nvls: bool = False) -> tuple[str, int, list[list[Any]], str]:
    """(algorithm, channels, phases, reason) of a ring or tree collective.

    The algorithm is the scenario's choice; ``auto`` is what NCCL's tuning model would pick
    among ring, tree and (with ``nvls``) NVLS tree - never a switch made for the simulator's
    sake.  ``reason`` says which and why.
    """
    channels = channels or default_channels(design, ranks)
    allowed = ALGORITHMS[name]
    if algorithm == "auto":
        nccl = tuple(a for a in ("ring", "tree", "nvls_tree") if a in allowed
                     and (a != "nvls_tree" or nvls))
        algorithm, reason = choose(name, size, nccl_topology(design, ranks, channels, nvls),
                                   nccl)
    else:
        if algorithm not in allowed:
            raise ScenarioError(f"the {algorithm} algorithm does not apply to {name} (use "
                                f"{', '.join(allowed)} or auto)")
        reason = f"{algorithm}: chosen by the scenario"
    if algorithm == "hierarchical":
        if not _is_regular(ranks):
            raise ScenarioError("the hierarchical algorithm needs the same number (> 1) of "
                                "ranks on each of several servers")
        return ("hierarchical", len(group_by_server(ranks)[0]),
                hierarchical_phases(name, ranks, size), reason)
    if algorithm in ("tree", "nvls_tree"):
        return algorithm, channels, tree_phases(ranks, size, channels,
                                                algorithm == "nvls_tree"), reason
    return "ring", channels, flat_ring_phases(name, ranks, size, channels), reason


def run_phase(engine: Any, runs: list[Any], slice_bytes: int, tag: str,
              on_bytes: Any = None, flow_ids: list[int] | None = None
              ) -> Generator[Any, Any, None]:
    """SimPy generator: start the ring passes and trees of one phase at once on ``engine``
    and wait until all have finished."""
    finished = engine.env.event()
    one_done = after_all(len(runs), finished.succeed)
    started = [(RingRun if isinstance(spec, RingSpec) else TreeRun)(
        engine, spec, slice_bytes, tag, one_done, on_bytes=on_bytes) for spec in runs]
    for run in started:
        run.start()
    if any(run.flow_ids for run in started) and getattr(engine, "kind", "cell") == "cell":
        # the same times without an event per cell, or no-op
        why = try_array_rings(engine, started)
        needed = getattr(engine, "arrays_required", None)
        if why is not None and needed:  # accepted for its arrays only: do not run for hours
            raise EngineError(f"the ring cannot be solved as arrays ({why}), and {needed}")
    if flow_ids is not None:
        for run in started:
            flow_ids.extend(run.flow_ids)
    yield finished


class Collective(Workload):
    """A collective over GPU ranks; reusable as a building block by the training workload."""

    def __init__(self, ctx: WorkloadContext, index: int, name: str, ranks: list[str],
                 size_bytes: int, slice_bytes: int, channels: int | None = None,
                 algorithm: str = "auto", start_s: float = 0.0, nvls: bool = False) -> None:
        super().__init__(ctx, index)
        self.kind = name
        self.name = name
        self.ranks = ranks
        self.size_bytes = size_bytes
        self.slice_bytes = slice_bytes
        self.at_s = start_s
        self.runs: list[tuple[float, float]] = []
        self.running_since: float | None = None  #: start of the run going on, if any
        if name == "all_to_all":
            self.algorithm, self.channels = "direct", 1
            self.reason = "direct: every rank sends to every other rank at once"
            self._phases: list[list[Any]] = []
            n = len(ranks)
            fabric_pairs = n * n - sum(len(g) ** 2 for g in group_by_server(ranks))
            self.planned_bytes = n * (n - 1) * math.ceil(size_bytes / n)
            self.network_bytes = math.ceil(size_bytes / n) * fabric_pairs
            self.planned_flows = n * (n - 1)
            self.planned_fabric_flows = self.planned_concurrent = fabric_pairs
            self.planned_rate_updates = 2 * fabric_pairs
            self.unit_bytes_hint = math.ceil(size_bytes / n)  # one transfer per pair
            return
        self.algorithm, self.channels, self._phases, self.reason = plan(
            ctx.design, name, ranks, size_bytes, channels, algorithm, nvls)
        runs = [run for phase in self._phases for run in phase]
        self.network_bytes = sum(_fabric_bytes(run, slice_bytes) for run in runs)
        self.planned_bytes = sum(_all_bytes(run, slice_bytes) for run in runs)
        self.planned_flows = self.planned_fabric_flows = sum(_transfers(run) for run in runs)
        units = [ring_units(run, slice_bytes)[0] if isinstance(run, RingSpec)
                 else min(run.size_bytes, slice_bytes) for run in runs]
        self.unit_bytes_hint = min(units) if units else None
        self.planned_rate_updates = 2 * len(runs)
        self.planned_concurrent = max(sum(_transfers(run) for run in phase)
                                      for phase in self._phases)
        self.planned_array_steps = sum(max(_units(run, slice_bytes) for run in phase)
                                       for phase in self._phases if phase)

    @property
    def hops(self) -> list[tuple[str, str]]:
        """Every (src, dst) pair the collective sends over (for path checks)."""
        if self.name == "all_to_all":  # a chain through every rank proves them connected
            return list(itertools.pairwise(self.ranks))
        pairs: set[tuple[str, str]] = set()
        for phase in self._phases:
            for run in phase:
                if isinstance(run, RingSpec):
                    pairs.update(run.hops)
                else:
                    pairs.update((run.nodes[v], run.nodes[p])
                                 for v, p in enumerate(run.parents) if p >= 0)
        return sorted(pairs)

    @property
    def route_pairs(self) -> list[tuple[str, str]]:
        """The pairs that carry the bytes; an all-to-all's N(N-1) are sampled (every rank
        to ranks at about 64 spread offsets), not listed."""
        if self.name != "all_to_all":
            return self.hops
        n = len(self.ranks)
        offsets = range(1, n, max(1, (n - 1) // 64))
        return [(self.ranks[i], self.ranks[(i + k) % n]) for k in offsets for i in range(n)]

    def estimate_s(self, times: HopTimes) -> float:
        """Expected length without contention: the phases one after another (all-to-all:
        the default, its bytes over its senders)."""
        if self.name == "all_to_all":
            return super().estimate_s(times)
        return sum(self._phase_estimate(phase, times) for phase in self._phases)

    def _phase_estimate(self, phase: list[Any], times: HopTimes) -> float:
        """One phase: the busiest NIC's bytes at its goodput (the ring passes and trees of a
        phase may share NICs) plus a tree's fill and drain (:func:`tree_latency_s`), or a
        ring pass's bytes over one NVLink hop or its per-step latency
        (:func:`ring_latency_s`: a latency-bound ring runs slower), whichever is longest."""
        design = self.ctx.design
        load: dict[tuple[str, int], tuple[str, float]] = {}
        longest = fill = 0.0
        for run in phase:
            stream = _stream_bytes(run, self.slice_bytes)
            if isinstance(run, RingSpec):
                net = set(run.fabric_hops)
                sends = [run.hops[p][0] for p in sorted(net)]
                nvlink = [hop for p, hop in enumerate(run.hops) if p not in net]
                longest = max(longest, ring_latency_s(run, self.slice_bytes, design, times),
                              nvlink_time(design, nvlink[0], stream) if nvlink else 0.0)
            else:
                sends = [address for v, p in enumerate(run.parents) if p >= 0
                         for address in (run.nodes[v], run.nodes[p])]
                fill = max(fill, tree_latency_s(run, self.slice_bytes, design, times))
            for address in sends:
                key = (server_of(address), rail_of(design, address))
                load[key] = (address, load.get(key, (address, 0.0))[1] + stream)
        busiest = max((times.unit_time(address, nbytes) for address, nbytes in load.values()),
                      default=0.0)
        return max(busiest + fill, longest)

    def _run(self) -> Generator[Any, Any, None]:
        env = self.ctx.engine.env
        if self.at_s > env.now:
            yield env.timeout(self.at_s - env.now)
        yield from self.execute()

    def execute(self) -> Generator[Any, Any, None]:
        """SimPy generator running the collective once from now (may be called repeatedly)."""
        env = self.ctx.engine.env
        started = env.now
        if self.start_s is None:
            self.start_s = started
        self.running_since = started
        if self.name == "all_to_all":
            yield from self._run_direct()
        for phase in self._phases:
            yield from self._run_phase(phase)
        self.finish_s = env.now
        self.runs.append((started, env.now))
        self.running_since = None

    def activity(self) -> list[Activity]:
        """Every run so far (and the one going on) is communication among the ranks."""
        ranks = tuple(self.ranks)
        out = [Activity(ranks, "comm", a, b) for a, b in self.runs]
        if self.running_since is not None:
            out.append(Activity(ranks, "comm", self.running_since, None))
        return out

    def _run_phase(self, runs: list[Any]) -> Generator[Any, Any, None]:
        yield from run_phase(self.ctx.engine, runs, self.slice_bytes, self.tag,
                             on_bytes=self.account, flow_ids=self.flow_ids)

    def _run_direct(self) -> Generator[Any, Any, None]:
        """All-to-all: every rank sends S/N to every other rank at once (N(N-1) flows)."""
        engine = self.ctx.engine
        finished = engine.env.event()
        share = math.ceil(self.size_bytes / len(self.ranks))
        arrived = after_all(len(self.ranks) * (len(self.ranks) - 1), finished.succeed)

        def one_done(record: Any) -> None:
            self.account(record.size_bytes)
            arrived()

        for src in self.ranks:
            for dst in self.ranks:
                if src != dst:
                    self.flow_ids.append(engine.add_flow(src, dst, share, tag=self.tag,
                                                         on_done=one_done))
        yield finished

    def report(self) -> dict[str, Any]:
        out = super().report()
        out.update(self.summary())
        return out

    def summary(self, time_s: float | None = None) -> dict[str, Any]:
        """The ``collective`` object of the result (nccl-tests bookkeeping)."""
        if time_s is None and self.runs:
            time_s = sum(b - a for a, b in self.runs) / len(self.runs)
        algbw = busbw = None
        if time_s:
            algbw, busbw = bandwidths(self.name, len(self.ranks), self.size_bytes, time_s)
        return {"name": self.name, "ranks": len(self.ranks), "size_bytes": self.size_bytes,
                "algorithm": self.algorithm, "channels": self.channels,
                "time_s": time_s, "algbw_gbps": algbw, "busbw_gbps": busbw,
                "algorithm_reason": self.reason}


def _stream_bytes(run: RingSpec | TreeSpec, slice_bytes: int) -> int:
    if isinstance(run, RingSpec):
        unit, per = ring_units(run, slice_bytes)
        return run.steps * per * unit
    return run.size_bytes


def _fabric_bytes(run: RingSpec | TreeSpec, slice_bytes: int) -> int:
    """Bytes a ring pass or tree moves between servers."""
    if isinstance(run, RingSpec):
        return len(run.fabric_hops) * _stream_bytes(run, slice_bytes)
    return 2 * (len(run.nodes) - 1) * run.size_bytes


def _all_bytes(run: RingSpec | TreeSpec, slice_bytes: int) -> int:
    """Bytes a ring pass or tree moves over the fabric and NVLink."""
    if isinstance(run, RingSpec):
        return len(run.hops) * _stream_bytes(run, slice_bytes)
    return _fabric_bytes(run, slice_bytes) + 2 * len(run.nodes) * run.intra_hops * run.size_bytes


def _units(run: RingSpec | TreeSpec, slice_bytes: int) -> int:
    """Units each stream of a ring pass or tree sends (RingRun / TreeRun ``total_units``)."""
    if isinstance(run, RingSpec):
        return run.steps * ring_units(run, slice_bytes)[1]
    return max(1, math.ceil(run.size_bytes / max(1, slice_bytes)))


def _transfers(run: Any) -> int:
    """Engine flows a ring pass or tree creates (one per fabric hop and direction)."""
    if isinstance(run, RingSpec):
        return len(run.fabric_hops)
    return 2 * (len(run.nodes) - 1)
