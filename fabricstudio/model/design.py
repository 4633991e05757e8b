"""The Design document: the one mutation API of the model, emitting change signals.

Views (the canvas, the analysis panel) subscribe to the psygnal signals; undoable edits go
through :mod:`fabricstudio.model.commands`, which call the methods here.  Every method either
applies its whole change or raises :class:`DesignError` and changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from psygnal import Signal
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from fabricstudio.model.devices import COORDINATE_LIMIT, Device
from fabricstudio.model.enums import DeviceKind
from fabricstudio.model.fabric import FabricSettings
from fabricstudio.model.groups import Group, GroupTree, group_problems
from fabricstudio.model.links import Link
from fabricstudio.model.strict import LIMIT_REASONS
from fabricstudio.model.validation import (
    DesignError,
    device_fits_links,
    end_problems,
    first_free_port,
)

_DEVICE_ADAPTER: TypeAdapter[Device] = TypeAdapter(Device)
#: A device's planes, and its port planes and speeds by port number (checking a large
#: file's links).
_PortTable = tuple[tuple[Any, ...], tuple[Any, ...], tuple[float, ...]]
_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than",
                           "less_than_equal", "finite_number"})


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."
_V = TypeVar("_V")


class DesignData(BaseModel):
    """The plain-value form of a design (what files hold, minus the envelope)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="Untitled", max_length=500)
    description: str = Field(default="", max_length=100_000)
    fabric: FabricSettings = FabricSettings()
    nodes: tuple[Device, ...] = ()
    links: tuple[Link, ...] = ()
    groups: tuple[Group, ...] = ()


def format_validation_error(error: ValidationError, limit: int = 5) -> str:
    """One readable line per pydantic error: ``location: message`` (plus the physical reason
    of a range, :data:`~fabricstudio.model.strict.LIMIT_REASONS`, when a value is outside it)."""
    lines = []
    for item in error.errors()[:limit]:
        path = [*item["loc"], *([item["ctx"]["field"]] if item["type"] == "number_type" else [])]
        loc = ".".join(str(p) for p in path)
        message = item["msg"].removeprefix("Value error, ")
        field = next((p for p in reversed(path) if isinstance(p, str)), "")
        if item["type"] in _RANGE_ERRORS and field in LIMIT_REASONS:
            message += f" ({LIMIT_REASONS[field]})"
        if item["type"] in _RANGE_ERRORS:
            message += f", got {_shown(item.get('input'))}"
        lines.append(f"{loc}: {message}" if loc else message)
    more = error.error_count() - limit
    if more > 0:
        lines.append(f"... and {more} more problem(s)")
    return "; ".join(lines)


class Design:
    """A mutable fabric design: devices, links and fabric settings, with change signals."""

    #: Emitted with the id after a device was added.
    device_added = Signal(str)
    #: Emitted with the id after a device was removed.
    device_removed = Signal(str)
    #: Emitted with the id after a device's properties changed.
    device_changed = Signal(str)
    #: Emitted with a tuple of ids after devices moved.
    devices_moved = Signal(tuple)
    #: Emitted with the id after a link was added.
    link_added = Signal(str)
    #: Emitted with the id after a link was removed.
    link_removed = Signal(str)
    #: Emitted with the id after a link's properties changed.
    link_changed = Signal(str)
    #: Emitted with a tuple of the ids of groups added, removed or changed.
    groups_changed = Signal(tuple)
    #: Emitted after the fabric settings changed.
    fabric_changed = Signal()
    #: Emitted after the design's name or description changed.
    name_changed = Signal(str)
    #: Emitted after the whole contents were replaced.
    reset = Signal()
    #: Emitted after any change at all (after the specific signal).
    changed = Signal()

    def __init__(self, name: str = "Untitled", fabric: FabricSettings | None = None) -> None:
        self._name = name
        self._description = ""
        self._fabric = fabric or FabricSettings()
        self._devices: dict[str, Device] = {}
        self._links: dict[str, Link] = {}
        self._ports: dict[str, dict[int, str]] = {}
        self._groups: dict[str, Group] = {}
        self._tree: GroupTree | None = None
        self.revision = 0

    # ----------------------------------------------------------------- reading
    @property
    def name(self) -> str:
        """Design name."""
        return self._name

    @property
    def description(self) -> str:
        """Free-text description."""
        return self._description

    @property
    def fabric(self) -> FabricSettings:
        """Fabric settings (technology, PFC, ECN, DCQCN, credits)."""
        return self._fabric

    @property
    def devices(self) -> Mapping[str, Device]:
        """Read-only view of devices by id, in insertion order."""
        return MappingProxyType(self._devices)

    @property
    def links(self) -> Mapping[str, Link]:
        """Read-only view of links by id, in insertion order."""
        return MappingProxyType(self._links)

    @property
    def groups(self) -> Mapping[str, Group]:
        """Read-only view of groups (racks, scalable units, pods, user groups) by id."""
        return MappingProxyType(self._groups)

    def group(self, group_id: str) -> Group:
        """The group with ``group_id`` (DesignError if there is none)."""
        try:
            return self._groups[group_id]
        except KeyError:
            raise DesignError(f"no group with id {group_id!r}") from None

    def group_tree(self) -> GroupTree:
        """Parent/child relations of the groups (cached until the groups change)."""
        if self._tree is None:
            self._tree = GroupTree(self._groups)
        return self._tree

    def group_of(self, object_id: str) -> str | None:
        """Id of the group directly containing a device or group, or None."""
        return self.group_tree().parent.get(object_id)

    def device(self, device_id: str) -> Device:
        """The device with ``device_id`` (DesignError if there is none)."""
        try:
            return self._devices[device_id]
        except KeyError:
            raise DesignError(f"no device with id {device_id!r}") from None

    def link(self, link_id: str) -> Link:
        """The link with ``link_id`` (DesignError if there is none)."""
        try:
            return self._links[link_id]
        except KeyError:
            raise DesignError(f"no link with id {link_id!r}") from None

    def links_of(self, device_id: str) -> list[Link]:
        """Links attached to a device, ordered by port."""
        ports = self._ports.get(device_id, {})
        return [self._links[ports[p]] for p in sorted(ports)]

    def used_ports(self, device_id: str) -> Mapping[int, str]:
        """Port number -> link id for the device's connected ports."""
        return MappingProxyType(self._ports.get(device_id, {}))

    def devices_of_kind(self, *kinds: DeviceKind | str) -> list[Device]:
        """Devices whose kind is one of ``kinds``."""
        wanted = {DeviceKind(k) for k in kinds}
        return [d for d in self._devices.values() if DeviceKind(d.kind) in wanted]

    def unique_id(self, prefix: str) -> str:
        """An id ``prefix<N>`` not used by any device, link or group."""
        n = 1
        while f"{prefix}{n}" in self:
            n += 1
        return f"{prefix}{n}"

    def __contains__(self, object_id: object) -> bool:
        return object_id in self._devices or object_id in self._links or object_id in self._groups

    # ---------------------------------------------------------------- devices
    def add_device(self, device: Device, index: int | None = None) -> None:
        """Add a device (at position ``index`` of the order, default last); its id must be new."""
        if device.id in self:
            raise DesignError(f"id {device.id!r} is already used")
        _insert(self._devices, device.id, device, index)
        self._ports[device.id] = {}
        self._bump()
        self.device_added.emit(device.id)
        self.changed.emit()

    def remove_device(self, device_id: str) -> Device:
        """Remove a device that has no links left and is in no group; returns it."""
        device = self.device(device_id)
        if self._ports[device_id]:
            raise DesignError(f"device {device_id} still has links; remove them first")
        group = self.group_of(device_id)
        if group is not None:
            raise DesignError(f"device {device_id} is in group {group}; take it out first")
        del self._devices[device_id]
        del self._ports[device_id]
        self._bump()
        self.device_removed.emit(device_id)
        self.changed.emit()
        return device

    def replace_device(self, device: Device) -> None:
        """Replace a device by a new value with the same id, if its links still fit."""
        old = self.device(device.id)
        if type(old) is not type(device):
            raise DesignError(
                f"device {device.id}: kind cannot change ({old.kind} -> {device.kind})")
        problems = device_fits_links(device, self.links_of(device.id))
        if problems:
            raise DesignError("; ".join(problems))
        self._devices[device.id] = device
        self._bump()
        self.device_changed.emit(device.id)
        self.changed.emit()

    def update_device(self, device_id: str, **changes: Any) -> Device:
        """Change fields of a device (validated); returns the new value."""
        old = self.device(device_id)
        if "id" in changes and changes["id"] != device_id:
            raise DesignError("a device's id cannot be changed")
        new: Device = _with_changes(_DEVICE_ADAPTER.validate_python, old, changes,
                                    f"device {device_id}")
        self.replace_device(new)
        return new

    def move_devices(self, positions: Mapping[str, tuple[float, float]]) -> None:
        """Set the canvas positions of several devices at once (clamped to the canvas range
        files accept, :data:`~fabricstudio.model.devices.COORDINATE_LIMIT`)."""
        for device_id, (x, y) in positions.items():
            self.device(device_id)
            if not (math.isfinite(x) and math.isfinite(y)):
                raise DesignError(f"device {device_id}: position ({x}, {y}) is not finite")
        for device_id, (x, y) in positions.items():
            self._devices[device_id] = self._devices[device_id].model_copy(
                update={"x": _clamp(float(x)), "y": _clamp(float(y))}
            )
        if positions:
            self._bump()
            self.devices_moved.emit(tuple(positions))
            self.changed.emit()

    # ------------------------------------------------------------------ links
    def resolve_link(self, link: Link) -> Link:
        """``link`` with missing ports assigned; DesignError naming every problem."""
        problems = []
        ends = []
        for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if end not in self._devices:
                problems.append(f"link {link.id}: end {end!r} is not a device in the design")
                continue
            device = self._devices[end]
            used = self._ports[end]
            if port is None and link.plane in device.planes:
                port = first_free_port(device, link.plane, used)
            problems += end_problems(link, device, port, used)
            ends.append(port)
        if link.id in self:
            problems.insert(0, f"id {link.id!r} is already used")
        if problems:
            raise DesignError("; ".join(problems))
        if ends[0] == link.a_port and ends[1] == link.b_port:
            return link  # ports given (every saved file): no copy for each of 100k links
        return link.model_copy(update={"a_port": ends[0], "b_port": ends[1]})

    def add_link(self, link: Link, index: int | None = None) -> Link:
        """Add a link (at ``index`` of the order, default last), assigning free ports where
        omitted; returns the stored link."""
        link = self.resolve_link(link)
        _insert(self._links, link.id, link, index)
        self._claim_ports(link, link.id)
        self._bump()
        self.link_added.emit(link.id)
        self.changed.emit()
        return link

    def _claim_ports(self, link: Link, link_id: str | None) -> None:
        """Record the two ports a stored (port-resolved) link uses, or free them (None)."""
        for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
            if port is None:
                raise DesignError(f"link {link.id}: port at {end} is not assigned")
            if link_id is None:
                del self._ports[end][port]
            else:
                self._ports[end][port] = link_id

    def remove_link(self, link_id: str) -> Link:
        """Remove a link; returns it."""
        link = self.link(link_id)
        del self._links[link_id]
        self._claim_ports(link, None)
        self._bump()
        self.link_removed.emit(link_id)
        self.changed.emit()
        return link

    def update_link(self, link_id: str, **changes: Any) -> Link:
        """Change fields of a link (ends and id are fixed); returns the new value."""
        old = self.link(link_id)
        for fixed in ("id", "a", "b"):
            if fixed in changes and changes[fixed] != getattr(old, fixed):
                raise DesignError(f"link {link_id}: {fixed} cannot be changed; reconnect instead")
        new: Link = _with_changes(Link.model_validate, old, changes, f"link {link_id}")
        problems = []
        for end, port in ((new.a, new.a_port), (new.b, new.b_port)):
            used = {p: lid for p, lid in self._ports[end].items() if lid != link_id}
            problems += end_problems(new, self._devices[end], port, used)
        if problems:
            raise DesignError("; ".join(problems))
        self._claim_ports(old, None)
        self._links[link_id] = new
        self._claim_ports(new, link_id)
        self._bump()
        self.link_changed.emit(link_id)
        self.changed.emit()
        return new

    # ----------------------------------------------------------------- groups
    def set_groups(self, groups: Iterable[Group]) -> None:
        """Replace every group at once (validated as a whole; unchanged on error)."""
        new = {}
        for group in groups:
            if group.id in new:
                raise DesignError(f"duplicate group id {group.id!r}")
            new[group.id] = group
        problems = group_problems(new.values(), self._devices, self._links)
        if problems:
            raise DesignError("; ".join(problems[:8]))
        changed = tuple(g for g in dict.fromkeys([*self._groups, *new])
                        if self._groups.get(g) != new.get(g))
        order_changed = list(self._groups) != list(new)
        if not changed and not order_changed:
            return
        self._groups = new
        self._tree = None
        self._bump()
        self.groups_changed.emit(changed)
        self.changed.emit()

    def add_group(self, group: Group, index: int | None = None) -> None:
        """Add a group (at ``index`` of the order, default last); its id must be new."""
        if group.id in self:
            raise DesignError(f"id {group.id!r} is already used")
        items = list(self._groups.values())
        items.insert(len(items) if index is None else index, group)
        self.set_groups(items)

    def replace_group(self, group: Group) -> None:
        """Replace a group by a new value with the same id."""
        self.group(group.id)
        self.set_groups(group if g.id == group.id else g for g in self._groups.values())

    def update_group(self, group_id: str, **changes: Any) -> Group:
        """Change fields of a group (validated); returns the new value."""
        old = self.group(group_id)
        if "id" in changes and changes["id"] != group_id:
            raise DesignError("a group's id cannot be changed")
        new: Group = _with_changes(Group.model_validate, old, changes, f"group {group_id}")
        self.replace_group(new)
        return new

    def remove_group(self, group_id: str) -> Group:
        """Remove a group that is in no other group (its members stay); returns it."""
        group = self.group(group_id)
        parent = self.group_of(group_id)
        if parent is not None:
            raise DesignError(f"group {group_id} is in group {parent}; take it out first")
        self.set_groups(g for g in self._groups.values() if g.id != group_id)
        return group

    # ------------------------------------------------------------- document
    def set_fabric(self, fabric: FabricSettings) -> None:
        """Replace the fabric settings."""
        if fabric == self._fabric:
            return
        self._fabric = fabric
        self._bump()
        self.fabric_changed.emit()
        self.changed.emit()

    def set_name(self, name: str, description: str | None = None) -> None:
        """Rename the design (and optionally change its description)."""
        self._name = name
        if description is not None:
            self._description = description
        self._bump()
        self.name_changed.emit(name)
        self.changed.emit()

    def to_data(self) -> DesignData:
        """Snapshot as a plain value (cheap: the models are immutable)."""
        return DesignData.model_construct(
            name=self._name,
            description=self._description,
            fabric=self._fabric,
            nodes=tuple(self._devices.values()),
            links=tuple(self._links.values()),
            groups=tuple(self._groups.values()),
        )

    def load_data(self, data: DesignData | Design) -> None:
        """Replace the whole contents by ``data`` (validated first; unchanged on error), or
        by the contents of another Design, already valid (taken over, not copied: a design
        just read from a file is not checked twice)."""
        fresh = data if isinstance(data, Design) else Design.from_data(data)
        self._name, self._description, self._fabric = fresh._name, fresh._description, fresh._fabric
        self._devices, self._links, self._ports = fresh._devices, fresh._links, fresh._ports
        self._groups, self._tree = fresh._groups, None
        self._bump()
        self.reset.emit()
        self.changed.emit()

    @classmethod
    def from_data(cls, data: DesignData) -> Design:
        """Build a design from plain data; DesignError lists the problems found."""
        design = cls(data.name, data.fabric)
        design._description = data.description
        problems: list[str] = []
        for device in data.nodes:
            if device.id in design._devices:
                problems.append(f"duplicate device id {device.id!r}")
                continue
            design._devices[device.id] = device
            design._ports[device.id] = {}
        links, ports, devices = design._links, design._ports, design._devices
        tables = {device_id: _port_table(device) for device_id, device in devices.items()}
        for link in data.links:
            # The common case of a saved file, checked inline (100k links): both ports given,
            # free, on the link's plane and fast enough.  Anything else goes through
            # resolve_link, which assigns missing ports and words the problems.
            a, b, a_port, b_port = link.a, link.b, link.a_port, link.b_port
            a_table, b_table = tables.get(a), tables.get(b)
            plane, speed, link_id = link.plane, link.speed_gbps, link.id
            if (a_port is None or b_port is None or a_table is None or b_table is None
                    or link_id in devices or link_id in links
                    or plane not in a_table[0] or a_port >= len(a_table[1])
                    or a_port in ports[a] or a_table[1][a_port] not in (None, plane)
                    or speed > a_table[2][a_port]
                    or plane not in b_table[0] or b_port >= len(b_table[1])
                    or b_port in ports[b] or b_table[1][b_port] not in (None, plane)
                    or speed > b_table[2][b_port]):
                try:
                    link = design.resolve_link(link)
                except DesignError as exc:
                    problems.append(str(exc))
                    continue
                a, b, a_port, b_port = link.a, link.b, link.a_port, link.b_port
                if a_port is None or b_port is None:  # resolve_link assigns both
                    raise DesignError(f"link {link_id}: a port is not assigned")
            links[link_id] = link
            ports[a][a_port] = link_id  # what _claim_ports does, inline for 100k links
            ports[b][b_port] = link_id
        problems += group_problems(data.groups, design._devices, design._links)
        if not problems:
            design._groups = {g.id: g for g in data.groups}
        if problems:
            shown = problems[:8]
            if len(problems) > 8:
                shown.append(f"... and {len(problems) - 8} more problem(s)")
            raise DesignError("; ".join(shown))
        return design

    def copy(self) -> Design:
        """An independent copy (signals not connected); used to freeze a design for a run."""
        twin = Design.from_data(self.to_data())
        twin.revision = self.revision
        return twin

    def _bump(self) -> None:
        self.revision += 1


def _port_table(device: Device) -> _PortTable:
    """``device``'s planes, and the plane and speed of each of its ports."""
    return (device.planes, *device.port_layout())


def _clamp(value: float) -> float:
    return min(max(value, -COORDINATE_LIMIT), COORDINATE_LIMIT)


def _with_changes(validate: Any, old: BaseModel, changes: Mapping[str, Any], what: str) -> Any:
    """Validate ``old`` with ``changes`` applied; DesignError naming ``what`` on failure."""
    data = old.model_dump()
    data.update(changes)
    try:
        return validate(data)
    except ValidationError as exc:
        raise DesignError(f"{what}: {format_validation_error(exc)}") from None


def _insert(mapping: dict[str, _V], key: str, value: _V, index: int | None) -> None:
    """Insert into an ordered dict at ``index`` (append when None or past the end)."""
    if index is None or index >= len(mapping):
        mapping[key] = value
        return
    items = list(mapping.items())
    items.insert(index, (key, value))
    mapping.clear()
    mapping.update(items)


def parse_device(data: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> Device:
    """Validate a mapping into the right device class by its ``kind``."""
    try:
        return _DEVICE_ADAPTER.validate_python(dict(data))
    except ValidationError as exc:
        raise DesignError(format_validation_error(exc)) from None
