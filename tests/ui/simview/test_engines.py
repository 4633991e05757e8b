"""The engine choice and the LLM training form in the scenario panel, through the real Run
button: the automatic choice is shown, a flow-level run says what it leaves out, the LLM
iteration's figures reach the results panel, and the panel and the CLI build the same run."""

from fabricstudio.cli import build_parser, simulate_cmd
from fabricstudio.formats import load_design
from fabricstudio.sim.request import scenario_for
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.simview import install_simulation_ui
from fabricstudio.ui.simview.source import engine_source


def _window(qtbot, path):
    window = MainWindow(load_design(path))
    qtbot.addWidget(window)
    return window, install_simulation_ui(window, engine_source)


def test_the_llm_form_shows_for_llm_training_and_matches_the_cli(qtbot, examples_dir):
    path = examples_dir / "scenarios" / "demo-rail64.design.json"
    window, sim = _window(qtbot, path)
    try:
        panel = sim.scenario
        window.show()
        assert not panel.llm.isVisible()
        panel.workload.setCurrentIndex(panel.workload.findData("llm_training"))
        assert panel.llm.isVisible() and not panel.size_mib.isEnabled()
        panel.llm.model.setCurrentIndex(panel.llm.model.findData("llama3-8b"))
        panel.llm.pp.setValue(2)
        panel.llm.global_batch.setValue(16)
        panel.engine.setCurrentIndex(panel.engine.findData("flow"))
        assert not panel.cell.isEnabled() and "not modelled" in panel.engine_note.text()
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


def test_a_flow_level_llm_run_from_the_run_button(qtbot, examples_dir):
    window, sim = _window(qtbot, examples_dir / "scenarios" / "demo-rail64.design.json")
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
    window, sim = _window(qtbot, examples_dir / "scenarios" / "ring8.design.json")
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
