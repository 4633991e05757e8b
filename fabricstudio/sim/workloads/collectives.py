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

import math
from dataclasses import dataclass
from typing import Any

from fabricstudio.sim.scenario import ScenarioError
from fabricstudio.sim.workloads.addresses import group_by_server, rail_of, server_of
from fabricstudio.sim.workloads.base import Activity, Workload, WorkloadContext
from fabricstudio.sim.workloads.ring import RingPass, split_evenly


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
    algbw = size_bytes * 8 / time_s / 1e9
    return algbw, algbw * bus_factor(name, ranks)


@dataclass(frozen=True)
class RingSpec:
    """One ring pass to run: its hops, number of steps and bytes per step per position."""

    hops: tuple[tuple[str, str], ...]
    steps: int
    chunk_bytes: int
    qp: int = 0  #: queue pair of the ring's connections (NCCL: one per channel)


def _ring_hops(order: list[str], exits: dict[str, str] | None = None) -> tuple:
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


#: ``auto`` uses the flat ring up to this many flows, then the hierarchical ring.
AUTO_FLAT_RING_MAX_FLOWS = 2_000_000


def _is_regular(ranks: list[str]) -> bool:
    groups = group_by_server(ranks)
    return len(groups) > 1 and len({len(g) for g in groups}) == 1 and len(groups[0]) > 1


#: Slices per chunk on NVLink-only rings (NCCL_STEPS).
NVLINK_SLICES = 8


def _flows_of(phases: list[list[RingSpec]], slice_bytes: int) -> int:
    total = 0
    for phase in phases:
        for r in phase:
            nvlink = all(server_of(a) == server_of(b) for a, b in r.hops)
            slices = -(-r.chunk_bytes // slice_bytes)
            total += len(r.hops) * r.steps * max(1, min(slices, NVLINK_SLICES) if nvlink
                                                 else slices)
    return total


def plan(design: Any, name: str, ranks: list[str], size: int, slice_bytes: int,
         channels: int | None, algorithm: str) -> tuple[str, int, list[list[RingSpec]]]:
    """(algorithm, channels, phases) of a ring collective.

    ``auto`` is NCCL's flat ring unless that would take more than
    :data:`AUTO_FLAT_RING_MAX_FLOWS` flows and the ranks allow the hierarchical ring.
    """
    if algorithm == "hierarchical" and not _is_regular(ranks):
        raise ScenarioError("the hierarchical algorithm needs the same number (> 1) of ranks "
                            "on each of several servers")
    if algorithm != "hierarchical":
        channels = channels or default_channels(design, ranks)
        phases = flat_ring_phases(name, ranks, size, channels)
        if (algorithm == "ring" or not _is_regular(ranks)
                or _flows_of(phases, slice_bytes) <= AUTO_FLAT_RING_MAX_FLOWS):
            return "ring", channels, phases
    return ("hierarchical", len(group_by_server(ranks)[0]),
            hierarchical_phases(name, ranks, size))


class Collective(Workload):
    """A collective over GPU ranks; reusable as a building block by the training workload."""

    def __init__(self, ctx: WorkloadContext, index: int, name: str, ranks: list[str],
                 size_bytes: int, slice_bytes: int, channels: int | None = None,
                 algorithm: str = "auto", start_s: float = 0.0) -> None:
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
            self._phases: list[list[RingSpec]] = []
            n = len(ranks)
            self.planned_bytes = n * (n - 1) * math.ceil(size_bytes / n)
            self.network_bytes = math.ceil(size_bytes / n) * sum(
                1 for a in ranks for b in ranks if server_of(a) != server_of(b))
            self.planned_flows = n * (n - 1)
            return
        self.algorithm, self.channels, self._phases = plan(
            ctx.design, name, ranks, size_bytes, slice_bytes, channels, algorithm)
        self.planned_bytes = sum(len(r.hops) * r.steps * r.chunk_bytes
                                 for phase in self._phases for r in phase)
        self.network_bytes = sum(
            sum(1 for a, b in r.hops if server_of(a) != server_of(b)) * r.steps * r.chunk_bytes
            for phase in self._phases for r in phase)
        self.planned_flows = _flows_of(self._phases, slice_bytes)

    @property
    def hops(self) -> list[tuple[str, str]]:
        """Every (src, dst) pair the collective sends over (for path checks)."""
        if self.name == "all_to_all":
            return [(a, b) for a in self.ranks for b in self.ranks if a != b]
        return sorted({hop for phase in self._phases for r in phase for hop in r.hops})

    def _run(self):
        env = self.ctx.engine.env
        if self.at_s > env.now:
            yield env.timeout(self.at_s - env.now)
        yield from self.execute()

    def execute(self):
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

    def _run_phase(self, rings: list[RingSpec]):
        env = self.ctx.engine.env
        finished = env.event()
        pending = [len(rings)]

        def one_done(_time: float) -> None:
            pending[0] -= 1
            if not pending[0]:
                finished.succeed()

        passes = [RingPass(self.ctx.engine, list(r.hops), r.steps, r.chunk_bytes,
                           self._slice_for(r), self.tag, one_done, on_bytes=self.account,
                           qp=r.qp)
                  for r in rings]
        for ring_pass in passes:
            ring_pass.start()
        yield finished
        for ring_pass in passes:
            self.flow_ids.extend(ring_pass.flow_ids)

    def _slice_for(self, ring: RingSpec) -> int:
        """Slice size of a pass: NVLink-only rings (contention-free) need no finer pipelining
        than NCCL's 8 steps per chunk."""
        if all(server_of(a) == server_of(b) for a, b in ring.hops):
            return max(self.slice_bytes, math.ceil(ring.chunk_bytes / NVLINK_SLICES))
        return self.slice_bytes

    def _run_direct(self):
        """All-to-all: every rank sends S/N to every other rank at once (N(N-1) flows)."""
        engine = self.ctx.engine
        finished = engine.env.event()
        share = math.ceil(self.size_bytes / len(self.ranks))
        pending = [len(self.ranks) * (len(self.ranks) - 1)]

        def one_done(record: Any) -> None:
            self.account(record.size_bytes)
            pending[0] -= 1
            if not pending[0]:
                finished.succeed()

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
                "time_s": time_s, "algbw_gbps": algbw, "busbw_gbps": busbw}
