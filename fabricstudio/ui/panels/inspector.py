"""The inspector dock: edits the selection's properties (several devices at once for shared
fields).  Values go through SetDeviceProperties / SetLinkProperties on the undo stack; a value
the model refuses shows the model's reason and the design is untouched."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import (
    DEVICE_CLASSES,
    Design,
    DesignError,
    DeviceKind,
    Group,
    GroupKind,
    Link,
    Plane,
)
from fabricstudio.model.cabling import cable_for
from fabricstudio.model.commands import (
    RenameDesign,
    SetDeviceProperties,
    SetGroupProperties,
    SetLinkProperties,
)
from fabricstudio.topology.folding import group_counts
from fabricstudio.ui.forms import MIXED, FieldEditor, field_label
from fabricstudio.ui.icons import kind_pixmap, unit_pixmap
from fabricstudio.ui.model_signals import ModelSignals
from fabricstudio.ui.undo import DesignUndoStack

#: Device fields not edited as plain values.
_SKIP = {"id", "kind", "x", "y", "planes"}
_LINK_FIELDS = ("speed_gbps", "length_m")
_PORT_FIELDS = ("a_port", "b_port")


class InspectorPanel(QWidget):
    """Shows and edits the selected devices, links, or (nothing selected) the design."""

    #: Emitted when the user asks for the fabric settings dialog.
    fabric_settings_requested = Signal()

    def __init__(self, design: Design, stack: DesignUndoStack, parent=None) -> None:
        super().__init__(parent)
        self.design = design
        self.stack = stack
        self.device_ids: list[str] = []
        self.link_ids: list[str] = []
        #: The group shown (one selected group: its tile or its frame's name), else None.
        self.group_id: str | None = None
        self.editors: dict[str, FieldEditor] = {}
        self.plane_boxes: dict[Plane, QCheckBox] = {}
        self.icon = QLabel()
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 14px; font-weight: 600;")
        self.title.setWordWrap(True)  # a long design name must not widen the window
        self.subtitle = QLabel()
        self.subtitle.setStyleSheet("color: palette(placeholder-text);")
        self.subtitle.setWordWrap(True)
        self.error = QLabel()
        self.error.setObjectName("errorLabel")
        self.error.setWordWrap(True)
        self.error.hide()
        self.form = QFormLayout()
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.form.setHorizontalSpacing(10)
        self.form.setVerticalSpacing(6)
        header = QHBoxLayout()
        header.addWidget(self.icon)
        titles = QVBoxLayout()
        titles.setSpacing(0)
        titles.addWidget(self.title)
        titles.addWidget(self.subtitle)
        header.addLayout(titles, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addLayout(header)
        layout.addSpacing(6)
        layout.addLayout(self.form)
        layout.addWidget(self.error)
        layout.addStretch(1)
        self.model_signals = ModelSignals(self)
        for signal, slot in ((design.device_changed, self._on_object_changed),
                             (design.link_changed, self._on_object_changed),
                             (design.fabric_changed, self._on_document_changed),
                             (design.name_changed, self._on_document_changed),
                             (design.groups_changed, self._on_groups_changed)):
            self.model_signals.connect(signal, slot)
        # Every change (an undo, a redo, a generated fabric, another panel's edit) refreshes
        # the shown values once the change is complete: one refresh, not one per object.
        self._follow = QTimer(self)
        self._follow.setSingleShot(True)
        self._follow.setInterval(0)
        self._follow.timeout.connect(self._catch_up)
        self.model_signals.connect(design.changed, self._schedule_catch_up)
        self.show_selection([], [])

    def detach(self) -> None:
        """Stop following the design."""
        self._follow.stop()
        self.model_signals.disconnect_all()

    # -------------------------------------------------------------- building
    def show_selection(self, device_ids: list[str], link_ids: list[str],
                       group_ids: list[str] | tuple[str, ...] = ()) -> None:
        """Rebuild the form for a new selection (one selected group shows the group)."""
        self.device_ids = [d for d in device_ids if d in self.design.devices]
        self.link_ids = [lk for lk in link_ids if lk in self.design.links]
        groups = [g for g in group_ids if g in self.design.groups]
        self.group_id = None
        if len(groups) == 1 and not self.link_ids and set(self.device_ids) == set(
                self.design.group_tree().devices(groups[0])):
            self.group_id = groups[0]
        self._clear_form()
        self.error.hide()
        if self.group_id is not None:
            self._build_group()
        elif self.device_ids:
            self._build_devices()
        elif self.link_ids:
            self._build_links()
        else:
            self._build_document()
        self.refresh()

    def _clear_form(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.editors = {}
        self.plane_boxes = {}

    def _add_editor(self, name: str, info) -> None:
        editor = FieldEditor(name, info)
        editor.committed.connect(lambda n=name: self._commit(n))
        self.editors[name] = editor
        self.form.addRow(field_label(name), editor.widget)

    def _build_devices(self) -> None:
        devices = [self.design.device(d) for d in self.device_ids]
        kinds = {DeviceKind(d.kind) for d in devices}
        classes = [DEVICE_CLASSES[k] for k in kinds]
        shared = [n for n in classes[0].model_fields
                  if n not in _SKIP and all(n in c.model_fields for c in classes)]
        kind = next(iter(kinds))
        self.icon.setPixmap(kind_pixmap(kind, 36))
        if len(devices) == 1:
            self.title.setText(devices[0].label)
            self.subtitle.setText(f"{DeviceKind(kind).label} · id {devices[0].id}")
        else:
            self.title.setText(f"{len(devices)} devices")
            self.subtitle.setText(", ".join(sorted(DeviceKind(k).label for k in kinds))
                                  + " · shared fields")
        for name in shared:
            self._add_editor(name, classes[0].model_fields[name])
        self._ports_label = None
        self._rack_row = None
        if len(devices) == 1:
            self._ports_label = QLabel()
            self._ports_label.setWordWrap(True)
            self.form.addRow("Ports in use", self._ports_label)
            from fabricstudio.ui.panels.rack_place import RackPlacement

            self._rack_row = RackPlacement(self.design, self.stack, self.show_error)
            self.form.addRow("Rack", self._rack_row)
        planes = QWidget()
        row = QHBoxLayout(planes)
        row.setContentsMargins(0, 0, 0, 0)
        for plane in Plane:
            box = QCheckBox(plane.value)
            box.clicked.connect(lambda _=False: self._commit("planes"))
            self.plane_boxes[plane] = box
            row.addWidget(box)
        self.form.addRow("Networks", planes)

    def _build_group(self) -> None:
        group = self.design.group(self.group_id)  # type: ignore[arg-type]
        self.icon.setPixmap(unit_pixmap("rack" if group.kind is GroupKind.RACK
                                        else "scalable_unit", 36))
        for name in ("name", "kind", "collapsed") + (
                ("height_u",) if group.kind is GroupKind.RACK else ()):
            self._add_editor(name, Group.model_fields[name])
        self._group_summary = QLabel()
        self._group_summary.setWordWrap(True)
        self.form.addRow("Contents", self._group_summary)

    def _build_links(self) -> None:
        self.icon.clear()
        links = [self.design.link(lk) for lk in self.link_ids]
        if len(links) == 1:
            lk = links[0]
            self.title.setText(f"Link {lk.id}")
            self.subtitle.setText(f"{lk.a}:{lk.a_port} ↔ {lk.b}:{lk.b_port} · {lk.plane.value}")
        else:
            self.title.setText(f"{len(links)} links")
            self.subtitle.setText("shared fields")
        for name in _LINK_FIELDS + (_PORT_FIELDS if len(links) == 1 else ()):
            self._add_editor(name, Link.model_fields[name])
        reach = QLabel()
        reach.setWordWrap(True)
        self.form.addRow("Cable", reach)
        self._reach_label = reach

    def _build_document(self) -> None:
        self.icon.clear()
        self.title.setText(self.design.name)
        self.subtitle.setText("Nothing selected · design properties")
        from pydantic.fields import FieldInfo

        self._add_editor("name", FieldInfo(annotation=str, default=""))
        self._summary = QLabel()
        self._summary.setWordWrap(True)
        self.form.addRow("Contents", self._summary)
        button = QPushButton("Fabric settings…")
        button.clicked.connect(self.fabric_settings_requested)
        self.form.addRow("Technology", button)
        self._tech_button = button

    # ------------------------------------------------------------ refreshing
    def refresh(self) -> None:
        """Show the current values of the selection."""
        if self.group_id is not None:
            self._refresh_group()
        elif self.device_ids:
            devices = [self.design.device(d) for d in self.device_ids]
            for name, editor in self.editors.items():
                editor.show(_shared_value(getattr(d, name) for d in devices))
            for plane, box in self.plane_boxes.items():
                states = {plane in d.planes for d in devices}
                box.setTristate(len(states) > 1)
                state = (Qt.CheckState.PartiallyChecked if len(states) > 1 else
                         Qt.CheckState.Checked if states.pop() else Qt.CheckState.Unchecked)
                box.setCheckState(state)
            if len(devices) == 1:
                self.title.setText(devices[0].label)
                if self._ports_label is not None:
                    self._ports_label.setText(port_usage_text(self.design, devices[0]))
                if self._rack_row is not None:
                    self._rack_row.show_device(devices[0].id)
        elif self.link_ids:
            links = [self.design.link(lk) for lk in self.link_ids]
            for name, editor in self.editors.items():
                editor.show(_shared_value(getattr(lk, name) for lk in links))
            choices = {cable_for(self.design, lk) for lk in links}
            self._reach_label.setText("\n".join(sorted({c.short_label for c in choices})))
            self._reach_label.setToolTip("\n".join(sorted({c.label for c in choices})))
        else:
            self.editors["name"].show(self.design.name)
            self.title.setText(self.design.name)
            self._summary.setText(design_summary(self.design))
            self._tech_button.setText(f"{self.design.fabric.technology.label} · settings…")

    def _refresh_group(self) -> None:
        group = self.design.group(self.group_id)  # type: ignore[arg-type]
        for name, editor in self.editors.items():
            editor.show(getattr(group, name))
        counts = group_counts(self.design, group.id)
        parent = self.design.group_of(group.id)
        self.title.setText(group.label)
        self.subtitle.setText(f"{group.kind.label} · id {group.id}"
                              + (f" · in {self.design.group(parent).label}" if parent else ""))
        parts = [f"{counts.servers:,} GPU servers ({counts.gpus:,} GPUs)"]
        if counts.storage:
            parts.append(f"{counts.storage:,} storage servers")
        parts.append(f"{counts.switches:,} switches")
        subgroups = len(self.design.group_tree().subgroups(group.id))
        if subgroups:
            parts.append(f"{subgroups:,} groups inside")
        self._group_summary.setText(" · ".join(parts))

    def _schedule_catch_up(self) -> None:
        self._follow.start()

    def _catch_up(self) -> None:
        """After any change: drop what no longer exists, then show current values."""
        gone = (any(d not in self.design.devices for d in self.device_ids)
                or any(lk not in self.design.links for lk in self.link_ids)
                or (self.group_id is not None and self.group_id not in self.design.groups))
        if gone:
            groups = [self.group_id] if self.group_id in self.design.groups else []
            self.show_selection(self.device_ids, self.link_ids, groups)
        else:
            self.refresh()

    def _on_object_changed(self, object_id: str) -> None:
        if object_id in self.device_ids or object_id in self.link_ids:
            self.refresh()

    def _on_groups_changed(self, _ids: tuple) -> None:
        if len(self.device_ids) == 1 or self.group_id is not None:  # rack placement, group
            self._catch_up()

    def _on_document_changed(self, *_args) -> None:
        if not self.device_ids:  # the design's properties, or links whose cable depends on
            self.refresh()       # the technology

    # ------------------------------------------------------------- committing
    def _commit(self, name: str) -> None:
        try:
            if name == "planes":
                value = tuple(p for p, box in self.plane_boxes.items()
                              if box.checkState() == Qt.CheckState.Checked)
                command = SetDeviceProperties(self.device_ids, {"planes": value})
                command.label = f"Set the networks of {_who(self.device_ids)}"
            else:
                value = self.editors[name].value()
                if self.group_id is not None:
                    group = self.design.group(self.group_id)
                    if name == "name":
                        value = str(value).strip()
                    command = SetGroupProperties([self.group_id], {name: value},
                                                 label=_group_label(group.label, name, value))
                elif self.device_ids:
                    command = SetDeviceProperties(self.device_ids, {name: value})
                    command.label = f"Set {field_label(name)} of {_who(self.device_ids)}"
                elif self.link_ids:
                    command = SetLinkProperties(self.link_ids, {name: value})
                    command.label = (f"Set {field_label(name)} of "
                                     f"{_who(self.link_ids, 'links')}")
                else:
                    if not str(value).strip():
                        raise ValueError("the design name cannot be empty")
                    command = RenameDesign(str(value).strip())
            self.stack.run(command)
        except (DesignError, ValueError) as exc:
            self.show_error(str(exc))
            self.refresh()
            return
        self.error.hide()
        self.refresh()

    def show_error(self, text: str) -> None:
        """Show why a value was refused."""
        self.error.setText(f"Refused: {text}")
        self.error.show()


def _who(ids: list[str], what: str = "devices") -> str:
    """'gpu1' or '12 devices'."""
    return ids[0] if len(ids) == 1 else f"{len(ids):,} {what}"


def _group_label(label: str, name: str, value) -> str:
    """Plain-language name of a group edit for the undo history."""
    if name == "collapsed":
        return f"{'Collapse' if value else 'Expand'} {label}"
    if name == "name":
        return f"Rename {label}"
    if name == "kind":
        return f"Make {label} a {GroupKind(value).label.lower()}"
    return f"Set {field_label(name).lower()} of {label}"


def _shared_value(values):
    values = list(values)
    first = values[0]
    return first if all(v == first for v in values[1:]) else MIXED


def design_summary(design: Design) -> str:
    """'256 GPUs in 32 servers · 24 switches · 512 links'."""
    servers = design.devices_of_kind(DeviceKind.GPU_SERVER)
    gpus = sum(s.gpus for s in servers)
    switches = sum(1 for d in design.devices.values() if d.is_switch)
    storage = len(design.devices_of_kind(DeviceKind.STORAGE_SERVER))
    parts = [f"{gpus:,} GPUs in {len(servers):,} servers", f"{switches:,} switches"]
    if storage:
        parts.append(f"{storage:,} storage servers")
    parts.append(f"{len(design.links):,} links")
    return " · ".join(parts)


def port_usage_text(design: Design, device) -> str:
    """'compute 8/8 · management 0/1' (switch: '30/64')."""
    used = design.used_ports(device.id)
    if device.is_switch:
        return f"{len(used)}/{device.port_count()}"
    parts = []
    for plane in Plane:
        ports = device.ports_for_plane(plane)
        if len(ports):
            taken = sum(1 for p in ports if p in used)
            parts.append(f"{plane.value} {taken}/{len(ports)}")
    return " · ".join(parts) or "no ports"
