"""Cells and ports: the per-link state machines of the cell-level engine.

A :class:`Port` is one DIRECTED link: the transmitter at its source (a FIFO of cells,
serialisation at line rate, PFC pause state, InfiniBand credits) plus the receiver-side ingress
accounting at its destination (bytes charged to the receiving switch's shared buffer, headroom,
whether a PAUSE is outstanding).  A :class:`NicPort` is the transmitter of a host NIC: instead
of a FIFO it pulls the next cell from its active flows (round robin, each flow paced by its own
rate or window).

Timing of one hop (virtual cut-through): a cell starts at ``s`` when the transmitter is free,
finishes at ``max(s + wire / C, tail arrival at this node)``; its head reaches the next node at
``s + t_prop`` and may be forwarded after the node latency; its tail arrives at
``finish + t_prop``.  Two events per cell-hop: arrival at the next node and end of transmission.
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


def _no_owner_hook(cell: Cell, port: Port) -> None:
    """``Port.on_dequeue`` until the network wires the owning switch's hook."""


class Cell:
    """A train of ``npkts`` packets of one flow moved as one unit.

    ``wire`` = payload + per-packet wire overhead; ``tail`` = time its tail reaches the node it
    is at; ``via`` = the port it arrived on; ``mark`` = index of the first port that ECN/FECN
    marked it (-1 none); ``seq`` = cell index within the flow (loss recovery);
    ``sent_at`` = time the sender put it on the wire (RTT samples).
    """

    __slots__ = ("flow", "bytes", "npkts", "wire", "hop", "tail", "via", "mark", "seq", "sent_at")

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


class Port:
    """Directed link ``src -> dst``: transmitter state at ``src``, ingress state at ``dst``."""

    #: True when the transmitter pulls its next cell at the end of each one (host NICs).
    pulls = False

    __slots__ = (
        # wiring
        "index", "link_id", "src", "dst", "src_port", "dst_port", "speed_gbps", "rate",
        "prop", "clock", "env", "heap", "eid", "engine", "owner", "peer", "to_host",
        "arrive_delay", "peer_receive",
        "done_cbs", "on_dequeue",
        # transmitter
        "queue", "q_bytes", "busy", "tx_start", "free_at", "done_pending", "paused",
        "paused_since",
        "credit_based", "credits", "credit_max", "stalled_since",
        # ECN ramp at this egress (bytes)
        "kmin", "kmax", "pmax",
        # ingress accounting at the receiving switch (RoCE MMU)
        "rx_bytes", "rx_hdrm", "rx_paused", "headroom", "alpha", "rx_hold",
        # counters (cumulative)
        "busy_time", "tx_cells", "tx_bytes", "frame_max_q", "pauses_sent",
        "paused_time", "marks", "cnps", "drops", "stall_time",
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
        self.done_cbs = (self._tx_done,)
        # the owning switch's buffer release hook (host NICs never call it)
        self.on_dequeue: Callable[[Cell, Port], None] = _no_owner_hook
        self.queue: deque[Cell] = deque()
        self.q_bytes = 0
        self.busy = False
        self.tx_start = 0.0
        self.free_at = 0.0
        self.done_pending = False
        self.paused = False
        self.paused_since = 0.0
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

    def __repr__(self) -> str:
        return f"<Port {self.index} {self.src}:{self.src_port}->{self.dst}:{self.dst_port}>"

    # ------------------------------------------------------------------ queueing
    def enqueue(self, cell: Cell) -> None:
        """Queue a cell for transmission (switch egress) and start it if the port is idle."""
        queue = self.queue
        if not queue and not self.paused and not self.credit_based and not self.done_pending \
                and (not self.busy or self.env.t >= self.free_at):
            # fast path: an idle port starts the cell at once
            if self.busy:
                self.busy = False
                self.busy_time += self.free_at - self.tx_start
            self.on_dequeue(cell, self)
            self.transmit(cell)
            return
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
        if self.credit_based and self.credits < cell.bytes and self.credits < self.credit_max:
            if self.stalled_since < 0:
                self.stalled_since = self.clock.env.t
            return
        self.queue.popleft()
        self.q_bytes -= cell.bytes
        self.on_dequeue(cell, self)
        self.transmit(cell)

    def transmit(self, cell: Cell) -> None:
        """Serialise ``cell`` now; schedule end of transmission and arrival downstream.

        (Hot path: events are pushed straight onto SimPy's heap, as ``Clock.post`` does.)
        """
        now = self.env.t
        end = now + cell.wire / self.rate
        if cell.tail > end:  # cut-through never finishes before the tail has arrived
            end = cell.tail
        self.busy = True
        self.tx_start = now
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
            heappush(heap, (now + self.arrive_delay, NORMAL, next(self.eid), arrive))

    def _tx_done(self, _event: Call) -> None:
        self.done_pending = False
        self.busy = False
        self.busy_time += self.env.t - self.tx_start
        self.kick()

    # ------------------------------------------------------------------ flow control
    def set_paused(self, event: Call) -> None:
        """PFC PAUSE (arg True) or RESUME (arg False) arriving from the receiver."""
        now = self.clock.env.t
        if event.arg:
            if not self.paused:
                self.paused = True
                self.paused_since = now
        elif self.paused:
            self.paused = False
            self.paused_time += now - self.paused_since
            self.kick()

    def return_credits(self, event: Call) -> None:
        """InfiniBand credits (bytes) returned by the receiver."""
        self.credits += event.arg
        if self.stalled_since >= 0:
            self.stall_time += self.clock.env.t - self.stalled_since
            self.stalled_since = -1.0
        self.kick()

    # ------------------------------------------------------------------ metrics
    def busy_until(self, now: float) -> float:
        """Seconds spent transmitting up to ``now`` (read-only)."""
        if self.busy:
            end = self.free_at if self.free_at < now else now
            return self.busy_time + (end - self.tx_start if end > self.tx_start else 0.0)
        return self.busy_time

    def paused_until(self, now: float) -> float:
        """Seconds held by PFC PAUSE up to ``now`` (read-only)."""
        return self.paused_time + (now - self.paused_since if self.paused else 0.0)

    def stalled_until(self, now: float) -> float:
        """Seconds waiting for credits up to ``now`` (read-only)."""
        if self.stalled_since >= 0:
            return self.stall_time + now - self.stalled_since
        return self.stall_time


class NicPort(Port):
    """Transmitter of a host NIC: pulls cells from its active flows, round robin."""

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
        now = self.clock.env.t
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
        if self.credit_based:
            need = flow.next_size()
            if self.credits < need and self.credits < self.credit_max:
                if self.stalled_since < 0:
                    self.stalled_since = now
                return
        flows.rotate(-1)
        cell = flow.make_cell(now)
        if not flow.has_data():
            flows.pop()
            flow.active = False
        self.engine.offer(cell)
        self.transmit(cell)

    def _wake(self, _event: Call) -> None:
        self.wake_at = INF
        self.kick()
