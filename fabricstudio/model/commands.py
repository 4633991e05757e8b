"""Qt-free undoable commands.  Each changes only the :class:`Design`, never views.

A command is applied with :meth:`Command.do` and reverted with :meth:`Command.undo`; both
are all-or-nothing (a failing ``do`` rolls back what it had done and re-raises
:class:`DesignError`).  ``ui/undo.py`` wraps commands in QUndoCommands; tests use them
directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from pydantic import ValidationError

from fabricstudio.model.design import Design, DesignData, format_validation_error
from fabricstudio.model.devices import Device
from fabricstudio.model.fabric import FabricSettings
from fabricstudio.model.groups import Group, GroupKind, group_objects, prune_groups, ungroup
from fabricstudio.model.links import Link
from fabricstudio.model.validation import DesignError


class Command:
    """Base class: a labelled, reversible change to a design."""

    label = "Edit"

    def do(self, design: Design) -> None:
        """Apply the change."""
        raise NotImplementedError

    def undo(self, design: Design) -> None:
        """Revert the change."""
        raise NotImplementedError

    def merge(self, other: Command) -> bool:
        """Absorb ``other`` (applied right after this one) into this command if possible: the
        undo stack then keeps one step for both (consecutive edits of one field)."""
        return False


#: An (apply, revert) pair of a command's step.
Step = tuple[Callable[[], object], Callable[[], object]]


def _all_or_nothing(steps: Iterable[Step]) -> None:
    """Run (apply, revert) pairs; if one apply fails, revert the applied ones and re-raise."""
    done: list[Callable[[], object]] = []
    try:
        for apply, revert in steps:
            apply()
            done.append(revert)
    except Exception:
        for revert in reversed(done):
            revert()
        raise


class AddFragment(Command):
    """Add devices, links and groups together (a palette drop, a paste, a generated fabric)."""

    def __init__(self, devices: Sequence[Device], links: Sequence[Link] = (), label: str = "",
                 groups: Sequence[Group] = ()) -> None:
        self.devices = tuple(devices)
        self.links = tuple(links)
        self.groups = tuple(groups)
        self.label = label or (
            f"Add {self.devices[0].label}" if len(self.devices) == 1 and not self.links
            else f"Add {len(self.devices)} devices, {len(self.links)} links"
        )
        self._added_links: list[Link] = []
        self._old_groups: tuple[Group, ...] = ()

    def do(self, design: Design) -> None:
        added: list[Link] = []
        old_groups = tuple(design.groups.values())

        def add_link(link: Link) -> None:
            added.append(design.add_link(link))

        steps: list[Step] = [(partial(design.add_device, d), partial(design.remove_device, d.id))
                             for d in self.devices]
        steps += [(partial(add_link, lk), partial(design.remove_link, lk.id))
                  for lk in self.links]
        if self.groups:
            steps.append((partial(design.set_groups, old_groups + self.groups),
                          partial(design.set_groups, old_groups)))
        _all_or_nothing(steps)
        self._added_links = added
        self._old_groups = old_groups

    def undo(self, design: Design) -> None:
        if self.groups:
            design.set_groups(self._old_groups)
        for link in reversed(self._added_links):
            design.remove_link(link.id)
        for device in reversed(self.devices):
            design.remove_device(device.id)


def _order(current: Mapping[str, Any], objects: Sequence[Any]) -> list[tuple[int, Any]]:
    """(position, object) pairs sorted by position, so re-inserting in order restores it."""
    positions = {key: i for i, key in enumerate(current)}
    return sorted(((positions[o.id], o) for o in objects), key=lambda pair: pair[0])


def AddDevice(device: Device) -> AddFragment:  # noqa: N802 - reads as a command class
    """Add one device."""
    return AddFragment([device])


class RemoveDevices(Command):
    """Remove devices together with every link attached to them."""

    def __init__(self, device_ids: Iterable[str]) -> None:
        self.device_ids = tuple(dict.fromkeys(device_ids))
        self.label = (f"Delete {self.device_ids[0]}" if len(self.device_ids) == 1
                      else f"Delete {len(self.device_ids)} devices")
        self._devices: list[tuple[int, Device]] = []
        self._links: list[tuple[int, Link]] = []
        self._old_groups: tuple[Group, ...] = ()

    def do(self, design: Design) -> None:
        devices = [design.device(i) for i in self.device_ids]
        links = list({lk.id: lk for i in self.device_ids for lk in design.links_of(i)}.values())
        old_groups = tuple(design.groups.values())
        steps: list[Step] = [(partial(design.remove_link, lk.id), partial(design.add_link, lk))
                             for lk in links]
        if any(design.group_of(i) is not None for i in self.device_ids):
            new_groups = prune_groups(old_groups, self.device_ids)
            steps.append((partial(design.set_groups, new_groups),
                          partial(design.set_groups, old_groups)))
        steps += [(partial(design.remove_device, d.id), partial(design.add_device, d))
                  for d in devices]
        device_order = _order(design.devices, devices)
        link_order = _order(design.links, links)
        _all_or_nothing(steps)
        self._devices, self._links = device_order, link_order
        self._old_groups = old_groups

    def undo(self, design: Design) -> None:
        for index, device in self._devices:
            design.add_device(device, index)
        for index, link in self._links:
            design.add_link(link, index)
        design.set_groups(self._old_groups)


class Connect(Command):
    """Add one link (ports assigned automatically where omitted)."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.label = f"Connect {link.a} - {link.b}"

    def do(self, design: Design) -> None:
        self.link = design.add_link(self.link)

    def undo(self, design: Design) -> None:
        design.remove_link(self.link.id)


class Disconnect(Command):
    """Remove links."""

    def __init__(self, link_ids: Iterable[str]) -> None:
        self.link_ids = tuple(dict.fromkeys(link_ids))
        self.label = ("Delete link" if len(self.link_ids) == 1
                      else f"Delete {len(self.link_ids)} links")
        self._links: list[tuple[int, Link]] = []

    def do(self, design: Design) -> None:
        links = [design.link(i) for i in self.link_ids]
        order = _order(design.links, links)
        _all_or_nothing((partial(design.remove_link, lk.id), partial(design.add_link, lk))
                        for lk in links)
        self._links = order

    def undo(self, design: Design) -> None:
        for index, link in self._links:
            design.add_link(link, index)


class MoveDevices(Command):
    """Move devices to new positions (each drag or nudge is its own undo step)."""

    label = "Move"

    def __init__(self, new_positions: Mapping[str, tuple[float, float]],
                 old_positions: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.new_positions = dict(new_positions)
        self.old_positions = dict(old_positions) if old_positions is not None else None
        n = len(self.new_positions)
        self.label = "Move device" if n == 1 else f"Move {n} devices"

    def do(self, design: Design) -> None:
        if self.old_positions is None:
            self.old_positions = {i: (design.device(i).x, design.device(i).y)
                                  for i in self.new_positions}
        design.move_devices(self.new_positions)

    def undo(self, design: Design) -> None:
        design.move_devices(self.old_positions or {})


class SetDeviceProperties(Command):
    """Set the same field values on one or more devices (validated, all or nothing)."""

    def __init__(self, device_ids: Iterable[str], changes: Mapping[str, Any]) -> None:
        self.device_ids = tuple(dict.fromkeys(device_ids))
        self.changes = dict(changes)
        self.label = "Set " + ", ".join(self.changes)
        self._old: list[Device] = []

    def do(self, design: Design) -> None:
        old = [design.device(i) for i in self.device_ids]
        _all_or_nothing((partial(design.update_device, d.id, **self.changes),
                         partial(design.replace_device, d)) for d in old)
        self._old = old

    def undo(self, design: Design) -> None:
        for device in self._old:
            design.replace_device(device)

    def merge(self, other: Command) -> bool:
        if (not isinstance(other, SetDeviceProperties) or other.device_ids != self.device_ids
                or other.changes.keys() != self.changes.keys()):
            return False
        self.changes = dict(other.changes)
        return True


class SetLinkProperties(Command):
    """Set the same field values on one or more links."""

    def __init__(self, link_ids: Iterable[str], changes: Mapping[str, Any]) -> None:
        self.link_ids = tuple(dict.fromkeys(link_ids))
        self.changes = dict(changes)
        self.label = "Set link " + ", ".join(self.changes)
        self._old: list[Link] = []

    def do(self, design: Design) -> None:
        old = [design.link(i) for i in self.link_ids]
        _all_or_nothing((partial(design.update_link, lk.id, **self.changes),
                         partial(design.update_link, lk.id, **lk.model_dump())) for lk in old)
        self._old = old

    def undo(self, design: Design) -> None:
        for link in self._old:
            design.update_link(link.id, **link.model_dump())

    def merge(self, other: Command) -> bool:
        if (not isinstance(other, SetLinkProperties) or other.link_ids != self.link_ids
                or other.changes.keys() != self.changes.keys()):
            return False
        self.changes = dict(other.changes)
        return True


class SetFabric(Command):
    """Replace the fabric settings (technology, PFC/ECN/DCQCN/credit parameters)."""

    label = "Change fabric settings"

    def __init__(self, fabric: FabricSettings) -> None:
        self.fabric = fabric
        self._old: FabricSettings | None = None

    def do(self, design: Design) -> None:
        self._old = design.fabric
        design.set_fabric(self.fabric)

    def undo(self, design: Design) -> None:
        if self._old is not None:
            design.set_fabric(self._old)


class RenameDesign(Command):
    """Change the design's name and description."""

    label = "Rename design"

    def __init__(self, name: str, description: str | None = None) -> None:
        self.name, self.description = name, description
        self._old: tuple[str, str] = ("", "")

    def do(self, design: Design) -> None:
        self._old = (design.name, design.description)
        design.set_name(self.name, self.description)

    def undo(self, design: Design) -> None:
        design.set_name(*self._old)


class ReplaceContents(Command):
    """Replace the whole design (e.g. a generated fabric into an empty canvas)."""

    def __init__(self, data: DesignData, label: str = "Replace design") -> None:
        self.data = data
        self.label = label
        self._old: DesignData | None = None

    def do(self, design: Design) -> None:
        old = design.to_data()
        design.load_data(self.data)
        self._old = old

    def undo(self, design: Design) -> None:
        if self._old is not None:
            design.load_data(self._old)


class SetGroups(Command):
    """Replace the design's groups (the base of the group commands below)."""

    label = "Change groups"

    def __init__(self, label: str = "") -> None:
        if label:
            self.label = label
        self._old: tuple[Group, ...] = ()

    def new_groups(self, design: Design) -> list[Group]:
        """The groups after the change (computed from the design when applied)."""
        raise NotImplementedError

    def do(self, design: Design) -> None:
        old = tuple(design.groups.values())
        design.set_groups(self.new_groups(design))
        self._old = old

    def undo(self, design: Design) -> None:
        design.set_groups(self._old)


class GroupObjects(SetGroups):
    """Make a group of devices and/or groups (they leave the groups they were in; when they
    all came from one group, the new group takes their place there)."""

    def __init__(self, group: Group) -> None:
        super().__init__(f"Group {len(group.members)} items as {group.label}")
        self.group = group

    def new_groups(self, design: Design) -> list[Group]:
        if self.group.id in design:
            raise DesignError(f"id {self.group.id!r} is already used")
        for member in self.group.members:
            parent = design.group_of(member)
            if parent is not None and design.group(parent).kind is GroupKind.RACK:
                raise DesignError(f"{member} is in rack {parent}, and a rack keeps its "
                                  "devices: select the whole rack, or ungroup it first")
        return group_objects(design.groups.values(), self.group)


class Ungroup(SetGroups):
    """Dissolve groups; their members stay (in the parent group, if any)."""

    def __init__(self, group_ids: Iterable[str]) -> None:
        self.group_ids = tuple(dict.fromkeys(group_ids))
        super().__init__(f"Ungroup {self.group_ids[0]}" if len(self.group_ids) == 1
                         else f"Ungroup {len(self.group_ids)} groups")

    def new_groups(self, design: Design) -> list[Group]:
        groups = list(design.groups.values())
        for group_id in self.group_ids:
            design.group(group_id)
            groups = ungroup(groups, group_id)
        return groups


class SetGroupProperties(SetGroups):
    """Set the same field values on one or more groups (name, kind, collapsed, rack U ...)."""

    def __init__(self, group_ids: Iterable[str], changes: Mapping[str, Any],
                 label: str = "") -> None:
        self.group_ids = tuple(dict.fromkeys(group_ids))
        self.changes = dict(changes)
        super().__init__(label or "Set group " + ", ".join(self.changes))

    def new_groups(self, design: Design) -> list[Group]:
        wanted = set(self.group_ids)
        for group_id in self.group_ids:
            design.group(group_id)
        out = []
        for group in design.groups.values():
            if group.id in wanted:
                data = group.model_dump()
                data.update(self.changes)
                try:
                    group = Group.model_validate(data)
                except ValidationError as exc:
                    raise DesignError(f"group {group.id}: {format_validation_error(exc)}") \
                        from None
            out.append(group)
        return out
