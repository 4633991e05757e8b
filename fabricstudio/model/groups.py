"""Groups of devices: racks, scalable units, pods and user groups.

A group lists its members by id: devices, or (except racks) other groups, so groups form a
forest (a pod holds scalable units, a scalable unit holds racks, a rack holds devices).  Every
device and group is a member of at most one group.  A rack may give each member device the
lowest rack unit (U, 1 = bottom) it occupies; :func:`u_height` gives the height of a device,
for the generators' stacking, the rack plan and anyone drawing a rack elevation.

``collapsed`` is the user's choice, saved with the design: a collapsed group is drawn as one
tile.  (The canvas also collapses groups that are small on screen; that is not saved.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, StrictInt, model_validator

from fabricstudio.model.devices import Device, DeviceId, GpuServer, StorageServer
from fabricstudio.model.strict import StrictNumbers
from fabricstudio.model.text import printable

#: Height of a standard EIA-310 rack used by the generators (U).
STANDARD_RACK_U = 42
#: Tallest rack accepted (U); 52U racks exist, nothing taller is sold as a rack.
MAX_RACK_U = 60

#: Switching capacity of the largest 1U switch (Gb/s): 64 x 400G, e.g. the NVIDIA QM9700
#: (NDR InfiniBand) and SN4700-class Ethernet switches are 1U; 51.2 Tb/s switches (SN5600,
#: 64 x 800G) are 2U.
ONE_U_MAX_GBPS = 25_600.0


def u_height(device: Device) -> int:
    """Rack units ``device`` occupies (one rule for the generators, the rack plan and the
    exports).  GPU servers: 8-GPU HGX/DGX H100 systems are 8U (DGX H100 user guide, "Hardware
    overview"), smaller ones 4U; storage servers 2U (an all-flash NVMe node such as the DDN
    AI400X2); switches 1U up to :data:`ONE_U_MAX_GBPS` of ports, else 2U (management
    switches are 1U)."""
    if isinstance(device, GpuServer):
        return 8 if device.gpus >= 8 else 4
    if isinstance(device, StorageServer):
        return 2
    capacity = device.radix * device.port_speed_gbps
    return 1 if capacity <= ONE_U_MAX_GBPS else 2


class GroupKind(StrEnum):
    """What a group stands for."""

    RACK = "rack"
    SCALABLE_UNIT = "scalable_unit"
    POD = "pod"
    GROUP = "group"

    @property
    def label(self) -> str:
        """Human-readable name."""
        return {"rack": "Rack", "scalable_unit": "Scalable unit", "pod": "Pod",
                "group": "Group"}[self.value]


class Group(StrictNumbers):
    """A named set of devices and/or groups."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: DeviceId
    kind: GroupKind = GroupKind.GROUP
    name: str = Field(default="", max_length=200, description="Display name (id when empty)")
    members: tuple[DeviceId, ...] = Field(
        min_length=1, max_length=1_000_000,
        description="Ids of member devices or groups (racks: devices only)")
    collapsed: bool = Field(default=False, description="Drawn as one tile")
    height_u: int | None = Field(
        default=None, ge=1, le=MAX_RACK_U, description="Rack height in U (racks only)")
    u_positions: dict[DeviceId, StrictInt] = Field(
        default_factory=dict,
        description="Racks: lowest rack unit (1 = bottom) of member devices; optional")

    @model_validator(mode="after")
    def _check(self) -> Group:
        seen: set[str] = set()
        for member in self.members:
            if member in seen:
                raise ValueError(f"group {self.id} lists {member!r} twice")
            seen.add(member)
        if self.id in self.members:
            raise ValueError(f"group {self.id} cannot contain itself")
        if self.kind is not GroupKind.RACK and (self.u_positions or self.height_u is not None):
            raise ValueError(f"group {self.id}: only racks have a height and U positions")
        members = set(self.members)
        height = self.height_u or STANDARD_RACK_U
        for device_id, u in self.u_positions.items():
            if device_id not in members:
                raise ValueError(f"rack {self.id}: U position for {device_id!r}, which is not "
                                 "a member")
            if not 1 <= u <= height:
                raise ValueError(f"rack {self.id}: {device_id} at U{u} is outside the rack "
                                 f"(1..{height})")
        return self

    @property
    def label(self) -> str:
        """Name to show: the name (without control characters), or the id when it is empty."""
        return printable(self.name) or self.id


class GroupTree:
    """Parent/child relations of a set of groups (read-only helper, cheap to build)."""

    def __init__(self, groups: Mapping[str, Group]) -> None:
        self.groups = groups
        self.parent: dict[str, str] = {}
        for group in groups.values():
            for member in group.members:
                self.parent.setdefault(member, group.id)

    def roots(self) -> list[str]:
        """Groups that are in no other group, in order."""
        return [g for g in self.groups if g not in self.parent]

    def ancestors(self, object_id: str) -> list[str]:
        """Groups containing ``object_id``, innermost first."""
        out = []
        current = self.parent.get(object_id)
        while current is not None and current not in out:
            out.append(current)
            current = self.parent.get(current)
        return out

    def top(self, object_id: str) -> str:
        """The outermost group containing ``object_id`` (itself when in none)."""
        chain = self.ancestors(object_id)
        return chain[-1] if chain else object_id

    def devices(self, group_id: str) -> list[str]:
        """Every device in a group, nested groups included, in member order."""
        out: list[str] = []
        stack = [iter(self.groups[group_id].members)]
        while stack:
            member = next(stack[-1], None)
            if member is None:
                stack.pop()
            elif member in self.groups:
                stack.append(iter(self.groups[member].members))
            else:
                out.append(member)
        return out

    def subgroups(self, group_id: str) -> list[str]:
        """Groups nested in ``group_id`` (any depth), outer ones first."""
        out = []
        queue = [m for m in self.groups[group_id].members if m in self.groups]
        while queue:
            current = queue.pop(0)
            out.append(current)
            queue += [m for m in self.groups[current].members if m in self.groups]
        return out


def group_problems(groups: Iterable[Group], device_ids: Mapping[str, Any] | set[str],
                   other_ids: Iterable[str] = ()) -> list[str]:
    """Everything wrong with ``groups`` as the groups of a design with these devices
    (``other_ids``: link ids, which group ids must not reuse)."""
    problems: list[str] = []
    by_id: dict[str, Group] = {}
    taken = set(other_ids)
    for group in groups:
        if group.id in by_id:
            problems.append(f"duplicate group id {group.id!r}")
            continue
        if group.id in device_ids or group.id in taken:
            problems.append(f"group id {group.id!r} is already used by a device or link")
            continue
        by_id[group.id] = group
    owner: dict[str, str] = {}
    for group in by_id.values():
        for member in group.members:
            if member in by_id:
                if group.kind is GroupKind.RACK:
                    problems.append(f"rack {group.id} can hold devices only, not group {member}")
            elif member not in device_ids:
                problems.append(f"group {group.id}: member {member!r} is not a device or group "
                                "of the design")
                continue
            if member in owner:
                problems.append(f"{member} is in two groups ({owner[member]} and {group.id})")
            else:
                owner[member] = group.id
        for device_id in group.u_positions:
            if device_id in by_id:
                problems.append(f"rack {group.id}: U position for group {device_id}")
    problems += _cycles(by_id, owner)
    return problems


def _cycles(by_id: Mapping[str, Group], owner: Mapping[str, str]) -> list[str]:
    """Groups that contain themselves through other groups."""
    problems = []
    for start in by_id:
        seen = {start}
        current = owner.get(start)
        while current is not None:
            if current in seen:
                problems.append(f"group {start} contains itself (through {current})")
                break
            seen.add(current)
            current = owner.get(current)
        if len(problems) >= 3:
            break
    return problems


def prune_groups(groups: Iterable[Group], removed: Iterable[str]) -> list[Group]:
    """``groups`` without the ``removed`` devices/groups as members; groups left empty are
    dropped too (and taken out of their own group), so the result stays valid."""
    gone = set(removed)
    current = [g for g in groups if g.id not in gone]
    while True:
        kept: list[Group] = []
        emptied: set[str] = set()
        for group in current:
            members = tuple(m for m in group.members if m not in gone)
            if not members:
                emptied.add(group.id)
            elif members != group.members:
                positions = {k: v for k, v in group.u_positions.items() if k not in gone}
                kept.append(group.model_copy(update={"members": members,
                                                     "u_positions": positions}))
            else:
                kept.append(group)
        current = kept
        if not emptied:
            return current
        gone |= emptied
        current = [g for g in current if g.id not in emptied]


def group_objects(groups: Iterable[Group], new: Group) -> list[Group]:
    """``groups`` with ``new`` added around its members.  Members taken from other groups
    leave them; when all came from one group, the new group takes their place in it."""
    groups = list(groups)
    members = set(new.members)
    parents = {g.id for g in groups if members & set(g.members)}
    out: list[Group] = []
    emptied = []
    for group in groups:
        if group.id not in parents:
            out.append(group)
            continue
        kept = [m for m in group.members if m not in members]
        if len(parents) == 1:
            first = next(i for i, m in enumerate(group.members) if m in members)
            kept.insert(sum(1 for m in group.members[:first] if m not in members), new.id)
        if kept:
            positions = {k: v for k, v in group.u_positions.items() if k not in members}
            out.append(group.model_copy(update={"members": tuple(kept),
                                                "u_positions": positions}))
        else:
            emptied.append(group.id)
    out.append(new)
    return prune_groups(out, emptied)


def ungroup(groups: Iterable[Group], group_id: str) -> list[Group]:
    """``groups`` without ``group_id``; its members take its place in its parent group."""
    groups = list(groups)
    target = next(g for g in groups if g.id == group_id)
    out = []
    for group in groups:
        if group.id == group_id:
            continue
        if group_id in group.members:
            members: list[str] = []
            for m in group.members:
                members.extend(target.members if m == group_id else (m,))
            group = group.model_copy(update={"members": tuple(members)})
        out.append(group)
    return out


def lift_selection(tree: GroupTree, ids: Iterable[str]) -> list[str]:
    """``ids`` with every group whose devices are all among them standing for its devices
    (outermost such group), in first-seen order: what "group the selection" groups."""
    chosen = list(dict.fromkeys(ids))
    selected = set(chosen)
    covered: dict[str, bool] = {}

    def full(group_id: str) -> bool:
        if group_id not in covered:
            covered[group_id] = all(
                full(m) if m in tree.groups else m in selected
                for m in tree.groups[group_id].members)
        return covered[group_id]

    out: list[str] = []
    for object_id in chosen:
        top = object_id
        for ancestor in tree.ancestors(object_id):
            if full(ancestor):
                top = ancestor
            else:
                break
        if top not in out:
            out.append(top)
    return out
