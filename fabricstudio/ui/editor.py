"""Editing operations of the canvas, each ONE undo step through the window's stack:
place devices, connect, delete, copy/paste/duplicate, align and distribute."""

from __future__ import annotations

import atexit
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import QMimeData, QPointF
from PySide6.QtWidgets import QApplication

from fabricstudio.model import Design, DesignError, Device, DeviceKind, Group, Link, parse_device
from fabricstudio.model.commands import AddFragment, Connect, Disconnect, MoveDevices, RemoveDevices
from fabricstudio.model.linking import LinkCandidate, propose_link
from fabricstudio.topology.builders.specs import BuildError
from fabricstudio.topology.builders.units import build_unit
from fabricstudio.ui.canvas.scene import GRID, FabricScene
from fabricstudio.ui.undo import DesignUndoStack

FRAGMENT_MIME = "application/x-fabricstudio-fragment"
#: Spacing of devices placed in a row by Shift+drop and of pasted copies (px).
ROW_SPACING = 90.0
ROW_LENGTH = 16
PASTE_OFFSET = 45.0


def kind_noun(kind: DeviceKind, count: int = 1) -> str:
    """Plain-language name of ``count`` devices of ``kind`` for the undo history, from the
    kind's label: "GPU server", "leaf switches"."""
    label = kind.label
    if not label[:2].isupper():
        label = label[0].lower() + label[1:]
    if count == 1:
        return label
    return label + ("es" if label.endswith(("ch", "sh", "s", "x")) else "s")


class Editor:
    """Turns user intents into model commands on ``stack``; reports refusals to ``notify``."""

    def __init__(self, design: Design, scene: FabricScene, stack: DesignUndoStack,
                 notify: Callable[[str], None] = lambda message: None) -> None:
        self.design = design
        self.scene = scene
        self.stack = stack
        self.notify = notify
        self._paste_count = 0

    # ---------------------------------------------------------------- placing
    def place_devices(self, kind: DeviceKind | str, fields: Mapping[str, Any], at: QPointF,
                      count: int = 1) -> list[str]:
        """Add ``count`` devices of ``kind`` in rows starting at ``at`` (or, for the palette's
        units, ``count`` units in a row); returns their ids."""
        if kind == "unit":
            return self.place_units(fields, at, count)
        kind = DeviceKind(kind)
        devices: list[Device] = []
        taken: set[str] = set()
        for i in range(count):
            device_id = self._fresh_id(DeviceKind(kind).id_prefix, taken)
            pos = self.scene.snap_point(QPointF(at.x() + (i % ROW_LENGTH) * ROW_SPACING,
                                                at.y() + (i // ROW_LENGTH) * ROW_SPACING))
            data = {**fields, "kind": kind.value, "id": device_id, "x": pos.x(), "y": pos.y()}
            devices.append(parse_device(data))
        label = (f"Add {kind_noun(kind)} {devices[0].id}" if count == 1
                 else f"Add {count} {kind_noun(kind, count)}")
        if not self._run(AddFragment(devices, label=label)):
            return []
        self.select_ids(d.id for d in devices)
        return [d.id for d in devices]

    def place_units(self, spec: Mapping[str, Any], at: QPointF, count: int = 1) -> list[str]:
        """Add ``count`` palette units (scalable unit, rack) side by side from ``at``, wired
        and grouped, as one step; selects them and returns the ids of their groups."""
        devices: list[Device] = []
        links: list[Link] = []
        groups: list[Group] = []
        new: set[str] = set()
        tops: list[str] = []
        x = at.x()

        def taken(ident: str) -> bool:
            return ident in self.design or ident in new

        for _ in range(count):
            try:
                unit = build_unit(spec, taken, (x, at.y()))
            except BuildError as exc:
                self.notify(f"Cannot place the unit: {exc}")
                return []
            devices += unit.devices
            links += unit.links
            groups += unit.groups
            new.update(d.id for d in unit.devices)
            new.update(lk.id for lk in unit.links)
            new.update(g.id for g in unit.groups)
            tops.append(unit.top)
            x += unit.width + ROW_SPACING
        snapped = [d.model_copy(update={"x": self.scene.snap_point(QPointF(d.x, d.y)).x(),
                                        "y": self.scene.snap_point(QPointF(d.x, d.y)).y()})
                   for d in devices]
        kind = "scalable unit" if spec.get("type") == "scalable_unit" else "rack"
        label = f"Add {count} {kind}s" if count > 1 else f"Add {kind} {tops[0]}"
        if not self._run(AddFragment(snapped, links, label=label, groups=groups)):
            return []
        self.select_ids(tops)
        return tops

    def _fresh_id(self, prefix: str, taken: set[str]) -> str:
        n = 1
        while f"{prefix}{n}" in self.design or f"{prefix}{n}" in taken:
            n += 1
        taken.add(f"{prefix}{n}")
        return f"{prefix}{n}"

    # --------------------------------------------------------------- linking
    def propose(self, a: str, b: str) -> LinkCandidate:
        """What connecting ``a`` to ``b`` would do."""
        return propose_link(self.design, a, b)

    def connect(self, a: str, b: str) -> Link | None:
        """Add the proposed link, or report why not."""
        candidate = self.propose(a, b)
        if not candidate.valid:
            self.notify(f"Link refused: {candidate.reason}")
            return None
        command = Connect(candidate.link)
        if self._run(command):
            self.notify(f"Connected {candidate.describe()}")
            return command.link
        return None

    # -------------------------------------------------------------- selection
    def selected_device_ids(self) -> list[str]:
        """Ids of selected devices (a selected group selects its devices), design order."""
        return self.scene.selected_device_ids()

    def selected_link_ids(self) -> list[str]:
        """Ids of selected links (a selected bundle selects its links), design order."""
        return self.scene.selected_link_ids()

    def select_ids(self, ids) -> None:
        """Select exactly these devices, links or groups (collapsed groups holding the devices
        open, so that exactly the devices are selected)."""
        wanted = list(dict.fromkeys(ids))
        scene = self.scene
        scene.reveal(wanted)
        items = []
        for object_id in wanted:
            item = (scene.device_items.get(object_id) or scene.link_items.get(object_id)
                    or scene.group_items.get(object_id) or scene.frame_items.get(object_id))
            if item is not None:
                items.append(item)
        scene.select_items(items)

    def select_all(self) -> None:
        """Select everything drawn and visible (devices and collapsed groups), with one
        selection-changed notification."""
        items = [i for i in (*self.scene.device_items.values(), *self.scene.group_items.values())
                 if i.isVisible()]
        self.scene.select_items(items)

    # ---------------------------------------------------------------- delete
    def delete_selection(self) -> None:
        """Remove selected devices (with their links) and selected links, as one step."""
        devices = self.selected_device_ids()
        gone = set(devices)
        links = [lk for lk in self.selected_link_ids()
                 if not {self.design.link(lk).a, self.design.link(lk).b} & gone]
        commands = []
        if links:
            commands.append(Disconnect(links))
        if devices:
            commands.append(RemoveDevices(devices))
        if commands:
            label = commands[0].label if len(commands) == 1 else \
                f"Delete {len(devices)} devices, {len(links)} links"
            self._run_all(commands, label)

    # ------------------------------------------------------- clipboard & copy
    def fragment(self, device_ids: Sequence[str]) -> dict:
        """Plain data of devices, the links among them and the groups wholly among them."""
        ids = set(device_ids)
        devices = [self.design.device(d).model_dump(mode="json") for d in device_ids]
        links = [lk.model_dump(mode="json") for lk in self.design.links.values()
                 if lk.a in ids and lk.b in ids]
        tree = self.design.group_tree()
        groups = [g.model_dump(mode="json") for g in self.design.groups.values()
                  if ids.issuperset(tree.devices(g.id))]
        return {"devices": devices, "links": links, "groups": groups}

    def copy(self) -> bool:
        """Put the selected devices (and links among them) on the clipboard."""
        ids = self.selected_device_ids()
        if not ids:
            return False
        mime = QMimeData()
        payload = json.dumps(self.fragment(ids))
        mime.setData(FRAGMENT_MIME, payload.encode())
        mime.setText(payload)
        QApplication.clipboard().setMimeData(mime)
        _release_clipboard_at_exit()
        self._paste_count = 0
        return True

    def paste(self) -> list[str]:
        """Add the clipboard's devices (fresh ids, offset) with their links; one step."""
        mime = QApplication.clipboard().mimeData()
        if mime is None or not mime.hasFormat(FRAGMENT_MIME):
            self.notify("Nothing to paste")
            return []
        try:
            fragment = json.loads(bytes(mime.data(FRAGMENT_MIME)).decode())
        except ValueError:
            self.notify("The clipboard does not hold FabricStudio devices")
            return []
        self._paste_count += 1
        offset = PASTE_OFFSET * self._paste_count
        return self.add_fragment(fragment, QPointF(offset, offset), "Paste")

    def duplicate(self) -> list[str]:
        """Copy the selection next to itself (with links among the copies); one step."""
        ids = self.selected_device_ids()
        if not ids:
            return []
        return self.add_fragment(self.fragment(ids), QPointF(PASTE_OFFSET, PASTE_OFFSET),
                                 "Duplicate")

    def add_fragment(self, fragment: dict, offset: QPointF, label: str,
                     mark_copies: bool = True) -> list[str]:
        """Add a fragment's devices and links under fresh ids, moved by ``offset``, as one
        step (``mark_copies`` appends ' copy' to non-empty names)."""
        taken: set[str] = set()
        renamed: dict[str, str] = {}
        devices = []
        try:
            for data in fragment["devices"]:
                new_id = self._fresh_id(_prefix(data["id"]), taken)
                renamed[data["id"]] = new_id
                name = data.get("name") or ""
                if name and mark_copies:
                    name = f"{name} copy"
                devices.append(parse_device({**data, "id": new_id, "name": name,
                                             "x": data["x"] + offset.x(),
                                             "y": data["y"] + offset.y()}))
            links = []
            for data in fragment["links"]:
                new_id = self._fresh_id("l", taken)
                links.append(Link.model_validate({**data, "id": new_id, "a": renamed[data["a"]],
                                                  "b": renamed[data["b"]]}))
            groups = self._fragment_groups(fragment.get("groups", ()), renamed, taken)
        except (KeyError, TypeError, ValueError) as exc:
            self.notify(f"Cannot paste: {exc}")
            return []
        if not self._run(AddFragment(devices, links, label=label if not mark_copies
                                     else f"{label} {len(devices)} devices", groups=groups)):
            return []
        self.select_ids(renamed.values())
        return list(renamed.values())

    def _fragment_groups(self, data: Sequence[dict], renamed: dict[str, str],
                         taken: set[str]) -> list[Group]:
        """A fragment's groups under fresh ids (members renamed like the devices)."""
        groups = []
        names = dict(renamed)
        for group in data:
            names[group["id"]] = self._fresh_id(_prefix(group["id"]), taken)
        for group in data:
            members = tuple(names[m] for m in group["members"] if m in names)
            if not members:
                continue
            positions = {names[k]: v for k, v in group.get("u_positions", {}).items()
                         if k in names}
            groups.append(Group.model_validate({**group, "id": names[group["id"]],
                                                "members": members, "u_positions": positions}))
        return groups

    # ------------------------------------------------------------------ align
    def align(self, how: str) -> None:
        """Align selected devices: left, right, top, bottom, hcenter, vcenter, hspread, vspread."""
        ids = self.selected_device_ids()
        if len(ids) < 2:
            self.notify("Select two or more devices to align")
            return
        pos = {i: (self.design.device(i).x, self.design.device(i).y) for i in ids}
        xs = [p[0] for p in pos.values()]
        ys = [p[1] for p in pos.values()]
        new = dict(pos)
        if how in ("left", "right", "hcenter"):
            x = {"left": min(xs), "right": max(xs), "hcenter": sum(xs) / len(xs)}[how]
            new = {i: (x, y) for i, (_, y) in pos.items()}
        elif how in ("top", "bottom", "vcenter"):
            y = {"top": min(ys), "bottom": max(ys), "vcenter": sum(ys) / len(ys)}[how]
            new = {i: (x, y) for i, (x, _) in pos.items()}
        elif how == "hspread":
            order = sorted(ids, key=lambda i: pos[i][0])
            step = max((max(xs) - min(xs)) / (len(ids) - 1), ROW_SPACING)
            new = {i: (min(xs) + k * step, pos[i][1]) for k, i in enumerate(order)}
        elif how == "vspread":
            order = sorted(ids, key=lambda i: pos[i][1])
            step = max((max(ys) - min(ys)) / (len(ids) - 1), ROW_SPACING)
            new = {i: (pos[i][0], min(ys) + k * step) for k, i in enumerate(order)}
        new = {i: _snap(p) if self.scene.snap_to_grid else p for i, p in new.items()}
        changed = {i: p for i, p in new.items() if p != pos[i]}
        if changed:
            self._run(MoveDevices(changed, {i: pos[i] for i in changed}))

    def nudge(self, dx: float, dy: float) -> None:
        """Move the selected devices by (dx, dy) as one step."""
        ids = self.selected_device_ids()
        if not ids:
            return
        old = {i: (self.design.device(i).x, self.design.device(i).y) for i in ids}
        self._run(MoveDevices({i: (x + dx, y + dy) for i, (x, y) in old.items()}, old))

    def find(self, text: str) -> list[str]:
        """Select devices whose id or name contains ``text`` (case-insensitive)."""
        needle = text.strip().lower()
        found = [d.id for d in self.design.devices.values()
                 if needle and (needle in d.id.lower() or needle in d.name.lower())]
        self.select_ids(found)
        self.notify(f"Found {len(found)} device(s) matching {text!r}" if found
                    else f"No device matches {text!r}")
        return found

    # --------------------------------------------------------------- helpers
    def _run(self, command) -> bool:
        try:
            self.stack.run(command)
        except DesignError as exc:
            self.notify(f"Refused: {exc}")
            return False
        return True

    def _run_all(self, commands, label: str) -> bool:
        try:
            self.stack.run_all(commands, label)
        except DesignError as exc:
            self.notify(f"Refused: {exc}")
            return False
        return True


_EXIT_HOOK: list[bool] = []


def _release_clipboard_at_exit() -> None:
    """Clear our fragment from the clipboard before Python finalises Qt: a clipboard still
    holding Python-made QMimeData crashes PySide6 at interpreter exit (offscreen platform)."""
    if _EXIT_HOOK:
        return
    _EXIT_HOOK.append(True)

    def release() -> None:
        app = QApplication.instance()
        if app is None:
            return
        mime = QApplication.clipboard().mimeData()
        if mime is not None and mime.hasFormat(FRAGMENT_MIME):
            QApplication.clipboard().clear()

    atexit.register(release)


def _prefix(device_id: str) -> str:
    """'leaf12' -> 'leaf', 'rack-a' -> 'rack-a'."""
    return re.sub(r"\d+$", "", device_id) or "dev"


def _snap(p: tuple[float, float]) -> tuple[float, float]:
    return (round(p[0] / GRID) * GRID, round(p[1] / GRID) * GRID)
