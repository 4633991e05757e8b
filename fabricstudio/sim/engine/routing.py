"""Routing over minimal paths: ECMP hashing, destination-based static (D-mod-K) and adaptive.

Hosts never forward.  For every destination endpoint (a host NIC) the router knows its
attachment switch; a switch's minimal next hops toward it are the links to neighbours one hop
closer (breadth-first distances over the switch graph, computed once per attachment switch).

* ECMP (Ethernet/RoCE default): a deterministic 64-bit hash of the flow's 5-tuple (source and
  destination endpoint, protocol, UDP source port derived from the queue pair, RoCEv2 port
  4791) mixed with a per-switch seed picks one next hop per flow (HPCC ``EcmpHash`` idea).
* Static (InfiniBand default): the subnet manager pins each destination to one next hop,
  D-mod-K style: at a switch of tier t (leaf 1, spine 2, core 3) with K minimal next hops,
  ``(destination index // K^(t-1)) mod K`` - consecutive destinations spread over a leaf's
  uplinks, and the next tier uses the next digit so upper links are not left idle.
* Adaptive: chosen per cell at each switch, least queued first (see ``Switch.least_loaded``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from fabricstudio.sim.engine.config import EngineError
from fabricstudio.sim.engine.ports import NicPort, Port

MASK64 = (1 << 64) - 1
ROCE_UDP_PORT = 4791
UDP = 17


def mix64(x: int) -> int:
    """SplitMix64 finaliser: a well-spread deterministic 64-bit hash of an integer."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def five_tuple_hash(src: int, dst: int, sport: int, seed: int) -> int:
    """Hash of (src, dst, UDP, sport, 4791) mixed with a per-switch seed."""
    h = mix64(src)
    h = mix64(h ^ dst)
    h = mix64(h ^ ((UDP << 32) | (sport << 16) | ROCE_UDP_PORT))
    return mix64(h ^ seed)


@dataclass(frozen=True)
class Endpoint:
    """A host NIC attached to the fabric."""

    index: int
    host: str
    port: int
    up: NicPort  # host -> attachment
    down: Port  # attachment -> host

    @property
    def attach(self) -> str:
        """Device at the other end of the NIC's cable."""
        return self.up.dst


class Router:
    """Minimal-path next hops and per-flow path selection."""

    def __init__(self, switches: dict, endpoints: list[Endpoint], mode: str, seed: int) -> None:
        self.switches = switches  # id -> Switch
        self.endpoints = endpoints
        self.mode = mode
        self.seed = seed
        self._dist: dict[str, dict[str, int]] = {}
        self._cand: dict[tuple[int, int], tuple[Port, ...]] = {}
        self._seeds = {sid: mix64(seed * 1_000_003 + sw.index) for sid, sw in switches.items()}

    def _distances(self, target: str) -> dict[str, int]:
        """Hop distance of every switch to switch ``target`` (BFS over switch-switch links)."""
        dist = self._dist.get(target)
        if dist is None:
            dist = {target: 0}
            todo = deque([target])
            while todo:
                here = todo.popleft()
                for port in self.switches[here].out.values():
                    nxt = port.dst
                    if nxt in self.switches and nxt not in dist:
                        dist[nxt] = dist[here] + 1
                        todo.append(nxt)
            self._dist[target] = dist
        return dist

    def candidates(self, switch, dst_ep: int) -> tuple[Port, ...]:
        """Minimal next hops from ``switch`` toward endpoint ``dst_ep``."""
        key = (switch.index, dst_ep)
        cands = self._cand.get(key)
        if cands is None:
            ep = self.endpoints[dst_ep]
            if switch.id == ep.attach:
                cands = (ep.down,)
            else:
                dist = self._distances(ep.attach)
                here = dist.get(switch.id)
                cands = () if here is None else tuple(
                    p for _, p in sorted(switch.out.items())
                    if p.dst in self.switches and dist.get(p.dst, -1) == here - 1)
            self._cand[key] = cands
        return cands

    def path(self, src: Endpoint, dst: Endpoint, sport: int, mode: str) -> tuple[Port, ...]:
        """Port sequence from ``src`` to ``dst``; ``mode`` is "ecmp", "static" or "adaptive"
        (adaptive returns the first minimal path, used only for delays and validation)."""
        ports: list[Port] = [src.up]
        here = src.attach
        for _ in range(len(self.switches) + 1):
            if here == dst.host:
                if ports[-1] is not dst.down:
                    break
                return tuple(ports)
            switch = self.switches.get(here)
            if switch is None:
                break
            cands = self.candidates(switch, dst.index)
            if not cands:
                break
            if len(cands) == 1 or mode == "adaptive":
                port = cands[0]
            elif mode == "static":
                n = len(cands)  # D-mod-K: digit (tier - 1) of the destination in base n
                port = cands[(dst.index // n ** (switch.tier - 1)) % n]
            else:
                port = cands[five_tuple_hash(src.index, dst.index, sport, self._seeds[here])
                             % len(cands)]
            ports.append(port)
            here = port.dst
        raise EngineError(f"no path from {src.host} nic{src.port} to {dst.host} nic{dst.port}")
