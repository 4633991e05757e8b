"""The fabric wizard: choose a family and its parameters, see the counts (GPUs, switches per
tier, cables, oversubscription, bisection) before building; the build is ONE undo step."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)

from fabricstudio.model import Technology
from fabricstudio.topology.builders import BuildError, FabricBuild, build_fabric, parse_spec

SPEEDS = (100, 200, 400, 800, 1600)
FAMILIES = (("rail-optimized", "Rail-optimised (DGX SuperPOD style)"),
            ("leaf-spine", "Leaf-spine (top-of-rack)"),
            ("fat-tree", "Fat tree (3-tier, k-ary)"))


def _speed_combo(value: int) -> QComboBox:
    combo = QComboBox()
    for speed in SPEEDS:
        combo.addItem(f"{speed} Gb/s", speed)
    combo.setCurrentIndex(combo.findData(value))
    return combo


def _spin(low: int, high: int, value: int, step: int = 1) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setValue(value)
    spin.setGroupSeparatorShown(True)
    return spin


class FabricWizard(QDialog):
    """Parameters on the left, a live preview of what will be built on the right."""

    def __init__(self, technology: Technology = Technology.ROCE, parent=None,
                 can_add: bool = False) -> None:
        super().__init__(parent)
        self.setWindowTitle("New fabric")
        self.build: FabricBuild | None = None
        self.family = QComboBox()
        for key, label in FAMILIES:
            self.family.addItem(label, key)
        self.technology = QComboBox()
        for tech in Technology:
            self.technology.addItem(tech.label, tech)
        self.technology.setCurrentIndex(self.technology.findData(technology))
        self.gpus = _spin(1, 131072, 256, 64)
        self.gpus_per_server = _spin(1, 256, 8)
        self.nics_per_server = _spin(1, 64, 8)
        self.nic_speed = _speed_combo(400)
        self.radix = _spin(2, 1024, 64, 8)
        self.port_speed = _speed_combo(400)
        self.oversubscription = QDoubleSpinBox()
        self.oversubscription.setRange(1.0, 64.0)
        self.oversubscription.setSingleStep(0.5)
        self.oversubscription.setSuffix(" : 1")
        self.tiers = QComboBox()
        for label, value in (("Automatic", "auto"), ("2 tiers", 2), ("3 tiers", 3)):
            self.tiers.addItem(label, value)
        self.storage = _spin(0, 4096, 0)
        self.management = QCheckBox("Out-of-band management network")
        form = QFormLayout()
        form.addRow("Topology", self.family)
        form.addRow("Technology", self.technology)
        form.addRow("GPUs", self.gpus)
        form.addRow("GPUs per server", self.gpus_per_server)
        form.addRow("NICs per server", self.nics_per_server)
        form.addRow("NIC speed", self.nic_speed)
        form.addRow("Switch radix", self.radix)
        form.addRow("Switch port speed", self.port_speed)
        form.addRow("Leaf oversubscription", self.oversubscription)
        form.addRow("Tiers (rail-optimised)", self.tiers)
        form.addRow("Storage servers", self.storage)
        form.addRow("", self.management)
        self.preview = QLabel()
        self.preview.setTextFormat(Qt.TextFormat.RichText)
        self.preview.setWordWrap(True)
        self.preview.setMinimumWidth(300)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        box = QGroupBox("Preview")
        box_layout = QVBoxLayout(box)
        box_layout.addWidget(self.preview)
        box_layout.addStretch(1)
        columns = QHBoxLayout()
        columns.addLayout(form)
        columns.addSpacing(12)
        columns.addWidget(box, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Build fabric")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.add_alongside = QCheckBox("Add next to the current design (keep its devices; "
                                       "fresh ids; the design's technology stays)")
        self.add_alongside.setEnabled(can_add)
        note = QLabel("Otherwise building replaces the canvas. Either way it is one step: "
                      "Ctrl+Z undoes it.")
        note.setStyleSheet("color: palette(placeholder-text);")
        layout = QVBoxLayout(self)
        layout.addLayout(columns)
        layout.addWidget(self.add_alongside)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        for widget in (self.family, self.technology, self.nic_speed, self.port_speed, self.tiers):
            widget.currentIndexChanged.connect(self.update_preview)
        for widget in (self.gpus, self.gpus_per_server, self.nics_per_server, self.radix,
                       self.storage, self.oversubscription):
            widget.valueChanged.connect(self.update_preview)
        self.management.toggled.connect(self.update_preview)
        self.update_preview()

    def spec_data(self) -> dict:
        """The parameters as a spec mapping for :func:`parse_spec`."""
        data = {
            "topology": self.family.currentData(),
            "technology": Technology(self.technology.currentData()).value,
            "gpus": self.gpus.value(),
            "gpus_per_server": self.gpus_per_server.value(),
            "nics_per_server": self.nics_per_server.value(),
            "nic_speed_gbps": self.nic_speed.currentData(),
            "switch_radix": self.radix.value(),
            "port_speed_gbps": self.port_speed.currentData(),
            "oversubscription": self.oversubscription.value(),
            "storage_servers": self.storage.value(),
            "management": self.management.isChecked(),
        }
        if data["topology"] == "rail-optimized":
            data["tiers"] = self.tiers.currentData()
        return data

    def update_preview(self) -> None:
        """Build in memory and show the counts, or the reason it cannot be built."""
        self.tiers.setEnabled(self.family.currentData() == "rail-optimized")
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            self.build = build_fabric(parse_spec(self.spec_data()))
        except BuildError as exc:
            self.build = None
            self.preview.setText(f"<p style='color:#EF4444'><b>Cannot build:</b> {exc}</p>")
            ok.setEnabled(False)
            return
        ok.setEnabled(True)
        self.preview.setText(preview_html(self.build.summary))


def preview_html(s: dict) -> str:
    """The summary of a build as a small table."""
    sw = s["switches"]
    rows = [("GPUs", f"{s['gpus']:,} in {s['servers']:,} servers")]
    rows.append(("Switches", f"{s['switches_total']:,} ({sw['leaf']:,} leaf, {sw['spine']:,} "
                             f"spine, {sw['core']:,} core)"))
    extra = []
    if sw.get("storage_leaf") or sw.get("storage_spine"):
        extra.append(f"{sw['storage_leaf'] + sw['storage_spine']} storage")
    if sw.get("management"):
        extra.append(f"{sw['management']} management")
    if extra:
        rows.append(("", " + " + ", ".join(extra)))
    cables = s["cables"]
    rows.append(("Cables", f"{s['links']:,} (compute {cables['compute']:,}, storage "
                           f"{cables['storage']:,}, management {cables['management']:,})"))
    reach = s.get("cables_by_class") or s.get("cables_by_reach") or {}
    rows.append(("By type", " · ".join(f"{k} {v:,}" for k, v in reach.items() if v) or "none"))
    rows.append(("Tiers", str(s["tiers"])))
    over = s["oversubscription"]
    rows.append(("Oversubscription", ", ".join(f"{k} {v:g}:1" for k, v in over.items()
                                                if v is not None) or "none"))
    rows.append(("Bisection", f"{s['bisection_gbps'] / 1000:,.1f} Tb/s"))
    rows.append(("Largest at this radix", f"{s['max_gpus']:,} GPUs"))
    html = "<table cellspacing='4'>" + "".join(
        f"<tr><td style='color:gray;padding-right:10px'>{k}</td><td><b>{v}</b></td></tr>"
        for k, v in rows) + "</table>"
    for note in s.get("notes", []):
        html += f"<p style='color:#F59E0B'>{note}</p>"
    return html
