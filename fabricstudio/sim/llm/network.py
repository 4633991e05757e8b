"""How an LLM iteration talks: over the simulated fabric, or over an ideal one.

:class:`FabricNetwork` issues every transfer on the run's engine (cell or flow): pipeline
sends are flows, data- and context-parallel collectives run as pipelined rings or trees
(:mod:`fabricstudio.sim.workloads.pipeline`), expert all-to-alls as one flow per (source server,
destination GPU) through the destination's rail (NCCL's PXN: the sender first hands its data
over NVLink to the GPU on that rail).  :class:`IdealNetwork` is the same job on an ideal
fabric (infinite bandwidth, zero latency): only NVLink inside servers takes time.  The
difference of the two iteration times is the network tax.
"""

from __future__ import annotations

import math
from typing import Any

import simpy

from fabricstudio.sim.engine.clock import after_all
from fabricstudio.sim.engine.core import NVLINK_LATENCY_S
from fabricstudio.sim.workloads.addresses import group_by_server, rail_of, server_of
from fabricstudio.sim.workloads.collectives import plan as collective_plan
from fabricstudio.sim.workloads.collectives import run_phase

#: Slice of the data-parallel and context-parallel rings (NCCL Simple protocol slot).
SLICE_BYTES = 512 * 1024


class _Base:
    def __init__(self, env: simpy.Environment, design: Any, nvlink_bps: float, tag: str,
                 algorithm: str, nvls: bool) -> None:
        self.env = env
        self.design = design
        self.nvlink_bps = nvlink_bps
        self.tag = tag
        self.algorithm = algorithm
        self.nvls = nvls
        #: (collective, ranks, algorithm, reason) of the first data-parallel collective.
        self.chosen: dict[str, tuple[str, str]] = {}

    def nvlink_time(self, nbytes: float) -> float:
        return NVLINK_LATENCY_S + nbytes / self.nvlink_bps if nbytes > 0 else 0.0

    def _done_after(self, delay: float) -> simpy.Event:
        return self.env.timeout(max(0.0, delay))

    def _intra_all_to_all(self, members: list[str], per_pair: float) -> float:
        """NVLink time of the part of an all-to-all that stays inside servers."""
        most = max(len(g) for g in group_by_server(members))
        return self.nvlink_time((most - 1) * per_pair) if most > 1 else 0.0


class FabricNetwork(_Base):
    """Transfers on the engine of the run (see the module docstring)."""

    def __init__(self, engine: Any, nvlink_bps: float, tag: str, algorithm: str,
                 nvls: bool) -> None:
        super().__init__(engine.env, engine.design, nvlink_bps, tag, algorithm, nvls)
        self.engine = engine

    def p2p(self, pairs: list[tuple[str, str]], nbytes: float) -> simpy.Event:
        """Each pair sends ``nbytes``; the event fires when all have arrived."""
        done = self.env.event()
        one = after_all(len(pairs), done.succeed)
        size = max(1, int(math.ceil(nbytes)))
        for src, dst in pairs:
            self.engine.add_flow(src, dst, size, on_done=one, tag=self.tag)
        return done

    def collective(self, name: str, ranks: list[str], size: float) -> simpy.Event:
        """A ring or tree collective (NCCL bookkeeping: ``size`` = the whole buffer)."""
        size = max(len(ranks), int(math.ceil(size)))
        algorithm, _channels, phases, reason = collective_plan(
            self.design, name, ranks, size, None, self.algorithm, self.nvls)
        self.chosen.setdefault(name, (algorithm, reason))
        return self.env.process(self._phases(phases))

    def _phases(self, phases: list[list[Any]]) -> Any:
        for runs in phases:
            yield from run_phase(self.engine, runs, SLICE_BYTES, self.tag)

    def all_to_all(self, members: list[str], per_gpu: float) -> simpy.Event:
        """Every member sends ``per_gpu`` bytes spread evenly over the others."""
        if len(members) < 2 or per_gpu <= 0:
            return self._done_after(0.0)
        per_pair = per_gpu / (len(members) - 1)
        by_server = group_by_server(members)
        flows = []
        for dst in members:
            rail = rail_of(self.design, dst)
            for group in by_server:
                if server_of(group[0]) == server_of(dst):
                    continue
                via = next((g for g in group if rail_of(self.design, g) == rail), group[0])
                flows.append((via, dst, len(group) * per_pair))
        done = self.env.event()
        one = after_all(len(flows) + 1, done.succeed)
        for via, dst, nbytes in flows:
            self.engine.add_flow(via, dst, max(1, int(math.ceil(nbytes))), on_done=one,
                                 tag=self.tag)
        self._done_after(self._intra_all_to_all(members, per_pair)).callbacks.append(one)
        return done


class IdealNetwork(_Base):
    """The same transfers on an ideal fabric: instantaneous between servers, NVLink inside."""

    def p2p(self, pairs: list[tuple[str, str]], nbytes: float) -> simpy.Event:
        inside = any(server_of(a) == server_of(b) for a, b in pairs)
        return self._done_after(self.nvlink_time(nbytes) if inside else 0.0)

    def collective(self, name: str, ranks: list[str], size: float) -> simpy.Event:
        if len(group_by_server(ranks)) > 1:
            return self._done_after(0.0)
        n = len(ranks)
        factor = 2 * (n - 1) / n if name == "all_reduce" else (n - 1) / n
        return self._done_after(self.nvlink_time(factor * size))

    def all_to_all(self, members: list[str], per_gpu: float) -> simpy.Event:
        if len(members) < 2:
            return self._done_after(0.0)
        return self._done_after(self._intra_all_to_all(members, per_gpu / (len(members) - 1)))
