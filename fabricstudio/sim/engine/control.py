"""Control frames in band: ACKs, CNPs, BECNs, NAKs and PFC frames that occupy link time.

By default control frames are out of band: they arrive after the path's base delay (PFC
frames after one link's propagation plus the response time) and cost no link time.  With
``control_frames_in_band`` (scenario field; ``EngineConfig.control_in_band``) each frame
crosses the links it would use, hop by hop (one event per hop):

* at each transmitter it has strict priority over data but does not preempt it: it waits for
  the packet being serialised to end (a cell is a train of packets; the frame slips in
  between two of them), and for control frames queued before it on that port;
* it occupies the link for its wire time - a minimum Ethernet frame, 64 B plus 20 B of
  preamble and inter-frame gap (84 B, 6.7 ns at 100 Gb/s) - and the data behind it leaves
  that much later (the port's utilisation includes it; ``totals.control_wire_bytes`` counts
  the bytes per hop);
* it propagates, crosses the next switch (its latency) and goes on; ACKs, CNPs, BECNs and
  NAKs take the reverse of the flow's path (receiver NIC latency first, sender NIC latency at
  the end), PFC frames the reverse direction of the paused link, then the upstream
  ``pfc.response_time_ns``.  PAUSE and RESUME of one link share that port's control queue, so
  they still arrive in the order they were sent.

Not carried in band: InfiniBand credit updates (link-level flow-control packets, returned after
a fixed delay) and RoCE/IB RC ACKs (coalesced by the NICs; not simulated; the lossless flows'
timeout reads the receiver's progress).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.ports import Port

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.sim.engine.core import Engine

#: Wire bytes of a control frame: a 64-byte minimum Ethernet frame + preamble/IFG (20 B).
CONTROL_WIRE_BYTES = 84


class _Frame:
    """One control frame on its way: the ports still to cross and what to do on arrival."""

    __slots__ = ("ports", "hop", "then", "arg", "last_delay")

    def __init__(self, ports: tuple[Port, ...], then: Callable[[Call], None], arg: Any,
                 last_delay: float) -> None:
        self.ports = ports
        self.hop = 0
        self.then = then
        self.arg = arg
        self.last_delay = last_delay  # after the last link: NIC latency or PFC response


class ControlPlane:
    """Sends control frames in band (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.clock = engine.clock
        self.nic_latency = engine.fabric.nic_latency_ns * 1e-9
        self.response = engine.fabric.pfc.response_time_ns * 1e-9
        self.wire = CONTROL_WIRE_BYTES

    def send(self, ports: tuple[Port, ...], then: Callable[[Call], None],
             arg: Any = None) -> None:
        """A frame from a receiver NIC over ``ports`` (its reverse path) to the sender; calls
        ``then`` (with ``event.arg`` = ``arg``) when it has arrived."""
        frame = _Frame(ports, then, arg, self.nic_latency)
        self.clock.call(self.nic_latency, self._hop, frame)

    def pfc(self, link: Port, quanta: int) -> None:
        """A PFC frame from the receiver of ``link`` to its transmitter (over the cable's
        other direction), applied after the upstream response time."""
        back = link.reverse
        assert back is not None  # cables are duplex: the network pairs every port
        self._cross(_Frame((back,), link.pfc_frame, quanta, self.response))

    def _hop(self, event: Call) -> None:
        self._cross(event.arg)

    def _cross(self, frame: _Frame) -> None:
        """Serialise the frame on its next port (between two packets of the data there)."""
        port = frame.ports[frame.hop]
        now = self.clock.env.t
        start = now
        if port.busy and port.free_at > now:
            begun = port.tx_start
            if begun < now:  # a packet is on the wire: the frame follows it
                packet = (self.engine.mtu + self.engine.wire_overhead) / port.rate
                start = begun + -(-(now - begun) // packet) * packet
                if start > port.free_at:
                    start = port.free_at
        if port.ctrl_free_at > start:
            start = port.ctrl_free_at
        ser = self.wire / port.rate
        port.ctrl_free_at = start + ser
        if port.busy and port.free_at > now:
            port.free_at += ser  # the data behind it leaves that much later
        else:  # an idle port is busy for the frame
            if port.busy:
                port.busy_time += port.free_at - port.tx_start
            port.busy = True
            port.tx_start = start
            port.free_at = start + ser
            if not port.done_pending and (port.pulls or port.queue):
                port.done_pending = True  # the NIC (or a waiting cell) goes on after it
                self.clock.post(port.free_at - now, port.done_cbs)
        port.ctrl_bytes += self.wire
        self.engine.control_wire_bytes += self.wire
        frame.hop += 1
        if frame.hop < len(frame.ports):
            nxt = port.peer.latency if port.peer is not None else 0.0
            self.clock.call(start + ser + port.prop + nxt - now, self._hop, frame)
        else:
            self.clock.call(start + ser + port.prop + frame.last_delay - now, frame.then,
                            frame.arg)
