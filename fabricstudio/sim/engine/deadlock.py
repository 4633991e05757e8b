"""Deadlock detection: a cycle of ports that hold each other's buffers and never move.

A PFC (or credit) deadlock is a cyclic buffer dependency that froze (Guo et al., "RDMA over
Commodity Ethernet at Scale", SIGCOMM 2016; Hu et al., "Deadlocks in Datacenter Networks: Why
Do They Form, and How to Avoid Them", HotNets 2016): port p_i is paused (or out of credits)
because the ingress buffer it feeds is full of cells that wait for port p_(i+1), which is
paused for the same reason, ..., back to p_1.  Nothing in the cycle can move again unless a
PFC watchdog breaks it.

Every quarter of the detection stretch the watch looks at the ports that are *blocked* - paused
or waiting for credits with cells queued - and at how long each has held cells without sending
one.  When ports that have not moved for the whole stretch form a dependency cycle (an edge
p -> q when q's queue holds a cell that arrived over p), the engine records the deadlock (with
the time the cycle last moved) and stops.  The check costs one pass over the ports per quarter
stretch, nothing on the cell path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simpy.core import StopSimulation

from fabricstudio.sim.engine.clock import Call

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.engine.core import Engine
from fabricstudio.sim.engine.ports import Port


class DeadlockWatch:
    """Periodic check for a frozen cycle of blocked ports (see the module docstring)."""

    def __init__(self, engine: Engine, stretch_s: float) -> None:
        self.engine = engine
        self.clock = engine.clock
        self.stretch = stretch_s
        self.period = stretch_s / 4.0
        self.ports = [p for p in engine.ports if not p.pulls]  # hosts never forward
        self.clock.call(self.period, self._check)

    @staticmethod
    def stuck_since(port: Port) -> float:
        """Since when ``port`` has held cells without sending any: the later of the end of
        its last transmission and the arrival of the cell now at its head.  (A port with
        cells queued only waits while it is paused or short of credits.)"""
        head = port.queue[0].ready
        return head if head > port.free_at else port.free_at

    def _check(self, _event: Call) -> None:
        now = self.clock.env.t
        frozen = [port for port in self.ports
                  if port.queue and (port.paused or port.stalled_since >= 0)
                  and now - self.stuck_since(port) >= self.stretch - 1e-15]
        if frozen:
            cycle = find_cycle(frozen)
            if cycle:
                onset = max(self.stuck_since(port) for port in cycle)
                self.engine.declare_deadlock(cycle, onset)
                raise StopSimulation(None)
        self.clock.call(self.period, self._check)


def find_cycle(ports: list[Port]) -> list[Port] | None:
    """A cycle among ``ports`` in the buffer-dependency graph (p -> q when q is an egress of
    the node p feeds and q's queue holds a cell that arrived over p), in dependency order, or
    None.  Deterministic: ports are visited in index order."""
    members = {p.index: p for p in ports}
    edges: dict[int, list[int]] = {i: [] for i in members}
    for q in sorted(ports, key=lambda p: p.index):
        feeders = {cell.via.index for cell in q.queue
                   if cell.via is not None and cell.via.index in members}
        for i in sorted(feeders):
            if members[i].dst == q.src:
                edges[i].append(q.index)
    state: dict[int, int] = {}  # 1 on the DFS stack, 2 done
    for root in sorted(members):
        if state.get(root):
            continue
        stack = [(root, iter(edges[root]))]
        path = [root]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            nxt = next(children, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            mark = state.get(nxt)
            if mark == 1:
                return [members[i] for i in path[path.index(nxt):]]
            if mark is None:
                state[nxt] = 1
                stack.append((nxt, iter(edges[nxt])))
                path.append(nxt)
    return None
