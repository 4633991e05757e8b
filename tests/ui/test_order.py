"""From design to order in the designer: cost in the Analysis dock, Preferences > Cost book,
File > Export cable plan, the inspector's cable, GPU-idle money in Compare fabrics."""

from __future__ import annotations

import json
import zipfile

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from fabricstudio.model import Technology
from fabricstudio.sim.result import Result, TrainingReport
from fabricstudio.topology.builders import LeafSpineSpec, RailOptimizedSpec, build_fabric
from fabricstudio.ui.dialogs.preferences import PreferencesDialog
from fabricstudio.ui.panels.compare_panel import COLUMNS
from fabricstudio.ui.simview.source import COMPARE_VARIANTS
from tests.ui.simview.synthetic import synthetic_result


def training_result(utilisation: float, ranks: int, completion_s: float = 0.01) -> Result:
    """A Result of a training run with the given GPU utilisation on ``ranks`` GPUs."""
    base = synthetic_result(completion_s, Technology.ROCE)
    summary = base.training.model_copy(update={"gpu_utilisation": utilisation})
    collective = base.collective.model_copy(update={"ranks": ranks})
    report = TrainingReport(type="training", tag="training0", start_s=0.0,
                            finish_s=completion_s, time_s=completion_s, flows=ranks,
                            collective=collective, training=summary)
    return base.model_copy(update={"training": summary, "collective": collective,
                                   "workloads": [report]})


def analysed(window, qtbot):
    panel = window.analysis
    panel.start_analysis()
    panel.wait()
    qtbot.waitUntil(lambda: panel.report is not None and not panel.timer.isActive()
                    and panel.report.cost is not None, timeout=10000)
    return panel.report


def top_texts(panel):
    return [panel.tree.topLevelItem(i).text(0) for i in range(panel.tree.topLevelItemCount())]


def book_file(tmp_path, items, name="quote.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"format": "fabricstudio-costbook", "version": 1,
                                "currency": "USD", "items": items}))
    return path


def answer_dialog(qtbot, action):
    """Run ``action`` on the next modal dialog that opens."""
    def poke():
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, poke)
            return
        action(dialog)
    QTimer.singleShot(20, poke)


def test_analysis_dock_prices_the_design_and_follows_preferences(make_window, qtbot, tmp_path):
    window = make_window(build_fabric(LeafSpineSpec(gpus=64,
                                                    technology=Technology.INFINIBAND))
                         .to_design())
    report = analysed(window, qtbot)
    cost_item = next(window.analysis.tree.topLevelItem(i) for i in
                     range(window.analysis.tree.topLevelItemCount())
                     if window.analysis.tree.topLevelItem(i).text(0).startswith("Cost and"))
    assert "USD" in cost_item.toolTip(0)
    rows = [cost_item.child(i).text(0) for i in range(cost_item.childCount())]
    assert rows[0].startswith("Capex $") and rows[1].startswith("Network $")
    before = report.cost.by_category["switches"].total
    path = book_file(tmp_path, [{"class": "switch-ib-ndr-64x400g", "price": 1.0}])

    def fill(dialog):
        assert isinstance(dialog, PreferencesDialog)
        dialog.cost_book.edit.setText(str(path))
        dialog.accept()
    answer_dialog(qtbot, fill)
    window.order.act_preferences.trigger()  # the real Edit > Preferences action
    assert window.costs.path == str(path)
    qtbot.waitUntil(lambda: window.analysis.report is not None
                    and window.analysis.report.cost.by_category["switches"].total
                    < before, timeout=10000)
    switches = window.analysis.report.cost.by_category["switches"].total
    assert switches == sum(g.count for g in window.analysis.report.bom.switches) * 1.0


def test_preferences_refuse_a_bad_cost_book_in_one_line(make_window, qtbot, tmp_path):
    window = make_window()
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    seen = {}

    def fill(dialog):
        dialog.cost_book.edit.setText(str(bad))
        dialog.accept()  # refused: stays open
        seen["error"] = dialog.error.text()
        seen["visible"] = dialog.isVisible()
        dialog.reject()
    answer_dialog(qtbot, fill)
    window.order.act_preferences.trigger()
    assert seen["visible"] and "not valid JSON" in seen["error"] and "\n" not in seen["error"]
    assert window.costs.path == ""  # the default book stays in use


def test_file_export_cable_plan_writes_the_workbook(make_window, qtbot, tmp_path, monkeypatch):
    window = make_window(build_fabric(RailOptimizedSpec(gpus=64)).to_design())
    target = tmp_path / "plan"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), "Excel workbook (*.xlsx)"))
    window.order.act_export_cable_plan.trigger()  # the real File menu action
    with zipfile.ZipFile(tmp_path / "plan.xlsx") as book:
        names = book.namelist()
    assert "xl/worksheets/sheet2.xml" in names  # cables and summary
    assert "cables in" in window.statusBar().currentMessage()
    assert window.order.act_export_cable_plan in window.menuBar().actions()[0].menu().actions()


def test_inspector_names_the_cable_with_the_one_cable_class_function(make_window, qtbot):
    design = build_fabric(RailOptimizedSpec(gpus=64, technology=Technology.INFINIBAND)) \
        .to_design()
    window = make_window(design)
    window.editor.select_ids(["server1-nic0"])
    label = window.inspector._reach_label
    assert label.text() == "MMF optics: 400G SR4 <-> 800G twin 2xSR4, breakout 800G->2x400G"
    assert label.toolTip().startswith("optics: 400G OSFP SR4 (MMF, 50 m)")
    text = label.text()
    window.set_technology(Technology.ROCE)
    assert label.text() == text  # the same optics on Spectrum-4
    window.design.update_link("server1-nic0", length_m=2.0)
    assert label.text() == "DAC 800G, breakout 800G->2x400G"


def test_compare_prices_idle_gpus_per_day_and_against_the_best_fabric(make_window, qtbot):
    window = make_window(build_fabric(LeafSpineSpec(gpus=16)).to_design())
    panel = window.simulation.compare
    panel.request = None
    from fabricstudio.sim.recorded import RecordedRun

    for (label, _t, _d), utilisation in zip(COMPARE_VARIANTS, (0.9, 0.8, 0.7, 0.5),
                                            strict=True):
        panel._on_variant(label, RecordedRun(label, window.design, None,
                                             training_result(utilisation, 16)))
    price = window.costs.book.item("gpu-hour").price
    assert "idle_per_day" in [k for k, _t in COLUMNS]
    values = {label: panel.results[label] for label, _t, _d in COMPARE_VARIANTS}
    assert values["InfiniBand"]["idle_per_day"] == (1 - 0.9) * 16 * price * 24
    assert values["InfiniBand"]["idle_vs_best_month"] == 0
    assert abs(values["Lossy Ethernet"]["idle_vs_best_month"] - 0.4 * 16 * price * 730) < 1e-6
    assert panel.value_text("Lossy Ethernet", "idle_per_day").startswith("$")
    assert panel.value_text("InfiniBand", "idle_vs_best_month") == "$0"


def test_file_export_proposal_writes_a_pdf_with_the_comparison(make_window, qtbot, tmp_path,
                                                               monkeypatch):
    import re

    from pypdf import PdfReader

    from fabricstudio.sim.recorded import RecordedRun

    window = make_window(build_fabric(LeafSpineSpec(gpus=16)).to_design())
    panel = window.simulation.compare
    panel.design_revision = window.design.revision
    for (label, _t, _d), utilisation in zip(COMPARE_VARIANTS, (0.9, 0.8, 0.7, 0.5),
                                            strict=True):
        panel._on_variant(label, RecordedRun(label, window.design, None,
                                             training_result(utilisation, 16,
                                                             0.01 / utilisation)))
    target = tmp_path / "proposal"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))

    def fill(dialog):
        dialog.customer.setText("Globex")
        assert dialog.comparison.isEnabled() and dialog.comparison.isChecked()
        dialog.accept()
    answer_dialog(qtbot, fill)
    window.order.act_export_proposal.trigger()  # the real File menu action
    text = re.sub(r"\s+", " ", " ".join(p.extract_text() for p in
                                        PdfReader(str(tmp_path / "proposal.pdf")).pages))
    assert "Prepared for Globex" in text and "Fabric comparison" in text
    assert "Lossy Ethernet" in text and "Idle GPUs per day" in text
    assert "Wrote the proposal" in window.statusBar().currentMessage()


def test_inspector_edits_the_rack_unit_and_the_cable_plan_follows(make_window, qtbot):
    from fabricstudio.topology.cableplan import cable_plan

    window = make_window(build_fabric(LeafSpineSpec(gpus=32, management=True)).to_design())
    window.editor.select_ids(["server2"])
    row = window.inspector._rack_row
    assert row.rack.text().startswith("rack1") and row.unit.isEnabled()
    assert row.unit.value() == 9
    row.unit.setValue(33)  # free: servers at U1, U9, U17, U25; switches at U41-U42
    row.unit.editingFinished.emit()
    assert window.design.group("rack1").u_positions["server2"] == 33
    assert window.undo_stack.undoText() == "Place server2 at U33"
    plan = cable_plan(window.design)
    assert {r.a_u for r in plan.rows if r.a_device == "server2"} == {33}
    row.unit.setValue(1)  # server1 stands at U1-U8
    row.unit.editingFinished.emit()
    assert "overlaps server1" in window.inspector.error.text()
    assert window.design.group("rack1").u_positions["server2"] == 33 and row.unit.value() == 33
    window.undo_stack.undo()
    assert window.design.group("rack1").u_positions["server2"] == 9
    assert row.unit.value() == 9
