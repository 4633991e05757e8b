"""The engine choice and the LLM training form in the scenario panel, through the real Run
button: the automatic choice is shown, a flow-level run says what it leaves out, the LLM
iteration's figures reach the results panel, and the panel and the CLI build the same run."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFormLayout

from fabricstudio.cli import build_parser, simulate_cmd
from fabricstudio.sim.request import scenario_for
from tests.ui.conftest import engine_window


def test_the_llm_form_shows_for_llm_training_and_matches_the_cli(qtbot, examples_dir):
    path = examples_dir / "scenarios" / "demo-rail64.design.json"
    window, sim = engine_window(qtbot, path)
    try:
        panel = sim.scenario
        window.show()
        assert not panel.llm.isVisible()
        panel.workload.setCurrentIndex(panel.workload.findData("llm_training"))
        assert panel.llm.isVisible() and not panel.size_mib.isVisible()
        panel.llm.model.setCurrentIndex(panel.llm.model.findData("llama3-8b"))
        panel.llm.pp.setValue(2)
        panel.llm.global_batch.setValue(16)
        panel.engine.setCurrentIndex(panel.engine.findData("flow"))
        assert not panel.cell.isVisible() and "not modelled" in panel.engine_note.text()
        from_panel = scenario_for(window.design, panel.request())
        parser, _ = build_parser()
        args = parser.parse_args(["simulate", str(path), "--workload", "llm", "--model",
                                  "llama3-8b", "--pp", "2", "--global-batch", "16",
                                  "--engine", "flow"])
        from_cli = simulate_cmd.build_scenario(args, window.design)
        assert from_cli.workloads[0].model_dump() == from_panel.workloads[0].model_dump()
        assert from_cli.engine == from_panel.engine == "flow"
    finally:
        sim.shutdown()


def pick(qtbot, combo, data):
    """Choose the item holding ``data`` as a user does: open the list, click the item."""
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    qtbot.wait(QApplication.doubleClickInterval() + 50)  # the list ignores an instant click
    rect = view.visualRect(combo.model().index(combo.findData(data), 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: not view.isVisible())
    assert combo.currentData() == data


def shown_rows(panel):
    """Labels of the panel's form rows a user sees."""
    form = panel._form
    labels = (form.itemAt(row, QFormLayout.ItemRole.LabelRole) for row in range(form.rowCount()))
    return [item.widget().text() for item in labels
            if item is not None and item.widget().isVisible() and item.widget().text()]


def test_fields_that_do_not_apply_to_the_workload_are_hidden_with_their_labels(qtbot,
                                                                              examples_dir):
    window, sim = engine_window(qtbot, examples_dir / "scenarios" / "demo-rail64.design.json")
    try:
        window.show()
        panel = sim.scenario
        pick(qtbot, panel.workload, "llm_training")
        rows = shown_rows(panel)
        assert "Message size" not in rows and "Compute per step" not in rows
        assert "Stall duration" not in rows and "Ranks" in rows
        assert panel.llm.isVisible() and panel.llm.model.isVisible()
        pick(qtbot, panel.workload, "training")
        rows = shown_rows(panel)
        assert "Message size" in rows and "Compute per step" in rows
        assert "Stall duration" not in rows and not panel.llm.isVisible()
        pick(qtbot, panel.workload, "stall")
        assert "Stall duration" in shown_rows(panel)
        assert "Cell size" in shown_rows(panel)
        pick(qtbot, panel.engine, "flow")
        assert "Cell size" not in shown_rows(panel)
        pick(qtbot, panel.engine, "auto")
        assert "Cell size" in shown_rows(panel)
    finally:
        sim.shutdown()


def test_a_flow_level_llm_run_from_the_run_button(qtbot, examples_dir):
    window, sim = engine_window(qtbot, examples_dir / "scenarios" / "demo-rail64.design.json")
    try:
        window.show()
        panel = sim.scenario
        panel.workload.setCurrentIndex(panel.workload.findData("llm_training"))
        panel.llm.model.setCurrentIndex(panel.llm.model.findData("llama3-8b"))
        panel.llm.pp.setValue(2)
        panel.llm.global_batch.setValue(8)
        panel.engine.setCurrentIndex(panel.engine.findData("flow"))
        panel.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=120_000)
        assert sim.controller.stream.engine == "flow"
        assert "flow: chosen by the scenario" in panel.engine_note.text()
        assert "PFC pauses" in panel.engine_note.text()
        assert sim.results.value_text("engine") == "flow level"
        assert sim.results.value_text("iteration_time_s") not in ("-", "")
        assert sim.results.value_text("mfu").endswith("%")
        assert sim.results.value_text("network_tax").endswith("%")
        assert sim.results.value_text("gpu_utilisation").endswith("%")
        assert sim.results.value_text("pauses") == "not modelled (flow level)"
        assert "not modelled" in sim.plots.plots["events"].titleLabel.text
        # the canvas animates the flow engine's utilisation frames, without event markers
        assert sim.legend.flow and sim.legend.isVisible()
        stream = sim.controller.stream
        busiest = max(range(len(stream)), key=lambda i: stream.frame(i).links["utilisation"].sum())
        sim.controller.seek_index(busiest)
        overlay = sim.controller.overlay
        assert overlay.busy_links() and overlay.paused_ends() == []
    finally:
        sim.shutdown()


def test_auto_shows_the_engine_it_chose(qtbot, examples_dir):
    window, sim = engine_window(qtbot, examples_dir / "scenarios" / "ring8.design.json")
    try:
        panel = sim.scenario
        assert panel.engine.currentData() == "auto" and "Auto" in panel.engine_note.text()
        panel.size_mib.setValue(1.0)
        panel.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=120_000)
        assert "auto: the cell engine is predicted to take" in panel.engine_note.text()
        assert sim.results.value_text("engine") == "cell level"
        assert not sim.legend.flow
        assert sim.results.value_text("pauses") != "not modelled (flow level)"
        assert "not modelled" not in sim.plots.plots["events"].titleLabel.text
    finally:
        sim.shutdown()
