"""Flows: how a sender turns bytes into cells and how the receiver consumes them.

* :class:`Flow` - no end-to-end congestion control (InfiniBand, or RoCE "PFC only"): the NIC
  sends at line rate whenever the link lets it (credits / no PAUSE); go-back-N recovery of
  lost cells (RoCE with PFC off, or lossless violations).
* :class:`DcqcnFlow` - RoCE with DCQCN: paced at its queue pair's rate; the receiver sends at
  most one CNP per queue pair per CNP interval for ECN-marked cells (see :mod:`.dcqcn`).
* :class:`TcpFlow` - lossy Ethernet: a TCP-like sender (window, slow start, congestion
  avoidance, fast retransmit after ``dupack_threshold`` duplicate ACKs with window halving,
  retransmission timeout with go-back-N and exponential backoff); the receiver buffers
  out-of-order cells and ACKs every cell (one duplicate ACK per packet of an out-of-order cell).
  ACKs return after the path's base delay (the reverse path is assumed uncongested).
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
from fabricstudio.sim.engine.ports import INF, Cell, NicPort, Port

if TYPE_CHECKING:
    from fabricstudio.sim.engine.core import Engine


class Flow:
    """A unidirectional transfer over the fabric at the NIC's line rate.

    Reliability is RoCE RC-like go-back-N, active only when cells are lost (RoCE with PFC
    off, or a lossless violation): cells carry sequence numbers; with in-order paths a
    receiver that sees a gap discards the cell and NAKs the missing one once, and the sender
    goes back to it; with adaptive routing the receiver places out-of-order cells (like
    Spectrum-X DDP) and only the timeout recovers.  A flow that lost a cell arms a
    retransmission timeout (``tcp.min_rto_us``): with no progress for one timeout the sender
    goes back to the first missing cell.  ACKs are not simulated cell by cell: the timeout
    reads the receiver's progress directly (it stands for coalesced ACKs).
    """

    __slots__ = ("rec", "engine", "clock", "nic", "path", "dst_ep", "size", "cell_bytes",
                 "ncells", "last_size", "seq", "max_sent", "next_time", "active", "rev_delay",
                 "on_done", "full_npkts", "full_wire", "mtu", "overhead", "frame_mark",
                 "rcv_nxt", "ooo", "nak_for", "rto_pending", "progress_mark",
                 # streams (aggregated collective transfers): cells per unit, size of a unit's
                 # last cell, cells released for sending, progress callback, units reported
                 "unit_cells", "unit_last", "limit", "on_units", "units_done")

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
        self.cell_bytes = engine.cell_bytes
        self.ncells = -(-self.size // self.cell_bytes)
        self.last_size = self.size - (self.ncells - 1) * self.cell_bytes
        self.seq = 0
        self.max_sent = 0
        self.next_time = 0.0
        self.active = False
        self.rev_delay = rev_delay
        self.on_done = on_done
        self.mtu = engine.mtu
        self.overhead = engine.wire_overhead
        self.full_npkts = -(-self.cell_bytes // self.mtu)
        self.full_wire = self.cell_bytes + self.full_npkts * self.overhead
        self.frame_mark = -1  # last frame number in which the sampler was told of progress
        self.rcv_nxt = 0
        self.ooo: set[int] | None = None
        self.nak_for = -1
        self.rto_pending = False
        self.progress_mark = -1
        self.unit_cells = self.ncells
        self.unit_last = self.last_size
        self.limit = self.ncells
        self.on_units: Callable[[int], None] | None = None
        self.units_done = 0

    def configure_units(self, unit_bytes: int, released: int,
                        on_units: Callable[[int], None] | None) -> None:
        """Make this flow a stream of ``size / unit_bytes`` units (the size must be a
        multiple): cells never straddle a unit, only ``released`` units may be sent until
        :meth:`release` allows more, and ``on_units(n)`` is called each time the first ``n``
        units have all arrived (in order)."""
        cells = -(-unit_bytes // self.cell_bytes)
        self.unit_cells = cells
        self.unit_last = unit_bytes - (cells - 1) * self.cell_bytes
        self.ncells = (self.size // unit_bytes) * cells
        self.last_size = self.unit_last
        self.limit = min(released * cells, self.ncells)
        self.on_units = on_units

    def release(self, units: int, not_before: float) -> None:
        """Allow the first ``units`` units to be sent, none before ``not_before`` (s)."""
        cells = min(units * self.unit_cells, self.ncells)
        if cells <= self.limit:
            return
        starved = self.seq >= self.limit  # else the new units queue behind released ones
        self.limit = cells
        if starved and not_before > self.next_time:
            self.next_time = not_before
        if self.has_data():
            self.nic.activate(self)

    def _report_units(self) -> None:
        units = self.rcv_nxt // self.unit_cells
        if units > self.units_done and self.on_units is not None:
            self.units_done = units
            self.on_units(units)

    # ------------------------------------------------------------------ sending
    def has_data(self) -> bool:
        """True while the sender still has released cells to put on the wire."""
        return self.seq < self.limit

    def seq_size(self, seq: int) -> int:
        """Payload bytes of cell ``seq``."""
        return self.cell_bytes if (seq + 1) % self.unit_cells else self.unit_last

    def next_size(self) -> int:
        """Payload bytes of the next cell."""
        return self.seq_size(self.seq)

    def _cell(self, size: int, seq: int, now: float) -> Cell:
        if size == self.cell_bytes:
            return Cell(self, size, self.full_npkts, self.full_wire, seq, now)
        npkts = -(-size // self.mtu)
        return Cell(self, size, npkts, size + npkts * self.overhead, seq, now)

    def make_cell(self, now: float) -> Cell:
        """Cut the next cell (called by the NIC when it starts transmitting it)."""
        seq = self.seq
        self.seq = seq + 1
        size = self.cell_bytes if (seq + 1) % self.unit_cells else self.unit_last
        if seq < self.max_sent:
            self.engine.retransmitted += size
        else:
            self.max_sent = seq + 1
        return self._cell(size, seq, now)

    def go_back(self, seq: int) -> None:
        """Resend from cell ``seq`` (go-back-N)."""
        if seq < self.seq:
            self.seq = seq
            self.nic.activate(self)

    def on_drop(self, cell: Cell) -> None:
        """One of this flow's cells was lost: make sure the retransmission timer runs."""
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
        """Receiver asks to resend from ``event.arg``."""
        if self.rec.finish_s is None:
            self.go_back(event.arg)

    # ------------------------------------------------------------------ receiving
    def on_arrival(self, cell: Cell, now: float) -> None:
        """A cell reached the destination NIC: accept it in order (or place it)."""
        seq = cell.seq
        rec = self.rec
        if seq == self.rcv_nxt:
            rec.delivered_bytes += cell.bytes
            self.rcv_nxt = seq + 1
            if self.ooo:
                self._drain()
            if self.on_units is not None:
                self._report_units()
            if self.rcv_nxt >= self.ncells:
                self.finish(now)
        elif seq > self.rcv_nxt and self.path is None:  # adaptive: place out of order
            if self.ooo is None:
                self.ooo = set()
            if seq in self.ooo:
                self.engine.duplicates += cell.bytes
            else:
                self.ooo.add(seq)
                rec.delivered_bytes += cell.bytes
        else:
            self.engine.duplicates += cell.bytes  # duplicate, or discarded after a gap
            if seq > self.rcv_nxt and self.nak_for != self.rcv_nxt:
                self.nak_for = self.rcv_nxt
                self.clock.call(self.rev_delay, self.on_nak, self.rcv_nxt)

    def _drain(self) -> None:
        ooo = self.ooo
        if ooo is None:
            return
        while self.rcv_nxt in ooo:
            ooo.discard(self.rcv_nxt)
            self.rcv_nxt += 1

    def finish(self, now: float) -> None:
        """The last byte is delivered."""
        self.rec.finish_s = now
        self.engine.flow_finished(self.rec)
        if self.on_done is not None:
            self.on_done(self.rec)


class DcqcnFlow(Flow):
    """RoCE flow paced by its queue pair's DCQCN rate (see :mod:`.dcqcn`)."""

    __slots__ = ("rp",)

    def __init__(self, *args: Any, rp: DcqcnRp, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rp = rp

    def make_cell(self, now: float) -> Cell:
        """Cut the next cell and pace the following one at the current rate Rc."""
        cell = Flow.make_cell(self, now)
        rp = self.rp
        if rp.rc < rp.line:
            self.next_time = now + cell.wire / rp.rc
            rp.sent(cell.bytes)
        return cell

    def on_arrival(self, cell: Cell, now: float) -> None:
        """Notification point: at most one CNP per queue pair per interval for marked cells."""
        rp = self.rp
        if cell.mark >= 0 and now - rp.last_cnp >= rp.p.cnp_interval:
            rp.last_cnp = now
            self.engine.ports[cell.mark].cnps += 1
            self.engine.cnps += 1
            self.clock.call(self.rev_delay, rp.on_cnp)
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

    def make_cell(self, now: float) -> Cell:
        """Cut the next cell; delay the next by the table's inter-packet delay."""
        cell = Flow.make_cell(self, now)
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
            self.clock.call(self.rev_delay, self.cc.on_becn)
        Flow.on_arrival(self, cell, now)


class TcpFlow(Flow):
    """Reliable flow over a lossy fabric: TCP-like window, fast retransmit, RTO."""

    __slots__ = ("snd_una", "snd_nxt", "cwnd", "ssthresh", "dupacks", "recovery", "recover",
                 "srtt", "rttvar", "rto", "rto_deadline", "retx", "tcp")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tcp = self.engine.tcp_params
        self.snd_una = self.snd_nxt = 0
        self.cwnd = float(max(self.tcp.initial_window, self.cell_bytes))
        self.ssthresh = INF
        self.dupacks = 0
        self.recovery = False
        self.recover = 0
        self.srtt = -1.0
        self.rttvar = 0.0
        self.rto = self.tcp.min_rto
        self.rto_deadline = INF
        self.rto_pending = False
        self.retx: list[int] = []
        self.ooo: set[int] = set()

    # ------------------------------------------------------------------ sender
    def has_data(self) -> bool:
        return bool(self.retx) or self.snd_nxt < self.limit

    def release(self, units: int, not_before: float) -> None:
        """Allow more units (see :meth:`Flow.release`); the window still applies."""
        cells = min(units * self.unit_cells, self.ncells)
        if cells <= self.limit:
            return
        starved = self.snd_nxt >= self.limit and not self.retx
        self.limit = cells
        if self.rec.finish_s is None:
            self._resume_sending()
            if starved and self.next_time < not_before:
                self.next_time = not_before

    def on_drop(self, cell: Cell) -> None:
        """Losses are found by duplicate ACKs and the flow's own timer."""

    def next_size(self) -> int:
        return self.seq_size(self.retx[0] if self.retx else self.snd_nxt)

    def _window_open(self) -> bool:
        if self.retx:
            return True
        flight = (self.snd_nxt - self.snd_una) * self.cell_bytes
        return self.snd_nxt < self.limit and (flight == 0 or flight + self.cell_bytes <= self.cwnd)

    def make_cell(self, now: float) -> Cell:
        """Next cell: a pending retransmission first, else new data within the window."""
        if self.retx:
            seq = self.retx.pop(0)
        else:
            seq = self.snd_nxt
            self.snd_nxt = seq + 1
        size = self.seq_size(seq)
        if seq < self.max_sent:
            self.engine.retransmitted += size
        else:
            self.max_sent = seq + 1
        self.next_time = 0.0 if self._window_open() else INF
        if not self.rto_pending:
            self.rto_deadline = now + self.rto
            self.rto_pending = True
            self.clock.call(self.rto, self._on_rto)
        return self._cell(size, seq, now)

    def on_ack(self, event: Call) -> None:
        """Cumulative ACK (``ack`` = next cell expected) for a cell of ``npkts`` packets."""
        ack, npkts, sent_at = event.arg
        if self.snd_una >= self.ncells:
            return
        now = self.clock.env.t
        if ack > self.snd_una:
            self._rtt_sample(now - sent_at)
            acked = (ack - self.snd_una) * self.cell_bytes
            self.snd_una = ack
            if self.snd_nxt < ack:
                self.snd_nxt = ack
            self.retx = [s for s in self.retx if s >= ack]
            self.dupacks = 0
            if self.recovery:
                if ack >= self.recover:
                    self.recovery = False
                    self.cwnd = self.ssthresh
                elif not self.retx:
                    self.retx.append(ack)  # NewReno partial ACK: resend the next hole
            elif self.cwnd < self.ssthresh:
                self.cwnd += acked
            else:
                self.cwnd += self.cell_bytes * acked / self.cwnd
            self.rto_deadline = INF if self.snd_una >= self.ncells else now + self.rto
        elif ack == self.snd_una and self.snd_nxt > ack:
            self.dupacks += npkts
            if not self.recovery and self.dupacks >= self.tcp.dupack_threshold:
                self._halve()
                self.cwnd = self.ssthresh
                self.retx.append(ack)
                self.recovery = True
                self.recover = self.snd_nxt
        self._resume_sending()

    def _halve(self) -> None:
        flight = (self.snd_nxt - self.snd_una) * self.cell_bytes
        self.ssthresh = max(flight / 2.0, 2.0 * self.cell_bytes)

    def _rtt_sample(self, rtt: float) -> None:
        if self.srtt < 0:
            self.srtt, self.rttvar = rtt, rtt / 2.0
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt
        self.rto = max(self.tcp.min_rto, self.srtt + 4.0 * self.rttvar)

    def _on_rto(self, _event: Call) -> None:
        now = self.clock.env.t
        if self.snd_una >= self.ncells or self.rto_deadline == INF:
            self.rto_pending = False
            return
        if now < self.rto_deadline - 1e-15:
            self.clock.call(self.rto_deadline - now, self._on_rto)
            return
        self._halve()  # timeout: go back N from the first unacknowledged cell, window of one
        self.cwnd = float(self.cell_bytes)
        self.snd_nxt = self.snd_una
        self.retx = []
        self.recovery = False
        self.dupacks = 0
        self.rto = min(2.0 * self.rto, 64.0 * self.tcp.min_rto)
        self.engine.timeouts += 1
        self.rto_deadline = now + self.rto
        self.clock.call(self.rto, self._on_rto)
        self._resume_sending()

    def _resume_sending(self) -> None:
        if self._window_open():
            self.next_time = 0.0
            self.nic.activate(self)
        else:
            self.next_time = INF

    # ------------------------------------------------------------------ receiver
    def on_arrival(self, cell: Cell, now: float) -> None:
        """Buffer the cell, advance the in-order point, ACK it."""
        seq = cell.seq
        rec = self.rec
        if seq < self.rcv_nxt or seq in self.ooo or rec.finish_s is not None:
            self.engine.duplicates += cell.bytes
        elif seq == self.rcv_nxt:
            rec.delivered_bytes += cell.bytes
            self.rcv_nxt = seq + 1
            ooo = self.ooo
            while self.rcv_nxt in ooo:
                ooo.discard(self.rcv_nxt)
                self.rcv_nxt += 1
            if self.on_units is not None:
                self._report_units()
        else:
            rec.delivered_bytes += cell.bytes
            self.ooo.add(seq)
        self.clock.call(self.rev_delay, self.on_ack, (self.rcv_nxt, cell.npkts, cell.sent_at))
        if self.rcv_nxt >= self.ncells and rec.finish_s is None:
            self.finish(now)
