"""Point-to-point workloads: explicit flows, N:1 incast, random permutation, storage bursts."""

from __future__ import annotations

import math
from typing import Any

from fabricstudio.sim.workloads.addresses import server_of
from fabricstudio.sim.workloads.base import Activity, Workload, WorkloadContext


class FlowSet(Workload):
    """A fixed set of flows ``(src, dst, bytes, start_s, tag)`` registered at the start; each
    is its own connection (queue pair), so parallel flows between two hosts hash apart."""

    kind = "flows"

    def __init__(self, ctx: WorkloadContext, index: int, kind: str,
                 flows: list[tuple[str, str, int, float, str]]) -> None:
        super().__init__(ctx, index)
        self.kind = kind
        self.flows = flows
        self.planned_bytes = sum(f[2] for f in flows)
        self.network_bytes = sum(f[2] for f in flows if server_of(f[0]) != server_of(f[1]))
        self.planned_flows = len(flows)
        fabric = sum(1 for f in flows if server_of(f[0]) != server_of(f[1]))
        self.planned_fabric_flows = fabric
        self.planned_rate_updates = 2 * fabric
        self.planned_concurrent = fabric
        self.at_s = min(f[3] for f in flows) if flows else 0.0
        self._pending = len(flows)
        #: Flow id -> when it was delivered.
        self._finished: dict[int, float] = {}

    @property
    def hops(self) -> list[tuple[str, str]]:
        """(src, dst) pairs, for path checks."""
        return sorted({(f[0], f[1]) for f in self.flows})

    def start(self) -> None:
        """Register every flow with its own start time (the engine starts it then)."""
        engine = self.ctx.engine
        for qp, (src, dst, size, start_s, tag) in enumerate(self.flows):
            self.flow_ids.append(engine.add_flow(src, dst, size, start_s=start_s, qp=qp,
                                                 on_done=self._one_done, tag=tag or self.tag))
        self.start_s = self.at_s

    def activity(self) -> list[Activity]:
        """Each started flow is communication of its two ends until it is delivered (from the
        workload's own bookkeeping: the engine forgets finished flow records)."""
        now = self.ctx.engine.now
        out = []
        for fid, (src, dst, _size, start_s, _tag) in zip(self.flow_ids, self.flows, strict=False):
            if start_s <= now:
                out.append(Activity((src, dst), "comm", start_s, self._finished.get(fid)))
        return out

    def _one_done(self, record: Any) -> None:
        self.done_bytes += record.size_bytes
        self._finished[record.id] = (record.finish_s if record.finish_s is not None
                                     else self.ctx.engine.now)
        self._pending -= 1
        if not self._pending:
            self.finish_s = self.ctx.engine.now

    def report(self) -> dict[str, Any]:
        out = super().report()
        out["bytes"] = self.planned_bytes
        return out


def explicit_flows(ctx: WorkloadContext, index: int, specs: list[Any]) -> FlowSet:
    """The scenario's explicit ``flows`` list."""
    return FlowSet(ctx, index, "flows",
                   [(f.src, f.dst, f.bytes, f.start_s, f.tag) for f in specs])


def incast(ctx: WorkloadContext, index: int, spec: Any) -> FlowSet:
    """N:1 incast: every sender sends ``bytes`` to the receiver at once."""
    return FlowSet(ctx, index, "incast",
                   [(s, spec.receiver, spec.bytes, spec.start_s, "") for s in spec.senders])


def permutation(ctx: WorkloadContext, index: int, hosts: list[str], spec: Any) -> FlowSet:
    """Each host sends to one other host and receives from one (a seeded random derangement
    that avoids same-server pairs when the hosts allow it, so the traffic crosses the fabric)."""
    order = list(hosts)
    best = None
    for _ in range(1000):
        ctx.rng.shuffle(order)
        pairs = list(zip(hosts, order, strict=True))
        if any(a == b for a, b in pairs):
            continue
        best = pairs
        if all(server_of(a) != server_of(b) for a, b in pairs):
            break
    if best is None:  # two hosts: the swap is the only derangement
        best = list(zip(hosts, hosts[1:] + hosts[:1], strict=True))
    return FlowSet(ctx, index, "permutation",
                   [(a, b, spec.bytes, spec.start_s, "") for a, b in best])


def storage_burst(ctx: WorkloadContext, index: int, clients: list[str], servers: list[str],
                  spec: Any) -> FlowSet:
    """Every client reads (or writes) ``bytes``, spread evenly over the storage servers."""
    share = math.ceil(spec.bytes / len(servers))
    flows = []
    for client in clients:
        for server in servers:
            src, dst = (server, client) if spec.type == "storage_read" else (client, server)
            flows.append((src, dst, share, spec.start_s, ""))
    return FlowSet(ctx, index, spec.type, flows)
