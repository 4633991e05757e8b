"""Pipelined ring passes as aggregated transfers, on the cell or the flow engine.

A ring pass has N positions; position p sends to p+1 over ``hops[p]``.  Each of ``steps``
dependent steps moves one chunk per position, cut into units (NCCL's slices); unit j of step
k may leave p once unit j of step k-1 has arrived from p-1.  In bytes: position p's stream may
send byte x once p-1's stream has delivered byte x - chunk.

Every hop that crosses the fabric is **one** transfer of ``steps x chunk`` bytes (not one flow
per slice and step): on the cell engine a *stream* whose units are released as its upstream
hop delivers (``Engine.add_flow(..., stream=...)``), sliced into cells inside the engine; on
the flow engine one member of a flow group that advances at the ring's common rate.  Hops
between GPUs of one server (NVLink: fixed bandwidth, contention-free) are not transfers: a run
of m NVLink hops between two fabric hops becomes a lag of m + 1 chunks and a delay of m unit
transfers, so a fabric hop may run up to m + 1 chunks ahead of the one feeding its server.

Flow-level rate of a ring: going once around it, the lags add up to N chunks and the delays to
D = sum over fabric hops of (m x NVLink unit time + unit / link goodput + path latency), so no
hop can sustain more than N x chunk / D bytes per second (a latency-bound ring: e.g. 256 MiB
over 4,096 GPUs moves 8 KiB per step); the group runs at the smaller of that and its max-min
share, and ends one path latency after its last byte.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fabricstudio.model.units import transfer_time_s
from fabricstudio.sim.engine.core import NVLINK_LATENCY_S
from fabricstudio.sim.workloads.addresses import server_of

if TYPE_CHECKING:
    from fabricstudio.sim.duration import HopTimes

#: Units per chunk on rings that stay inside one server (NCCL_STEPS).
NVLINK_UNITS = 8
#: Units a fabric hop keeps in flight (sent, not yet arrived).  NCCL allows up to 8 steps
#: of a channel in flight; two keep a link busy while the previous unit's tail is on the wire.
WINDOW_UNITS = 2


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` bytes cut into ``parts`` integers that differ by at most one and sum to it."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


@dataclass(frozen=True)
class RingSpec:
    """One ring pass to run: its hops, number of steps and bytes per step per position."""

    hops: tuple[tuple[str, str], ...]
    steps: int
    chunk_bytes: int
    qp: int = 0  #: queue pair of the ring's connections (NCCL: one per channel)

    @property
    def fabric_hops(self) -> list[int]:
        """Positions whose hop crosses the fabric (the others are NVLink)."""
        return [p for p, (a, b) in enumerate(self.hops) if server_of(a) != server_of(b)]


def ring_units(ring: RingSpec, slice_bytes: int) -> tuple[int, int]:
    """(unit bytes, units per chunk): the chunk cut into slices of at most ``slice_bytes``
    (at most :data:`NVLINK_UNITS` on an NVLink-only ring), the last padded to an equal size."""
    per = max(1, math.ceil(ring.chunk_bytes / max(1, slice_bytes)))
    if not ring.fabric_hops:
        per = min(per, NVLINK_UNITS)
    per = min(per, max(1, ring.chunk_bytes))
    return math.ceil(ring.chunk_bytes / per), per


def nvlink_time(design: Any, hop: tuple[str, str], nbytes: float) -> float:
    """Seconds to move ``nbytes`` over one NVLink hop (latency + bytes at the GPU's rate)."""
    device = design.devices[server_of(hop[0])]
    gbps: float = device.nvlink_gbps
    return NVLINK_LATENCY_S + transfer_time_s(nbytes, gbps)


def ring_latency_s(ring: RingSpec, slice_bytes: int, design: Any, hops: HopTimes) -> float:
    """Time a ring pass's steps spend waiting on latency, as :class:`RingRun` paces them: a
    step takes at least the mean unit delay around the ring (cycle / N) and the slowest
    fabric hop's time for its units with :data:`WINDOW_UNITS` in flight."""
    unit, per_chunk = ring_units(ring, slice_bytes)
    net = set(ring.fabric_hops)
    fabric = [hop for p, hop in enumerate(ring.hops) if p in net]
    nvlink = sum(nvlink_time(design, hop, unit) for p, hop in enumerate(ring.hops)
                 if p not in net)
    step = (len(fabric) * hops.mean(fabric, unit) + nvlink) / len(ring.hops)
    if fabric:  # a pipeline runs at its slowest stage's pace
        step = max(step, per_chunk * hops.slowest(fabric, unit) / WINDOW_UNITS)
    return ring.steps * step


def tree_latency_s(tree: TreeSpec, slice_bytes: int, design: Any, hops: HopTimes) -> float:
    """Time a pipelined tree takes to fill and drain: a unit up ``height`` edges and back
    down, plus the NVLink part inside the servers at both ends."""
    per = max(1, math.ceil(tree.size_bytes / max(1, slice_bytes)))
    unit = math.ceil(tree.size_bytes / per)
    edges = [(tree.nodes[v], tree.nodes[p]) for v, p in enumerate(tree.parents) if p >= 0]
    hop = (tree.nodes[0], tree.nodes[0])
    intra = tree.intra_hops * nvlink_time(design, hop, unit) if tree.intra_hops else 0.0
    return 2 * tree.height * hops.mean(edges, unit) + 2 * intra


class RingRun:
    """One ring pass on an engine.  ``start()`` issues it; ``on_finish(t)`` is called once
    when every position has received its last unit; ``on_bytes(n)`` (optional) reports fabric
    bytes as they arrive (progress).  ``flow_ids`` lists the engine flows it made."""

    def __init__(self, engine: Any, ring: RingSpec, slice_bytes: int, tag: str,
                 on_finish: Callable[[float], None],
                 on_bytes: Callable[[int], None] | None = None) -> None:
        if len(ring.hops) < 2 or ring.steps < 1:
            raise ValueError("a ring pass needs at least two positions and one step")
        self.engine = engine
        self.ring = ring
        self.tag = tag
        self.on_finish = on_finish
        self.on_bytes = on_bytes
        self.unit, self.per_chunk = ring_units(ring, slice_bytes)
        self.chunk = self.unit * self.per_chunk
        self.total_units = ring.steps * self.per_chunk
        self.stream_bytes = self.total_units * self.unit
        self.flow_ids: list[int] = []
        n = len(ring.hops)
        net = ring.fabric_hops
        design = engine.design
        self._nv_unit = [nvlink_time(design, hop, self.unit) if p not in net else 0.0
                         for p, hop in enumerate(ring.hops)]
        #: Per fabric hop: NVLink hops before it (since the previous fabric hop) and after it.
        self._net = net
        self._before = [(p - net[i - 1] - 1) % n if len(net) > 1 else n - 1
                        for i, p in enumerate(net)]
        self._chain_before = [sum(self._nv_unit[(p - k) % n] for k in range(1, m + 1))
                              for p, m in zip(net, self._before, strict=True)]
        self._chain_after = [sum(self._nv_unit[(p + k) % n]
                                 for k in range(1, self._before[(i + 1) % len(net)] + 1))
                             for i, p in enumerate(net)]

    # ------------------------------------------------------------------ bytes
    @property
    def fabric_bytes(self) -> int:
        """Bytes the pass moves over the fabric."""
        return len(self._net) * self.stream_bytes

    @property
    def nvlink_bytes(self) -> int:
        """Bytes the pass moves over NVLink."""
        return (len(self.ring.hops) - len(self._net)) * self.stream_bytes

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        """Issue the pass on its engine."""
        if not self._net:
            self._start_nvlink_only()
        elif getattr(self.engine, "kind", "cell") == "flow":
            self._start_group()
        else:
            self._start_streams()

    def _done(self) -> None:
        self.engine.nvlink_bytes += self.nvlink_bytes
        self.on_finish(self.engine.now)

    def _start_nvlink_only(self) -> None:
        """Contention-free NVLink ring: each step takes the longer of the chunk time and one
        unit's dependency delay (its transfer + latency)."""
        step_time = max(max(nvlink_time(self.engine.design, hop, self.chunk) - NVLINK_LATENCY_S
                            for hop in self.ring.hops), max(self._nv_unit))
        last = max(nvlink_time(self.engine.design, hop, self.chunk) for hop in self.ring.hops)
        duration = (self.ring.steps - 1) * step_time + last
        self.engine.clock.call(duration, lambda _e: self._done())

    def _start_streams(self) -> None:
        """Cell engine: one stream per fabric hop, released by the fabric hop feeding it."""
        engine = self.engine
        net = self._net
        lags = [(m + 1) * self.per_chunk for m in self._before]
        pending = [len(net)]
        finish = [0.0]
        ids: list[int] = [0] * len(net)
        allowed = [min(lag, self.total_units) for lag in lags]  # by the upstream hop
        arrived = [0] * len(net)
        window = WINDOW_UNITS

        def make_on_units(i: int) -> Callable[[int], None]:
            down = (i + 1) % len(net)
            lag, delay = lags[down], self._chain_before[down]

            def on_units(n: int) -> None:
                if self.on_bytes is not None:
                    self.on_bytes((n - arrived[i]) * self.unit)
                arrived[i] = n
                engine.release(ids[i], min(allowed[i], n + window))
                allowed[down] = n + lag
                engine.release(ids[down], min(allowed[down], arrived[down] + window),
                               engine.now + delay)
            return on_units

        def make_on_done(i: int) -> Callable[[Any], None]:
            def on_done(_rec: Any) -> None:
                pending[0] -= 1
                finish[0] = max(finish[0], engine.now + self._chain_after[i])
                if not pending[0]:
                    engine.clock.call(finish[0] - engine.now, lambda _e: self._done())
            return on_done

        for i, p in enumerate(net):
            src, dst = self.ring.hops[p]
            ids[i] = engine.add_flow(src, dst, self.stream_bytes, tag=self.tag, qp=self.ring.qp,
                                     on_done=make_on_done(i),
                                     stream=(self.unit, min(allowed[i], window),
                                             make_on_units(i)))
        self.flow_ids.extend(ids)

    def _start_group(self) -> None:
        """Flow engine: the fabric hops as one group at the ring's sustainable rate."""
        engine = self.engine
        members = []
        cycle = 0.0
        rate_cap = math.inf
        for i, p in enumerate(self._net):
            src, dst = self.ring.hops[p]
            links, weights, delay = engine.route(src, dst, self.ring.qp)
            goodput = float((engine.capacity[links] / weights).min())
            hop = self.unit / goodput + delay - engine.net.nic_latency
            cycle += self._chain_before[i] + hop
            rate_cap = min(rate_cap, WINDOW_UNITS * self.unit / hop)  # units in flight
            members.append((src, dst, self.ring.qp))
        if cycle > 0:
            rate_cap = min(rate_cap, len(self.ring.hops) * self.chunk / cycle)

        def on_done(_recs: list[Any]) -> None:
            if self.on_bytes is not None:
                self.on_bytes(self.fabric_bytes)
            self._done()

        self.flow_ids.extend(engine.add_group(members, self.stream_bytes, on_done, tag=self.tag,
                                              rate_cap=rate_cap,
                                              extra_tail_s=max(self._chain_after)))


# ---------------------------------------------------------------------------- trees
def binary_tree(n: int) -> list[int]:
    """Parent of every rank in a binary tree over ``0..n-1`` rooted at 0, built on the
    lowest set bit of the rank (NCCL's tree shape: odd ranks are leaves, the root has one
    child): rank r climbs to r with its lowest set bit moved one place up."""
    parents = [-1] * n
    for r in range(1, n):
        bit = r & -r
        up = (r ^ bit) | (bit << 1)
        parents[r] = up if up < n else r ^ bit
    return parents


def double_binary_tree(n: int) -> tuple[list[int], list[int]]:
    """Two complementary trees (NCCL's double binary tree): the second is the first mirrored
    (even n) or shifted by one (odd n), so a rank that is a leaf in one is interior in the
    other and every rank sends and receives about the same in both together."""
    first = binary_tree(n)
    if n % 2 == 0:
        second = [-1 if first[n - 1 - r] < 0 else n - 1 - first[n - 1 - r] for r in range(n)]
    else:
        second = [-1 if first[(r - 1) % n] < 0 else (first[(r - 1) % n] + 1) % n
                  for r in range(n)]
    return first, second


@dataclass(frozen=True)
class TreeSpec:
    """One pipelined tree all-reduce: ``nodes`` (one rank address per server) reduce
    ``size_bytes`` up to the root and broadcast it back down; ``intra_s`` is the NVLink part
    inside each server per unit, before the reduction leaves it and after the result comes
    back (a chain of GPUs, or one NVSwitch reduction with NVLS)."""

    nodes: tuple[str, ...]
    parents: tuple[int, ...]
    size_bytes: int
    qp: int = 0
    intra_hops: int = 0  #: NVLink hops per unit inside a server (each way)

    @property
    def height(self) -> int:
        """Edges on the longest leaf-to-root path."""
        best = 0
        for v in range(len(self.nodes)):
            depth, u = 0, v
            while self.parents[u] >= 0:
                u = self.parents[u]
                depth += 1
            best = max(best, depth)
        return best


class TreeRun:
    """One pipelined tree on an engine (see :class:`RingRun` for the callbacks).

    Every tree edge carries the whole ``size_bytes`` twice (up: partial sums toward the root;
    down: the result), each direction one aggregated transfer.  Unit j may go up from a node
    once unit j arrived from all its children, and down once it arrived from its parent (at
    the root: from all its children).  Flow level: one group at the max-min rate of its
    edges; the pipeline fills in ``2 x height`` unit transfers."""

    def __init__(self, engine: Any, tree: TreeSpec, slice_bytes: int, tag: str,
                 on_finish: Callable[[float], None],
                 on_bytes: Callable[[int], None] | None = None) -> None:
        self.engine = engine
        self.tree = tree
        self.tag = tag
        self.on_finish = on_finish
        self.on_bytes = on_bytes
        per = max(1, math.ceil(tree.size_bytes / max(1, slice_bytes)))
        self.unit = math.ceil(tree.size_bytes / per)
        self.total_units = per
        self.stream_bytes = per * self.unit
        self.flow_ids: list[int] = []
        self.children: list[list[int]] = [[] for _ in tree.nodes]
        for v, p in enumerate(tree.parents):
            if p >= 0:
                self.children[p].append(v)
        hop = (tree.nodes[0], tree.nodes[0])
        self._intra = (tree.intra_hops * nvlink_time(engine.design, hop, self.unit)
                       if tree.intra_hops else 0.0)

    @property
    def fabric_bytes(self) -> int:
        """Bytes the tree moves over the fabric (both directions of every edge)."""
        return 2 * (len(self.tree.nodes) - 1) * self.stream_bytes

    @property
    def nvlink_bytes(self) -> int:
        """Bytes moved over NVLink inside the servers (both ways)."""
        return 2 * len(self.tree.nodes) * self.tree.intra_hops * self.stream_bytes

    def _done(self) -> None:
        self.engine.nvlink_bytes += self.nvlink_bytes
        self.on_finish(self.engine.now)

    def start(self) -> None:
        """Issue the tree on its engine."""
        if len(self.tree.nodes) < 2:
            self.engine.clock.call(2 * self._intra, lambda _e: self._done())
        elif getattr(self.engine, "kind", "cell") == "flow":
            self._start_group()
        else:
            self._start_streams()

    def _edges(self) -> list[tuple[str, int, str, str]]:
        """(direction, node, src, dst) of every edge: "up" v -> parent, "down" parent -> v."""
        t = self.tree
        out = []
        for v, p in enumerate(t.parents):
            if p >= 0:
                out.append(("up", v, t.nodes[v], t.nodes[p]))
                out.append(("down", v, t.nodes[p], t.nodes[v]))
        return out

    def _start_streams(self) -> None:
        engine = self.engine
        t = self.tree
        total = self.total_units
        up_id: dict[int, int] = {}
        down_id: dict[int, int] = {}
        up_done = [0] * len(t.nodes)
        down_done = [0] * len(t.nodes)
        root = t.parents.index(-1)
        pending = [0]

        def reduced(v: int) -> int:  # units node v has from all its children
            kids = self.children[v]
            return min(up_done[c] for c in kids) if kids else total

        def on_up(v: int) -> Callable[[int], None]:
            def cb(n: int) -> None:
                if self.on_bytes is not None:
                    self.on_bytes((n - up_done[v]) * self.unit)
                up_done[v] = n
                p = t.parents[v]
                if p == root:
                    ready = reduced(root)
                    for c in self.children[root]:
                        engine.release(down_id[c], ready, engine.now)
                else:
                    engine.release(up_id[p], reduced(p), engine.now)
            return cb

        def on_down(v: int) -> Callable[[int], None]:
            def cb(n: int) -> None:
                if self.on_bytes is not None:
                    self.on_bytes((n - down_done[v]) * self.unit)
                down_done[v] = n
                for c in self.children[v]:
                    engine.release(down_id[c], n, engine.now)
            return cb

        def one_done(_rec: Any) -> None:
            pending[0] -= 1
            if not pending[0]:
                engine.clock.call(self._intra, lambda _e: self._done())

        for direction, v, src, dst in self._edges():
            leaf = not self.children[v]
            released = total if direction == "up" and leaf else 0
            cb = on_up(v) if direction == "up" else on_down(v)
            fid = engine.add_flow(src, dst, self.stream_bytes, tag=self.tag, qp=t.qp,
                                  stream=(self.unit, released, cb),
                                  on_done=one_done if direction == "down" else None,
                                  start_s=engine.now + (self._intra if leaf else 0.0))
            (up_id if direction == "up" else down_id)[v] = fid
            pending[0] += direction == "down"
            self.flow_ids.append(fid)

    def _start_group(self) -> None:
        engine = self.engine
        members = []
        fill = 0.0
        for _direction, _v, src, dst in self._edges():
            links, weights, delay = engine.route(src, dst, self.tree.qp)
            goodput = float((engine.capacity[links] / weights).min())
            fill = max(fill, self.unit / goodput + delay - engine.net.nic_latency)
            members.append((src, dst, self.tree.qp))

        def on_done(_recs: list[Any]) -> None:
            if self.on_bytes is not None:
                self.on_bytes(self.fabric_bytes)
            self._done()

        tail = 2 * self._intra + (2 * self.tree.height - 1) * fill
        self.flow_ids.extend(engine.add_group(members, self.stream_bytes, on_done,
                                              tag=self.tag, extra_tail_s=tail))
