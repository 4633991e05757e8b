"""Bulk wiring: the links that connect a selection of devices in one go (Qt-free).

The selection is split by tier: the devices of its lowest tier are wired *up* to the switches
of the next tier present (servers to leaves, leaves to spines, spines to cores).  Each network
is wired separately: a server's compute NICs go to the selected switches on the compute
network, its management port to those on the management network, and so on.

Strategies (the order of the upper switches is the design's order):

- ``rail``: NIC (port) k of every lower device goes to upper switch k (modulo their number),
  as in a rail-optimised unit where NIC i of each server plugs into rail leaf i;
- ``round-robin``: links go to the upper switches in turn, one each, skipping full ones;
- ``fill``: links fill the first upper switch's free ports, then the next one's.

A lower switch with nothing connected yet offers half its ports as uplinks (the other half
stays for what it will serve); otherwise all its free ports.  Links run at the slower end's
port speed.  Nothing here changes the design: apply ``plan.links`` with ``AddFragment``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from fabricstudio.model import Design, Device, DeviceKind, Link, Plane

STRATEGIES = {"rail": "Rail-wise (NIC i to switch i)", "round-robin": "Round-robin",
              "fill": "Fill free ports in order"}
#: Singular and plural names of device kinds.
_KIND_NAMES = {"gpu_server": ("GPU server", "GPU servers"),
               "storage_server": ("storage server", "storage servers"),
               "leaf": ("leaf", "leaves"), "spine": ("spine", "spines"),
               "core": ("core switch", "core switches"),
               "mgmt_switch": ("management switch", "management switches")}


@dataclass
class WiringPlan:
    """What connecting a selection would add."""

    strategy: str
    links: list[Link] = field(default_factory=list)
    lower: list[str] = field(default_factory=list)
    upper: list[str] = field(default_factory=list)
    #: Why ports stayed free or nothing could be planned, one sentence each.
    notes: list[str] = field(default_factory=list)

    def describe(self, design: Design) -> str:
        """'32 links: 4 GPU servers to 8 leaves (rail-wise), compute network'."""
        if not self.links:
            return "No links to add"
        planes = sorted({lk.plane.value for lk in self.links})
        return (f"{len(self.links):,} link{'s' * (len(self.links) != 1)}: "
                f"{_count(design, self.lower)} to {_count(design, self.upper)} "
                f"({STRATEGIES[self.strategy].split(' (')[0].lower()}), "
                f"{' and '.join(planes)} network{'s' * (len(planes) > 1)}")


def _count(design: Design, ids: list[str]) -> str:
    kinds: dict[str, int] = {}
    for device_id in ids:
        name = str(design.devices[device_id].kind)
        kinds[name] = kinds.get(name, 0) + 1
    parts = []
    for name, n in kinds.items():
        one, many = _KIND_NAMES.get(name, (name, name))
        parts.append(f"{n:,} {one if n == 1 else many}")
    return " and ".join(parts)


def plan_wiring(design: Design, device_ids: Iterable[str], strategy: str = "rail",
                planes: Iterable[Plane] = tuple(Plane)) -> WiringPlan:
    """The links connecting the lowest tier of the selection to the next tier up."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown wiring strategy {strategy!r}: choose one of "
                         f"{', '.join(STRATEGIES)}")
    plan = WiringPlan(strategy)
    chosen = [design.devices[d] for d in dict.fromkeys(device_ids) if d in design.devices]
    tiers = sorted({DeviceKind(d.kind).tier for d in chosen})
    if len(tiers) < 2:
        plan.notes.append("select devices of two tiers (for example servers and their leaves,"
                          " or leaves and spines)")
        return plan
    low, high = tiers[0], tiers[1]
    lower = [d for d in chosen if DeviceKind(d.kind).tier == low]
    upper = [d for d in chosen if DeviceKind(d.kind).tier == high and d.is_switch]
    if len(tiers) > 2:
        plan.notes.append(f"only the two lowest tiers are wired; connect the tier above "
                          f"in a second step ({len(chosen) - len(lower) - len(upper)} "
                          "devices left out)")
    plan.lower = [d.id for d in lower]
    plan.upper = [d.id for d in upper]
    taken = set(design.devices) | set(design.links) | set(design.groups)
    free_up = {s.id: [p for p in range(s.port_count()) if p not in design.used_ports(s.id)]
               for s in upper}
    for plane in planes:
        targets = [s for s in upper if plane in s.planes]
        sources = [d for d in lower if plane in d.planes]
        if not targets or not sources:
            continue
        _wire_plane(design, plan, plane, sources, targets, free_up, taken)
    if not plan.links and not plan.notes:
        plan.notes.append("every port that could be wired is already connected")
    return plan


def _lower_ports(design: Design, device: Device, plane: Plane) -> list[int]:
    """Free ports a lower device offers upward on ``plane`` (NIC order for servers)."""
    used = design.used_ports(device.id)
    ports = [p for p in device.ports_for_plane(plane) if p not in used]
    if device.is_switch and not used:
        ports = ports[len(ports) - len(ports) // 2:]  # the upper half: uplinks
    return ports


def _wire_plane(design: Design, plan: WiringPlan, plane: Plane, sources: list[Device],
                targets: list[Device], free_up: dict[str, list[int]], taken: set[str]) -> None:
    turn = 0
    stranded = 0
    for device in sources:
        for k, port in enumerate(_lower_ports(design, device, plane)):
            target = _pick(plan.strategy, k, turn, targets, free_up)
            if target is None:
                stranded += 1
                continue
            if plan.strategy == "round-robin":
                turn = targets.index(target) + 1
            up_port = free_up[target.id].pop(0)
            speed = min(device.speed_of_port(port), target.speed_of_port(up_port))
            plan.links.append(Link(id=_link_id(device, port, target, taken), a=device.id,
                                   b=target.id, a_port=port, b_port=up_port, speed_gbps=speed,
                                   plane=plane))
    if stranded:
        plan.notes.append(f"{stranded} {plane.value} port{'s' * (stranded != 1)} stay free: "
                          f"{'their switch' if plan.strategy == 'rail' else 'the switches'} "
                          "had no free port left")


def _pick(strategy: str, k: int, turn: int, targets: list[Device],
          free_up: dict[str, list[int]]) -> Device | None:
    if strategy == "rail":
        target = targets[k % len(targets)]
        return target if free_up[target.id] else None
    if strategy == "fill":
        return next((t for t in targets if free_up[t.id]), None)
    for i in range(len(targets)):
        target = targets[(turn + i) % len(targets)]
        if free_up[target.id]:
            return target
    return None


def _link_id(device: Device, port: int, target: Device, taken: set[str]) -> str:
    """Readable, unused link ids: server NICs as the builders name them, else a-b[.N]."""
    if not device.is_switch:
        base = f"{device.id}-p{port}"
        nic = port - device.ports_for_plane(Plane.COMPUTE).start
        if port in device.ports_for_plane(Plane.COMPUTE):
            base = f"{device.id}-nic{nic}"
    else:
        base = f"{device.id}-{target.id}"
    ident = base
    n = 1
    while ident in taken:
        n += 1
        ident = f"{base}.{n}"
    taken.add(ident)
    return ident
