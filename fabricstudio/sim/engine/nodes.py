"""Switches and hosts: what happens when a cell arrives and when it leaves a switch.

Three switch flavours share forwarding and differ in buffer admission:

* :class:`RoceSwitch` - the shared-buffer MMU of the HPCC simulator (``switch-mmu.cc``): each
  ingress (port, lossless priority) is charged reserve, then shared, then headroom when the
  cell's head arrives; PAUSE upstream when headroom is in use or the port's shared use reaches
  the dynamic threshold ``alpha x (B - total headroom - total reserve - shared used)``; RESUME
  when the headroom is empty and shared use + resume offset is at or below the threshold.  A
  cell that overflows the headroom is dropped and counted as a lossless violation.  ECN RED
  ramp at dequeue.
* :class:`EthernetSwitch` - lossy: tail drop when the shared buffer is full or the egress queue
  exceeds its dynamic share ``(B - used)``.
* :class:`IbSwitch` - InfiniBand: the upstream port only sends with credits, so the input
  buffer never overflows; credits go back one link delay + processing after a cell leaves.
  Optional FECN marking (IB congestion control): every cell leaving a congested root port.
"""

from __future__ import annotations

from collections.abc import Callable
from math import sqrt
from random import Random
from typing import TYPE_CHECKING

from fabricstudio.model import DeviceKind
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.ports import WD_DROP, Cell, Port

#: A multi-packet cell arriving at a lossy egress queue fuller than this share of its limit
#: is taken apart into packets (they arrive one by one and are admitted or dropped one by
#: one, as in a packet switch); below it a whole cell always fits.
SPLIT_FRACTION = 0.5

if TYPE_CHECKING:
    from fabricstudio.model import Device
    from fabricstudio.model.devices import Switch as SwitchDevice
    from fabricstudio.sim.engine.core import Engine


def marked_packets(rng: Random, npkts: int, p: float) -> int:
    """Packets of a cell marked when each is marked with probability ``p`` (binomial draw:
    one uniform number per packet up to 32 packets, a normal approximation beyond).

    The cell carries at least one mark with probability ``1 - (1 - p)^npkts``.
    """
    if p >= 1.0:
        return npkts
    if npkts <= 32:
        rand = rng.random
        return sum(1 for _ in range(npkts) if rand() < p)
    mean = npkts * p
    draw = round(rng.gauss(mean, sqrt(mean * (1.0 - p))))
    return min(max(draw, 0), npkts)


class Node:
    """Common part of switches and hosts."""

    def __init__(self, engine: Engine, device_id: str) -> None:
        self.engine = engine
        self.id = device_id
        self.clock = engine.clock
        self.out: dict[int, Port] = {}  # local port number -> egress Port


class Switch(Node):
    """Forwarding shared by all switch flavours."""

    def __init__(self, engine: Engine, device: SwitchDevice, latency_s: float, index: int) -> None:
        super().__init__(engine, device.id)
        self.device = device
        self.latency = latency_s
        self.index = index
        self.tier = max(1, DeviceKind(device.kind).tier)  # leaf 1, spine 2, core 3
        self.buffer = device.buffer_bytes
        self.used = 0
        self.rng = engine.rng
        self.mtu = engine.mtu
        self.overhead = engine.wire_overhead
        self._rr = 0

    def route(self, cell: Cell) -> Port:
        """Egress port of ``cell`` at this switch (precomputed path, or adaptive choice)."""
        flow = cell.flow
        path = flow.path
        if path is not None:
            hop = cell.hop + 1
            cell.hop = hop
            return path[hop]
        return self.least_loaded(self.engine.router.candidates(self, flow.dst_ep))

    def least_loaded(self, ports: tuple[Port, ...]) -> Port:
        """Adaptive routing: least queued minimal next hop; paused ports last; ties rotate."""
        if len(ports) == 1:
            return ports[0]
        self._rr += 1
        n = len(ports)
        now = self.clock.env.t
        best = ports[0]
        best_key = None
        for k in range(n):
            port = ports[(self._rr + k) % n]
            key = (port.paused, port.q_bytes + (1 if port.free_at > now else 0))
            if best_key is None or key < best_key:
                best, best_key = port, key
        return best

    def ecn(self, cell: Cell, port: Port, queue_bytes: int, own: int = 0) -> None:
        """RED ramp on the egress queue at dequeue; marks packets of the cell.  Each packet
        sees the queue it leaves behind: ``queue_bytes`` plus the packets of its own cell
        that are already waiting behind it (at most ``own``: as many as arrived while the
        cell waited; a cell that did not wait streams through, its packets leaving as they
        arrive), as a packet switch marks them."""
        kmin = port.kmin
        mtu = self.mtu
        if queue_bytes + own * mtu <= kmin:
            return
        kmax = port.kmax
        n = cell.npkts
        if own <= 0:
            p = 1.0 if queue_bytes >= kmax else port.pmax * (queue_bytes - kmin) / (kmax - kmin)
            if p <= 0.0:
                return
            k = marked_packets(self.rng, n, p)
        else:
            rand = self.rng.random
            pmax, span = port.pmax, kmax - kmin
            k = 0
            for j in range(n):
                behind = n - 1 - j
                q = queue_bytes + (own if own < behind else behind) * mtu
                if q >= kmax or (q > kmin and rand() < pmax * (q - kmin) / span):
                    k += 1
        if k:
            port.marks += k
            self.engine.ecn_marks += k
            cell.ce += k
            if cell.mark < 0:
                cell.mark = port.index

    def receive(self, event: Call) -> None:
        """A cell (``event.arg``) arrives (per flavour)."""
        raise NotImplementedError

    def on_dequeue(self, cell: Cell, out: Port, start: float) -> None:
        """``cell`` is committed to leave this switch by ``out`` at ``start``: release its
        buffer (per flavour)."""
        raise NotImplementedError

    def drop(self, cell: Cell, port: Port) -> None:
        """Lose ``cell``; counted on ``port``."""
        port.drops += cell.npkts
        self.engine.drop(cell)

    def room(self, out: Port) -> float:
        """Bytes a new arrival for ``out`` may still add: drop-tail into a shared buffer with a
        dynamic per-egress share (Choudhury and Hahne, alpha 1: a queue may grow while it is
        below the free buffer).  The packets of the cell ``out`` is sending that have not
        started yet still occupy the buffer (as at packet granularity)."""
        free: float = self.buffer - self.used
        queued: float = out.q_bytes
        if out.busy:
            left = out.free_at - self.clock.env.t
            if left > 0:
                waiting = (-(-left * out.rate // (self.mtu + self.overhead)) - 1) * self.mtu
                if waiting > 0:
                    free -= waiting
                    queued += waiting
        return free - queued

    def receive_lossy(self, cell: Cell, out: Port) -> None:
        """Tail drop per packet.  A cell that fits is queued whole; one that does not is
        taken apart: its packets arrive one by one over its serialisation time (one event
        each) and each is kept if it fits when it arrives - the interleaving of a packet
        switch, exactly where drops happen.  Packets that were split stay single downstream
        (their ACKs clock the sender per packet while the queue is full)."""
        room = self.room(out)
        if cell.bytes <= room and (cell.npkts == 1
                                   or room >= SPLIT_FRACTION * (self.buffer - self.used)):
            self.used += cell.bytes
            out.enqueue(cell)
            return
        if cell.npkts == 1:
            self.drop(cell, out)
            return
        self.take_apart(cell, out, self._part_arrives_now)

    def take_apart(self, cell: Cell, out: Port, admit: Callable[[Cell, Port], None]) -> None:
        """Split ``cell`` into its packets: they arrive one by one over its serialisation
        time (one event each) and ``admit(packet, out)`` takes each as it arrives, as a packet
        switch interleaves them with other arrivals.  They stay single cells downstream."""
        n = cell.npkts
        flow = cell.flow
        now = self.clock.env.t
        span = cell.tail - now  # the packets arrive spread over this (at least one each)
        first_sent = cell.sent_at - (n - 1) * flow.pkt_time
        for j in range(n):
            seq = cell.seq + j
            size = flow.span_bytes(seq, 1)
            part = Cell(flow, size, 1, size + self.overhead, seq, first_sent + j * flow.pkt_time)
            part.hop = cell.hop
            part.via = cell.via
            part.mark = cell.mark
            part.ce = 1 if j < cell.ce else 0
            part.tail = now + span * (j + 1) / n
            if j == 0:
                admit(part, out)
            else:
                self.clock.call(span * j / n, self._part_arrives, (part, out, admit))

    def _part_arrives(self, event: Call) -> None:
        part, out, admit = event.arg
        admit(part, out)

    def _part_arrives_now(self, part: Cell, out: Port) -> None:
        if out.wd_state == WD_DROP and out.watchdog is not None:
            out.watchdog.discard(out, part)
        elif part.bytes <= self.room(out):
            self.used += part.bytes
            out.enqueue(part)
        else:
            self.drop(part, out)


class RoceSwitch(Switch):
    """Lossless Ethernet switch: PFC with a dynamic-threshold shared buffer, ECN at dequeue."""

    def __init__(self, engine: Engine, device: SwitchDevice, latency_s: float, index: int) -> None:
        super().__init__(engine, device, latency_s, index)
        settings = engine.fabric.pfc
        self.pfc = settings.enabled
        self.reserve = settings.reserve_bytes
        #: what a multi-packet cell may add beyond an ingress's headroom: the packets its
        #: sender put on the wire after the PAUSE took effect (a packet sender stops after
        #: the packet it is sending; a cell is finished whole); drawn on free buffer, never
        #: set aside, so the carve-up does not depend on the cell size
        self.overshoot = max(engine.cell_bytes - engine.mtu, 0)
        self.resume_offset = settings.resume_offset_bytes
        self.total_hdrm = 0
        self.total_rsrv = 0
        self.fixed = 0  # headroom + reserve set aside from the shared pool
        self.shared_used = 0
        #: ingresses whose XOFF waits for the crossing packet of a multi-packet cell
        self.xoff_due: set[Port] = set()
        self.ecn_on = engine.ecn_enabled
        #: DCQCN reacts to marks: cells into a marking queue are taken apart (see receive)
        self.split_marking = engine.ecn_enabled and engine.dcqcn_enabled

    def finish_wiring(self, ingress: list[Port]) -> None:
        """Totals of reserved headroom and reserve over the connected ingress ports."""
        self.total_hdrm = sum(p.headroom for p in ingress)
        self.total_rsrv = self.reserve * len(ingress)
        self.fixed = self.total_hdrm + self.total_rsrv

    def threshold(self, via: Port) -> float:
        """Dynamic PFC threshold for ingress ``via`` (bytes of shared buffer; may be negative
        when headroom and reserve exceed the buffer, which then pauses at once)."""
        return via.alpha * (self.buffer - self.fixed - self.shared_used)

    def receive(self, event: Call) -> None:
        """A cell's head arrived: the ingress MMU admits it (or drops it), PAUSEs upstream if
        needed, and the cell joins its egress queue.  At an egress whose queue is above
        Kmin with DCQCN on, a multi-packet cell is taken apart into packets: they join the
        queue interleaved with the other inputs' packets, as in a packet switch, so each
        flow's packets sample the marking queue as often as at packet level (whole cells
        would let a flow's first mark, and so its first CNP, wait a round of all inputs'
        cells: 42 us for eight senders at 64 KiB and 100 Gb/s, close to the CNP interval)."""
        cell = event.arg
        path = cell.flow.path
        if path is not None:
            hop = cell.hop + 1
            cell.hop = hop
            out = path[hop]
        else:
            out = self.route(cell)
        if not self.pfc:
            if out.wd_state == WD_DROP and out.watchdog is not None:
                out.watchdog.discard(out, cell)
                return
            self.receive_lossy(cell, out)
        elif self.split_marking and cell.npkts > 1 and out.q_bytes > out.kmin:
            self.take_apart(cell, out, self.admit)
        else:
            self.admit(cell, out)

    def admit(self, cell: Cell, out: Port) -> None:
        """Ingress admission of ``cell`` for egress ``out``: reserve, shared, headroom.

        A multi-packet cell is charged as its packets would be, one after the other: those
        that fit the reserve and the port's dynamic share of the pool go there, the rest to
        the headroom (a whole cell charged to the headroom would hold up its RESUME)."""
        if out.wd_state == WD_DROP and out.watchdog is not None:
            out.watchdog.discard(out, cell)  # the PFC watchdog discards this queue's traffic
            return
        via = cell.via
        size = cell.bytes
        reserve = self.reserve
        rx = via.rx_bytes
        new = rx + size
        if new <= reserve:
            via.rx_bytes = new
        elif new - reserve > via.alpha * (self.buffer - self.fixed - self.shared_used):
            hdrm = self._over_threshold(cell, via)
            if via.rx_hdrm + hdrm > via.headroom + self.overshoot or self.used + size > self.buffer:
                # headroom overflow: the packets that still fit are kept, the rest lost
                below = size - hdrm
                room = min(via.headroom + self.overshoot - via.rx_hdrm,
                           self.buffer - self.used - below)
                keep = int((below + room) // self.mtu) if room > 0 else int(below // self.mtu)
                if keep > cell.npkts - 1:
                    keep = cell.npkts - 1
                self.engine.lossless_violations += cell.npkts - keep
                if keep <= 0:
                    self.drop(cell, via)
                    return
                self.engine.trim(cell, keep, via)
                size = cell.bytes
                hdrm = size - below if size > below else 0
            lead = 0  # packets of the cell that arrive before the first one in the headroom
            if hdrm < size:  # the packets below the threshold
                below = size - hdrm
                via.rx_bytes = rx + below
                self.shared_used += below if rx >= reserve else rx + below - reserve
                lead = below // self.mtu
            via.rx_hdrm += hdrm
        else:
            via.rx_bytes = new
            self.shared_used += size if rx >= reserve else new - reserve
            lead = cell.npkts - 1  # a cell that fills the share: XOFF at its last packet
        self.used += size
        if not via.rx_paused and (via.rx_hdrm > 0 or via.rx_bytes - reserve >= via.alpha * (
                self.buffer - self.fixed - self.shared_used)):
            if lead <= 0:
                via.rx_pause()
            elif via not in self.xoff_due:  # XOFF when the packet that crosses arrives
                self.xoff_due.add(via)
                self.clock.call(lead * (self.mtu + self.overhead) / via.rate, self._xoff, via)
        out.enqueue(cell)

    def near_xoff(self, via: Port, size: int) -> bool:
        """Would a cell of ``size`` bytes sent on ``via`` now, with what one PFC loop
        carries ahead of it, take the ingress past its XOFF threshold?  Its transmitter
        then cuts finer cells (``fine_bytes``): a PAUSE stops a packet sender after the
        packet on the wire, a cell sender only after the whole cell."""
        return via.rx_hdrm > 0 or (via.rx_bytes - self.reserve + size + via.rate * via.pfc_delay
                                   > via.alpha * (self.buffer - self.fixed - self.shared_used))

    def _xoff(self, event: Call) -> None:
        """The packet of a cell that crossed its ingress's XOFF threshold has arrived: PAUSE
        upstream if the ingress is still above it."""
        via = event.arg
        self.xoff_due.discard(via)
        if not via.rx_paused and (via.rx_hdrm > 0 or via.rx_bytes - self.reserve >= via.alpha * (
                self.buffer - self.fixed - self.shared_used)):
            via.rx_pause()

    def _over_threshold(self, cell: Cell, via: Port) -> int:
        """Bytes of ``cell`` (past the threshold) that go to the headroom: its packets join
        the reserve, then the shared pool while the port's share stays within the dynamic
        threshold (which falls as the pool fills), the others the headroom."""
        size = cell.bytes
        if cell.npkts <= 1:
            return size
        mtu = self.mtu
        rx = via.rx_bytes
        own = self.reserve - rx if rx < self.reserve else 0  # reserve left
        shared = rx - self.reserve if rx > self.reserve else 0
        alpha = via.alpha
        # packet j (of mtu bytes) goes to the pool while
        # shared + j mtu <= alpha (B - fixed - shared_used - (j - 1) mtu)
        room = alpha * (self.buffer - self.fixed - self.shared_used + mtu) - shared
        fits = int(room // (mtu * (1 + alpha))) if room > 0 else 0
        below = own + fits * mtu
        if below <= 0:
            return size
        return size - below if below < size else 0

    def on_dequeue(self, cell: Cell, out: Port, start: float) -> None:
        """The egress commits the cell: ECN-mark it, release its buffer, RESUME its ingress
        if it fell below XON."""
        if self.ecn_on:
            own = 0
            via = cell.via
            if cell.npkts > 1 and via is not None:  # packets that arrived while it waited
                waited = start - out.fwd - (cell.tail - cell.wire / via.rate)
                if waited > 0:
                    own = int(waited * out.rate * cell.npkts // cell.wire)
                    if own > cell.npkts - 1:
                        own = cell.npkts - 1
            if out.q_bytes + own * self.mtu > out.kmin:
                self.ecn(cell, out, out.q_bytes, own)
        self.release(cell)

    def release(self, cell: Cell) -> None:
        """Free the cell's buffer at its ingress; RESUME the ingress when below XON."""
        size = cell.bytes
        self.used -= size
        if not self.pfc:
            return
        via = cell.via
        reserve = self.reserve
        from_hdrm = via.rx_hdrm if via.rx_hdrm < size else size
        rest = size - from_hdrm
        if via.rx_bytes > reserve:
            excess = via.rx_bytes - reserve
            self.shared_used -= rest if rest < excess else excess
        via.rx_bytes -= rest
        via.rx_hdrm -= from_hdrm
        if via.rx_paused and via.rx_hdrm == 0:
            shared = via.rx_bytes - reserve
            if shared <= 0 or shared + self.resume_offset <= self.threshold(via):
                via.rx_resume()


class EthernetSwitch(Switch):
    """Lossy Ethernet switch: shared buffer with a dynamic per-egress share, tail drop per
    packet; with DCTCP, CE marks above K on the egress queue."""

    def __init__(self, engine: Engine, device: SwitchDevice, latency_s: float,
                 index: int) -> None:
        super().__init__(engine, device, latency_s, index)
        self.dctcp = engine.tcp_params.transport == "dctcp"

    def receive(self, event: Call) -> None:
        """Admit the cell (or those of its packets that fit) into the egress queue."""
        cell = event.arg
        self.receive_lossy(cell, self.route(cell))

    def on_dequeue(self, cell: Cell, out: Port, _start: float) -> None:
        """Release the cell's buffer; DCTCP marking (step at K, on the queue each packet
        leaves behind: the later packets of the cell count toward it as they wait)."""
        self.used -= cell.bytes
        if self.dctcp:
            behind = out.q_bytes
            n = cell.npkts
            if behind + (n - 1) * self.mtu > out.kmin:
                marked = n if behind > out.kmin else n - 1 - int((out.kmin - behind) // self.mtu)
                if marked > 0:
                    out.marks += marked
                    self.engine.ecn_marks += marked
                    cell.ce += marked
                    if cell.mark < 0:
                        cell.mark = out.index


class IbSwitch(Switch):
    """InfiniBand switch: credit-based, never drops; optional FECN marking."""

    def __init__(self, engine: Engine, device: SwitchDevice, latency_s: float, index: int) -> None:
        super().__init__(engine, device, latency_s, index)
        self.credit_delay = engine.fabric.infiniband.credit_processing_ns * 1e-9
        self.fecn = engine.ib_cc
        self.cc_threshold = engine.ibcc_params.threshold_fraction * \
            engine.fabric.infiniband.vl_buffer_bytes
        self.peak_used = 0  # most bytes ever held in its input buffers

    def receive(self, event: Call) -> None:
        """Queue the cell (credits guaranteed it a buffer)."""
        cell = event.arg
        used = self.used + cell.bytes
        self.used = used
        if used > self.peak_used:
            self.peak_used = used
        self.route(cell).enqueue(cell)

    def on_dequeue(self, cell: Cell, out: Port, start: float) -> None:
        """The cell leaves the input buffer at ``start``: return its credits upstream,
        FECN-mark it."""
        size = cell.bytes
        self.used -= size
        via = cell.via
        self.clock.call(start - self.clock.env.t + via.prop + self.credit_delay,
                        via.return_credits, size)
        if self.fecn and out.q_bytes > self.cc_threshold and 2 * out.credits >= out.credit_max:
            # root of congestion (queue above threshold while downstream still grants
            # credits); a victim port starved of credits does not mark (IBTA CC annex A10)
            out.marks += cell.npkts
            self.engine.ecn_marks += cell.npkts
            if cell.mark < 0:
                cell.mark = out.index


class Host(Node):
    """A server: its NIC ports send flows' cells; arriving cells are delivered to flows."""

    def __init__(self, engine: Engine, device: Device) -> None:
        super().__init__(engine, device.id)
        self.device = device
        self.credit_delay = engine.fabric.infiniband.credit_processing_ns * 1e-9

    def receive(self, event: Call) -> None:
        """The tail of a cell reached this NIC: deliver it (unless the NIC is stuck)."""
        cell = event.arg
        hold = cell.via.rx_hold
        if hold is None:
            self.deliver(cell)
        else:
            hold.hold(cell)

    def deliver(self, cell: Cell) -> None:
        """Hand ``cell`` to its flow; free its receive buffer (InfiniBand credits)."""
        engine = self.engine
        engine.in_flight -= cell.bytes
        engine.delivered += cell.bytes
        via = cell.via
        if via.credit_based:
            self.clock.call(via.prop + self.credit_delay, via.return_credits, cell.bytes)
        flow = cell.flow
        sampler = engine.sampler
        if flow.frame_mark != sampler.count:
            flow.frame_mark = sampler.count
            sampler.track(flow.rec)
        flow.on_arrival(cell, self.clock.env.t)
