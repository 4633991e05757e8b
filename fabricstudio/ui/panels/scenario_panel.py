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
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, DeviceKind, Technology, format_validation_error
from fabricstudio.sim.flow import NOT_MODELLED
from fabricstudio.sim.llm.models import GPUS, MODELS
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.request import WORKLOAD_LABELS, RunRequest, describe_workloads
from fabricstudio.sim.scenario import (
    ROUTINGS,
    LlmTrainingSpec,
    Scenario,
    ScenarioError,
    load_scenario,
)
from fabricstudio.ui.fit import narrow_combos
from fabricstudio.ui.model_signals import ModelSignals

_TECH_CHOICES = tuple((t.label, t) for t in Technology)
_CELLS = (4096, 16384, 65536)
#: (label, value) of the engine choice.
_ENGINES = (("Auto: cell level when it fits", "auto"),
            ("Cell level: queues, PFC, ECN, drops", "cell"),
            ("Flow level: whole clusters", "flow"))
AUTO_NOTE = ("Auto runs the cell engine when the run is predicted to take under a minute, "
             "else the flow engine; the choice shows here when you run.")
FLOW_NOTE = ("Flow level: link colours are max-min fair rates; " + ", ".join(NOT_MODELLED)
             + " are not modelled (PFC and ECN markers stay hidden); links offered more "
             "than their capacity are listed as hotspots.")


class LlmForm(QGroupBox):
    """Model and GPU presets, batch and parallelism of the LLM training workload."""

    def __init__(self, parent=None) -> None:
        super().__init__("LLM training", parent)
        self.model = QComboBox()
        for key, spec in MODELS.items():
            self.model.addItem(spec.name, key)
        self.model.setCurrentIndex(list(MODELS).index("llama3-70b"))
        self.gpu = QComboBox()
        for key, spec in GPUS.items():
            self.gpu.addItem(spec.name, key)
        self.gpu.setCurrentIndex(list(GPUS).index("h100"))
        self.tp, self.pp, self.dp, self.ep, self.cp = (
            QSpinBox(minimum=1, maximum=1024) for _ in range(5))
        self.tp.setValue(8)
        self.dp.setMinimum(0)
        self.dp.setSpecialValueText("all GPUs left")
        self.dp.setValue(0)
        self.zero = QComboBox()
        self.zero.addItems(["0", "1", "2", "3"])
        self.zero.setCurrentIndex(1)
        self.global_batch = QSpinBox(minimum=1, maximum=10_000_000, suffix=" seq")
        self.global_batch.setValue(2048)
        self.micro_batch = QSpinBox(minimum=1, maximum=65536, suffix=" seq")
        self.seq_len = QSpinBox(minimum=16, maximum=4_194_304, suffix=" tokens")
        self.seq_len.setValue(8192)
        self.efficiency = QDoubleSpinBox(decimals=2, minimum=0.05, maximum=1.0, singleStep=0.05)
        self.efficiency.setValue(0.6)
        self.efficiency.setToolTip("Share of the GPU's BF16 peak the kernels reach while "
                                   "computing (one factor for every operation)")
        form = QFormLayout(self)
        form.addRow("Model", self.model)
        form.addRow("GPU", self.gpu)
        for label, box in (("TP (tensor)", self.tp), ("PP (pipeline)", self.pp),
                           ("DP (data)", self.dp), ("EP (experts)", self.ep),
                           ("CP (context)", self.cp)):
            form.addRow(label, box)
        form.addRow("ZeRO stage", self.zero)
        form.addRow("Global batch", self.global_batch)
        form.addRow("Micro-batch", self.micro_batch)
        form.addRow("Sequence", self.seq_len)
        form.addRow("Compute efficiency", self.efficiency)

    def spec(self) -> LlmTrainingSpec:
        """The workload these fields describe."""
        return LlmTrainingSpec(
            type="llm_training", model=self.model.currentData(), gpu=self.gpu.currentData(),
            tp=self.tp.value(), pp=self.pp.value(), dp=self.dp.value() or None,
            ep=self.ep.value(), cp=self.cp.value(), zero=int(self.zero.currentText()),
            global_batch=self.global_batch.value(), micro_batch=self.micro_batch.value(),
            seq_len=self.seq_len.value(), compute_efficiency=self.efficiency.value())


class ScenarioPanel(QWidget):
    """Edits a RunRequest; emits ``run_requested`` / ``stop_requested`` / ``compare_requested``."""

    run_requested = Signal(object)
    stop_requested = Signal()
    compare_requested = Signal(object)
    #: The opened scenario (or none) is shown: the panel's top block may have grown.
    scenario_shown = Signal()

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
        self.engine = QComboBox()
        for label, value in _ENGINES:
            self.engine.addItem(label, value)
        self.engine.setToolTip("Cell level shows queues, PFC pauses, ECN marks and drops; flow "
                               "level answers for whole clusters (thousands of GPUs)")
        self.engine_note = QLabel(AUTO_NOTE)
        self.engine_note.setWordWrap(True)
        self.engine_note.setObjectName("engineNote")
        self.llm = LlmForm()
        self.cell = QComboBox()
        for size in _CELLS:
            self.cell.addItem(f"{size // 1024} KiB", size)
        self.cell.setCurrentIndex(1)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1)
        self.seed.setValue(1)
        self.horizon_us = QDoubleSpinBox(decimals=1, minimum=1.0, maximum=10_000_000,
                                         suffix=" µs")
        self.horizon_us.setValue(2000.0)
        self.until_complete = QCheckBox("Run until the traffic completes")
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
        #: The opened scenario's title line, and its small print under it.
        self.scenario_info = QLabel()
        self.scenario_info.setWordWrap(True)
        self.scenario_info.setObjectName("scenarioInfo")
        self.scenario_note = QLabel()
        self.scenario_note.setWordWrap(True)
        self.use_fields_button = QPushButton("Use the fields")
        self.use_fields_button.setToolTip("Run and compare the workload of the fields below "
                                          "instead of the opened scenario's")
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
        self.engine.currentIndexChanged.connect(self._sync_enabled)
        self.run_button.clicked.connect(self._on_run)
        self.stop_button.clicked.connect(self.stop_requested)
        self.compare_button.clicked.connect(self._on_compare)
        for signal in (self.workload.currentIndexChanged, self.size_mib.valueChanged,
                       self.compute_ms.valueChanged, self.stall_ms.valueChanged,
                       self.ranks.currentIndexChanged, self.llm.model.currentIndexChanged):
            signal.connect(self.clear_scenario)
        self._sync_enabled()
        self._show_scenario()
        self.model_signals = ModelSignals(self)
        self.model_signals.connect(design.fabric_changed, self.follow_design)
        self.model_signals.connect(design.reset, self._on_design_replaced)

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow("Fabric", self.technology)
        form.addRow(self.dcqcn)  # across both columns: the panel stays narrow
        form.addRow("Workload", self.workload)
        form.addRow("Message size", self.size_mib)
        form.addRow("Compute per step", self.compute_ms)
        form.addRow("Stall duration", self.stall_ms)
        form.addRow("Ranks", self.ranks)
        form.addRow("Routing", self.routing)
        form.addRow("Engine", self.engine)
        form.addRow("", self.engine_note)
        form.addRow("Cell size", self.cell)
        form.addRow("Seed", self.seed)
        form.addRow(self.until_complete)
        form.addRow("Horizon", self.horizon_us)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._form = form
        # Run, Stop and Compare first: reachable without scrolling on a 768-pixel screen
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.compare_button)
        outer = QVBoxLayout(self)
        outer.addLayout(buttons)
        outer.addWidget(self.error)
        files = QHBoxLayout()  # one row: the Scenario dock is short on a 768-pixel screen
        files.addWidget(self.open_button, 1)
        files.addWidget(self.use_fields_button)
        outer.addLayout(files)
        outer.addWidget(self.scenario_info)
        outer.addWidget(self.scenario_note)
        outer.addLayout(form)
        outer.addWidget(self.llm)
        outer.addStretch(1)
        narrow_combos(self)  # fits 1366 x 768 at 150 % (ui/fit.py)

    def _sync_enabled(self) -> None:
        self.dcqcn.setEnabled(self._technology() is Technology.ROCE)
        workload = self.workload.currentData()
        # fields that do not apply are hidden with their labels, not greyed out: an LLM
        # iteration has no message size (its model sets the bytes), a flow-level run no cells
        self._form.setRowVisible(self.size_mib, workload != "llm_training")
        self._form.setRowVisible(self.compute_ms, workload == "training")
        self._form.setRowVisible(self.stall_ms, workload == "stall")
        self._form.setRowVisible(self.cell, self.engine.currentData() != "flow")
        self.llm.setVisible(workload == "llm_training")
        self.horizon_us.setEnabled(not self.until_complete.isChecked())
        if self.engine.currentData() == "flow":
            self.engine_note.setText(FLOW_NOTE)
        elif self.engine.currentData() == "auto":
            self.engine_note.setText(AUTO_NOTE)
        else:
            self.engine_note.setText("Cell level: packets move in cells through queues, PFC, "
                                     "ECN/DCQCN and credits; big runs may be refused.")

    def show_engine(self, stream: MetricStream | None) -> None:
        """Say which engine a run uses and why (the automatic choice, once it is made)."""
        if stream is None or not stream.engine_reason:
            self._sync_enabled()
            return
        text = f"<b>This run:</b> {stream.engine_reason}"
        if stream.engine == "flow":
            text += "<br>" + FLOW_NOTE
        self.engine_note.setText(text)

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
        self.engine.setCurrentIndex(max(0, self.engine.findData(scenario.engine)))
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
            self.scenario_info.setText(f"<b>Scenario:</b> {describe_workloads(scenario)}")
            self.scenario_info.setToolTip(scenario.name or str(path))
            self.scenario_note.setText(
                f"<small>{path.name}: Run and Compare use its workloads (edit a workload "
                f"field to run a single workload instead)</small>")
        self.scenario_info.setVisible(loaded)
        self.scenario_note.setVisible(loaded)
        self.use_fields_button.setVisible(loaded)
        self.scenario_shown.emit()

    def top_height(self) -> int:
        """Height from the panel's top to the end of what must never be cut: Run, Stop,
        Compare, Open scenario (and Use the fields) and the opened scenario's title and small
        print (as laid out now)."""
        last = self.scenario_note if self.scenario_note.isVisibleTo(self) else self.open_button
        margin = self.layout().contentsMargins().bottom() if self.layout() else 0
        return last.geometry().bottom() + 1 + margin

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
        changes = {"workload": self.workload.currentData(),
                   "size_bytes": round(self.size_mib.value() * 2**20),
                   "compute_s": self.compute_ms.value() / 1000.0,
                   "duration_s": self.stall_ms.value() / 1000.0, "ranks": ranks}
        if changes["workload"] == "llm_training":
            changes["llm"] = self.llm.spec()
        return self._common_request().with_changes(**changes)

    def _common_request(self) -> RunRequest:
        """Fabric and engine options (shared by field-built and loaded workloads)."""
        tech = self._technology()
        return RunRequest(technology=tech, dcqcn=self.dcqcn.isChecked() and
                          tech is Technology.ROCE, routing=self.routing.currentText(),
                          engine=self.engine.currentData(),
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
