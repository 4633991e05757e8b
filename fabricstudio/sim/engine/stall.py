"""A NIC that stops draining its receive side for a while (host or PCIe hang).

The classic PFC failure (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016):
the stuck NIC's receive buffer fills, it PAUSEs its switch port, the switch queue toward it
fills, the switch PAUSEs every ingress that feeds that queue, and so on upstream (a pause
storm).  The NIC watchdog stops sending pauses after 100 ms (Guo et al.: "default to 100ms")
and the NIC then drops what arrives.  On InfiniBand the NIC simply returns no credits while it
is stuck; on lossy Ethernet it drops when its buffer is full.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricstudio.model import Technology
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.ports import WD_FORWARD, Cell, Port

if TYPE_CHECKING:
    from fabricstudio.sim.engine.core import Engine
    from fabricstudio.sim.engine.nodes import Host

#: Receive buffer of one NIC port (bytes); PAUSE at half of it.
NIC_RX_BUFFER_BYTES = 256 * 1024
#: NIC PFC watchdog (Guo et al. 2016).
PFC_WATCHDOG_S = 0.1


class ReceiverStall:
    """Holds the cells reaching ``port``'s host NIC from ``start`` for ``duration`` seconds."""

    def __init__(self, engine: Engine, host: Host, port: Port, start_s: float,
                 duration_s: float) -> None:
        self.engine = engine
        self.host = host
        self.port = port
        self.held: list[Cell] = []
        self.bytes = 0
        self.watchdog_fired = False
        self.pfc = engine.technology is Technology.ROCE and engine.fabric.pfc.enabled
        now = engine.env.now
        engine.clock.call(start_s - now, self._begin)
        engine.clock.call(start_s + duration_s - now, self._end)
        if self.pfc:
            engine.clock.call(start_s + PFC_WATCHDOG_S - now, self._watchdog)

    def _begin(self, _event: Call) -> None:
        self.port.rx_hold = self

    def hold(self, cell: Cell) -> None:
        """A cell reached the stuck NIC: keep it, pause upstream, or drop it."""
        port = self.port
        size = cell.bytes
        if self.watchdog_fired or self.bytes + size > NIC_RX_BUFFER_BYTES:
            if self.watchdog_fired or port.wd_state == WD_FORWARD:
                # the NIC's own watchdog gave up pausing, or the switch's PFC watchdog
                # forwards regardless of the PAUSE: drops by design, not a violation
                self.engine.watchdog_drops += cell.npkts
            elif self.pfc:
                self.engine.lossless_violations += 1
            port.drops += cell.npkts
            self.engine.drop(cell)
            return
        self.held.append(cell)
        self.bytes += size
        if self.pfc and not port.rx_paused and 2 * self.bytes >= NIC_RX_BUFFER_BYTES:
            port.rx_pause()  # PAUSE, refreshed while the NIC stays stuck

    def _watchdog(self, _event: Call) -> None:
        if self.port.rx_hold is self:
            self.watchdog_fired = True
            if self.port.rx_paused:
                self.port.rx_resume()

    def _end(self, _event: Call) -> None:
        port = self.port
        if port.rx_hold is self:
            port.rx_hold = None
        held, self.held, self.bytes = self.held, [], 0
        for cell in held:
            self.host.deliver(cell)
        if port.rx_paused:
            port.rx_resume()
