"""TCP over lossy Ethernet, accounted per packet inside cells.

TCP flows send cells of one packet whatever the engine's cell size (the engine says so in its
warnings): where a lossy queue overflows, which packets of which flows are lost, how the ACK
clock of each sender reacts and when a tail is lost are packet-scale events, and coarser units
changed them measurably (docs/engine.md, "Lossy Ethernet").  The machinery below works on runs
of consecutive packets all the same (a cell of n packets is ACKed, SACKed and retransmitted per
packet), as RoCE without PFC does with multi-packet cells:

* the receiver keeps out-of-order packets (a :class:`~.ranges.RangeSet`) and returns one ACK
  per arriving cell carrying the cumulative ACK, the cell's packets as a SACK block, how many
  packets it stands for (duplicate ACKs are counted per packet), how many were CE-marked, and
  the echoed send time (TCP timestamps: every ACK gives an RTT sample);
* the sender keeps a scoreboard per outstanding packet (SACKed, lost, retransmitted) and
  estimates the packets in flight as ``outstanding - sacked - lost + retransmitted``
  (RFC 6675 "pipe", Linux ``tcp_packets_in_flight``); it cuts a cell of at most
  ``cwnd - pipe`` packets, so a window of 3 packets sends 3 packets even with 16-packet cells;
* a switch that can store only some packets of a cell keeps the first ones and drops the
  rest (tail drop per packet).

Transports (``FabricSettings.tcp.transport``):

* ``newreno`` - RFC 5681 / RFC 6582: duplicate ACKs, fast retransmit after
  ``dupack_threshold``, NewReno partial ACKs (one hole per round trip), window halving;
* ``sack`` (default) - what a tuned Linux datacenter host runs: SACK (RFC 2018) scoreboard,
  RACK-TLP loss detection (RFC 8985; Linux ``tcp_recovery=1``, ``tcp_early_retrans=3``): a
  packet is lost once a packet sent after it is delivered and ``RACK.rtt + reo_wnd`` has
  passed (reo_wnd = 0 once 3 packets are SACKed or in recovery, else min RTT / 4); a tail
  loss probe after 2 SRTT + 2 ms (Linux ``tcp_schedule_loss_probe``) instead of waiting for
  the RTO; CUBIC congestion control, which at datacenter round trips runs in its
  Reno-friendly region: +3(1-b)/(1+b) = 0.53 packets per RTT, decrease to b = 0.7
  (RFC 9438 section 4.3; Linux default ``tcp_congestion_control=cubic``);
* ``dctcp`` - RFC 8257 / Alizadeh et al. (SIGCOMM 2010) over the same SACK/RACK-TLP recovery:
  switches mark CE when the egress queue exceeds K; once per window of data
  ``alpha = (1 - g) alpha + g F`` (F = fraction of marked packets, g = 1/16), and a window
  with marks cuts ``cwnd *= 1 - alpha/2``; a loss halves the window as Reno.

All: slow start from ``initial_window`` (RFC 6928 IW10 by default), congestion avoidance,
retransmission timeout ``max(min_rto, srtt + 4 rttvar)`` (RFC 6298) with exponential backoff
up to 120 s (Linux ``TCP_RTO_MAX``); on a timeout every outstanding packet not SACKed is
marked lost and resent from a window of one; a receive window caps the packets beyond the
cumulative ACK.  ACKs return after the path's base delay (reverse path uncongested, unless
control frames are in band).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.flows import Flow
from fabricstudio.sim.engine.ports import INF, Cell
from fabricstudio.sim.engine.ranges import RangeSet

#: Scoreboard flags of an outstanding packet.
SACKED, LOST, RETRANS = 1, 2, 4
#: Congestion states (Linux tcp_ca_state): open, fast recovery, after a timeout.
OPEN, RECOVERY, LOSS = 0, 1, 2
#: Timer kinds sharing the one retransmission timer (as Linux's icsk_pending).
T_NONE, T_RTO, T_TLP, T_REO = 0, 1, 2, 3
#: Maximum retransmission timeout (Linux TCP_RTO_MAX).
RTO_MAX_S = 120.0
#: Linux TCP_TIMEOUT_MIN (2 jiffies at HZ=1000), added to 2 SRTT for the loss probe.
TLP_EXTRA_S = 2e-3
#: Linux TCP_RTO_MIN: the probe allowance when a single packet is outstanding.
TLP_SINGLE_EXTRA_S = 0.2


class TcpFlow(Flow):
    """A TCP connection's sender and receiver (see the module docstring)."""

    __slots__ = (
        "tcp", "variant", "sack", "cubic", "dctcp", "una", "nxt", "flags", "xmit", "base",
        "sacked_out", "lost_out", "retrans_out", "dupacks", "rtx_ptr", "cwnd", "ssthresh",
        "state", "recover", "srtt", "rttvar", "min_rtt", "rto", "backoff", "rto_at", "timer_at",
        "timer_kind", "timer_event_at", "timer_token", "segs", "seg_pos", "rack_xmit",
        "rack_seq", "rack_rtt", "probe", "rescue", "tlp_high", "rwnd", "alpha", "dc_acked",
        "dc_marked", "dc_next", "cwr_until", "rcv_ooo", "beta", "ai",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # TCP runs per packet: its cells carry one MTU whatever the engine's cell size (drop
        # patterns, ACK clocking and loss recovery are packet-scale; docs/engine.md)
        self.cell_pkts = 1
        self.full_bytes = self.mtu
        self.full_wire = self.mtu + self.overhead
        p = self.engine.tcp_params
        self.tcp = p
        self.variant = p.transport
        self.sack = p.transport != "newreno"
        self.cubic = p.transport == "sack"
        self.dctcp = p.transport == "dctcp"
        # CUBIC in its Reno-friendly region: decrease to b, increase 3(1-b)/(1+b) per RTT
        self.beta = 0.7 if self.cubic else 0.5
        self.ai = 3 * (1 - 0.7) / (1 + 0.7) if self.cubic else 1.0
        self.una = 0  # first packet not cumulatively acknowledged
        self.nxt = 0  # next new packet
        self.flags: list[int] = []  # scoreboard of packets una .. nxt-1 (from index base)
        self.xmit: list[float] = []  # time of each one's latest transmission
        self.base = 0  # index of packet una in flags/xmit
        self.sacked_out = self.lost_out = self.retrans_out = 0
        self.dupacks = 0  # NewReno: duplicate ACKs (packets) since the last new ACK
        self.rtx_ptr = 0  # no packet below this is marked lost and not yet resent
        self.cwnd = float(p.initial_window_packets)
        self.ssthresh = INF
        self.state = OPEN
        self.recover = 0
        self.srtt = -1.0
        self.rttvar = 0.0
        self.min_rtt = INF
        self.rto = p.min_rto
        self.backoff = 1
        self.rto_at = INF  # when the retransmission timeout is due
        self.timer_at = INF  # when the armed timer expires (INF: none)
        self.timer_kind = T_NONE
        self.timer_event_at = INF  # when its scheduled event fires (<= timer_at)
        self.timer_token = 0  # events of older schedules are ignored
        # transmissions in time order: (first packet, end, send time of the first); packet
        # first + j left at that time + j packet times (the NIC sends them back to back)
        self.segs: deque[tuple[int, int, float]] = deque()
        self.seg_pos = 0  # packets of segs[0] already examined by RACK
        self.rack_xmit = -INF  # send time of the most recently sent packet delivered ...
        self.rack_seq = -1  # ... and its number (ties of one burst break by sequence)
        self.rack_rtt = 0.0
        self.probe = False  # a tail loss probe is due
        self.rescue = False  # the first retransmission of a recovery is due (any window)
        self.tlp_high = -1
        self.rwnd = p.receive_window_packets
        self.alpha = 1.0  # DCTCP (RFC 8257: initialised to 1)
        self.dc_acked = self.dc_marked = 0
        self.dc_next = 0
        self.cwr_until = 0
        self.rcv_ooo = RangeSet()

    # ------------------------------------------------------------------ scoreboard
    def pipe(self) -> int:
        """Packets believed in flight (RFC 6675 pipe)."""
        out = self.nxt - self.una
        held = self.sacked_out if self.sack else min(self.dupacks, max(out - 1, 0))
        return out - held - self.lost_out + self.retrans_out

    def _room(self) -> int:
        return int(self.cwnd + 1e-9) - self.pipe()

    def _lost_waiting(self) -> bool:
        return self.lost_out > self.retrans_out

    def has_data(self) -> bool:
        return self.probe or self.nxt < self.limit or self._lost_waiting()

    def release(self, units: int, not_before: float) -> None:
        """Allow more units of a stream (see :meth:`Flow.release`); the window still
        applies."""
        pkts = min(units * self.unit_pkts, self.npk)
        if pkts <= self.limit:
            return
        starved = self.nxt >= self.limit and not self._lost_waiting()
        self.limit = pkts
        if self.rec.finish_s is None:
            self._resume_sending()
            if starved and self.next_time < not_before:
                self.next_time = not_before

    def next_size(self) -> int:
        return self.mtu

    def _can_send(self) -> bool:
        if self.probe or (self.rescue and self._lost_waiting()):
            return True
        if self._room() <= 0:
            return False
        if self._lost_waiting():
            return True
        return self.nxt < self.limit and self.nxt - self.una < self.rwnd

    def _mark_lost(self, p: int) -> None:
        """Packet ``p`` (outstanding, not SACKed) is lost; resend it."""
        i = p - self.una + self.base
        f = self.flags[i]
        if f & SACKED:
            return
        if f & RETRANS:  # a retransmission lost again
            self.retrans_out -= 1
        if not f & LOST:
            self.lost_out += 1
        self.flags[i] = (f | LOST) & ~RETRANS
        if p < self.rtx_ptr:
            self.rtx_ptr = p

    # ------------------------------------------------------------------ sending
    def make_cell(self, now: float, limit: int = 0) -> Cell:
        """The next cell: lost packets first, then new data, within cwnd - pipe packets
        (a tail loss probe sends one packet regardless of the window)."""
        room = self._room()
        if limit and room > limit:
            room = limit
        forced = self.probe
        if forced:
            self.probe = False
            room = 1
        if self.rescue:  # RFC 6675 (4.3), RFC 6582: resend the first hole at once
            self.rescue = False
            if room < 1:
                room = 1
        seq = -1
        n = 0
        base, una, flags = self.base, self.una, self.flags
        if self._lost_waiting():
            p = self.rtx_ptr if self.rtx_ptr > una else una
            while p < self.nxt and flags[p - una + base] & (LOST | RETRANS) != LOST:
                p += 1
            self.rtx_ptr = p
            if p < self.nxt:
                seq = p
                limit = min(self.cell_pkts, room, self.nxt - p)
                while n < limit and flags[p + n - una + base] & (LOST | RETRANS) == LOST:
                    flags[p + n - una + base] |= RETRANS
                    n += 1
                self.retrans_out += n
                self.rtx_ptr = p + n
        if seq < 0:
            if self.nxt < self.limit and self.nxt - una < self.rwnd:
                seq = self.nxt
                n = min(self.cell_pkts, room, self._unit_left(seq), self.limit - seq,
                        una + self.rwnd - seq)
                self.nxt = seq + n
                flags.extend([0] * n)
                self.xmit.extend([now] * n)
            else:  # probe with the highest packet sent (Linux: retransmit the tail)
                seq = self.nxt - 1
                n = 1
                i = seq - una + base
                if not flags[i] & (SACKED | RETRANS):
                    flags[i] |= RETRANS
                    self.retrans_out += 1
        if seq < self.max_sent:
            self._count_resent(seq, n)
        else:
            self.max_sent = seq + n
        cell = self._cell(seq, n, now)
        # each packet's send time (its timestamp); the cell echoes its last packet's
        pt = self.pkt_time
        xmit = self.xmit
        i0 = seq - una + base
        for j in range(n):
            xmit[i0 + j] = now + j * pt
        cell.sent_at = now + (n - 1) * pt
        if self.sack:
            self.segs.append((seq, seq + n, now))
        if forced:
            self.tlp_high = self.nxt
            self.engine.tail_loss_probes += 1
            self.rto_at = now + self.rto
            self._arm(T_RTO, self.rto_at)
        elif self.timer_kind != T_REO:
            # the RTO starts if it was not running; a loss probe is (re)scheduled after
            # every transmission (Linux tcp_schedule_loss_probe)
            self._arm_after_send(now, restart=self.timer_kind == T_NONE)
        self.next_time = 0.0 if self._can_send() else INF
        return cell

    # ------------------------------------------------------------------ timers
    def _arm(self, kind: int, at: float) -> None:
        """Set the one retransmission timer (RTO, loss probe or reordering) to ``at``.  A
        later deadline reuses the scheduled event (it sleeps again when it fires early)."""
        self.timer_kind = kind
        self.timer_at = at
        if at < self.timer_event_at - 1e-15:
            self.timer_token += 1
            self.timer_event_at = at
            self.clock.call(at - self.clock.env.t, self._on_timer, self.timer_token)

    def _arm_after_send(self, now: float, restart: bool) -> None:
        """The RTO (restarted from now when ``restart``), or a tail loss probe when eligible,
        never later than the RTO (Linux tcp_schedule_loss_probe)."""
        if self.una >= self.nxt:
            self.timer_kind = T_NONE
            self.timer_at = self.rto_at = INF
            return
        if restart or self.rto_at == INF:
            self.rto_at = now + self.rto
        if (self.sack and self.tcp.tail_loss_probe and self.state == OPEN
                and self.tlp_high < 0 and self.srtt > 0):
            extra = TLP_SINGLE_EXTRA_S if self.nxt - self.una == 1 else TLP_EXTRA_S
            self._arm(T_TLP, min(now + 2 * self.srtt + extra, self.rto_at))
            return
        self._arm(T_RTO, self.rto_at)

    def _on_timer(self, event: Call) -> None:
        if event.arg != self.timer_token:
            return  # superseded by an earlier deadline
        now = self.clock.env.t
        self.timer_event_at = INF
        if self.timer_at == INF or self.una >= self.npk:
            return
        if now < self.timer_at - 1e-15:  # re-armed later meanwhile: sleep until then
            self.timer_event_at = self.timer_at
            self.clock.call(self.timer_at - now, self._on_timer, self.timer_token)
            return
        kind, self.timer_kind, self.timer_at = self.timer_kind, T_NONE, INF
        if kind == T_RTO:
            self._timeout(now)
        elif kind == T_TLP:
            self.probe = True
        elif kind == T_REO:
            self._rack_detect(now)
            self._enter_recovery_if_lost()
        if self.timer_kind == T_NONE:
            if kind != T_REO or self.rto_at <= now:
                self.rto_at = now + self.rto
            self._arm(T_RTO, self.rto_at)
        self._resume_sending()

    def _timeout(self, now: float) -> None:
        """Retransmission timeout: every outstanding packet not SACKed is lost; slow start
        from one packet; the timeout doubles (exponential backoff)."""
        self.engine.timeouts += 1
        self.ssthresh = max(self.cwnd * self.beta if self.state != LOSS else self.ssthresh, 2.0)
        self.cwnd = 1.0
        self.state = LOSS
        self.recover = self.nxt
        self.dupacks = 0
        self.retrans_out = 0
        flags, base, una = self.flags, self.base, self.una
        lost = 0
        for i in range(base, base + self.nxt - una):
            f = flags[i]
            if f & SACKED:
                continue
            flags[i] = (f | LOST) & ~RETRANS
            lost += 1
        self.lost_out = lost
        self.rtx_ptr = una
        self.segs.clear()
        self.seg_pos = 0
        self.tlp_high = -1
        self.probe = False
        self.backoff = min(self.backoff * 2, 1 << 30)
        self.rto = min(self._rto_base() * self.backoff, RTO_MAX_S)

    def _rto_base(self) -> float:
        if self.srtt < 0:
            return self.tcp.min_rto
        return max(self.tcp.min_rto, self.srtt + 4.0 * self.rttvar)

    # ------------------------------------------------------------------ ACKs
    def on_ack(self, event: Call) -> None:
        """An ACK: cumulative point, SACK block, packets it stands for, CE marks, echo."""
        ack, first, end, npkts, ce, echo = event.arg
        if self.una >= self.npk:
            return
        now = self.clock.env.t
        self._rtt_sample(now - echo)
        prior = self.una
        delivered = 0
        if ack > self.una:
            delivered += self._advance(ack)
        if self.sack:
            if end > ack:  # the packets beyond the cumulative ACK: a SACK block
                delivered += self._sacked(max(first, self.una), end)
            if delivered and (echo > self.rack_xmit
                              or (echo == self.rack_xmit and end - 1 > self.rack_seq)):
                self.rack_xmit = echo
                self.rack_seq = end - 1
                self.rack_rtt = now - echo
        elif ack == prior and self.nxt > ack:
            self.dupacks += npkts
            delivered += npkts
        if self.dctcp:
            self._dctcp(ce, delivered, now)
        self._congestion_control(prior, delivered, now)
        if self.una >= self.npk:
            self.timer_kind = T_NONE
            self.timer_at = self.rto_at = INF
            self.next_time = INF
            return
        self._resume_sending()

    def _advance(self, ack: int) -> int:
        """Cumulative ACK up to packet ``ack``: drop them from the scoreboard; returns how
        many were newly delivered (not SACKed before)."""
        if ack > self.nxt:  # after a timeout the receiver may be ahead of what we resent
            self.flags.extend([0] * (ack - self.nxt))
            self.xmit.extend([0.0] * (ack - self.nxt))
            self.nxt = ack
        flags = self.flags
        base = self.base
        newly = 0
        for i in range(base, base + ack - self.una):
            f = flags[i]
            if f & SACKED:
                self.sacked_out -= 1
            else:
                newly += 1
            if f & LOST:
                self.lost_out -= 1
            if f & RETRANS:
                self.retrans_out -= 1
        self.base = base + ack - self.una
        if not self.sack:
            self.dupacks = max(0, self.dupacks - (ack - self.una))
        self.una = ack
        if self.base > 4096 and self.base * 2 > len(flags):
            del flags[:self.base], self.xmit[:self.base]
            self.base = 0
        self.backoff = 1
        self.rto = self._rto_base()
        return newly

    def _sacked(self, start: int, end: int) -> int:
        """A SACK block: mark its packets; returns how many were newly SACKed."""
        if end > self.nxt:
            end = self.nxt
        flags = self.flags
        off = self.base - self.una
        newly = 0
        for i in range(start + off, end + off):
            f = flags[i]
            if f & SACKED:
                continue
            if f & LOST:
                self.lost_out -= 1
            if f & RETRANS:
                self.retrans_out -= 1
            flags[i] = SACKED
            newly += 1
        self.sacked_out += newly
        return newly

    def _rtt_sample(self, rtt: float) -> None:
        if rtt <= 0:
            return
        if rtt < self.min_rtt:
            self.min_rtt = rtt
        if self.srtt < 0:
            self.srtt, self.rttvar = rtt, rtt / 2.0
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt

    # ------------------------------------------------------------------ congestion control
    def _congestion_control(self, prior: int, delivered: int, now: float) -> None:
        progressed = self.una > prior
        if progressed:
            self._arm_after_send(now, restart=True)  # the RTO restarts (RFC 6298 5.3)
        if self.sack:
            self._rack_detect(now)
            self._enter_recovery_if_lost()
        elif self.state == OPEN and self.dupacks >= self.tcp.dupack_threshold:
            self._enter_recovery()
            self._mark_lost(self.una)  # fast retransmit of the first hole
        elif self.state == RECOVERY and progressed and self.una < self.recover:
            self._mark_lost(self.una)  # NewReno partial ACK: the next hole, at once
            self.rescue = True
        if self.state != OPEN and self.una >= self.recover:
            if self.state == RECOVERY:
                self.cwnd = self.ssthresh
            self.state = OPEN
            self.dupacks = 0
        if self.tlp_high >= 0 and self.una >= self.tlp_high:
            self.tlp_high = -1
        if self.state != RECOVERY and progressed:  # only ACKs of new data raise the window
            if self.cwnd < self.ssthresh:
                self.cwnd += delivered
            else:
                self.cwnd += self.ai * delivered / self.cwnd

    def _enter_recovery_if_lost(self) -> None:
        if self.state == OPEN and self.lost_out > 0:
            self._enter_recovery()

    def _enter_recovery(self) -> None:
        """Fast recovery: reduce the window once for this loss episode (RFC 6675 with the
        congestion control's decrease; Linux PRR reaches the same window over one round)."""
        self.engine.fast_retransmits += 1
        self.ssthresh = max(self.cwnd * self.beta, 2.0)
        self.cwnd = self.ssthresh
        self.state = RECOVERY
        self.recover = self.nxt
        self.tlp_high = -1
        self.rescue = True

    def _rack_detect(self, now: float) -> None:
        """RACK (RFC 8985): a packet is lost when one sent after it (later, or in the same
        burst with a higher sequence number, as Linux breaks ties) was delivered and
        ``RACK.rtt + reo_wnd`` has passed since it was sent; else wait for the rest."""
        segs = self.segs
        if not segs or self.rack_seq < 0:
            return
        if self.state != OPEN or self.sacked_out >= self.tcp.dupack_threshold:
            reo = 0.0
        else:
            reo = min(self.min_rtt / 4.0, self.srtt)
        flags, xmit = self.flags, self.xmit
        off = self.base - self.una
        pt = self.pkt_time
        rack_xmit, rack_seq = self.rack_xmit, self.rack_seq
        limit = now - self.rack_rtt - reo  # sent at or before this: overdue
        wait = 0.0
        while segs:
            start, end, first = segs[0]
            p = max(start + self.seg_pos, self.una)
            while p < end:
                sent = first + (p - start) * pt
                if sent > rack_xmit or (sent == rack_xmit and p >= rack_seq):
                    break  # sent after the last delivered packet: nothing to say yet
                i = p + off
                f = flags[i]
                if not f & SACKED and xmit[i] == sent and (f & (LOST | RETRANS)) != LOST:
                    if sent > limit + 1e-12:  # (a picosecond of float slack: no timer storm)
                        wait = sent - limit
                        break
                    self._mark_lost(p)
                p += 1
            if p < end:
                self.seg_pos = p - start
                break
            segs.popleft()
            self.seg_pos = 0
        if wait > 0 and (self.timer_kind != T_REO or self.timer_at > now + wait):
            self._arm(T_REO, now + wait)  # Linux: the reordering timer takes the slot

    def _dctcp(self, ce: int, delivered: int, now: float) -> None:
        """RFC 8257: alpha per window of data; one cut per window that saw marks."""
        self.dc_acked += delivered
        self.dc_marked += ce
        if self.una >= self.dc_next:
            if self.dc_acked:
                g = self.tcp.dctcp_g
                self.alpha = (1 - g) * self.alpha + g * min(1.0, self.dc_marked / self.dc_acked)
            self.dc_acked = self.dc_marked = 0
            self.dc_next = self.nxt
        if ce and self.state == OPEN and self.una >= self.cwr_until:
            self.cwnd = max(self.cwnd * (1 - self.alpha / 2), 2.0)
            self.ssthresh = self.cwnd
            self.cwr_until = self.nxt

    def _resume_sending(self) -> None:
        if self._can_send():
            self.next_time = 0.0
            self.nic.activate(self)
        else:
            self.next_time = INF

    # ------------------------------------------------------------------ receiver
    def on_arrival(self, cell: Cell, now: float) -> None:
        """Keep the new packets, advance the in-order point, ACK the cell."""
        seq = cell.seq
        end = seq + cell.npkts
        rec = self.rec
        rcv = self.rcv_nxt
        if rec.finish_s is not None or end <= rcv:
            self.engine.duplicates += cell.bytes
        elif seq == rcv and not self.rcv_ooo:
            rec.delivered_bytes += cell.bytes
            self.rcv_nxt = end
        else:
            new = self.rcv_ooo.add(max(seq, rcv), end, self.span_bytes)
            rec.delivered_bytes += new
            self.engine.duplicates += cell.bytes - new
            self.rcv_nxt = self.rcv_ooo.advance(rcv)
        if self.on_units is not None:
            self._report_units()
        ack = self.rcv_nxt
        args = (ack, seq, end, cell.npkts, cell.ce, cell.sent_at)
        self.reply(self.on_ack, args)
        if ack >= self.npk and rec.finish_s is None:
            self.finish(now)
