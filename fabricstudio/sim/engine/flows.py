"""Flows: how a sender turns bytes into cells and how the receiver consumes them.

* :class:`Flow` - no end-to-end congestion control (InfiniBand, or RoCE "PFC only"): the NIC
  sends at line rate whenever the link lets it (credits / no PAUSE); go-back-N recovery of
  lost cells (RoCE with PFC off, or lossless violations).
* :class:`DcqcnFlow` - RoCE with DCQCN: paced at its queue pair's rate; the receiver sends at
  most one CNP per queue pair per CNP interval for ECN-marked cells (see :mod:`.dcqcn`).
* :class:`~fabricstudio.sim.engine.tcp.TcpFlow` (module :mod:`.tcp`) - lossy Ethernet: TCP
  NewReno, SACK (Linux-like, with RACK-TLP) or DCTCP, all accounted per packet.
* :class:`IbCcFlow` - InfiniBand with FECN/BECN congestion control: each BECN raises the queue
  pair's congestion-control table index (inter-packet delay), a timer lowers it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fabricstudio.sim.engine.clock import Call, Clock
from fabricstudio.sim.engine.config import FlowRecord
from fabricstudio.sim.engine.dcqcn import DcqcnRp
from fabricstudio.sim.engine.params import IbCcParams
from fabricstudio.sim.engine.ports import Cell, NicPort, Port
from fabricstudio.sim.engine.ranges import RangeSet

if TYPE_CHECKING:
    from fabricstudio.sim.engine.core import Engine


class Flow:
    """A unidirectional transfer over the fabric at the NIC's line rate.

    A flow is a sequence of MTU packets (the last one may be short); a cell carries a run of
    ``cell_pkts = cell_bytes // MTU`` whole packets (at least one), so sequence numbers,
    drops and duplicates are counted in packets whatever the cell size.

    Reliability is RoCE RC-like go-back-N, active only when packets are lost (RoCE with PFC
    off, or a lossless violation): with in-order paths a receiver that sees a gap discards
    the cell and NAKs the missing packet once, and the sender goes back to it; with adaptive
    routing the receiver places out-of-order packets (like Spectrum-X DDP) and only the
    timeout recovers.  A flow that lost a packet arms a retransmission timeout
    (``tcp.min_rto_us``): with no progress for one timeout the sender goes back to the first
    missing packet.  ACKs are not simulated cell by cell: the timeout reads the receiver's
    progress directly (it stands for coalesced ACKs).
    """

    __slots__ = ("rec", "engine", "clock", "nic", "path", "dst_ep", "size", "npk", "cell_pkts",
                 "last_bytes", "seq", "max_sent", "next_time", "active", "rev_delay",
                 "on_done", "full_bytes", "full_wire", "mtu", "overhead", "pkt_time",
                 "frame_mark", "turn", "back", "rcv_nxt", "ooo", "nak_for", "rto_pending",
                 "progress_mark",
                 # streams (aggregated collective transfers): packets per unit, bytes its last
                 # packet falls short of an MTU, packets released for sending, progress
                 # callback, units reported
                 "unit_pkts", "unit_short", "limit", "on_units", "units_done")

    def __init__(self, engine: Engine, rec: FlowRecord, nic: NicPort, path: tuple[Port, ...] | None,
                 dst_ep: int, rev_delay: float,
                 on_done: Callable[[FlowRecord], None] | None) -> None:
        self.rec = rec
        self.engine = engine
        self.clock = engine.clock
        self.nic = nic
        self.path = path
        self.dst_ep = dst_ep
        self.size = rec.size_bytes
        self.mtu = mtu = engine.mtu
        self.overhead = engine.wire_overhead
        self.npk = -(-self.size // mtu)  # packets
        self.last_bytes = self.size - (self.npk - 1) * mtu
        self.cell_pkts = max(1, engine.cell_bytes // mtu)
        self.full_bytes = self.cell_pkts * mtu
        self.full_wire = self.full_bytes + self.cell_pkts * self.overhead
        self.pkt_time = (mtu + self.overhead) / nic.rate  # one full packet at the NIC
        self.seq = 0  # next packet to send
        self.max_sent = 0  # packets ever sent: [0, max_sent)
        self.next_time = 0.0
        self.active = False
        self.rev_delay = rev_delay
        self.on_done = on_done
        self.frame_mark = -1  # last frame number in which the sampler was told of progress
        self.turn = 0  # bytes sent in the current round-robin turn at the NIC
        #: the reverse path its control frames take when they are in band (else None)
        self.back: tuple[Port, ...] | None = None
        self.rcv_nxt = 0  # receiver: next packet expected in order
        self.ooo: RangeSet | None = None  # receiver: packets placed out of order (adaptive)
        self.nak_for = -1
        self.rto_pending = False
        self.progress_mark = -1
        self.unit_pkts = self.npk  # one unit: the whole flow
        self.unit_short = mtu - self.last_bytes
        self.limit = self.npk
        self.on_units: Callable[[int], None] | None = None
        self.units_done = 0

    # ------------------------------------------------------------------ streams
    def configure_units(self, unit_bytes: int, released: int,
                        on_units: Callable[[int], None] | None) -> None:
        """Make this flow a stream of ``size / unit_bytes`` units (the size must be a
        multiple): each unit is its own run of packets (its last one may be short), cells
        never straddle a unit, only ``released`` units may be sent until :meth:`release`
        allows more, and ``on_units(n)`` is called each time the first ``n`` units have all
        arrived (in order)."""
        mtu = self.mtu
        pkts = -(-unit_bytes // mtu)
        self.unit_pkts = pkts
        self.unit_short = pkts * mtu - unit_bytes
        self.npk = (self.size // unit_bytes) * pkts
        self.last_bytes = mtu - self.unit_short
        self.limit = min(released * pkts, self.npk)
        self.on_units = on_units

    def release(self, units: int, not_before: float) -> None:
        """Allow the first ``units`` units to be sent, none before ``not_before`` (s)."""
        pkts = min(units * self.unit_pkts, self.npk)
        if pkts <= self.limit:
            return
        starved = self.seq >= self.limit  # else the new units queue behind released ones
        self.limit = pkts
        if starved and not_before > self.next_time:
            self.next_time = not_before
        if self.has_data():
            self.nic.activate(self)

    def _report_units(self) -> None:
        units = self.rcv_nxt // self.unit_pkts
        if units > self.units_done and self.on_units is not None:
            self.units_done = units
            self.on_units(units)

    # ------------------------------------------------------------------ packets
    def span_bytes(self, seq: int, n: int) -> int:
        """Payload bytes of packets ``seq .. seq + n - 1`` (the last packet of each unit -
        of the flow, unless it is a stream - may be short)."""
        u = self.unit_pkts
        return n * self.mtu - ((seq + n) // u - seq // u) * self.unit_short

    def _cell(self, seq: int, n: int, now: float) -> Cell:
        """A cell of packets ``seq .. seq + n - 1``."""
        if n == self.cell_pkts and seq % self.unit_pkts + n < self.unit_pkts:
            return Cell(self, self.full_bytes, n, self.full_wire, seq, now)
        size = self.span_bytes(seq, n)
        return Cell(self, size, n, size + n * self.overhead, seq, now)

    def _count_resent(self, seq: int, n: int) -> None:
        """Account packets ``seq .. seq + n - 1`` as retransmitted where sent before."""
        if seq < self.max_sent:
            self.engine.retransmitted += self.span_bytes(seq, min(n, self.max_sent - seq))
        if seq + n > self.max_sent:
            self.max_sent = seq + n

    # ------------------------------------------------------------------ sending
    def has_data(self) -> bool:
        """True while the sender still has released packets to put on the wire."""
        return self.seq < self.limit

    def _unit_left(self, seq: int) -> int:
        """Packets from ``seq`` to the end of its unit (a cell never straddles two)."""
        u = self.unit_pkts
        return u - seq % u

    def next_size(self) -> int:
        """Payload bytes of the next cell."""
        seq = self.seq
        n = self._unit_left(seq)
        return self.span_bytes(seq, n if n < self.cell_pkts else self.cell_pkts)

    def make_cell(self, now: float, limit: int = 0) -> Cell:
        """Cut the next cell (called by the NIC when it starts transmitting it); ``limit``
        caps its packets (the credits the NIC holds)."""
        seq = self.seq
        u = self.unit_pkts
        n = u - seq % u  # to the end of its unit (a cell never straddles two)
        if n > self.cell_pkts:
            n = self.cell_pkts
        if limit and n > limit:
            n = limit
        self.seq = seq + n
        if seq < self.max_sent:
            self._count_resent(seq, n)
        else:
            self.max_sent = seq + n
        return self._cell(seq, n, now)

    def go_back(self, seq: int) -> None:
        """Resend from packet ``seq`` (go-back-N)."""
        if seq < self.seq:
            self.seq = seq
            self.nic.activate(self)

    def on_drop(self, cell: Cell) -> None:
        """Packets of this flow were lost: make sure the retransmission timer runs."""
        if not self.rto_pending and self.rec.finish_s is None:
            self.rto_pending = True
            self.progress_mark = self.rcv_nxt
            self.clock.call(self.engine.tcp_params.min_rto, self._on_rto)

    def _on_rto(self, _event: Call) -> None:
        if self.rec.finish_s is not None:
            self.rto_pending = False
            return
        if self.rcv_nxt == self.progress_mark:  # no progress for a whole timeout
            self.engine.timeouts += 1
            self.go_back(self.rcv_nxt)
        self.progress_mark = self.rcv_nxt
        self.clock.call(self.engine.tcp_params.min_rto, self._on_rto)

    def on_nak(self, event: Call) -> None:
        """Receiver asks to resend from packet ``event.arg``."""
        if self.rec.finish_s is None:
            self.go_back(event.arg)

    # ------------------------------------------------------------------ receiving
    def on_arrival(self, cell: Cell, now: float) -> None:
        """A cell reached the destination NIC: accept its packets in order (or place them)."""
        seq = cell.seq
        end = seq + cell.npkts
        rcv = self.rcv_nxt
        rec = self.rec
        if seq <= rcv < end:
            if seq == rcv and self.ooo is None:  # the usual case: the next packets in order
                rec.delivered_bytes += cell.bytes
                self.rcv_nxt = end
            else:
                new = self._accept(rcv, end)
                self.engine.duplicates += cell.bytes - new
            if self.on_units is not None:
                self._report_units()
            if self.rcv_nxt >= self.npk:
                self.finish(now)
        elif seq > rcv and self.path is None:  # adaptive routing: place out of order
            new = self._accept(seq, end)
            self.engine.duplicates += cell.bytes - new
        else:
            self.engine.duplicates += cell.bytes  # duplicate, or discarded after a gap
            if seq > rcv and self.nak_for != rcv:
                self.nak_for = rcv
                self.reply(self.on_nak, rcv)

    def reply(self, then: Callable[[Call], None], arg: object = None) -> None:
        """A control frame from the receiver back to the sender (ACK, NAK, CNP, BECN): after
        the path's base delay, or in band over the reverse path."""
        control = self.engine.control
        if self.back is None or control is None:
            self.clock.call(self.rev_delay, then, arg)
        else:
            control.send(self.back, then, arg)

    def _accept(self, seq: int, end: int) -> int:
        """Take packets ``seq .. end - 1`` not held yet; advance the in-order point; returns
        the payload bytes that were new."""
        if self.ooo is None:
            self.ooo = RangeSet()
        start = seq if seq > self.rcv_nxt else self.rcv_nxt
        new = self.ooo.add(start, end, self.span_bytes)
        self.rec.delivered_bytes += new
        self.rcv_nxt = self.ooo.advance(self.rcv_nxt)
        return new

    def finish(self, now: float) -> None:
        """The last byte is delivered."""
        self.rec.finish_s = now
        self.engine.flow_finished(self.rec)
        if self.on_done is not None:
            self.on_done(self.rec)


class DcqcnFlow(Flow):
    """RoCE flow paced by its queue pair's DCQCN rate (see :mod:`.dcqcn`).

    The NIC's rate limiter makes one packet due every ``g = packet wire / Rc``; ``due`` is
    when the next one is.  Below line rate a cell carries the packets that are due when the
    NIC takes it, at least ``Rc / line`` of a full cell's packets (so a throttled flow moves
    in the time steps of a line-rate one): with full cells sent when their first packet is
    due, N throttled flows would each run up to a cell ahead of their packets and feed the
    bottleneck N-cell bursts - more ECN marks and CNPs the bigger the cells.  A flow the NIC
    served late (its round robin was sending the other flows' cells) catches up in its next
    cell, as a packet pacer does packet by packet; a longer delay (PAUSE, credits, idle)
    restarts the clock.  A rate change rescales the part of the gap still ahead.
    """

    __slots__ = ("rp", "due", "paced_until")

    def __init__(self, *args: Any, rp: DcqcnRp, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rp = rp
        self.due = 0.0  # the pacer's clock: when the next packet is due
        self.paced_until = -1.0  # the next cell's booked time, when pacing is what holds it
        rp.flows.append(self)

    def _book(self, rc: float, cut: int = 0) -> None:
        """Book the next cell for when ``Rc / line`` of a full cell's packets are due (or
        ``cut`` packets, when the NIC cuts finer cells: PFC is, or is about to be, active)."""
        line = self.rp.line
        when = self.due
        if rc < line:
            cap = int(self.cell_pkts * rc / line) or 1
            if cut and cut < cap:
                cap = cut
            when += (cap - 1) * self.pkt_time * line / rc
        self.next_time = self.paced_until = when

    def make_cell(self, now: float, limit: int = 0) -> Cell:
        """Cut the next cell: below line rate, of the packets due by now (see the class)."""
        rp = self.rp
        rc, line = rp.rc, rp.line
        if rc >= line:
            cell = Flow.make_cell(self, now, limit)
            self.due = now + cell.wire / line
            return cell
        gap = self.pkt_time * line / rc
        due = self.due
        if (self.paced_until != self.next_time
                or now - self.next_time > len(self.nic.flows) * self.full_wire / line):
            due = now  # not held by the pacer, or held up beyond a round of the NIC: afresh
        n = int((now - due) / gap) + 1  # packets due by now
        if n > self.cell_pkts:
            n = self.cell_pkts
        cut = limit if limit and limit < n else 0
        cell = Flow.make_cell(self, now, cut or n)
        self.due = due + cell.wire / rc
        self._book(rc, limit)
        rp.sent(cell.bytes)
        return cell

    def repace(self, now: float, factor: float) -> None:
        """The rate changed by ``1 / factor``: the part of the pacer's gap still ahead
        stretches or shrinks accordingly, and the next cell is booked again."""
        due = self.due
        if due > now:
            self.due = now + (due - now) * factor
        if self.next_time != self.paced_until:
            return  # pacing does not hold the next cell
        before = self.next_time
        self._book(self.rp.rc)
        if self.next_time < before and self.active:
            self.nic.kick()  # before the wake-up the NIC may have booked

    def finish(self, now: float) -> None:
        """The last byte is delivered: the queue pair no longer paces this flow."""
        self.rp.flows.remove(self)
        Flow.finish(self, now)

    def on_arrival(self, cell: Cell, now: float) -> None:
        """Notification point: at most one CNP per queue pair per interval for marked cells."""
        rp = self.rp
        if cell.mark >= 0 and now - rp.last_cnp >= rp.p.cnp_interval:
            rp.last_cnp = now
            self.engine.ports[cell.mark].cnps += 1
            self.engine.cnps += 1
            self.reply(rp.on_cnp)
        Flow.on_arrival(self, cell, now)


class IbCcState:
    """InfiniBand congestion-control state of one queue pair: the CCT index."""

    __slots__ = ("clock", "p", "ccti", "pending")

    def __init__(self, clock: Clock, params: IbCcParams) -> None:
        self.clock = clock
        self.p = params
        self.ccti = 0
        self.pending = False

    def on_becn(self, _event: Call) -> None:
        """Raise the CCT index; run the recovery timer."""
        self.ccti = min(self.ccti + self.p.ccti_increase, self.p.ccti_limit)
        if not self.pending:
            self.pending = True
            self.clock.call(self.p.ccti_timer, self._on_timer)

    def _on_timer(self, _event: Call) -> None:
        self.ccti -= 1
        if self.ccti > 0:
            self.clock.call(self.p.ccti_timer, self._on_timer)
        else:
            self.pending = False


class IbCcFlow(Flow):
    """InfiniBand flow with FECN/BECN congestion control: its queue pair's CCT index sets an
    inter-cell injection delay."""

    __slots__ = ("cc",)

    def __init__(self, *args: Any, cc: IbCcState, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cc = cc

    def make_cell(self, now: float, limit: int = 0) -> Cell:
        """Cut the next cell (smaller while throttled, as DcqcnFlow); delay the next by the
        table's inter-packet delay."""
        ccti = self.cc.ccti
        if ccti and self.cell_pkts > 1:
            cap = int(self.cell_pkts / (1.0 + ccti * self.cc.p.ipd_step)) or 1
            if not limit or cap < limit:
                limit = cap
        cell = Flow.make_cell(self, now, limit)
        ccti = self.cc.ccti
        if ccti:
            ser = cell.wire / self.nic.rate
            self.next_time = now + ser * (1.0 + ccti * self.cc.p.ipd_step)
        return cell

    def on_arrival(self, cell: Cell, now: float) -> None:
        """FECN-marked cells make the receiver return a BECN."""
        if cell.mark >= 0:
            self.engine.ports[cell.mark].cnps += 1
            self.engine.cnps += 1
            self.reply(self.cc.on_becn)
        Flow.on_arrival(self, cell, now)
