"""Rails and tiers of links, for colouring a fabric by rail or by tier (Qt-free).

A rail is a NIC index: NIC i of every GPU server and the switches its cables reach form rail
i (rail-optimised fabrics wire NIC i to leaf i of each scalable unit).  A server's link is on
the rail of its NIC; a leaf is on a rail when most of its server links are; a leaf's uplinks
carry the leaf's rail.  Links of switches serving several rails (spines in most fabrics) have
no rail.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from fabricstudio.model import Design, DeviceKind, Link, Plane

#: Tier pairs of link ends, lowest first, with their legend text.
TIER_NAMES = {
    (0, 1): "Server - leaf",
    (1, 2): "Leaf - spine",
    (2, 3): "Spine - core",
    (1, 1): "Switch - switch",
    (2, 2): "Spine - spine",
}


def link_rails(design: Design) -> dict[str, int | None]:
    """Rail (0-based NIC index) of every link, None when it has none."""
    rails: dict[str, int | None] = {}
    leaf_votes: dict[str, Counter[int]] = defaultdict(Counter)
    devices = design.devices
    for link in design.links.values():
        rails[link.id] = None
        if link.plane is not Plane.COMPUTE:
            continue
        for server, switch in ((link.a, link.b), (link.b, link.a)):
            device = devices[server]
            if device.kind == "gpu_server":
                port = link.port_at(server)
                if port is not None:
                    rails[link.id] = port
                    leaf_votes[switch][port] += 1
                break
    leaf_rail: dict[str, int] = {}
    for leaf, votes in leaf_votes.items():
        rail, count = votes.most_common(1)[0]
        if count * 2 > sum(votes.values()):
            leaf_rail[leaf] = rail
    for link in design.links.values():
        if rails[link.id] is None and link.plane is Plane.COMPUTE:
            ends = [leaf_rail.get(link.a), leaf_rail.get(link.b)]
            known = [r for r in ends if r is not None]
            if len(known) == 1 or (len(known) == 2 and known[0] == known[1]):
                rails[link.id] = known[0]
    return rails


def link_tier(design: Design, link: Link) -> tuple[int, int]:
    """The tiers of a link's ends (0 servers, 1 leaves, 2 spines, 3 cores), lowest first."""
    a = DeviceKind(design.devices[link.a].kind).tier
    b = DeviceKind(design.devices[link.b].kind).tier
    return (a, b) if a <= b else (b, a)


def tier_name(tiers: tuple[int, int]) -> str:
    """Legend text of a tier pair."""
    return TIER_NAMES.get(tiers, f"Tier {tiers[0]} - tier {tiers[1]}")
