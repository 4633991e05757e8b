"""The shared machinery of every family: a device/link accumulator with readable ids and
explicit ports, port-split arithmetic, and two- and three-tier Clos wiring above leaves."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fabricstudio.model import Core, Device, Leaf, Link, Plane, Spine
from fabricstudio.model.devices import Switch
from fabricstudio.topology.builders.specs import BuildError, fmt_int

_EPS = 1e-9


def uplinks_needed(down_ports: int, down_speed: float, up_speed: float, ratio: float) -> int:
    """Uplinks of ``up_speed`` that keep ``down_ports`` x ``down_speed`` within ``ratio``:1."""
    if down_ports <= 0:
        return 0
    return max(1, math.ceil(down_ports * down_speed / (ratio * up_speed) - _EPS))


def split_radix(radix: int, down_speed: float, up_speed: float, ratio: float) -> tuple[int, int]:
    """Most down ports (and the uplinks they need) that fit ``radix`` at ``ratio``:1.

    Radix 64 at 1:1 -> (32, 32); at 3:1 -> (48, 16).
    """
    for down in range(radix - 1, 0, -1):
        up = uplinks_needed(down, down_speed, up_speed, ratio)
        if down + up <= radix:
            return down, up
    raise BuildError(f"radix {radix}: too small to give a leaf both down and up ports")


def spread(total: int, groups: int, minimum: int, capacity_per_group: int) -> int:
    """Smallest divisor ``g`` of ``total`` with ``g >= min(minimum, total)`` and
    ``groups x total / g <= capacity_per_group`` (0 when none exists).

    Used for "how many spines share a leaf's uplinks": each leaf puts ``total / g`` parallel
    links on each of ``g`` spines, and a spine takes that many from each of ``groups`` leaves.
    """
    for g in range(max(1, min(minimum, total)), total + 1):
        if total % g == 0 and groups * (total // g) <= capacity_per_group:
            return g
    return 0


@dataclass
class Accumulator:
    """Devices and links under construction, with per-device port cursors."""

    devices: list[Device] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    next_port: dict[str, int] = field(default_factory=dict)
    pair_count: dict[tuple[str, str], int] = field(default_factory=dict)
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)

    def add(self, device: Device) -> str:
        """Add a device; returns its id."""
        self.devices.append(device)
        self.next_port[device.id] = 0
        return device.id

    def take_port(self, device_id: str) -> int:
        """Next free port of a switch."""
        port = self.next_port[device_id]
        self.next_port[device_id] = port + 1
        return port

    def connect(self, a: str, b: str, *, speed: float, length: float, plane: Plane,
                a_port: int | None = None, b_port: int | None = None,
                link_id: str | None = None) -> Link:
        """A link a -> b; switch ports are taken in order, server ports given explicitly.

        Ids read ``a-b`` and ``a-b.N`` for the N-th parallel cable between the same pair.
        """
        if link_id is None:
            n = self.pair_count.get((a, b), 0) + 1
            self.pair_count[(a, b)] = n
            link_id = f"{a}-{b}" if n == 1 else f"{a}-{b}.{n}"
        link = Link(
            id=link_id, a=a, b=b,
            a_port=self.take_port(a) if a_port is None else a_port,
            b_port=self.take_port(b) if b_port is None else b_port,
            speed_gbps=speed, length_m=length, plane=plane,
        )
        self.links.append(link)
        return link


@dataclass(frozen=True)
class SwitchTemplate:
    """Radix, speed, planes and cable lengths of the switches of one network."""

    radix: int
    speed: float
    uplink_m: float
    core_m: float
    plane: Plane = Plane.COMPUTE
    id_prefix: str = ""


@dataclass
class TierPlan:
    """What the Clos wiring above the leaves produced (for the summary and the layout)."""

    spines: list[str] = field(default_factory=list)
    cores: list[str] = field(default_factory=list)
    pod_spines: list[list[str]] = field(default_factory=list)
    links_per_leaf_spine: int = 0
    links_per_spine_core: int = 0


def _switch(cls: type[Switch], ident: str, tpl: SwitchTemplate, name: str = "") -> Device:
    return cls(id=ident, name=name, radix=tpl.radix, port_speed_gbps=tpl.speed,
               planes=(tpl.plane,))


def new_leaf(acc: Accumulator, number: int, tpl: SwitchTemplate, name: str = "") -> str:
    """Add leaf ``<prefix>leaf<number>``."""
    return acc.add(_switch(Leaf, f"{tpl.id_prefix}leaf{number}", tpl, name))


def two_tier(acc: Accumulator, leaves: list[str], uplinks: int, tpl: SwitchTemplate,
             spines: int | None = None, what: str = "") -> TierPlan:
    """Spines above ``leaves``: every leaf spreads its ``uplinks`` evenly over every spine.

    ``spines`` None = the fewest (at least two) that fit the radix.  BuildError when the
    leaves outnumber what the spines' ports can take.
    """
    plan = TierPlan()
    if len(leaves) < 2 or uplinks == 0:
        return plan
    if spines is None:
        spines = spread(uplinks, len(leaves), 2, tpl.radix)
        if not spines:
            raise BuildError(f"{what}{len(leaves)} leaves exceed what radix-{tpl.radix} spines "
                             f"can reach (at most {tpl.radix} leaves in 2 tiers)")
    elif spines < 1 or uplinks % spines:
        raise BuildError(f"{spines} spines: must divide the {uplinks} uplinks of each leaf")
    elif len(leaves) * (uplinks // spines) > tpl.radix:
        raise BuildError(f"{spines} spines: {len(leaves)} leaves x {uplinks // spines} links "
                         f"need more than their {tpl.radix} ports")
    per = uplinks // spines
    plan.links_per_leaf_spine = per
    for s in range(1, spines + 1):
        plan.spines.append(acc.add(_switch(Spine, f"{tpl.id_prefix}spine{s}", tpl)))
    for leaf in leaves:
        for spine in plan.spines:
            for _ in range(per):
                acc.connect(leaf, spine, speed=tpl.speed, length=tpl.uplink_m, plane=tpl.plane)
    return plan


def three_tier(acc: Accumulator, pods: list[list[str]], uplinks: int, leaves_per_pod: int,
               tpl: SwitchTemplate) -> TierPlan:
    """A k-ary-style fat tree above ``pods`` of leaves.

    Each pod has ``uplinks`` spines (aggregation switches); every leaf of the pod has one link
    to each.  Spine j of a pod has ``leaves_per_pod`` uplinks, spread over core group j, one
    core group per spine index; the groups are as small as the core radix allows.
    """
    plan = TierPlan()
    number = 0
    for p, pod in enumerate(pods, start=1):
        members = []
        for j in range(1, uplinks + 1):
            number += 1
            members.append(acc.add(_switch(Spine, f"{tpl.id_prefix}spine{number}", tpl,
                                           name=f"pod{p}-spine{j}")))
        for leaf in pod:
            for spine in members:
                acc.connect(leaf, spine, speed=tpl.speed, length=tpl.uplink_m, plane=tpl.plane)
        plan.pod_spines.append(members)
        plan.spines.extend(members)
    plan.links_per_leaf_spine = 1
    if len(pods) < 2:
        return plan
    group = spread(leaves_per_pod, len(pods), 2, tpl.radix)
    if not group:
        raise BuildError(f"{len(pods)} pods exceed what radix-{tpl.radix} core switches can "
                         f"reach (at most {tpl.radix} pods)")
    per = leaves_per_pod // group
    plan.links_per_spine_core = per
    number = 0
    groups = []
    for j in range(1, uplinks + 1):
        cores = []
        for c in range(1, group + 1):
            number += 1
            cores.append(acc.add(_switch(Core, f"{tpl.id_prefix}core{number}", tpl,
                                         name=f"group{j}-core{c}")))
        groups.append(cores)
        plan.cores.extend(cores)
    for members in plan.pod_spines:
        for j, spine in enumerate(members):
            for core in groups[j]:
                for _ in range(per):
                    acc.connect(spine, core, speed=tpl.speed, length=tpl.core_m,
                                plane=tpl.plane)
    return plan


def capacity_message(gpus: int, tiers: int, radix: int, max_gpus: int) -> str:
    """The standard "too big" sentence."""
    return (f"{fmt_int(gpus)} GPUs need more than the {tiers} tiers of radix-{radix} switches "
            f"can serve (max {fmt_int(max_gpus)})")
