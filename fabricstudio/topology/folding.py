"""What a view of a design with collapsed groups shows (Qt-free).

A collapsed group stands for all its devices: each device is shown as itself or as its
outermost collapsed group (its *representative*).  Links whose ends have the same
representative are inside a collapsed group and not drawn; the others are drawn between the
representatives of their ends, parallel ones gathered into *strands* by network and speed (a
strand with a collapsed end is one bundle).

:func:`auto_collapse` decides which groups semantic zoom folds: the groups that would be small
on screen, with some hysteresis so that a zoom step back and forth does not flicker.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from fabricstudio.model import Design, GroupTree, Link, Plane

#: A group folds when its box is smaller than this on screen (px), and unfolds again once it
#: is larger than ``UNFOLD_ABOVE_PX``.
FOLD_BELOW_PX = 40.0
UNFOLD_ABOVE_PX = 50.0
#: A group also folds when what it holds would be this small on screen on average (px; a
#: device takes 90 scene units with its name, so racks fold below 18 % zoom, where a device
#: is a speck without glyph or name): one labelled tile then says more.
MEMBER_FOLD_BELOW_PX = 16.0
#: ... and a folded member group (a tile) needs at least this much room, and the room for its
#: name: TILE_TEXT_MARGIN_PX plus TITLE_CHAR_PX a character (the tile's 12 px bold title; the
#: canvas elides what does not fit, and "rac…" says nothing).
GROUP_MEMBER_FOLD_BELOW_PX = 50.0
TITLE_CHAR_PX = 7.5
TILE_TEXT_MARGIN_PX = 16.0
#: Unfolding needs this much more room than folding (no flicker between zoom steps).
HYSTERESIS = 1.25
#: Room around a device's centre that its drawing takes (tile and name), in scene units.
DEVICE_HALF = (45.0, 45.0)

Box = tuple[float, float, float, float]
#: A strand: (first end, second end, network, speed); ends sorted, so each pair has one key.
StrandKey = tuple[str, str, Plane, float]


@dataclass(frozen=True)
class GroupCounts:
    """What a collapsed group's tile says."""

    servers: int
    gpus: int
    switches: int
    storage: int
    devices: int


def group_boxes(design: Design, tree: GroupTree | None = None) -> dict[str, Box]:
    """Each group's box: the extent of its devices on the compute network (all its devices
    when none is), plus the room a device's drawing takes."""
    tree = tree or design.group_tree()
    boxes: dict[str, list[float]] = {}
    fallback: dict[str, list[float]] = {}
    for device in design.devices.values():
        chain = tree.ancestors(device.id)
        if not chain:
            continue
        target = boxes if Plane.COMPUTE in device.planes else fallback
        for group_id in chain:
            _extend(target, group_id, device.x, device.y)
    out = {}
    for group_id in design.groups:
        box = boxes.get(group_id) or fallback.get(group_id)
        if box is not None:
            out[group_id] = (box[0] - DEVICE_HALF[0], box[1] - DEVICE_HALF[1],
                             box[2] + DEVICE_HALF[0], box[3] + DEVICE_HALF[1])
    return out


class Headroom:
    """Free height above each group's box (scene units; inf when nothing is above): how far
    up its name tab may reach before it covers a device or another group's box that lies
    wholly above it and overlaps it sideways."""

    def __init__(self, design: Design, boxes: Mapping[str, Box]) -> None:
        devices = design.devices.values()
        x = np.fromiter((d.x for d in devices), float, len(devices))
        y = np.fromiter((d.y for d in devices), float, len(devices))
        groups = np.array(list(boxes.values()), dtype=float).reshape(-1, 4)
        self._left = np.concatenate([x - DEVICE_HALF[0], groups[:, 0]])
        self._right = np.concatenate([x + DEVICE_HALF[0], groups[:, 2]])
        self._bottom = np.concatenate([y + DEVICE_HALF[1], groups[:, 3]])
        self._boxes = boxes
        self._room: dict[str, float] = {}

    def above(self, group_id: str) -> float:
        """Room above ``group_id``'s box (computed once per group)."""
        room = self._room.get(group_id)
        if room is None:
            x0, y0, x1, _y1 = self._boxes.get(group_id, (0.0, 0.0, 0.0, 0.0))
            above = (self._bottom <= y0) & (self._right > x0) & (self._left < x1)
            room = float(y0 - self._bottom[above].max()) if above.any() else math.inf
            self._room[group_id] = room
        return room


def _extend(boxes: dict[str, list[float]], key: str, x: float, y: float) -> None:
    box = boxes.get(key)
    if box is None:
        boxes[key] = [x, y, x, y]
    else:
        if x < box[0]:
            box[0] = x
        if x > box[2]:
            box[2] = x
        if y < box[1]:
            box[1] = y
        if y > box[3]:
            box[3] = y


def group_counts(design: Design, group_id: str, tree: GroupTree | None = None) -> GroupCounts:
    """Servers, GPUs, switches and storage servers in a group (nested groups included)."""
    tree = tree or design.group_tree()
    servers = gpus = switches = storage = 0
    ids = tree.devices(group_id)
    for device_id in ids:
        device = design.devices[device_id]
        if device.kind == "gpu_server":
            servers += 1
            gpus += device.gpus
        elif device.kind == "storage_server":
            storage += 1
        else:
            switches += 1
    return GroupCounts(servers, gpus, switches, storage, len(ids))


def _size(box: Box) -> float:
    return max(box[2] - box[0], box[3] - box[1])


def fold_metrics(tree: GroupTree, boxes: Mapping[str, Box]) -> dict[str, tuple[float, float]]:
    """Per group: (its size, the mean of its members' sizes over what each needs on screen
    to be readable: MEMBER_FOLD_BELOW_PX for a device, the room for its name (at least
    GROUP_MEMBER_FOLD_BELOW_PX) for a group), in scene units per px; a group folds when that
    mean times the scale is below 1."""
    device_size = 2 * DEVICE_HALF[0]
    out = {}
    for group_id, box in boxes.items():
        members = tree.groups[group_id].members
        ratios = [_tile_room(boxes[m], tree.groups[m].label) if m in boxes
                  else device_size / MEMBER_FOLD_BELOW_PX for m in members]
        out[group_id] = (_size(box), sum(ratios) / len(ratios))
    return out


def title_px(label: str) -> float:
    """Screen width (px) a folded tile needs to show ``label`` whole."""
    return max(GROUP_MEMBER_FOLD_BELOW_PX, TILE_TEXT_MARGIN_PX + TITLE_CHAR_PX * len(label))


def _tile_room(box: Box, label: str) -> float:
    """Scene units per px of room of a member group's tile: its width over what its name
    needs, its size over the least a tile needs (the smaller)."""
    return min((box[2] - box[0]) / title_px(label), _size(box) / GROUP_MEMBER_FOLD_BELOW_PX)


def _overlaps(box: Box, view: Box, grow: float) -> bool:
    dx = (view[2] - view[0]) * grow
    dy = (view[3] - view[1]) * grow
    return (box[0] <= view[2] + dx and box[2] >= view[0] - dx
            and box[1] <= view[3] + dy and box[3] >= view[1] - dy)


def auto_collapse(metrics: Mapping[str, tuple[float, float]], scale: float,
                  folded_before: Iterable[str] = (), boxes: Mapping[str, Box] | None = None,
                  view: Box | None = None, member_px: float | None = None) -> set[str]:
    """Groups semantic zoom folds at ``scale`` (screen px per scene unit): those smaller than
    FOLD_BELOW_PX on screen, or whose members are on average smaller than
    MEMBER_FOLD_BELOW_PX; a group folded before unfolds only above the UNFOLD limits.

    With ``view`` (the scene area on screen) and ``boxes``, groups well outside the view stay
    folded too: only what can be seen is drawn in detail (they unfold as they scroll in).
    ``member_px`` replaces the device limit (no hysteresis): exports fold where names would
    no longer be legible.
    """
    before = set(folded_before)
    out = set()
    for group_id, (size, readable) in metrics.items():
        folded = group_id in before
        if member_px is not None:  # the same rule with another size for devices
            small = size * scale < FOLD_BELOW_PX or \
                readable * scale * MEMBER_FOLD_BELOW_PX / member_px < 1.0
        elif folded:
            small = size * scale < UNFOLD_ABOVE_PX or readable * scale < HYSTERESIS
        else:
            small = size * scale < FOLD_BELOW_PX or readable * scale < 1.0
        if small or (view is not None and boxes is not None
                     and not _overlaps(boxes[group_id], view, 0.5 if folded else 1.0)):
            out.add(group_id)
    return out


class Folding:
    """Representatives of devices for a set of collapsed groups, kept up to date cheaply.

    ``collapsed`` is the set of groups drawn folded (whatever the reason); a device's
    representative is its outermost collapsed group, or itself.
    """

    def __init__(self, design: Design) -> None:
        self.design = design
        self.collapsed: frozenset[str] = frozenset()
        self.rep: dict[str, str] = {}
        self.tree = design.group_tree()
        self.reset()

    def reset(self) -> None:
        """Recompute everything (after the groups or the devices changed wholesale)."""
        self.tree = self.design.group_tree()
        self.collapsed = frozenset(g for g in self.collapsed if g in self.design.groups)
        memo: dict[str, str | None] = {}
        self.rep = {d: self._rep_of(d, memo) for d in self.design.devices}

    def _rep_of(self, device_id: str, memo: dict[str, str | None] | None = None) -> str:
        """The outermost collapsed group holding a device, or the device.  ``memo`` keeps
        each group's answer for the devices that follow (one walk up per group, not per
        device: a 32k-GPU fabric has 6,656 devices in 1,408 groups)."""
        parent = self.tree.parent.get(device_id)
        if parent is None:
            return device_id
        if memo is not None and parent in memo:
            outer = memo[parent]
        else:
            outer = None
            for group_id in (parent, *self.tree.ancestors(parent)):  # innermost first
                if group_id in self.collapsed:
                    outer = group_id
            if memo is not None:
                memo[parent] = outer
        return outer if outer is not None else device_id

    def set_collapsed(self, collapsed: Iterable[str]) -> set[str]:
        """Fold exactly these groups; returns the devices whose representative changed."""
        groups = self.design.groups
        new = frozenset(g for g in collapsed if g in groups)
        flipped = self.collapsed ^ new
        if not flipped:
            return set()
        self.collapsed = new
        changed = set()
        memo: dict[str, str | None] = {}
        affected = dict.fromkeys(d for g in flipped for d in self.tree.devices(g))
        for device_id in affected:
            rep = self._rep_of(device_id, memo)
            if self.rep.get(device_id) != rep:
                self.rep[device_id] = rep
                changed.add(device_id)
        return changed

    def add_device(self, device_id: str) -> None:
        """Follow a device added to the design."""
        self.rep[device_id] = self._rep_of(device_id)

    def remove_device(self, device_id: str) -> None:
        """Follow a device removed from the design."""
        self.rep.pop(device_id, None)

    def shown(self) -> set[str]:
        """Ids of what is drawn: devices and collapsed groups."""
        return set(self.rep.values())

    def visible_groups(self) -> list[str]:
        """Expanded groups none of whose ancestors is collapsed (they draw a frame), outer
        groups first."""
        out = []
        queue = list(self.tree.roots())
        while queue:
            group_id = queue.pop(0)
            if group_id in self.collapsed:
                continue
            out.append(group_id)
            queue += [m for m in self.design.groups[group_id].members
                      if m in self.design.groups]
        return out

    def strand_key(self, link: Link) -> StrandKey | None:
        """The strand a link is drawn in, or None when it is inside a collapsed group."""
        a, b = self.rep.get(link.a, link.a), self.rep.get(link.b, link.b)
        if a == b:
            return None
        if b < a:
            a, b = b, a
        return (a, b, link.plane, link.speed_gbps)
