"""The GUI and the CLI meet the engine at one boundary (RunRequest -> Scenario) and write the
same run's metrics CSV with one writer."""

import pytest

from fabricstudio.cli import build_parser, main, simulate_cmd
from fabricstudio.sim.request import WORKLOAD_LABELS, scenario_for
from fabricstudio.ui.panels import results_panel
from tests.ui.conftest import engine_window


def test_panel_and_command_line_build_the_same_scenario(qtbot, examples_dir):
    path = examples_dir / "scenarios" / "ring8.design.json"
    window, sim = engine_window(qtbot, path)
    try:
        panel = sim.scenario
        panel.workload.setCurrentIndex(panel.workload.findData("incast"))
        panel.size_mib.setValue(2.0)
        from_panel = scenario_for(window.design, panel.request())
        parser, _modules = build_parser()
        args = parser.parse_args(["simulate", str(path), "--workload", "incast", "--size",
                                  "2MiB", "--receiver", from_panel.workloads[0].receiver])
        from_cli = simulate_cmd.build_scenario(args, window.design)
        assert from_cli.workloads == from_panel.workloads
        fields = ("technology", "dcqcn", "routing", "cell_bytes", "seed", "until_s")
        assert ([getattr(from_cli, f) or getattr(window.design.fabric, f, None) for f in fields]
                [2:] == [getattr(from_panel, f) for f in fields][2:])
    finally:
        sim.shutdown()


def test_gui_and_cli_write_the_same_metrics_csv(qtbot, tmp_path, examples_dir, monkeypatch):
    path = examples_dir / "scenarios" / "ring8.design.json"
    cli_csv, gui_csv, menu_csv = tmp_path / "cli.csv", tmp_path / "gui.csv", tmp_path / "m.csv"
    assert main(["simulate", str(path), "--workload", "all-reduce", "--size", "1MiB",
                 "--metrics", str(cli_csv)]) == 0
    _window_, sim = engine_window(qtbot, path)
    try:
        sim.scenario.size_mib.setValue(1.0)
        sim.scenario.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=120_000)
        target = [gui_csv]
        monkeypatch.setattr(results_panel.QFileDialog, "getSaveFileName",
                            lambda *_a, **_k: (str(target[0]), ""))
        sim.results.export_button.click()
        target[0] = menu_csv
        sim.actions["Export metrics CSV"].trigger()
    finally:
        sim.shutdown()
    expected = cli_csv.read_bytes()
    assert b",flow,0,server1/gpu0," in expected or b",flow,0," in expected
    assert gui_csv.read_bytes() == expected
    assert menu_csv.read_bytes() == expected


def test_the_stall_workload_runs_from_the_panel(qtbot, examples_dir):
    """The pause-storm model is a workload the user picks in the panel's combo: its duration
    field appears, and Run makes the receiver's NIC stall behind an incast."""
    window, sim = engine_window(qtbot, examples_dir / "scenarios" / "incast.design.json")
    try:
        panel = sim.scenario
        assert panel.stall_ms.isHidden()
        panel.workload.setCurrentIndex(panel.workload.findText(WORKLOAD_LABELS["stall"]))
        assert panel.workload.currentData() == "stall" and not panel.stall_ms.isHidden()
        panel.size_mib.setValue(0.25)
        panel.stall_ms.setValue(0.2)
        panel.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=120_000)
        result = sim.controller.result
        assert [w.type for w in result.workloads] == ["incast", "stall"]
        stall = result.workloads[1]
        assert stall.receiver.split("/")[0] == "h1"  # the first GPU server, as the field says
        assert stall.finish_s - stall.start_s == pytest.approx(2e-4)
        assert result.totals.pfc_pauses > 0  # the stuck NIC backs the switch port up
    finally:
        sim.shutdown()


def test_a_gui_run_takes_one_snapshot_and_validates_nothing(qtbot, examples_dir, monkeypatch):
    """Freeze once: Run snapshots the design once (plus, where the run's settings differ from
    the design's, one view of that snapshot with them) and neither copies nor re-validates it."""
    import traceback

    from fabricstudio.model import Design, DesignData, FrozenDesign

    window, sim = engine_window(qtbot, examples_dir / "scenarios" / "ring8.design.json")
    calls: list[str] = []
    real_init = FrozenDesign.__init__

    def snapshot(self, source, fabric=None):
        if not any(f.filename.endswith("analysis.py") for f in traceback.extract_stack()):
            calls.append("with settings" if isinstance(source, FrozenDesign) else "snapshot")
        real_init(self, source, fabric)  # (the Analysis panel takes its own, for its work)

    monkeypatch.setattr(FrozenDesign, "__init__", snapshot)
    for name in ("copy", "load_data", "to_data"):
        monkeypatch.setattr(Design, name, lambda *_a, _n=name, **_k: calls.append(_n))
    monkeypatch.setattr(DesignData, "model_validate",
                        classmethod(lambda *_a, **_k: calls.append("validate")))
    sim.controller.use_process = False  # counted in this process
    try:
        sim.scenario.size_mib.setValue(1.0)
        sim.scenario.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=120_000)
    finally:
        sim.shutdown()
    assert sim.controller.result is not None
    assert calls.count("snapshot") == 1
    assert set(calls) <= {"snapshot", "with settings"} and calls.count("with settings") <= 1
