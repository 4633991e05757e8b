"""The flow-level engine: max-min fair rates on SimPy's clock, behind the cell engine's API.

Every transfer over the fabric is a flow with a piecewise-constant rate.  Rates are the
max-min fair allocation of the links' goodput capacity (:mod:`.maxmin`), recomputed whenever
flows start or end (all changes at one instant give one update); between updates bytes move
as a fluid.  Paths come from the cell engine's router, so both engines load the same links.
A flow starts after the NIC latency and ends one base path delay after its last byte left
the sender (propagation, switch and NIC latency), as a cell does in the cell engine; NVLink
transfers are the cell engine's fixed-bandwidth timer.

What it does not model (:data:`NOT_MODELLED`): queues and their delay, PFC pauses, ECN marks
and CNPs, drops and retransmissions, congestion-control dynamics and credit stalls.  Instead
it flags **hotspots**: links whose offered load (the rate each flow would get alone, summed)
exceeds their capacity, where a cell-level run would queue, pause or drop.

Engine API (the same as :class:`fabricstudio.sim.engine.Engine`): ``add_flow``, ``advance``,
``flows``, ``stream``, ``link_stats``, ``totals``, ``stats``, ``env``, ``now``; plus
``add_group`` (pipelined collectives whose hops advance at one rate) and ``hotspots``.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from fabricstudio.model import Design, Technology, freeze
from fabricstudio.model.devices import GpuServer
from fabricstudio.model.units import gigabits, transfer_time_s
from fabricstudio.sim.engine.addressing import on_one_server, resolve_address
from fabricstudio.sim.engine.clock import Call, Clock, after_all, environment
from fabricstudio.sim.engine.config import (
    TARGET_FRAMES,
    EngineConfig,
    EngineError,
    FlowRecord,
    nice_period,
)
from fabricstudio.sim.engine.core import NVLINK_LATENCY_S, Engine
from fabricstudio.sim.engine.flowlog import FlowLog
from fabricstudio.sim.flow.allocation import Allocation
from fabricstudio.sim.flow.network import FlowEndpoint, FlowNetwork
from fabricstudio.sim.flow.shared import doubles, grown, ints
from fabricstudio.sim.metrics import Frame, MetricStream

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.flow.failures import FlowFailureInjector

#: What the flow-level engine leaves out (stated in the Result, the CLI and the live view).
NOT_MODELLED = ("queues and queueing delay", "PFC pauses", "ECN marks and CNPs",
                "drops and retransmissions", "congestion-control dynamics (DCQCN, TCP, IB CC)",
                "InfiniBand credit stalls")
#: Flows listed per metric frame at most (the busiest runs have millions).
MAX_FRAME_FLOWS = 2000
#: A flow whose remaining bytes take less than this long counts as done (coalesces ends).
DONE_TOLERANCE_S = 1e-12
#: Link samples (frames x directed links) a run records at most by default.
MAX_LINK_SAMPLES = 2e7
#: Links listed by :meth:`FlowEngine.hotspots` by default.
HOTSPOTS_LISTED = 20


#: A route as the allocation reads it: links, weights, (link, weight) pairs, whole weights.
Taken = tuple[np.ndarray, np.ndarray, list[tuple[int, float]], bool]


class _Slots:
    """Per network flow: scalars in arrays that grow by doubling, and its links and weights
    as rows padded with -1 (the coordinate form of the links x flows matrix).  The scalars
    have an element face too (``rate_at`` ...: see :mod:`.shared`)."""

    FLOATS = ("size", "remaining", "rate", "cap", "alone")
    #: and their fill (neck -1: cap or group; rec_id: the flow's record id, -1 once finished)
    INTS = {"group": 0, "neck": -1, "rec_id": -1}

    def __init__(self) -> None:
        self.capacity = 64
        self.width = 8
        for name in self.FLOATS:
            self._set(name, *doubles(64))
        for name, fill in self.INTS.items():
            self._set(name, *ints(64, fill))
        self.live = np.zeros(64, dtype=bool)  #: active (in the allocation)
        self.links = np.full((64, 8), -1, dtype=np.int64)
        self.weights = np.zeros((64, 8))
        #: Per slot its row's links and weights as arrays, as (link, weight) pairs and
        #: whether every weight is whole, shared by the flows of a connection (None: read
        #: the row, e.g. after a failure rewrote it).
        self.taken: list[Taken | None] = []

    # the faces, named for type checkers (set by _set)
    size: np.ndarray
    remaining: np.ndarray
    rate: np.ndarray
    cap: np.ndarray
    alone: np.ndarray
    group: np.ndarray
    neck: np.ndarray
    rec_id: np.ndarray
    size_at: array[float]
    remaining_at: array[float]
    rate_at: array[float]
    cap_at: array[float]
    alone_at: array[float]
    group_at: array[int]
    neck_at: array[int]
    rec_id_at: array[int]

    def _set(self, name: str, element: array[Any], whole: np.ndarray) -> None:
        setattr(self, name + "_at", element)
        setattr(self, name, whole)

    def ensure(self, size: int, width: int) -> None:
        if width > self.width:
            self.links = np.hstack([self.links, np.full((self.capacity, width - self.width), -1,
                                                        dtype=np.int64)])
            self.weights = np.hstack([self.weights, np.zeros((self.capacity,
                                                              width - self.width))])
            self.width = width
        if size <= self.capacity:
            return
        grow = self.capacity
        while self.capacity < size:
            self.capacity *= 2
        grow = self.capacity - grow
        for name in self.FLOATS:
            self._set(name, *grown(getattr(self, name + "_at"), self.capacity, 0.0))
        for name, fill in self.INTS.items():
            self._set(name, *grown(getattr(self, name + "_at"), self.capacity, fill))
        self.live = np.concatenate([self.live, np.zeros(grow, dtype=bool)])
        self.links = np.vstack([self.links, np.full((grow, self.width), -1, dtype=np.int64)])
        self.weights = np.vstack([self.weights, np.zeros((grow, self.width))])


class FlowEngine:
    """Flow-level simulation of one design.  Time unit: seconds."""

    kind = "flow"
    not_modelled = NOT_MODELLED

    def __init__(self, design: Design, config: EngineConfig | None = None,
                 exact: bool = False) -> None:
        self.config = config or EngineConfig()
        fabric = Engine._effective_fabric(self.config, design.fabric)
        self.design = freeze(design).with_fabric(fabric)  # the snapshot shows what runs
        self.fabric = fabric
        self.technology: Technology = fabric.technology
        self.cell_bytes = None
        self.env = environment()
        self.clock = Clock(self.env)
        mode = self.config.routing
        if mode == "default":
            mode = "static" if self.technology is Technology.INFINIBAND else "ecmp"
        self.net = FlowNetwork(self.design, fabric, mode, self.config.seed)
        self.links = self.net.directed
        self.capacity = self.net.capacity
        self.stream = MetricStream(tuple(self.net.directed), self._sample_period(), fabric,
                                   fields=("utilisation",), engine="flow")
        self.flows = FlowLog()
        self.config_warnings: list[str] = []
        self.nvlink_bytes = 0
        self._wall = 0.0
        self._addresses: dict[str, tuple[str, int, int | None]] = {}
        self._routes: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray, float]] = {}
        self._alone: dict[tuple[int, int, int], float] = {}
        #: Per connection what the allocation reads of a flow (see ``_Slots.taken``).
        self._taken: dict[tuple[int, int, int], Taken] = {}
        n_links = len(self.net.links)
        self._slots = _Slots()
        self._n_slots = 0
        self._slot_rec: list[FlowRecord | None] = []
        self._slot_done: list[Callable[[FlowRecord], None] | None] = []
        self._slot_tail: list[float] = []
        #: Max-min rates kept up to date incrementally (``exact``: full re-solve each time).
        self.alloc = Allocation(self._slots, self.capacity, exact=exact)
        self._added: list[int] = []
        self._removed: list[int] = []
        self._watched: set[int] | None = None
        #: Flows recorded for a focused run: slot -> (record, links, group).
        self.watched: dict[int, tuple[FlowRecord, np.ndarray, int]] = {}
        self._active = np.zeros(0, dtype=np.int64)
        self._n_groups = 0
        self._last = 0.0
        self._tx_done = 0.0
        self._update_pending = False
        self._version = 0
        self.rate_updates = 0
        self._frame_flows: dict[int, int] = {}  # finished since the last frame: id -> bytes
        self._frames_truncated = False
        self._tick_last = 0.0
        self._tick_bytes = np.zeros(n_links)
        del n_links
        #: The failure injector of the run (sim.flow.failures), told of every new flow slot.
        self.failures: FlowFailureInjector | None = None
        #: No frame is recorded after this time (the frame budget of an open-horizon run).
        self.frames_until_s = math.inf
        self.clock.call(self.stream.sample_period_s, self._tick)

    def _sample_period(self) -> float:
        """The config's period; by default at most ~20 million link samples per run (1,000
        frames up to 20,000 directed links, at least 100 frames)."""
        cfg = self.config
        if cfg.sample_period_s is not None or cfg.horizon_s is None:
            return cfg.resolved_sample_period()
        frames = max(100, min(TARGET_FRAMES, int(MAX_LINK_SAMPLES / max(1, len(self.net.links)))))
        return nice_period(cfg.horizon_s / frames)

    # ------------------------------------------------------------------ properties
    @property
    def now(self) -> float:
        """Current simulated time (seconds)."""
        return self.env.now

    @property
    def routing(self) -> str:
        """Routing mode in effect: "ecmp", "static" or "adaptive"."""
        return self.net.router.mode

    # ------------------------------------------------------------------ addressing
    def resolve(self, address: str) -> tuple[str, int, int | None]:
        """``server``, ``server/gpuN`` or ``server/nicN`` -> (device id, NIC port, GPU or None)."""
        known = self._addresses.get(address)
        if known is None:
            known = self._addresses[address] = resolve_address(self.design, address)
        return known

    def endpoint(self, address: str) -> FlowEndpoint:
        """The NIC endpoint an address sends and receives through (EngineError if none)."""
        device, nic, _ = self.resolve(address)
        if nic < 0:
            raise EngineError(f"{address!r}: {device} has no NIC")
        ep = self.net.endpoint_of.get((device, nic))
        if ep is None:
            raise EngineError(f"{address!r}: NIC {nic} of {device} is not connected")
        return ep

    def route(self, src: str, dst: str, qp: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
        """(link indices, weights, one-way base delay) between two addresses on queue pair
        ``qp`` (cached per connection)."""
        return self._route(self.endpoint(src), self.endpoint(dst), qp)

    def _route(self, sep: FlowEndpoint, dep: FlowEndpoint,
               qp: int) -> tuple[np.ndarray, np.ndarray, float]:
        key = (sep.index, dep.index, qp)
        found = self._routes.get(key)
        if found is None:
            found = self._routes[key] = self.net.route(sep, dep, qp)
            links, weights, _ = found
            self._alone[key] = float(np.min(self.capacity[links] / weights))
            pairs = list(zip(links.tolist(), weights.tolist(), strict=True))
            self._taken[key] = (links, weights, pairs,
                                all(w.is_integer() for _link, w in pairs))
        return found

    # ------------------------------------------------------------------ flows
    def add_flow(self, src: str, dst: str, size_bytes: float, start_s: float | None = None,
                 on_done: Callable[[FlowRecord], None] | None = None, tag: str = "",
                 qp: int = 0) -> int:
        """Schedule a transfer of ``size_bytes`` from ``src`` to ``dst``; returns its id.

        Same-server GPU pairs use NVLink (fixed bandwidth, contention-free).  ``on_done`` is
        called with the record when the last byte arrives.  ``qp`` picks the connection's
        queue pair (its ECMP path), as in the cell engine.
        """
        rec = self.flows.request(src, dst, size_bytes, start_s, self.env.t, tag)
        source, target = self.resolve(src), self.resolve(dst)
        if on_one_server(src, dst, source, target):
            self._add_nvlink(rec, on_done)
            return rec.id
        (sdev, snic, _), (ddev, dnic, _) = source, target
        sep = self.net.endpoint_of.get((sdev, snic)) or self.endpoint(src)
        dep = self.net.endpoint_of.get((ddev, dnic)) or self.endpoint(dst)
        self._route(sep, dep, int(qp))
        self.flows.append(rec)
        slot = self._new_slot(rec, (sep.index, dep.index, int(qp)), on_done)
        self.clock.call(rec.start_s - self.env.t + self.net.nic_latency, self._activate,
                        (slot,))
        return rec.id

    def add_group(self, members: list[tuple[str, str, int]], size_bytes: float,
                  on_done: Callable[[list[FlowRecord]], None], tag: str = "",
                  rate_cap: float = np.inf, extra_tail_s: float = 0.0) -> list[int]:
        """Flows that advance at one common rate (the network hops of a pipelined collective):
        ``members`` are ``(src, dst, qp)``; each moves ``size_bytes``; their rate is at most
        ``rate_cap`` (bytes/s: the pipeline's own limit, e.g. a latency-bound ring) and the
        max-min share of the most constrained member.  ``on_done(records)`` is called once,
        ``extra_tail_s`` after the last member's last byte arrived.  Returns their ids."""
        if not members:
            raise EngineError("a flow group needs at least one member")
        group = self._n_groups
        self._n_groups += 1
        recs: list[FlowRecord] = []
        slots = []

        def all_done() -> None:
            if extra_tail_s > 0:
                self.clock.call(extra_tail_s, lambda _e: on_done(recs))
            else:
                on_done(recs)

        one_done = after_all(len(members), all_done)

        for src, dst, qp in members:
            rec = self.flows.request(src, dst, size_bytes, None, self.env.t, tag)
            if self.resolve(src)[0] == self.resolve(dst)[0]:
                raise EngineError(f"group member {src} -> {dst} does not cross the fabric")
            sep, dep = self.endpoint(src), self.endpoint(dst)
            self._route(sep, dep, int(qp))
            self.flows.append(rec)
            recs.append(rec)
            slots.append(self._new_slot(rec, (sep.index, dep.index, int(qp)), one_done,
                                        cap=rate_cap, group=group))
        self.clock.call(self.net.nic_latency, self._activate, tuple(slots))
        return [rec.id for rec in recs]

    def _new_slot(self, rec: FlowRecord, key: tuple[int, int, int],
                  on_done: Callable[[FlowRecord], None] | None, cap: float = np.inf,
                  group: int = -1) -> int:
        """A slot for a flow on the (cached) route of connection ``key``."""
        route = self._routes[key]
        alone = self._alone[key]
        links, weights, delay = route
        slot = self._n_slots
        self._n_slots += 1
        s = self._slots
        n = len(links)
        s.ensure(self._n_slots, n)
        s.size[slot] = rec.size_bytes
        s.remaining[slot] = rec.size_bytes
        s.cap[slot] = cap
        s.group[slot] = group
        s.alone[slot] = min(cap, alone)
        s.rec_id_at[slot] = rec.id
        s.links[slot, :n] = links
        s.weights[slot, :n] = weights
        s.taken.append(self._taken[key])
        self._slot_rec.append(rec)
        self._slot_done.append(on_done)
        self._slot_tail.append(max(0.0, delay - self.net.nic_latency))
        if self.failures is not None:
            self.failures.track_slot(slot, route)
        if self._watched is not None and not self._watched.isdisjoint(links.tolist()):
            self.alloc.history[slot] = []
            self.watched[slot] = (rec, links, group)
        return slot

    def watch(self, links: set[int]) -> None:
        """Record the rate history of every flow that loads one of these directed links from
        now on (``watched``: slot -> (record, links, group); ``alloc.history``: slot ->
        [(time, rate)]).  A focused run replays them at cell level."""
        self._watched = set(links)

    def _activate(self, event: Call) -> None:
        self._added.extend(event.arg)
        self._request_update()

    def _add_nvlink(self, rec: FlowRecord, on_done: Callable[[FlowRecord], None] | None) -> None:
        device = self.design.devices[rec.src.partition("/")[0]]
        assert isinstance(device, GpuServer)  # GPU-to-GPU on one server
        duration = NVLINK_LATENCY_S + transfer_time_s(rec.size_bytes, device.nvlink_gbps)
        self.flows.append(rec)

        def done(_event: Call) -> None:
            rec.delivered_bytes = rec.size_bytes
            rec.finish_s = self.env.t
            self.nvlink_bytes += rec.size_bytes
            self._frame_flows[rec.id] = rec.size_bytes
            self.flows.finished(rec)
            if on_done is not None:
                on_done(rec)

        self.clock.call(rec.start_s - self.env.t + duration, done)

    # ------------------------------------------------------------------ fluid and rates
    def _advance_fluid(self, t: float) -> None:
        dt = t - self._last
        if dt <= 0:
            return
        act = self._active
        if len(act):
            s = self._slots
            s.remaining[act] -= s.rate[act] * dt
        self._last = t

    def _request_update(self) -> None:
        if not self._update_pending:
            self._update_pending = True
            self.clock.call_late(0.0, self._update)

    def _update(self, _event: Call) -> None:
        self._update_pending = False
        now = self.env.t
        self._advance_fluid(now)
        added, removed = self._added, self._removed
        self._added, self._removed = [], []
        if self.failures is not None and added:
            self.failures.admit(added)
        self.alloc.change(added, removed, now)
        act = self._active
        live = self._slots.live
        if removed:
            live[removed] = False
            act = act[live[act]]
        if added:
            live[added] = True
            act = np.concatenate([act, np.asarray(added, dtype=np.int64)])
        self._active = act
        self._version += 1
        self.rate_updates += 1
        if not len(act):
            return
        s = self._slots
        rates = s.rate[act]
        left = np.divide(s.remaining[act], rates, out=np.full(len(act), np.inf),
                         where=rates > 0)
        soonest = float(left.min())
        if np.isfinite(soonest):
            self.clock.call(max(0.0, soonest), self._on_complete, self._version)

    def _on_complete(self, event: Call) -> None:
        if event.arg != self._version:
            return  # rates changed since this completion was predicted
        now = self.env.t
        self._advance_fluid(now)
        s = self._slots
        act = self._active
        rem = s.remaining[act]
        done = (rem <= 0.5) | (rem <= s.rate[act] * DONE_TOLERANCE_S)
        if not done.any():
            with np.errstate(divide="ignore", invalid="ignore"):
                done = np.zeros(len(act), dtype=bool)
                done[int(np.argmin(np.where(s.rate[act] > 0, rem / s.rate[act], np.inf)))] = True
        remaining, size, tail = s.remaining_at, s.size_at, self._slot_tail
        for slot in act[done].tolist():
            self._removed.append(slot)
            remaining[slot] = 0.0
            self._tx_done += size[slot]
            self.clock.call(tail[slot], self._finish, slot)
        self._request_update()

    def _finish(self, event: Call) -> None:
        slot = event.arg
        rec = self._slot_rec[slot]
        rec.delivered_bytes = rec.size_bytes
        rec.finish_s = self.env.t
        self._frame_flows[rec.id] = rec.size_bytes
        self.flows.finished(rec)
        on_done = self._slot_done[slot]
        self._slot_rec[slot] = None  # the log keeps what it needs
        self._slots.rec_id_at[slot] = -1
        self._slot_done[slot] = None
        if on_done is not None:
            on_done(rec)

    # ------------------------------------------------------------------ running
    def advance(self, until_s: float) -> None:
        """Run up to ``until_s`` seconds (resumable, call with increasing times)."""
        until = float(until_s)
        if until <= self.env.now:
            return
        started = time.perf_counter()
        try:
            env = self.env
            env.run(until=until)
            while env.peek() <= until:
                env.step()
            self._advance_fluid(self.env.now)
            self._refresh_kept()
        finally:
            self._wall += time.perf_counter() - started

    def stalled(self) -> bool:
        """True when nothing can move any more: only metric frames are scheduled - no flow
        start or completion, rate update, workload step, failure or repair (e.g. flows whose
        only path is down for good).  Reads the clock's event heap: call between slices."""
        for event in self.clock.scheduled():
            callbacks = getattr(event, "callbacks", None)
            if not callbacks:
                continue
            if len(callbacks) != 1 or getattr(callbacks[0], "__func__", None) is not \
                    FlowEngine._tick:
                return False
        return True

    def _refresh_kept(self) -> None:
        """Delivered bytes of the live records the Result may list (ids below the log's
        ``keep``); other live records are brought up to date when they finish."""
        s = self._slots
        keep = self.flows.keep
        for slot in self._active:
            rec = self._slot_rec[int(slot)]
            if rec is not None and rec.id < keep:
                rec.delivered_bytes = int(s.size[slot] - max(0.0, s.remaining[slot]))

    # ------------------------------------------------------------------ frames
    def _tick(self, _event: Call) -> None:
        now = self.env.now
        self._advance_fluid(now)
        period = now - self._tick_last
        carried = self.alloc.carried(now)
        moved = carried - self._tick_bytes
        links = {"utilisation": np.clip(moved / (self.capacity * period), 0.0, 1.0).astype(
            np.float32)}
        ids, delivered, rates = self._frame_flow_arrays(period)
        self.stream.append(Frame(now, links, {"delivered_bytes": delivered, "rate_gbps": rates},
                                 ids))
        self._tick_last = now
        self._tick_bytes = carried
        period = self.stream.sample_period_s
        if now + period <= self.frames_until_s * (1 + 1e-9):
            self.clock.call(period, self._tick)

    def _frame_flow_arrays(self, period: float) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
        """(flow ids in order, delivered bytes, rate Gb/s) of the flows finished since the
        last frame (rate 0) and of the first active ones, :data:`MAX_FRAME_FLOWS` at most."""
        s = self._slots
        finished = self._frame_flows
        self._frame_flows = {}
        act = self._active
        if len(act) + len(finished) > MAX_FRAME_FLOWS:
            self._frames_truncated = True
        part = act[: max(0, MAX_FRAME_FLOWS - len(finished))]
        rec_ids = s.rec_id[part]
        part = part[rec_ids >= 0]  # -1: finished (listed above), not yet out of the active
        ids = np.concatenate([np.fromiter(finished, np.int64, len(finished)),
                              rec_ids[rec_ids >= 0]])
        delivered = np.concatenate([
            np.fromiter(finished.values(), np.float64, len(finished)),
            s.size[part] - np.maximum(0.0, s.remaining[part])])
        rates = np.concatenate([np.zeros(len(finished)), gigabits(s.rate[part])])
        order = np.argsort(ids, kind="stable")
        return tuple(ids[order].tolist()), delivered[order], rates[order].astype(np.float32)

    # ------------------------------------------------------------------ reports
    def link_stats(self, measure_from_s: float = 0.0) -> list[dict[str, Any]]:
        """Per directed link statistics over ``[measure_from_s, now]`` (utilisation; the
        queue, PFC, ECN, drop and credit fields are 0: not modelled at flow level)."""
        now = self.env.now
        start = min(max(float(measure_from_s), 0.0), now)
        span = now - start
        times = np.asarray(self.stream.times, dtype=np.float64)
        begins = np.concatenate(([0.0], times[:-1])) if len(times) else times
        lengths = times - begins
        overlap = np.clip(times - np.maximum(begins, start), 0.0, None)
        busy = self._busy(overlap)
        tail_start = max(self._tick_last, start)
        tail_len = now - self._tick_last
        if tail_len > 0 and now > tail_start:
            tail_util = (self.alloc.carried(now) - self._tick_bytes) / (self.capacity * tail_len)
            busy = busy + np.clip(tail_util, 0, 1) * (now - tail_start)
        del lengths
        stats = []
        for i, link in enumerate(self.links):
            stats.append({
                "id": link.link_id, "from": link.src, "to": link.dst,
                "from_port": link.src_port, "to_port": link.dst_port,
                "speed_gbps": link.speed_gbps,
                "utilisation": float(busy[i] / span) if span > 0 else 0.0,
                "max_queue_bytes": 0, "pfc_pauses_sent": 0, "paused_time_s": 0.0,
                "ecn_marks": 0, "cnps": 0, "drops": 0, "credit_stall_time_s": 0.0,
            })
        return stats

    def _busy(self, overlap: np.ndarray) -> np.ndarray:
        """Per link, the sum over frames of utilisation x ``overlap`` (seconds), added frame
        by frame in frame order - the floats of ``(util * overlap[:, None]).sum(axis=0)``
        without the frames x links float64 copies (hundreds of MB at 8,192 GPUs)."""
        n = len(overlap)
        if n == 0:
            return np.zeros(len(self.links))
        if len(self.links) < 2:  # one column: numpy would sum it pairwise
            util = self.stream.link_series("utilisation").astype(np.float64)
            busy: np.ndarray = (util * overlap[:, None]).sum(axis=0)
            return busy
        chunk = max(1, int(2**22 // len(self.links)))  # frames read at a time (~16 MB)
        busy = np.zeros(0)
        for first in range(0, n, chunk):
            rows = self.stream.link_rows("utilisation", first, first + chunk)
            for i, row in enumerate(rows, first):
                part = row.astype(np.float64) * overlap[i]
                if i == 0:
                    busy = part
                else:
                    busy += part
        return busy

    def transmitted_bytes(self) -> float:
        """Payload bytes the NICs have sent over the fabric so far."""
        s = self._slots
        act = self._active
        partial = float((s.size[act] - np.maximum(s.remaining[act], 0.0)).sum()) if len(act) else 0
        return self._tx_done + partial

    def totals(self) -> dict[str, Any]:
        """Fabric-wide byte counts in the cell engine's keys (loss, PFC, ECN and credit
        counters are 0: not modelled at flow level)."""
        moved = int(round(self.transmitted_bytes()))
        return {
            "offered_bytes": moved, "delivered_bytes": moved, "dropped_bytes": 0,
            "retransmitted_bytes": 0, "in_flight_bytes": 0, "duplicate_bytes": 0,
            "goodput_bytes": moved, "nvlink_bytes": self.nvlink_bytes, "drops": 0,
            "pfc_pauses": 0, "paused_time_s": 0.0, "ecn_marks": 0, "cnps": 0,
            "credit_stall_time_s": 0.0, "lossless_violations": 0, "watchdog_drops": 0,
            "timeouts": 0,
        }

    def stats(self) -> dict[str, Any]:
        """Engine performance figures (``rate_updates``: max-min recomputations)."""
        events = self.clock.events
        return {"events": events, "cell_bytes": None, "cell_hops": None,
                "wall_time_s": self._wall,
                "events_per_s": events / self._wall if self._wall > 0 else 0.0,
                "rate_updates": self.rate_updates}

    def hotspots(self, top: int = HOTSPOTS_LISTED) -> dict[str, Any]:
        """Links whose offered load exceeded their capacity: where a cell-level run would
        queue, pause (PFC), mark (ECN) or drop.  ``links`` lists the ``top`` worst by time
        overloaded: ``overloaded_s`` and ``peak_offered`` (offered load / capacity)."""
        seconds = self.alloc.overloaded(self.env.now)
        peak = self.alloc.peak_offered
        hot = np.flatnonzero(seconds > 0)
        order = sorted(hot, key=lambda i: (-seconds[i], -peak[i], int(i)))
        listed = []
        for i in order[:top]:
            link = self.links[int(i)]
            listed.append({"link": link.key, "id": link.link_id, "from": link.src,
                           "to": link.dst, "overloaded_s": float(seconds[i]),
                           "peak_offered": float(peak[i])})
        return {"count": len(hot), "links": listed}

    @property
    def frames_truncated(self) -> bool:
        """True when some frame listed only the first :data:`MAX_FRAME_FLOWS` flows."""
        return self._frames_truncated
