"""Routing over minimal paths: ECMP hashing, destination-based static (D-mod-K) and adaptive.

Hosts never forward.  For every destination endpoint (a host NIC) the router knows its
attachment switch; a switch's minimal next hops toward it are the links to neighbours one hop
closer (breadth-first distances over the switch graph, computed once per attachment switch).

* ECMP (Ethernet/RoCE default): a deterministic 64-bit hash of the flow's 5-tuple (source and
  destination endpoint, protocol, UDP source port derived from the queue pair, RoCEv2 port
  4791) mixed with a per-switch seed picks one next hop per flow (HPCC ``EcmpHash`` idea).
* Static (InfiniBand default): the subnet manager pins each destination to one next hop,
  D-mod-K style: at a switch of tier t (leaf 1, spine 2, core 3) with K minimal next hops,
  ``(destination index // K^(t-1)) mod K`` going up - consecutive destinations spread over a
  leaf's uplinks, and the next tier uses the next digit so upper links are not left idle;
  going down over parallel links, ``destination index mod K`` (see ``static_choice``).
* Adaptive: chosen per cell at each switch, least queued first (see ``Switch.least_loaded``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from fabricstudio.sim.engine.config import EngineError

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


def connection_sport(src_index: int, dst_index: int, qp: int) -> int:
    """UDP source port of queue pair ``qp`` from NIC endpoint ``src_index`` to ``dst_index``
    (RoCEv2 takes it from the queue pair: the ECMP hash's entropy)."""
    return 49152 + (mix64((src_index << 24) ^ dst_index) + qp) % 16384


def resolve_mode(requested: str, infiniband: bool) -> str:
    """Routing mode in effect: ``default`` is static (subnet manager) on InfiniBand, else
    ECMP; "ecmp", "static" and "adaptive" stand."""
    if requested == "default":
        return "static" if infiniband else "ecmp"
    return requested


class Hop(Protocol):
    """What the router reads of a directed link: the cell engine's Port or the flow engine's
    LinkRef."""

    @property
    def index(self) -> int: ...
    @property
    def dst(self) -> str: ...


#: The directed-link type a router hands out (Port in the cell engine, LinkRef in the flow
#: engine).
H = TypeVar("H", bound=Hop)
H_co = TypeVar("H_co", bound=Hop, covariant=True)
#: An endpoint's egress and ingress link types (the cell engine's NIC egress is a NicPort).
U_co = TypeVar("U_co", bound=Hop, covariant=True)
D_co = TypeVar("D_co", bound=Hop, covariant=True)


@dataclass(frozen=True)
class Endpoint(Generic[U_co, D_co]):
    """A host NIC attached to the fabric."""

    index: int
    host: str
    port: int
    up: U_co  # host -> attachment
    down: D_co  # attachment -> host

    @property
    def attach(self) -> str:
        """Device at the other end of the NIC's cable."""
        return self.up.dst


class RouterNode(Protocol[H_co]):
    """What the router reads of a switch: the cell engine's Switch or the flow engine's
    NodeRef (their ``out`` values are Ports or LinkRefs)."""

    @property
    def id(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def tier(self) -> int: ...
    @property
    def out(self) -> Mapping[int, H_co]: ...


class Router(Generic[H]):
    """Minimal-path next hops and per-flow path selection over links of type ``H``."""

    def __init__(self, switches: Mapping[str, RouterNode[H]],
                 endpoints: Sequence[Endpoint[H, H]], mode: str, seed: int) -> None:
        self.switches = switches  # id -> Switch
        self.endpoints = endpoints
        self.mode = mode
        self.seed = seed
        #: Paths asked for that could not avoid a dead element (only a FailoverRouter has any).
        self.unroutable = 0
        self._dist: np.ndarray | None = None  # switch x switch hop distances
        self._cand: dict[tuple[int, int], tuple[H, ...]] = {}
        self._toward: dict[tuple[int, str], tuple[H, ...]] = {}
        self._ports_of: dict[int, tuple[list[H], np.ndarray]] = {}
        self._seeds = {sid: mix64(seed * 1_000_003 + sw.index) for sid, sw in switches.items()}

    def _distances(self, target: str) -> np.ndarray:
        """Hop distance of every switch (by index) to switch ``target`` over switch-switch
        links (-1 = unreachable); all switches' distances come from one breadth-first
        search per switch in scipy, on first use."""
        if self._dist is None:
            from scipy.sparse.csgraph import shortest_path

            raw = shortest_path(self._adjacency(), unweighted=True)
            self._dist = np.where(np.isfinite(raw), raw, -1).astype(np.int32)
        row: np.ndarray = self._dist[self.switches[target].index]
        return row

    def _adjacency(self) -> Any:
        from scipy.sparse import csr_matrix

        rows, cols = [], []
        for sw in self.switches.values():
            for port in sw.out.values():
                peer = self.switches.get(port.dst)
                if peer is not None:
                    rows.append(sw.index)  # an edge along each switch-to-switch port
                    cols.append(peer.index)
        n = len(self.switches)
        return csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))

    def toward(self, switch: RouterNode[H], attach: str) -> tuple[H, ...]:
        """Minimal next hops from ``switch`` toward switch ``attach`` (cached per pair): its
        ports, in port order, to switches one hop closer."""
        key = (switch.index, attach)
        cands = self._toward.get(key)
        if cands is None:
            if attach not in self.switches:
                cands = ()
            else:
                dist = self._distances(attach)
                here = dist[switch.index]
                ports, peers = self._switch_ports(switch)
                closer = np.flatnonzero((peers >= 0) & (dist[peers] == here - 1)) \
                    if here >= 0 else ()
                cands = tuple(ports[i] for i in closer)
            self._toward[key] = cands
        return cands

    def _switch_ports(self, switch: RouterNode[H]) -> tuple[list[H], np.ndarray]:
        """A switch's outgoing ports in port order and the switch index at the other end of
        each (-1 for a host)."""
        found = self._ports_of.get(switch.index)
        if found is None:
            ports = [p for _, p in sorted(switch.out.items())]
            peers = np.array([self.switches[p.dst].index if p.dst in self.switches else -1
                              for p in ports], dtype=np.int64)
            found = self._ports_of[switch.index] = (ports, peers)
        return found

    def candidates(self, switch: RouterNode[H], dst_ep: int) -> tuple[H, ...]:
        """Minimal next hops from ``switch`` toward endpoint ``dst_ep``."""
        key = (switch.index, dst_ep)
        cands = self._cand.get(key)
        if cands is None:
            ep = self.endpoints[dst_ep]
            cands = (ep.down,) if switch.id == ep.attach else self.toward(switch, ep.attach)
            self._cand[key] = cands
        return cands

    def static_choice(self, switch: RouterNode[H], cands: tuple[H, ...], dst_index: int) -> int:
        """Subnet-manager (D-mod-K) choice among ``cands`` for destination ``dst_index``.

        Going UP (toward a higher tier) the switch uses digit ``tier - 1`` of the destination
        in base K: ``(dst // K^(tier-1)) mod K``, so a leaf spreads consecutive destinations
        over its uplinks and the next tier uses the next digit.  Going DOWN the candidates are
        parallel links to the one switch on the way to the destination; they use digit 0,
        ``dst mod K``, the same digit the leaves used to pick the uplink that brought the
        traffic here, so the destinations arriving on different uplinks leave on different
        downlinks (using the upward digit there piled the destinations of a 2-spine,
        4-parallel-link leaf-spine onto one downlink per spine: all-to-all at half speed).
        """
        n = len(cands)
        down = self.switches.get(cands[0].dst)
        if down is not None and down.tier < switch.tier:
            return dst_index % n
        digit: int = n ** (switch.tier - 1)  # K^(tier-1) (int ** int is typed Any)
        return (dst_index // digit) % n

    def path(self, src: Endpoint[H, H], dst: Endpoint[H, H], sport: int,
             mode: str) -> tuple[H, ...]:
        """Port sequence from ``src`` to ``dst``; ``mode`` is "ecmp", "static" or "adaptive"
        (adaptive returns the first minimal path, used only for delays and validation)."""
        ports: list[H] = [src.up]
        here = src.attach
        for _ in range(len(self.switches) + 1):
            if here == dst.host:
                if ports[-1] is not dst.down:
                    break
                return tuple(ports)
            switch = self.switches.get(here)
            if switch is None:
                break
            cands = (dst.down,) if here == dst.attach else self.toward(switch, dst.attach)
            if not cands:
                break
            if len(cands) == 1 or mode == "adaptive":
                port = cands[0]
            elif mode == "static":
                port = cands[self.static_choice(switch, cands, dst.index)]
            else:
                port = cands[five_tuple_hash(src.index, dst.index, sport, self._seeds[here])
                             % len(cands)]
            ports.append(port)
            here = port.dst
        raise EngineError(f"no path from {src.host} nic{src.port} to {dst.host} nic{dst.port}")
