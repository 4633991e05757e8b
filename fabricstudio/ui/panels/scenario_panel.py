"""The scenario panel: technology, workload and its parameters, ranks, engine options, Run/Stop.

The workload is either built from the panel's fields (one workload) or comes from a scenario
file opened with "Open scenario…" (any mix of workloads and flows, e.g. a training step whose
all-reduce meets another job's incast).  A loaded scenario is what Run and Compare use until
the user edits a workload field.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, DeviceKind, Technology, format_validation_error
from fabricstudio.sim.request import WORKLOAD_LABELS, RunRequest, describe_workloads
from fabricstudio.sim.scenario import ROUTINGS, Scenario, ScenarioError, load_scenario
from fabricstudio.ui.model_signals import ModelSignals

_TECH_CHOICES = tuple((t.label, t) for t in Technology)
_CELLS = (4096, 16384, 65536)


class ScenarioPanel(QWidget):
    """Edits a RunRequest; emits ``run_requested`` / ``stop_requested`` / ``compare_requested``."""

    run_requested = Signal(object)
    stop_requested = Signal()
    compare_requested = Signal(object)

    def __init__(self, design: Design, selected_devices=lambda: (), parent=None) -> None:
        super().__init__(parent)
        self._design = design
        self._selected_devices = selected_devices
        self.technology = QComboBox()
        for label, tech in _TECH_CHOICES:
            self.technology.addItem(label, tech)
        self.technology.setCurrentIndex(
            [t for _, t in _TECH_CHOICES].index(design.fabric.technology))
        self.dcqcn = QCheckBox("DCQCN congestion control")
        self.dcqcn.setChecked(design.fabric.dcqcn.enabled)
        self.workload = QComboBox()
        for key, label in WORKLOAD_LABELS.items():
            self.workload.addItem(label, key)
        self.size_mib = QDoubleSpinBox(decimals=2, minimum=0.01, maximum=65536, suffix=" MiB")
        self.size_mib.setValue(8.0)
        self.compute_ms = QDoubleSpinBox(decimals=3, minimum=0.0, maximum=10_000, suffix=" ms")
        self.compute_ms.setValue(2.0)
        self.stall_ms = QDoubleSpinBox(decimals=3, minimum=0.001, maximum=10_000, suffix=" ms")
        self.stall_ms.setValue(1.0)
        self.stall_ms.setToolTip("How long the receiver's NIC stops draining (a host or PCIe "
                                 "hang): the pause storm of a lossless fabric")
        self.ranks = QComboBox()
        self.ranks.addItem("All GPUs", "all")
        self.ranks.addItem("GPUs of selected servers", "selection")
        self.routing = QComboBox()
        self.routing.addItems(list(ROUTINGS))
        self.routing.setToolTip("default: the technology's own (IB static, Ethernet ECMP)")
        self.cell = QComboBox()
        for size in _CELLS:
            self.cell.addItem(f"{size // 1024} KiB", size)
        self.cell.setCurrentIndex(1)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1)
        self.seed.setValue(1)
        self.horizon_us = QDoubleSpinBox(decimals=1, minimum=1.0, maximum=10_000_000,
                                         suffix=" µs")
        self.horizon_us.setValue(2000.0)
        self.until_complete = QCheckBox("until the traffic completes")
        self.until_complete.setChecked(True)
        self.until_complete.toggled.connect(self._sync_enabled)
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("simRun")
        self.run_button.setToolTip("Simulate the workload on the fabric chosen above (Ctrl+R)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.compare_button = QPushButton("Compare fabrics")
        self.compare_button.setToolTip("Run this workload on InfiniBand, RoCE + DCQCN, "
                                       "RoCE PFC-only and lossy Ethernet")
        self.open_button = QPushButton("Open scenario…")
        self.open_button.setToolTip("Run and compare the workloads of a scenario file "
                                    "(e.g. a training step plus another job's incast)")
        self.open_button.clicked.connect(self.open_scenario_dialog)
        self.scenario_info = QLabel()
        self.scenario_info.setWordWrap(True)
        self.scenario_info.setObjectName("scenarioInfo")
        self.use_fields_button = QPushButton("Use the fields below instead")
        self.use_fields_button.clicked.connect(self.clear_scenario)
        #: The opened scenario file: (path, scenario) or None (the fields build the workload).
        self.loaded: tuple[Path, Scenario] | None = None
        self._last_dir = ""
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #B00020")
        self._layout()
        self.technology.currentIndexChanged.connect(self._sync_enabled)
        self.workload.currentIndexChanged.connect(self._sync_enabled)
        self.run_button.clicked.connect(self._on_run)
        self.stop_button.clicked.connect(self.stop_requested)
        self.compare_button.clicked.connect(self._on_compare)
        for signal in (self.workload.currentIndexChanged, self.size_mib.valueChanged,
                       self.compute_ms.valueChanged, self.stall_ms.valueChanged,
                       self.ranks.currentIndexChanged):
            signal.connect(self.clear_scenario)
        self._sync_enabled()
        self._show_scenario()
        self.model_signals = ModelSignals(self)
        self.model_signals.connect(design.fabric_changed, self.follow_design)
        self.model_signals.connect(design.reset, self._on_design_replaced)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Fabric", self.technology)
        form.addRow("", self.dcqcn)
        form.addRow("Workload", self.workload)
        form.addRow("Message size", self.size_mib)
        form.addRow("Compute per step", self.compute_ms)
        form.addRow("Stall duration", self.stall_ms)
        form.addRow("Ranks", self.ranks)
        form.addRow("Routing", self.routing)
        form.addRow("Cell size", self.cell)
        form.addRow("Seed", self.seed)
        form.addRow("Run", self.until_complete)
        form.addRow("Horizon", self.horizon_us)
        # Run, Stop and Compare first: reachable without scrolling on a 768-pixel screen
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.compare_button)
        outer = QVBoxLayout(self)
        outer.addLayout(buttons)
        outer.addWidget(self.error)
        outer.addWidget(self.open_button)
        outer.addWidget(self.scenario_info)
        outer.addWidget(self.use_fields_button)
        outer.addLayout(form)
        outer.addStretch(1)

    def _sync_enabled(self) -> None:
        self.dcqcn.setEnabled(self._technology() is Technology.ROCE)
        self.compute_ms.setEnabled(self.workload.currentData() == "training")
        self.stall_ms.setEnabled(self.workload.currentData() == "stall")
        self.horizon_us.setEnabled(not self.until_complete.isChecked())

    def follow_design(self) -> None:
        """Show the design's technology and DCQCN setting (after they change in the design)."""
        fabric = self._design.fabric
        index = [t for _, t in _TECH_CHOICES].index(fabric.technology)
        if index != self.technology.currentIndex():
            self.technology.setCurrentIndex(index)
        if fabric.dcqcn.enabled != self.dcqcn.isChecked():
            self.dcqcn.setChecked(fabric.dcqcn.enabled)

    def _on_design_replaced(self) -> None:
        """Another design was opened or built: a loaded scenario names the old one's GPUs."""
        self.clear_scenario()
        self.follow_design()

    # ------------------------------------------------------------------ scenario files
    def open_scenario_dialog(self) -> None:
        """Ask for a scenario file and load it."""
        path, _ = QFileDialog.getOpenFileName(
            self, "Open scenario", self._last_dir,
            "FabricStudio scenarios (*.scenario.json *.json);;All files (*)")
        if path:
            self._last_dir = str(Path(path).parent)
            self.load_scenario_file(path)

    def load_scenario_file(self, path) -> bool:
        """Use the workloads of scenario file ``path`` for Run and Compare; its seed, cell
        size, routing, horizon (and technology, when it names one) fill the fields.  A bad
        file leaves everything as it was and shows why."""
        path = Path(path)
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            self.error.setText(f"Cannot open the scenario: {exc}")
            return False
        self.error.setText("")
        self._fill_fields(scenario)
        self.loaded = (path, scenario)
        self._show_scenario()
        return True

    def use_scenario(self, scenario: Scenario, name: str) -> None:
        """Use an already loaded scenario (a bundled demo's) as if its file ``name`` had been
        opened."""
        self.error.setText("")
        self._fill_fields(scenario)
        self.loaded = (Path(name), scenario)
        self._show_scenario()

    def request_key(self) -> str | None:
        """A text that changes whenever the request does (None when it cannot run)."""
        try:
            return self.request().model_dump_json()
        except ValueError:
            return None

    def clear_scenario(self) -> None:
        """Build the workload from the fields again (a workload field was edited)."""
        if self.loaded is not None:
            self.loaded = None
            self._show_scenario()

    def _fill_fields(self, scenario: Scenario) -> None:
        if scenario.technology is not None:
            self.technology.setCurrentIndex(
                [t for _, t in _TECH_CHOICES].index(scenario.technology))
        if scenario.dcqcn is not None:
            self.dcqcn.setChecked(scenario.dcqcn)
        self.routing.setCurrentText(scenario.routing)
        cell = self.cell.findData(int(scenario.cell_bytes))
        if cell < 0:
            self.cell.addItem(f"{scenario.cell_bytes / 1024:g} KiB", int(scenario.cell_bytes))
            cell = self.cell.count() - 1
        self.cell.setCurrentIndex(cell)
        self.seed.setValue(min(scenario.seed, self.seed.maximum()))
        self.until_complete.setChecked(scenario.until_s is None)
        if scenario.until_s is not None:
            self.horizon_us.setValue(scenario.until_s * 1e6)

    def _show_scenario(self) -> None:
        loaded = self.loaded is not None
        if loaded:
            path, scenario = self.loaded
            self.scenario_info.setText(
                f"<b>Scenario:</b> {describe_workloads(scenario)}<br>"
                f"<small>{path.name}: Run and Compare use its workloads (edit a workload "
                f"field to run a single workload instead)</small>")
            self.scenario_info.setToolTip(scenario.name or str(path))
        self.scenario_info.setVisible(loaded)
        self.use_fields_button.setVisible(loaded)

    def _technology(self) -> Technology:
        return Technology(self.technology.currentData())

    def set_running(self, running: bool) -> None:
        """Enable Run or Stop."""
        self.run_button.setEnabled(not running)
        self.compare_button.setEnabled(not running)
        self.stop_button.setEnabled(running)

    def request(self) -> RunRequest:
        """The scenario as edited; raises ValueError with a message when it cannot run."""
        if self.loaded is not None:
            return self._common_request().with_changes(
                workload=None, scenario=self.loaded[1],
                scenario_label=describe_workloads(self.loaded[1]))
        ranks: tuple[str, ...] = ()
        if self.ranks.currentData() == "selection":
            ranks = self._selected_gpus()
            if len(ranks) < 2:
                raise ValueError("Select at least two GPUs' servers, or choose 'All GPUs'")
        return self._common_request().with_changes(
            workload=self.workload.currentData(), size_bytes=round(self.size_mib.value() * 2**20),
            compute_s=self.compute_ms.value() / 1000.0,
            duration_s=self.stall_ms.value() / 1000.0, ranks=ranks)

    def _common_request(self) -> RunRequest:
        """Fabric and engine options (shared by field-built and loaded workloads)."""
        tech = self._technology()
        return RunRequest(technology=tech, dcqcn=self.dcqcn.isChecked() and
                          tech is Technology.ROCE, routing=self.routing.currentText(),
                          cell_bytes=self.cell.currentData(), seed=self.seed.value(),
                          until_s=None if self.until_complete.isChecked()
                          else self.horizon_us.value() * 1e-6)

    def _selected_gpus(self) -> tuple[str, ...]:
        selected = set(self._selected_devices())
        gpus = []
        for device in self._design.devices.values():  # design order: a stable ring
            if device.id in selected and DeviceKind(device.kind) is DeviceKind.GPU_SERVER:
                gpus.extend(f"{device.id}/gpu{g}" for g in range(device.gpus))
        return tuple(gpus)

    def _checked_request(self) -> RunRequest | None:
        try:
            request = self.request()
        except ValidationError as exc:
            self.error.setText(format_validation_error(exc))
            return None
        except ValueError as exc:
            self.error.setText(str(exc))
            return None
        self.error.setText("")
        return request

    def _on_run(self) -> None:
        request = self._checked_request()
        if request is not None:
            self.run_requested.emit(request)

    def _on_compare(self) -> None:
        request = self._checked_request()
        if request is not None:
            self.compare_requested.emit(request)
