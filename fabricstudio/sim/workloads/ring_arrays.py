"""Pipelined rings on paths of their own, solved as arrays instead of event by event.

A flat ring all-reduce on thousands of GPUs is millions of small cells (256 MiB over 4,096
GPUs: 8 KiB per step, 8,190 steps, 4,096 fabric hops: 33.5 M cells), each a handful of
events in the cell engine: ~50 us of Python per cell.  When the ring is the only traffic
and every fabric hop has its NIC, links and switch ports to itself (a rail-optimised fabric
puts each channel on its own rail), nothing ever competes with a cell: its times follow
from its own stream's earlier cells, its upstream stream's arrivals and fixed link
figures.  :func:`try_array_rings` then computes, unit after unit and for all streams at
once with numpy, exactly what the per-cell engine computes - the same formulas in the same
floating-point order:

* the NIC starts unit k at ``max(release, end of unit k-1, next_time)``: the release is the
  later of the stream's own arrival of unit k - window and the upstream stream's arrival of
  unit k - lag; the upstream one carries the NVLink delay as ``not_before``, which
  ``Flow.release`` applies only when the sender had sent everything released (as the
  engine does);
* every switch hop is cut-through at an egress no one else uses: start at ``max(head +
  switch latency, end of the stream's previous cell there)``, end at ``max(start + wire /
  rate, tail)`` (``Port.enqueue``, ``Port.kick``, ``Port.transmit``);
* the destination NIC receives it one NIC latency after its tail.

It also records what the sample frames read at every tick (per port busy time, queue and
peak queue, per stream delivered bytes), schedules each stream's completion at its
instant (the workload's callbacks run as usual) and leaves ports, flows and totals as the
per-cell run leaves them.  It declines - and the ring runs cell by cell - unless:

* the engine is sealed (:attr:`Engine.sole_traffic`, set by ``sim.run``: the scenario's
  only traffic is this collective, run to its end - no horizon, explicit flows, failures,
  stalls or focus region) and RoCE with PFC on (or InfiniBand whose links never have half
  their credits out, congestion control off), static paths and no in-band control frames;
  nothing is in flight and no other flow is active;
* every stream has its NIC to itself; a switch egress several streams cross (ECMP can put
  two rings' hops on one core link) serves their cells first come, first served, exactly as
  the port does (:class:`SharedLink`: in service order, ties between twin rings in the
  engine's event order, any other tie declines); each unit is one cell;
  the flows are plain or DCQCN at line rate (no marks can slow them: see below);
* the switch MMU can never PAUSE a ring ingress (each holds at most the window's cells: with
  every ring ingress of the switch at that, the XOFF threshold is still above it), PFC can
  never cut its cells finer, and ECN can never draw for it (window's cells + one cell's
  packets below Kmin): queues hold at most the window;
* no two events whose order would matter fall on the same instant (the stream's own and
  the upstream arrival that release a unit; a release and the send it may hold; a tick and
  a queue change or delivery): there the per-cell engine's order decides, and the arrays
  cannot know it.

While the rings run, the ports' own counters stand still: the sampler takes their state
from the arrays (:class:`~fabricstudio.sim.engine.sampler.PortStates`), so frames are exact
and ``link_stats`` read between two frames covers up to the last frame; ``totals()``, flow
records and the workload's progress move at each frame; ports, flows and totals are exact
again from the instant the last stream completes.

``tests/sim/test_ring_arrays.py`` runs the same rings both ways and compares completion,
every flow's finish time, totals, statistics, link statistics and every frame.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.flows import DcqcnFlow, Flow
from fabricstudio.sim.engine.sampler import snapshot
from fabricstudio.sim.workloads.ring_fit import NOT_SEALED, decline, engine_plan

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.engine.ports import Port

INF = math.inf
#: Units whose credit returns are kept per link (InfiniBand; more still due at the end
#: declines).
RETURNS_KEPT = 8


class Declined(Exception):
    """The rings cannot be solved as arrays (the reason is the message)."""


def try_array_rings(engine: Any, runs: list[Any]) -> str | None:
    """Solve ``runs`` (the started passes of a phase whose streams have not sent yet) as
    arrays and take their streams over; returns None when done, else why not (nothing
    changed; also noted in ``engine.ring_arrays``).  The conditions are
    :func:`~.ring_fit.decline`'s (what :func:`~.ring_fit.arrays_precheck` asks before a run)
    and what only the run can tell."""
    why: str | None = None
    if not getattr(engine, "sole_traffic", False):
        why = NOT_SEALED
    else:
        try:
            solver = _Rings(engine, runs)
            solver.solve()
            solver.commit()
        except Declined as exc:
            why = str(exc)
    log = getattr(engine, "ring_arrays", None)
    if log is not None:
        log.append(why)
    return why


class _Rings:
    """The streams of some ring passes as arrays (index i = stream, j = hop on its path)."""

    def __init__(self, engine: Any, runs: list[Any]) -> None:
        from fabricstudio.sim.workloads.pipeline import WINDOW_UNITS, RingRun

        self.engine = engine
        self.runs = runs
        self.window = WINDOW_UNITS
        if engine.in_flight:
            raise Declined("cells are in flight")
        flows: list[Flow] = []
        ups: list[int] = []
        lags: list[int] = []
        delays: list[float] = []
        totals: list[int] = []
        units: list[int] = []
        owner: list[int] = []
        for r, run in enumerate(runs):
            if not isinstance(run, RingRun) or not run.flow_ids:
                continue  # (the plan declines it)
            base = len(flows)
            n = len(run.flow_ids)
            for i, fid in enumerate(run.flow_ids):
                flow = engine._streams.get(fid)
                if flow is None:
                    raise Declined("a stream is not live")
                flows.append(flow)
                ups.append(base + (i - 1) % n)
                lags.append((run._before[i] + 1) * run.per_chunk)
                delays.append(run._chain_before[i])
                totals.append(run.total_units)
                units.append(run.unit)
                owner.append(r)
        self.flows = flows
        why = decline(engine_plan(engine, runs, flows))  # what the pre-check asks too
        if why is not None:
            raise Declined(why)
        self._check_state()
        self.n = len(flows)
        self.up = np.array(ups, dtype=np.int64)
        self.lag = np.array(lags, dtype=np.int64)
        self.delay = np.array(delays, dtype=np.float64)
        self.total = np.array(totals, dtype=np.int64)
        self.unit = np.array(units, dtype=np.int64)
        self.owner = np.array(owner, dtype=np.int64)
        self._paths()
        #: InfiniBand: the receivers' credit processing time (None: no credits)
        self.credit_delay = (engine.fabric.infiniband.credit_processing_ns * 1e-9
                             if self.flat[0].credit_based else None)

    # ------------------------------------------------------------------ conditions
    def _check_state(self) -> None:
        """What only the run can tell (the rest is :func:`~.ring_fit.decline`'s): the
        streams have not sent, nothing else is active, no port or switch holds history."""
        engine = self.engine
        ours = {id(f) for f in self.flows}
        for flow in self.flows:
            if type(flow) not in (Flow, DcqcnFlow):
                raise Declined("flows with their own pacing or adaptive routing")
            if flow.seq or flow.progress_mark != -1:
                raise Declined("a stream has already sent")
        for ep in engine.net.endpoints:
            if any(id(f) not in ours for f in ep.up.flows):
                raise Declined("another flow is active")
        for flow in self.flows:
            for j, port in enumerate(flow.path or ()):
                if (port.paused or port.queue or port.pfc_frames or port.wd_state
                        or port.rx_bytes or port.rx_hdrm or port.rx_paused
                        or (port.credit_based and port.credits != port.credit_max)
                        or (j and port.done_pending)):
                    raise Declined("a port is paused, queued or has PFC or credit history")
                switch = port.owner
                if j and (switch.used or getattr(switch, "shared_used", 0)):
                    raise Declined("a switch holds cells")

    def _paths(self) -> None:
        """Per stream and hop: the port and its figures (padded to the longest path)."""
        n = self.n
        self.ports: list[list[Port]] = [list(f.path or ()) for f in self.flows]
        hops = max(len(path) for path in self.ports)
        self.hops = hops
        self.length = np.array([len(path) for path in self.ports], dtype=np.int64)
        shape = (n, hops)
        rate = np.ones(shape)
        prop = np.zeros(shape)
        fwd = np.zeros(shape)
        arrive = np.zeros(shape)
        free0 = np.full(shape, -INF)
        self.size = np.zeros(n, dtype=np.int64)
        self.wire = np.zeros(n, dtype=np.float64)
        for i, (flow, path) in enumerate(zip(self.flows, self.ports, strict=True)):
            size = flow.span_bytes(0, flow.unit_pkts)
            self.size[i] = size
            self.wire[i] = size + flow.unit_pkts * flow.overhead
            for j, port in enumerate(path):
                rate[i, j] = port.rate
                prop[i, j] = port.prop
                fwd[i, j] = port.fwd
                arrive[i, j] = port.arrive_delay
                if port.busy:
                    free0[i, j] = port.free_at
        self.rate, self.prop, self.fwd, self.arrive, self.free0 = rate, prop, fwd, arrive, free0
        #: flat number of each (stream, hop) port (-1 past the end of a path)
        self.pid = np.full(shape, -1, dtype=np.int64)
        self.flat: list[Port] = []
        number: dict[int, int] = {}
        users: dict[int, list[int]] = {}
        for i, path in enumerate(self.ports):
            for j, port in enumerate(path):
                k = number.setdefault(id(port), len(self.flat))
                if k == len(self.flat):
                    self.flat.append(port)
                self.pid[i, j] = k
                users.setdefault(k, []).append(i)
        self.rows = np.array([port.index for port in self.flat], dtype=np.int64)
        #: (stream, hop) slots whose port is theirs alone (the others: :class:`SharedLink`)
        self.solo = np.ones(shape, dtype=bool)
        self.shared_at: list[list[tuple[int, np.ndarray]]] = [[] for _ in range(hops)]
        for k, streams in users.items():
            if len(streams) > 1:
                port = self.flat[k]
                (j,) = {int(np.flatnonzero(self.pid[i] == k)[0]) for i in streams}
                if port.busy or not j:
                    raise Declined("a shared link is busy")  # pragma: no cover
                rows = np.array(streams, dtype=np.int64)
                self.solo[rows, j] = False
                self.shared_at[j].append((k, rows))
        self.sharing = any(self.shared_at)
        if self.sharing:
            self._twins()

    def _twins(self) -> None:
        """Streams at the same position of rings that are built alike (same per-position
        figures): until cells of two rings meet at a shared link, their events fall at the
        same instants, each ring's in the order its streams were created (see
        :class:`SharedLink`).  ``twin[i]`` numbers stream i's class; ``ring[i]`` its ring."""
        classes: dict[tuple[Any, ...], int] = {}
        twin = np.zeros(self.n, dtype=np.int64)
        for r in range(len(self.runs)):
            rows = np.flatnonzero(self.owner == r)
            if not len(rows):
                continue
            base = int(rows[0])
            shape = tuple(
                (int(self.up[i]) - base, int(self.lag[i]), float(self.delay[i]),
                 int(self.total[i]), int(self.size[i]), float(self.wire[i]),
                 int(self.length[i]), float(self.flows[i].next_time),
                 self.rate[i].tobytes(), self.prop[i].tobytes(), self.fwd[i].tobytes(),
                 self.arrive[i].tobytes(), self.free0[i].tobytes())
                for i in rows)
            first = classes.setdefault(shape, len(classes))
            twin[rows] = first * self.n + (rows - base)
        self.twin = twin

    # ------------------------------------------------------------------ ticks
    def _tick_times(self, until: float) -> None:
        """Sample instants after now up to the first at or after ``until``, as the sampler
        schedules them (each from the previous one)."""
        sampler = self.engine.sampler
        times = [t for t in getattr(self, "ticks", []) if t < INF]
        last = times[-1] if times else sampler._last_t
        count = sampler.count + len(times)
        limit = sampler.until_s * (1 + 1e-9)
        while not times or times[-1] < until:
            following = (count + 1) * sampler.period
            if following > limit and count:  # (the first tick is due whatever the budget)
                break
            last = last + (following - last)
            times.append(last)
            count += 1
        if not times or times[-1] < until:
            # the frame budget ends first: what happens after its last frame is collected
            # in one period that is never sampled (the peak queue link_stats reads at the end)
            times.append(INF)
        self.ticks = np.array(times, dtype=np.float64)

    # ------------------------------------------------------------------ solving
    def solve(self) -> None:
        """Two passes: the times (and the end), then the same again recording the ticks."""
        self.ticks = np.zeros(0)
        end = self._sweep(record=False)
        self._tick_times(end)
        self._sweep(record=True)

    def _sweep(self, record: bool) -> float:
        engine = self.engine
        n, hops = self.n, self.hops
        window = self.window
        start_s = engine.env.t + engine.fabric.nic_latency_ns * 1e-9  # Engine._start
        total = self.total
        kmax = int(total.max())
        lag = self.lag
        wire = self.wire
        rate, prop, fwd, arrive = self.rate, self.prop, self.fwd, self.arrive
        last_hop = self.length - 1
        hist = int(max(int(lag.max()), window)) + 1
        arrived = np.full((n, hist), -INF)  # arrival of unit k at slot k % hist
        sent_prev = np.full(n, -INF)  # NIC start of unit k - 1
        end_prev = self.free0.copy()  # per hop: end of the stream's previous cell there
        start_prev = np.full((n, hops), -INF)
        queued_prev = np.zeros((n, hops), dtype=bool)
        deq_prev = np.full((n, hops), -INF)  # when the previous cell left the queue
        nt = np.array([f.next_time for f in self.flows], dtype=np.float64)
        finish = np.zeros(n)
        valid_hop = np.arange(hops)[None, :] < self.length[:, None]
        if record:
            self._init_record()
        head = np.zeros((n, hops))
        starts = np.zeros((n, hops))
        ends = np.zeros((n, hops))
        sharing = self.sharing
        links = [[SharedLink(self, col, rows, j, record) for col, rows in at]
                 for j, at in enumerate(self.shared_at)]
        self.links = [link for at in links for link in at]
        # purity (only where links are shared): the cell's times and the events that set
        # them are those of a run without the other rings (see SharedLink)
        a_pure = np.ones((n, hist), dtype=bool)
        nic_pure = np.ones(n, dtype=bool)
        port_pure = np.ones((n, hops), dtype=bool)
        pure = nic_pure
        credits = record and self.credit_delay is not None
        if credits:
            returns = np.full((n, hops, RETURNS_KEPT), -INF)  # credit returns, last units
            cd = float(self.credit_delay or 0.0)
        for k in range(kmax):
            live = k < total
            # ---- release of unit k: own window and upstream arrival
            own_t = arrived[:, (k - window) % hist] if k >= window else np.full(n, -INF)
            up_ok = k >= lag
            up_t = np.where(up_ok, arrived[self.up, (k - lag) % hist], -INF)
            both = (k >= window) & up_ok & live
            if np.any(both & (own_t == up_t)):
                raise Declined("a unit is released by two arrivals at one instant")
            by_up = up_t > own_t
            rel = np.maximum(np.maximum(own_t, up_t), start_s)
            nb = np.where(by_up & up_ok, up_t + self.delay, -INF)
            starved = sent_prev < rel
            raise_nt = by_up & up_ok & live & (nb > nt)
            if np.any(raise_nt & (sent_prev == rel)):
                raise Declined("a release at the instant the previous unit is sent")
            nt = np.where(raise_nt & starved, nb, nt)
            send = np.maximum(np.maximum(rel, end_prev[:, 0]), nt)
            if sharing:
                pure = nic_pure.copy()
                if k >= window:
                    pure &= a_pure[:, (k - window) % hist]
                pure &= ~up_ok | a_pure[self.up, (k - lag) % hist]
                nic_pure = np.where(live, pure, nic_pure)
                arrival_pure = pure
            # ---- the NIC and the switch hops
            end = send + wire / rate[:, 0]
            starts[:, 0] = send
            ends[:, 0] = end
            tail = end + prop[:, 0]
            h = send + arrive[:, 0]
            arrival = h
            for j in range(1, hops):
                head[:, j] = h
                free = end_prev[:, j]
                queued = h < free
                begin = np.maximum(h + fwd[:, j], free)
                finish_j = begin + wire / rate[:, j]
                finish_j = np.maximum(finish_j, tail)
                deq = np.where(queued, free, h) if credits else None
                if sharing:
                    came = pure  # the heads' arrivals (their order at a shared link)
                    pure = pure & ~(queued & ~port_pure[:, j])
                    for link in links[j]:
                        link.serve(k, h, tail, begin, finish_j, came, pure, live, deq)
                if credits:  # the previous link's credits come back once the cell left
                    # the buffer here (IbSwitch.on_dequeue: called at deq, due at begin)
                    assert deq is not None
                    ok = live & valid_hop[:, j]
                    back = deq + (((begin - deq) + prop[:, j - 1]) + cd)
                    returns[:, j - 1, k % RETURNS_KEPT] = np.where(
                        ok, back, returns[:, j - 1, k % RETURNS_KEPT])
                    port_pure[:, j] = np.where(live, pure, port_pure[:, j])
                starts[:, j] = begin
                ends[:, j] = finish_j
                if record:
                    self._queue_record(k, j, h, free, queued, queued_prev[:, j], deq_prev[:, j],
                                       live & valid_hop[:, j] & self.solo[:, j])
                deq_prev[:, j] = np.where(queued, free, h)
                queued_prev[:, j] = queued
                tail = finish_j + prop[:, j]
                to_host = j == last_hop
                h = np.where(to_host, tail + arrive[:, j], begin + arrive[:, j])
                arrival = np.where(to_host, h, arrival)
                if credits:  # the last link's credits: after delivery (Host.deliver)
                    here = live & to_host
                    returns[:, j, k % RETURNS_KEPT] = np.where(
                        here, h + (prop[:, j] + cd), returns[:, j, k % RETURNS_KEPT])
                if sharing:
                    arrival_pure = np.where(to_host, pure, arrival_pure)
            if sharing:
                a_pure[:, k % hist] = np.where(live, arrival_pure, a_pure[:, k % hist])
            if record:
                self._busy_record(k, starts, ends, start_prev, end_prev, live)
                self._deliver_record(arrival, live, send)
            # ---- keep what the next units need (finished streams keep their last values)
            arrived[:, k % hist] = np.where(live, arrival, arrived[:, k % hist])
            keep = live[:, None] & valid_hop
            start_prev = np.where(keep, starts, start_prev)
            end_prev = np.where(keep, ends, end_prev)
            sent_prev = np.where(live, send, sent_prev)
            finish = np.where(live, arrival, finish)
        self.finish = finish
        self.last_start = start_prev
        self.last_end = end_prev
        if record:
            self._busy_tail()
        if credits:
            self._credits_left(returns, float(finish.max()))
        return float(finish.max())

    def _credits_left(self, returns: np.ndarray, end: float) -> None:
        """InfiniBand: the credit returns still due when the rings end (they are scheduled
        then, as the per-cell run has them), and the switch ports a return reached after
        their last cell (its kick summed that cell's busy time: ``Port.return_credits``)."""
        self.due: list[tuple[float, Port, int]] = []
        self.summed: set[int] = set()
        for i, path in enumerate(self.ports):
            total = int(self.total[i])
            kept = min(total, RETURNS_KEPT)
            size = int(self.size[i])
            for c, port in enumerate(path):
                times = [float(returns[i, c, u % RETURNS_KEPT])
                         for u in range(total - kept, total)]
                if total > kept and times[0] > end:
                    raise Declined("credits of too many cells are due after the end")
                self.due.extend((t, port, size) for t in times if t > end)
                last = self._last_end(i, c)
                if c and any(last <= t <= end for t in times):
                    self.summed.add(id(port))

    def _last_end(self, i: int, c: int) -> float:
        col = int(self.pid[i, c])
        for link in self.links:
            if link.col == col:
                return link.last_end
        return float(self.last_end[i, c])

    # ------------------------------------------------------------------ recording frames
    def _init_record(self) -> None:
        n, hops = self.n, self.hops
        t = len(self.ticks)
        ports = len(self.flat)
        self.busy_at = np.zeros((t, ports))
        self.busy_ptr = np.zeros((n, hops), dtype=np.int64)
        self.busy_sum = np.array([[p.busy_time for p in path] + [0.0] * (hops - len(path))
                                  for path in self.ports])
        self.q_at = np.zeros((t, ports), dtype=np.int32)
        self.q_peak = np.zeros((t, ports), dtype=np.int32)
        self.delivered = np.zeros((t, n), dtype=np.int32)
        self.sent_by = np.zeros((t, n), dtype=np.int32)
        self.init_busy = [[(p.busy, p.tx_start, p.free_at) for p in path] for path in self.ports]

    def _tick_of(self, times: np.ndarray, mask: np.ndarray, what: str) -> np.ndarray:
        """Index of the first tick at or after each time; a time on a tick declines."""
        ticks = self.ticks
        j = np.searchsorted(ticks, times, side="left")
        inside = mask & (j < len(ticks))
        if np.any(inside & (ticks[np.minimum(j, len(ticks) - 1)] == times)):
            raise Declined(f"a {what} falls on a sample instant")
        return j

    def _queue_record(self, k: int, j: int, head: np.ndarray, free: np.ndarray,
                      queued: np.ndarray, queued_prev: np.ndarray, deq_prev: np.ndarray,
                      live: np.ndarray) -> None:
        """A queued cell adds its bytes to the queue from its head's arrival until the
        previous cell ends (Port.enqueue / Port.kick); the peak counts the previous cell if it
        still waits."""
        m = queued & live
        if not np.any(m):
            return
        rows = np.nonzero(m)[0]
        h, f = head[rows], free[rows]
        if np.any(queued_prev[rows] & (deq_prev[rows] == h)):
            raise Declined("a cell joins a queue the instant the one ahead leaves it")
        t = self._tick_of(h, np.ones(len(rows), dtype=bool), "queue change")
        self._tick_of(f, np.ones(len(rows), dtype=bool), "queue change")
        size = self.size[rows]
        with_prev = size + np.where(queued_prev[rows] & (deq_prev[rows] > h), size, 0)
        ticks = self.ticks
        nt = len(ticks)
        ok = t < nt
        cols = self.pid[rows, j]
        np.maximum.at(self.q_peak, (t[ok], cols[ok]), with_prev[ok])
        cur = t.copy()
        while True:
            inside = (cur < nt) & (ticks[np.minimum(cur, nt - 1)] < f)
            if not np.any(inside):
                break
            np.add.at(self.q_at, (cur[inside], cols[inside]), size[inside])
            cur = cur + 1

    def _busy_record(self, k: int, starts: np.ndarray, ends: np.ndarray,
                     start_prev: np.ndarray, end_prev: np.ndarray, live: np.ndarray) -> None:
        """Busy time read at each tick up to this cell's start: the previous cell's running
        interval on top of the time summed before it (Sampler's snapshot); then this cell's
        predecessor is summed in (Port.enqueue / Port._tx_done)."""
        ticks = self.ticks
        nt = len(ticks)
        valid = (live[:, None] & (np.arange(self.hops)[None, :] < self.length[:, None])
                 & self.solo)
        ptr = self.busy_ptr
        while True:
            t = ticks[np.minimum(ptr, nt - 1)]
            m = valid & (ptr < nt) & (t <= starts)
            if not np.any(m):
                break
            rows, cols = np.nonzero(m)
            tk = t[rows, cols]
            if k == 0:
                vals = np.array([self._initial_busy(int(r), int(c), float(tt))
                                 for r, c, tt in zip(rows, cols, tk, strict=True)])
            else:
                sp, ep = start_prev[rows, cols], end_prev[rows, cols]
                vals = self.busy_sum[rows, cols] + (np.minimum(ep, tk) - sp)
            self.busy_at[ptr[rows, cols], self.pid[rows, cols]] = vals
            ptr[rows, cols] += 1
        if k == 0:
            rows, cols = np.nonzero(valid)
            for r, c in zip(rows, cols, strict=True):
                busy, tx_start, free_at = self.init_busy[r][c]
                if busy:
                    self.busy_sum[r, c] += free_at - tx_start
        else:
            with np.errstate(invalid="ignore"):  # -inf - -inf where there is no hop
                self.busy_sum = np.where(valid, self.busy_sum + (end_prev - start_prev),
                                         self.busy_sum)

    def _initial_busy(self, r: int, c: int, tick: float) -> float:
        busy, tx_start, free_at = self.init_busy[r][c]
        base = float(self.busy_sum[r, c])
        if busy and tick > tx_start:
            return base + ((free_at if free_at < tick else tick) - tx_start)
        return base

    def _busy_tail(self) -> None:
        """Ticks after each port's last cell (until the rings end): that cell's interval."""
        ticks = self.ticks
        nt = len(ticks)
        ptr = self.busy_ptr
        valid = (np.arange(self.hops)[None, :] < self.length[:, None]) & self.solo
        end_all = float(self.finish.max())
        for link in self.links:
            link.tail(end_all)
        while True:
            t = ticks[np.minimum(ptr, nt - 1)]
            m = valid & (ptr < nt) & (t < end_all)
            if not np.any(m):
                break
            rows, cols = np.nonzero(m)
            tk = t[rows, cols]
            vals = self.busy_sum[rows, cols] + (
                np.minimum(self.last_end[rows, cols], tk) - self.last_start[rows, cols])
            self.busy_at[ptr[rows, cols], self.pid[rows, cols]] = vals
            ptr[rows, cols] += 1

    def _deliver_record(self, arrival: np.ndarray, live: np.ndarray, send: np.ndarray) -> None:
        rows = np.nonzero(live)[0]
        t = self._tick_of(arrival[rows], np.ones(len(rows), dtype=bool), "delivery")
        ok = t < len(self.ticks)
        np.add.at(self.delivered, (t[ok], rows[ok]), 1)
        s = np.searchsorted(self.ticks, send[rows], side="left")
        ok = s < len(self.ticks)
        np.add.at(self.sent_by, (s[ok], rows[ok]), 1)

    # ------------------------------------------------------------------ taking over
    def commit(self) -> None:
        """Hold the streams (their cells are the arrays'), provide the frames' port state,
        schedule each stream's completion and the final port state."""
        engine = self.engine
        end = float(self.finish.max())
        if np.any(self.ticks == end):
            raise Declined("the rings end on a sample instant")  # pragma: no cover
        for flow in self.flows:
            flow.limit = 0  # has_data() False: the NIC never takes it
        sampler = engine.sampler
        now = engine.env.t
        # every other port is idle while the rings run (the engine is sealed): its row of
        # the snapshot stays as it is now, with the peak queue reset after the first frame
        self.base = snapshot(engine.ports, now)
        self.later = self.base.copy()
        self.later[:, -1] = self.later[:, -2]
        self.first_peak = self.base[self.rows, -1].copy()
        self.moved = np.zeros(self.n, dtype=np.int64)  # units delivered up to the last tick
        self.sent = np.zeros(self.n, dtype=np.int64)
        self.accounted = np.zeros(len(self.runs), dtype=np.int64)
        self.totals0 = (engine.offered, engine.delivered, engine.in_flight)
        self.ticked = False
        self.applied = -1  # the last tick whose frame was taken
        sampler.provider = self
        clock = engine.clock
        clock.call(end - now, self._finalize)
        for i in np.argsort(self.finish, kind="stable"):
            clock.call(float(self.finish[i]) - now, self._stream_done, int(i))

    def _tick_index(self, now: float) -> int:
        """Index of the latest tick at or before ``now`` (-1: none yet)."""
        return int(np.searchsorted(self.ticks, now, side="right")) - 1

    def snapshot(self, now: float) -> np.ndarray:
        """The sampler's snapshot of every port at the latest tick up to ``now``."""
        j = self._tick_index(now)
        if j < 0:
            return self.base.copy()
        snap = (self.later if j else self.base).copy()
        rows = self.rows
        snap[rows, 0] = self.busy_at[j]
        snap[rows, -2] = self.q_at[j]
        before = self.q_at[j - 1] if j else self.first_peak
        snap[rows, -1] = np.maximum(before, self.q_peak[j])
        return snap

    def frame(self, now: float) -> None:
        """A frame at tick ``now``: the streams' delivered bytes, progress and totals."""
        j = self._tick_index(now)
        if j <= self.applied or self.ticks[j] != now:
            return  # pragma: no cover - every tick comes once, in order
        self.applied = j
        self.ticked = True
        moved = self.delivered[j]
        self.moved += moved
        self.sent += self.sent_by[j]
        sampler = self.engine.sampler
        for i in np.nonzero(moved)[0]:
            rec = self.flows[i].rec
            if rec.finish_s is None:
                rec.delivered_bytes = int(self.moved[i]) * int(self.size[i])
            sampler.track(rec)
        self._account()
        self._totals(int((self.sent * self.size).sum()), int((self.moved * self.size).sum()))

    def _totals(self, sent: int, arrived: int) -> None:
        """The engine's byte totals with ``sent`` bytes put on the wire and ``arrived``
        delivered by the streams (offered = delivered + dropped + in flight holds)."""
        engine = self.engine
        offered0, delivered0, in_flight0 = self.totals0
        engine.offered = offered0 + sent
        engine.delivered = delivered0 + arrived
        engine.in_flight = in_flight0 + sent - arrived

    def _account(self) -> None:
        """Report the bytes that arrived so far to the passes' progress callbacks."""
        got = self.moved * self.size
        for r, run in enumerate(self.runs):
            done = int(got[self.owner == r].sum())
            if run.on_bytes is not None and done > self.accounted[r]:
                run.on_bytes(done - int(self.accounted[r]))
                self.accounted[r] = done

    def _stream_done(self, event: Call) -> None:
        """Stream ``i`` delivered its last unit: the flow finishes as the per-cell run's."""
        i = event.arg
        flow = self.flows[i]
        npk = flow.npk
        flow.seq = flow.max_sent = flow.rcv_nxt = flow.limit = npk
        flow.units_done = int(self.total[i])
        flow.active = False
        rec = flow.rec
        rec.delivered_bytes = rec.size_bytes
        engine = self.engine
        engine.sampler.track(rec)
        flow.finish(engine.env.t)

    def _credits_due(self) -> None:
        """InfiniBand: credits as the per-cell run holds them now; the returns still due."""
        clock = self.engine.clock
        for port in self.flat:
            port.credits = port.credit_max
            if id(port) in self.summed and port.busy:
                port.busy = False
                port.busy_time += port.free_at - port.tx_start
        for at, port, size in self.due:
            port.credits -= size
            clock.at(at, port.return_credits, size)

    def _finalize(self, _event: Call) -> None:
        """Every stream is done: the ports hold what the per-cell run leaves."""
        engine = self.engine
        sampler = engine.sampler
        sampler.provider = None
        if self.ticked:  # the sampler's reset of the peak queues after the last frame
            for port in engine.ports:
                port.frame_max_q = port.q_bytes
        # the period the rings end in: its peak so far counts the cells queued in it
        last = int(np.searchsorted(self.ticks, engine.env.t, side="left"))
        j = last - 1
        for k, port in enumerate(self.flat):
            if j >= 0 and self.ticked:
                port.frame_max_q = int(self.q_at[j, k])
            if last < len(self.ticks) and self.q_peak[last, k] > port.frame_max_q:
                port.frame_max_q = int(self.q_peak[last, k])
        for i, path in enumerate(self.ports):
            units = int(self.total[i])
            size = int(self.size[i])
            for c, port in enumerate(path):
                port.tx_cells += units
                port.tx_bytes += units * size
                port.q_bytes = 0
                port.tx_start = float(self.last_start[i, c])
                port.free_at = float(self.last_end[i, c])
                port.busy_time = float(self.busy_sum[i, c])
                port.done_pending = False
                if c == 0:  # the NIC's end-of-transmission event has summed its last cell
                    port.busy = False
                    port.busy_time += port.free_at - port.tx_start
                else:
                    port.busy = True
        for link in self.links:
            link.finalize()
        if self.credit_delay is not None:
            self._credits_due()
        self.moved = self.total.copy()
        self._account()
        everything = int((self.total * self.size).sum())
        self._totals(everything, everything)


class SharedLink:
    """A switch egress several ring streams cross (each at the same hop): it serves their
    cells first come, first served, as ``Port.enqueue`` / ``Port.kick`` do, one unit's cells
    at a time.

    Which of two cells whose heads arrive at the same instant goes first is the engine's
    event order (SimPy's heap: time, then the order the events were scheduled in).  It is
    known here only for *twins*: streams at the same position of two rings built alike
    (:meth:`_Rings._twins`) whose cells are still *pure*: nothing in their history waited in
    a shared link's queue (such a wait ends with an end-of-transmission event that another
    ring's cell may have scheduled, so it may come at another place in the heap).  Then every
    event of both histories has a twin at the same instant, scheduled by the twin of its own
    parent; by induction from the streams' start events (scheduled in the order the flows were
    made) the ring made first is always scheduled first.  Any other tie - two units
    crossing, a cell arriving the instant the link frees - declines.  Busy time, queue and
    peak queue are summed in service order, as the port sums them.
    """

    def __init__(self, rings: _Rings, col: int, rows: np.ndarray, j: int, record: bool) -> None:
        self.rings = rings
        self.col = col  # flat port number
        self.rows = rows
        self.j = j
        self.record = record
        port = rings.flat[col]
        self.port = port
        self.last_start = -INF
        self.last_end = -INF
        self.last_stream = -1
        self.last_head = -INF  # latest head of an earlier unit
        self.busy_sum = float(port.busy_time)
        self.ptr = 0  # next tick to read busy time at
        self.waiting: list[tuple[float, int]] = []  # (leaves the queue, bytes) of queued cells

    def serve(self, k: int, h: np.ndarray, tail: np.ndarray, begin: np.ndarray,
              finish: np.ndarray, came: np.ndarray, pure: np.ndarray, live: np.ndarray,
              deq: np.ndarray | None = None) -> None:
        """Unit ``k``'s cells at this link: their begin and finish (and purity after it) in
        place; ``came``: their arrivals are pure."""
        rings = self.rings
        users = self.rows[live[self.rows]]
        if not len(users):
            return
        heads = h[users]
        if heads.min() <= self.last_head:
            raise Declined("cells of two units cross at a shared link")
        ring = rings.owner[users]
        order = np.lexsort((ring, heads))
        users, heads = users[order], heads[order]
        same = heads[1:] == heads[:-1]
        if np.any(same):
            a, b = users[:-1][same], users[1:][same]
            if np.any((rings.twin[a] != rings.twin[b]) | ~came[a] | ~came[b]):
                raise Declined("two cells reach a shared link at one instant")
        j = self.j
        fwd, rate = rings.fwd[:, j], rings.rate[:, j]
        for i, hi in zip(users.tolist(), heads.tolist(), strict=True):
            free = self.last_end
            if hi == free:
                raise Declined("a cell reaches a shared link the instant it frees")
            queued = hi < free
            b = max(hi + float(fwd[i]), free)
            f = b + float(rings.wire[i] / rate[i])
            t = float(tail[i])
            if t > f:
                f = t
            if queued:  # started by the end of the cell ahead, whose end-of-transmission
                pure[i] = False  # event the other rings' cells may have scheduled earlier
            if self.record:
                self._record(i, hi, free, queued, b)
            begin[i] = b
            finish[i] = f
            if deq is not None:  # when the cell leaves the buffer (its credits' clock)
                deq[i] = free if queued else hi
            self.last_start, self.last_end = b, f
            self.last_stream = i
        self.last_head = float(heads[-1])

    def _record(self, i: int, head: float, free: float, queued: bool, start: float) -> None:
        rings = self.rings
        ticks = rings.ticks
        nt = len(ticks)
        col = self.col
        size = int(rings.size[i])
        if queued:
            if any(leave == head for leave, _ in self.waiting):
                raise Declined("a cell joins a queue the instant the one ahead leaves it")
            self.waiting = [(leave, b) for leave, b in self.waiting if leave > head]
            t = int(rings._tick_of(np.array([head]), np.ones(1, dtype=bool),
                                   "queue change")[0])
            rings._tick_of(np.array([free]), np.ones(1, dtype=bool), "queue change")
            held = size + sum(b for _, b in self.waiting)
            if t < nt and held > rings.q_peak[t, col]:
                rings.q_peak[t, col] = held
            while t < nt and ticks[t] < free:
                rings.q_at[t, col] += size
                t += 1
            self.waiting.append((free, size))
        # busy time read at each tick up to this cell's start, then its predecessor summed in
        first = self.last_stream < 0
        while self.ptr < nt and ticks[self.ptr] <= start:
            tick = float(ticks[self.ptr])
            value = self.busy_sum if first else self.busy_sum + (
                min(self.last_end, tick) - self.last_start)
            rings.busy_at[self.ptr, col] = value
            self.ptr += 1
        if not first:
            self.busy_sum = self.busy_sum + (self.last_end - self.last_start)

    def tail(self, end_all: float) -> None:
        """Ticks after the link's last cell until the rings end: that cell's interval."""
        ticks = self.rings.ticks
        while self.ptr < len(ticks) and ticks[self.ptr] < end_all:
            tick = float(ticks[self.ptr])
            self.rings.busy_at[self.ptr, self.col] = self.busy_sum + (
                min(self.last_end, tick) - self.last_start)
            self.ptr += 1

    def finalize(self) -> None:
        """The port as the per-cell run leaves it (its last cell not yet summed)."""
        port = self.port
        port.tx_start = self.last_start
        port.free_at = self.last_end
        port.busy_time = self.busy_sum
        port.busy = True
