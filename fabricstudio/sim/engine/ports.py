"""Cells and ports: the per-link state machines of the cell-level engine.

A :class:`Port` is one DIRECTED link: the transmitter at its source (a FIFO of cells,
serialisation at line rate, PFC pause state, InfiniBand credits) plus the receiver-side ingress
accounting at its destination (bytes charged to the receiving switch's shared buffer, headroom,
whether a PAUSE is outstanding).  A :class:`NicPort` is the transmitter of a host NIC: instead
of a FIFO it pulls the next cell from its active flows (round robin, each flow paced by its own
rate or window).

Timing of one hop (virtual cut-through): a cell starts at ``s`` when the transmitter is free,
finishes at ``max(s + wire / C, tail arrival at this node)``; its head reaches the next switch at
``s + t_prop``, where the ingress buffer (MMU, credits) admits it at once, and it may leave
after the switch latency (its egress start is committed then: ``ready = head + latency``); its
tail arrives at ``finish + t_prop``.  Two events per cell-hop: head arrival at the next node and
end of transmission.

PFC (IEEE 802.1Qbb): the receiver of a link sends PAUSE frames carrying a pause time in quanta
(512 bit times at the link rate) and RESUME frames (quanta 0) back to the transmitter; both take
the same path and delay, so they are applied in the order they were sent.  While the receiver
stays above XON it refreshes the PAUSE before it lapses; a PAUSE that is not refreshed expires
at the transmitter.  An optional switch PFC watchdog (see :class:`PfcWatchdog`) breaks pause
storms.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from heapq import heappush
from typing import TYPE_CHECKING, Any, cast

from simpy.events import NORMAL

from fabricstudio.model.units import gbps_to_bytes_per_s
from fabricstudio.sim.engine.clock import Call, Clock

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.engine.core import Engine
    from fabricstudio.sim.engine.flows import Flow
    from fabricstudio.sim.engine.stall import ReceiverStall

INF = float("inf")
#: ``Cell.via`` before the cell's first transmit (never read before it is set).
_NOT_YET = cast("Port", None)


def _no_owner_hook(cell: Cell, port: Port, start: float) -> None:
    """``Port.on_dequeue`` until the network wires the owning switch's hook."""


#: ``fine_bytes`` of a port whose cells are never cut finer (no PFC-active ingress behind it).
UNSPLIT = 1 << 62

class Cell:
    """A train of ``npkts`` packets of one flow moved as one unit.

    ``wire`` = payload + per-packet wire overhead; ``tail`` = time its tail reaches the node it
    is at; ``via`` = the port it arrived on; ``mark`` = index of the first port that ECN/FECN
    marked it (-1 none), ``ce`` = packets carrying a CE mark; ``seq`` = number of its first
    packet within the flow (loss recovery counts packets);
    ``sent_at`` = time the sender put it on the wire (RTT samples); ``ready`` = earliest time
    it may leave the switch where it waits (head arrival + switch latency).
    """

    __slots__ = ("flow", "bytes", "npkts", "wire", "hop", "tail", "via", "mark", "seq", "sent_at",
                 "ready", "ce")

    def __init__(self, flow: Flow, size: int, npkts: int, wire: int, seq: int,
                 now: float) -> None:
        self.flow = flow
        self.bytes = size
        self.npkts = npkts
        self.wire = wire
        self.hop = 0
        self.tail = now
        self.via: Port = _NOT_YET  # the port it last crossed (set by the first transmit)
        self.mark = -1
        self.seq = seq
        self.sent_at = now
        self.ready = now
        self.ce = 0


#: While credits are scarce (below half the pool) a port sends cells of at most this share of
#: its credit pool: packets would leave one by one and return credits as they go; a pool of
#: a few big cells would block far more than the same bytes in packets (docs/engine.md).
FINE_SHARE = 16


def split_cell(cell: Cell, k: int) -> Cell:
    """Take the first ``k`` packets of ``cell`` off as a cell of their own (returned); the
    original keeps the rest.  The front part's tail arrives that much earlier."""
    flow = cell.flow
    size = flow.span_bytes(cell.seq, k)
    wire = size + k * flow.overhead
    rest = cell.npkts - k
    front = Cell(flow, size, k, wire, cell.seq, cell.sent_at - rest * flow.pkt_time)
    front.hop = cell.hop
    front.via = cell.via
    front.mark = cell.mark
    front.ready = cell.ready
    marks = cell.ce if cell.ce < k else k
    front.ce = marks
    via = cell.via
    front.tail = cell.tail - (cell.wire - wire) / via.rate if via is not None else cell.tail
    cell.seq += k
    cell.npkts = rest
    cell.bytes -= size
    cell.wire -= wire
    cell.ce -= marks
    return front


#: Switch PFC watchdog states of an egress port.
WD_OFF, WD_DROP, WD_FORWARD = 0, 1, 2


class Port:
    """Directed link ``src -> dst``: transmitter state at ``src``, ingress state at ``dst``."""

    #: True when the transmitter pulls its next cell at the end of each one (host NICs).
    pulls = False

    __slots__ = (
        # wiring
        "index", "link_id", "src", "dst", "src_port", "dst_port", "speed_gbps", "rate",
        "prop", "clock", "env", "heap", "eid", "engine", "owner", "peer", "to_host",
        "arrive_delay", "peer_receive", "fwd", "reverse",
        "done_cbs", "on_dequeue",
        # transmitter
        "queue", "q_bytes", "busy", "tx_start", "free_at", "done_pending", "paused",
        "paused_since", "pause_until", "expiry_pending", "quantum", "pfc_rx_at",
        "wd_state", "watchdog",
        "credit_based", "credits", "credit_max", "stalled_since",
        # ECN ramp at this egress (bytes)
        "kmin", "kmax", "pmax",
        # ingress accounting at the receiving switch (RoCE MMU) and its PFC sender
        "rx_bytes", "rx_hdrm", "rx_paused", "headroom", "alpha", "rx_hold",
        "pfc_delay", "pause_quanta", "refresh_s", "refresh_pending", "fine_bytes", "pfc_recent",
        # control frames in band (engine.control)
        "ctrl_free_at", "ctrl_bytes",
        # counters (cumulative)
        "busy_time", "tx_cells", "tx_bytes", "frame_max_q", "pauses_sent",
        "paused_time", "marks", "cnps", "drops", "stall_time", "pfc_frames", "wd_triggers",
    )

    def __init__(self, index: int, link_id: str, src: str, src_port: int, dst: str,
                 dst_port: int, speed_gbps: float, prop_s: float, clock: Clock,
                 engine: Engine) -> None:
        self.index = index
        self.link_id = link_id
        self.src, self.src_port, self.dst, self.dst_port = src, src_port, dst, dst_port
        self.speed_gbps = speed_gbps
        self.rate = gbps_to_bytes_per_s(speed_gbps)  # bytes per second on the wire
        self.prop = prop_s
        self.clock = clock
        self.env = clock.env  # the SimPy environment, its event heap and id counter (hot path)
        self.heap = clock.queue
        self.eid = clock.eid
        self.engine = engine
        self.owner: Any = None  # the node that transmits (Switch or Host)
        self.peer: Any = None  # the node that receives
        self.to_host = False
        self.arrive_delay = prop_s
        self.peer_receive: tuple[Callable[[Call], object], ...] = ()
        self.fwd = 0.0  # forwarding latency of the owning switch (0 at a NIC)
        self.reverse: Port | None = None  # the other direction of the same cable
        self.done_cbs = (self._tx_done,)
        # the owning switch's buffer release hook (host NICs never call it)
        self.on_dequeue: Callable[[Cell, Port, float], None] = _no_owner_hook
        self.queue: deque[Cell] = deque()
        self.q_bytes = 0
        self.busy = False
        self.tx_start = 0.0
        self.free_at = 0.0
        self.done_pending = False
        self.paused = False
        self.paused_since = 0.0
        self.pause_until = 0.0
        self.expiry_pending = False
        self.quantum = 512.0 / (speed_gbps * 1e9)  # one PFC pause quantum: 512 bit times
        self.pfc_rx_at = -INF  # arrival time of the last PFC frame
        self.wd_state = WD_OFF
        self.watchdog: PfcWatchdog | None = None
        self.credit_based = False
        self.credits = 0
        self.credit_max = 0
        self.stalled_since = -1.0
        self.kmin = self.kmax = INF
        self.pmax = 0.0
        self.rx_bytes = 0
        self.rx_hdrm = 0
        self.rx_paused = False
        self.headroom = 0
        self.alpha = 0.125
        self.rx_hold: ReceiverStall | None = None  # set while the receiving NIC is stuck
        self.pfc_delay = prop_s
        self.pause_quanta = 65535
        self.refresh_s = INF
        self.refresh_pending = False
        self.fine_bytes = UNSPLIT  # cells above this are split while PFC is (nearly) active
        self.pfc_recent = -1.0  # "PFC active": a PFC frame arrived less than this ago
        self.ctrl_free_at = 0.0  # the last control frame sent in band on this port ends
        self.ctrl_bytes = 0  # wire bytes of control frames it carried
        self.busy_time = 0.0
        self.tx_cells = 0
        self.tx_bytes = 0
        self.frame_max_q = 0
        self.pauses_sent = 0
        self.paused_time = 0.0
        self.marks = 0
        self.cnps = 0
        self.drops = 0
        self.stall_time = 0.0
        self.pfc_frames = 0
        self.wd_triggers = 0

    def __repr__(self) -> str:
        return f"<Port {self.index} {self.src}:{self.src_port}->{self.dst}:{self.dst_port}>"

    # ------------------------------------------------------------------ queueing
    def enqueue(self, cell: Cell) -> None:
        """Queue a cell whose head has just arrived (switch egress); an idle port commits it
        at once to start after the switch latency."""
        queue = self.queue
        if not queue and not self.paused and not self.credit_based and not self.done_pending:
            now = self.env.t
            if not self.busy or now >= self.free_at:
                # fast path: an idle port starts the cell when it has crossed the switch
                if self.busy:
                    self.busy = False
                    self.busy_time += self.free_at - self.tx_start
                start = now + self.fwd
                self.on_dequeue(cell, self, start)
                self.transmit(cell, start)
                return
        cell.ready = self.env.t + self.fwd
        queue.append(cell)
        self.q_bytes += cell.bytes
        if not self.done_pending:
            self.kick()
        if self.q_bytes > self.frame_max_q:
            self.frame_max_q = self.q_bytes

    def kick(self) -> None:
        """Start the head-of-line cell if the transmitter is free, unpaused and has credits.

        A switch port whose queue was empty when it started a cell schedules no end-of-
        transmission event (``done_pending`` False): the first caller after ``free_at``
        finds it idle, one that comes earlier with work waiting schedules the event then.
        """
        if self.busy:
            if self.done_pending:
                return
            now = self.env.t
            if now < self.free_at:
                if self.queue:
                    self.done_pending = True
                    self.clock.post(self.free_at - now, self.done_cbs)
                return
            self.busy = False
            self.busy_time += self.free_at - self.tx_start
        if self.paused or not self.queue:
            return
        cell = self.queue[0]
        if self.credit_based:
            credits = self.credits
            if cell.npkts > 1 and 2 * credits < self.credit_max:
                # credits are scarce (the link is congested): send at most a sixteenth of the
                # credit pool at a time, as packets would trickle, and what the credits cover
                mtu = cell.flow.mtu
                fits = min(credits, self.credit_max // FINE_SHARE) // mtu
                if fits < 1:
                    fits = 1
                if fits < cell.npkts:
                    if credits < fits * mtu:
                        if self.stalled_since < 0:
                            self.stalled_since = self.env.t
                        return
                    cell = split_cell(cell, fits)
                else:
                    self.queue.popleft()
            elif credits < cell.bytes and credits < self.credit_max:
                if self.stalled_since < 0:
                    self.stalled_since = self.env.t
                return
            else:
                self.queue.popleft()
        elif cell.bytes > self.fine_bytes and (self.env.t - self.pfc_rx_at < self.pfc_recent
                                               or self.peer.near_xoff(self, cell.bytes)):
            cell = split_cell(cell, self.fine_bytes // cell.flow.mtu or 1)  # PFC is active
        else:
            self.queue.popleft()
        self.q_bytes -= cell.bytes
        now = self.env.t
        start = cell.ready if cell.ready > now else now
        self.on_dequeue(cell, self, start)
        self.transmit(cell, start)

    def transmit(self, cell: Cell, start: float) -> None:
        """Serialise ``cell`` from ``start`` (now, or when it has crossed the switch); schedule
        the end of transmission and the head's arrival at the next node (the tail's at a NIC).

        (Hot path: events are pushed straight onto SimPy's heap, as ``Clock.post`` does.)
        """
        end = start + cell.wire / self.rate
        if cell.tail > end:  # cut-through never finishes before the tail has arrived
            end = cell.tail
        self.busy = True
        self.tx_start = start
        self.free_at = end
        self.tx_cells += 1
        size = cell.bytes
        self.tx_bytes += size
        if self.credit_based:
            self.credits -= size
        cell.via = self
        tail = end + self.prop
        cell.tail = tail
        heap = self.heap
        if self.queue or self.pulls:
            self.done_pending = True
            done = Call()
            done.callbacks = self.done_cbs
            heappush(heap, (end, NORMAL, next(self.eid), done))
            self.clock.events += 2
        else:
            self.done_pending = False
            self.clock.events += 1
        arrive = Call()
        arrive.callbacks = self.peer_receive
        arrive.arg = cell
        if self.to_host:
            heappush(heap, (tail + self.arrive_delay, NORMAL, next(self.eid), arrive))
        else:
            heappush(heap, (start + self.arrive_delay, NORMAL, next(self.eid), arrive))

    def _tx_done(self, _event: Call) -> None:
        now = self.env.t
        if now < self.free_at:  # control frames slipped in (in band): the data ends later
            self.clock.post(self.free_at - now, self.done_cbs)
            return
        self.done_pending = False
        self.busy = False
        self.busy_time += now - self.tx_start
        self.kick()

    # ------------------------------------------------------------------ PFC, transmitter side
    def pfc_frame(self, event: Call) -> None:
        """A PFC frame from the receiver: ``arg`` = pause quanta (0 = RESUME).  A PAUSE holds
        the transmitter for quanta x 512 bit times unless refreshed or resumed earlier; a
        cell already on the wire (or committed to it) finishes."""
        now = self.env.t
        quanta = event.arg
        self.pfc_rx_at = now
        if self.wd_state == WD_FORWARD:  # the watchdog ignores PFC on this queue
            return
        if quanta:
            self.pause_until = now + quanta * self.quantum
            if not self.paused:
                self.paused = True
                self.paused_since = now
                if not self.expiry_pending:
                    self.expiry_pending = True
                    self.clock.call(self.pause_until - now, self._pause_expiry)
                if self.watchdog is not None:
                    self.watchdog.watch(self, now)
        elif self.paused:
            self._unpause(now)

    def _pause_expiry(self, _event: Call) -> None:
        self.expiry_pending = False
        if not self.paused:
            return
        now = self.env.t
        if now >= self.pause_until - 1e-15:
            self._unpause(now)
        else:  # refreshed meanwhile: check again when the newest PAUSE lapses
            self.expiry_pending = True
            self.clock.call(self.pause_until - now, self._pause_expiry)

    def _unpause(self, now: float) -> None:
        self.paused = False
        self.paused_time += now - self.paused_since
        self.kick()

    # ------------------------------------------------------------------ PFC, receiver side
    def rx_pause(self) -> None:
        """XOFF at the receiving end of this link: send PAUSE upstream and keep refreshing it
        while the ingress stays above XON."""
        self.rx_paused = True
        self.pauses_sent += 1
        self.engine.pfc_pauses += 1
        self._send_pfc(self.pause_quanta)
        if not self.refresh_pending:
            self.refresh_pending = True
            self.clock.call(self.refresh_s, self._refresh)

    def rx_resume(self) -> None:
        """XON at the receiving end: send RESUME (a PFC frame with zero quanta)."""
        self.rx_paused = False
        self._send_pfc(0)

    def _refresh(self, _event: Call) -> None:
        if self.rx_paused:
            self._send_pfc(self.pause_quanta)
            self.clock.call(self.refresh_s, self._refresh)
        else:
            self.refresh_pending = False

    def _send_pfc(self, quanta: int) -> None:
        # PAUSE and RESUME take the same delay, so they arrive in the order they were sent
        self.pfc_frames += 1
        self.engine.pfc_frames += 1
        control = self.engine.control
        if control is None:
            self.clock.call(self.pfc_delay, self.pfc_frame, quanta)
        else:
            control.pfc(self, quanta)

    # ------------------------------------------------------------------ credits
    def return_credits(self, event: Call) -> None:
        """InfiniBand credits (bytes) returned by the receiver."""
        self.credits += event.arg
        if self.stalled_since >= 0:
            self.stall_time += self.env.t - self.stalled_since
            self.stalled_since = -1.0
        self.kick()

    # ------------------------------------------------------------------ metrics
    def busy_until(self, now: float) -> float:
        """Seconds spent transmitting up to ``now`` (read-only)."""
        if self.busy and now > self.tx_start:
            end = self.free_at if self.free_at < now else now
            return self.busy_time + end - self.tx_start
        return self.busy_time

    def paused_until(self, now: float) -> float:
        """Seconds held by PFC PAUSE up to ``now`` (read-only)."""
        return self.paused_time + (now - self.paused_since if self.paused else 0.0)

    def stalled_until(self, now: float) -> float:
        """Seconds waiting for credits up to ``now`` (read-only)."""
        if self.stalled_since >= 0:
            return self.stall_time + now - self.stalled_since
        return self.stall_time


class PfcWatchdog:
    """Switch PFC watchdog (SONiC / Junos style): an egress queue that holds cells while
    paused for ``detect`` seconds without sending triggers it; ``drop`` discards the queue and
    everything that arrives for it, ``forward`` ignores PFC on it; after ``restore`` seconds
    without a PFC frame the queue returns to normal."""

    def __init__(self, engine: Engine, detect_s: float, restore_s: float, action: str) -> None:
        self.engine = engine
        self.clock = engine.clock
        self.detect = detect_s
        self.restore = restore_s
        self.action = WD_DROP if action == "drop" else WD_FORWARD

    def watch(self, port: Port, since: float) -> None:
        """``port`` was just paused: check it ``detect`` seconds later."""
        self.clock.call(self.detect, self._check, (port, since, port.tx_cells))

    def _check(self, event: Call) -> None:
        port, since, sent = event.arg
        if port.wd_state != WD_OFF or not port.paused or port.paused_since != since:
            return  # resumed meanwhile (a new pause has its own check)
        if not port.queue or port.tx_cells != sent:
            self.clock.call(self.detect, self._check, (port, since, port.tx_cells))
            return
        now = self.clock.env.t
        port.wd_state = self.action
        port.wd_triggers += 1
        self.engine.pfc_watchdog_triggers += 1
        if self.action == WD_DROP:
            self.flush(port)
        else:
            port._unpause(now)
        self.clock.call(self.restore, self._restore, port)

    def flush(self, port: Port) -> None:
        """Drop every cell queued at ``port`` (releasing its switch buffer)."""
        owner = port.owner
        while port.queue:
            cell = port.queue.popleft()
            port.q_bytes -= cell.bytes
            owner.release(cell)
            self.discard(port, cell)

    def discard(self, port: Port, cell: Cell) -> None:
        """A cell dropped by the watchdog (counted, not a lossless violation)."""
        port.drops += cell.npkts
        self.engine.watchdog_drops += cell.npkts
        self.engine.drop(cell)

    def _restore(self, event: Call) -> None:
        port = event.arg
        now = self.clock.env.t
        quiet_until = port.pfc_rx_at + self.restore
        if now < quiet_until - 1e-15:  # PFC frames still arrive: the storm goes on
            self.clock.call(quiet_until - now, self._restore, port)
            return
        was = port.wd_state
        port.wd_state = WD_OFF
        if was == WD_FORWARD and port.paused:  # pragma: no cover - forward never pauses
            port._unpause(now)


class NicPort(Port):
    """Transmitter of a host NIC: pulls cells from its active flows, round robin by bytes
    (each flow's turn lasts one full cell of bytes, so flows cutting smaller cells are not
    short-changed; packet schedulers such as Linux fq are fair in bytes too)."""

    __slots__ = ("flows", "wake_at")
    pulls = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flows: deque[Flow] = deque()
        self.wake_at = INF

    def activate(self, flow: Flow) -> None:
        """Add a flow with data to send (no-op when already active)."""
        if not flow.active:
            flow.active = True
            self.flows.append(flow)
        if not self.busy:
            self.kick()

    def kick(self) -> None:
        """Send the next cell of the next eligible flow, or sleep until one is eligible."""
        if self.busy or self.paused:
            return
        flows = self.flows
        n = len(flows)
        if not n:
            return
        now = self.env.t
        earliest = INF
        for _ in range(n):
            flow = flows[0]
            ready = flow.next_time
            if ready <= now:
                break
            if ready < earliest:
                earliest = ready
            flows.rotate(-1)
        else:
            if earliest < self.wake_at:
                self.wake_at = earliest
                self.clock.call(earliest - now, self._wake)
            return
        limit = 0
        if now - self.pfc_rx_at < self.pfc_recent or (  # PAUSEd lately or about to be:
                flow.full_bytes > self.fine_bytes and self.peer.near_xoff(self, flow.full_bytes)):
            limit = self.fine_bytes // flow.mtu or 1  # finer cells (see Port)
        if self.credit_based:
            if 2 * self.credits < self.credit_max:  # scarce credits: finer cells (see Port)
                limit = min(self.credits, self.credit_max // FINE_SHARE) // flow.mtu
                if limit < 1:
                    limit = 1
            need = flow.next_size() if not limit else limit * flow.mtu
            if self.credits < need and self.credits < self.credit_max:
                if self.stalled_since < 0:
                    self.stalled_since = now
                return
        cell = flow.make_cell(now, limit) if limit else flow.make_cell(now)
        if not flow.has_data():
            flows.popleft()
            flow.active = False
            flow.turn = 0
        else:  # byte-fair round robin: a turn lasts one full cell of bytes, however cut
            turn = flow.turn + cell.bytes
            if turn < flow.full_bytes:
                flow.turn = turn
            else:
                flow.turn = 0
                flows.rotate(-1)
        self.engine.offer(cell)
        self.transmit(cell, now)

    def _wake(self, _event: Call) -> None:
        self.wake_at = INF
        self.kick()
