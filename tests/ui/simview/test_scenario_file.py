"""Opening a scenario file in the scenario panel: what Run and Compare use, bad files."""

import json

import pytest

from fabricstudio.formats import load_design
from fabricstudio.model import Technology
from fabricstudio.sim.request import scenario_for
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.simview import install_simulation_ui
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, engine_source

TRAINING_PLUS_INCAST = {
    "format": "fabricstudio-scenario", "version": 1, "name": "tiny step meets an incast",
    "seed": 3, "cell_bytes": 4096, "routing": "ecmp",
    "workloads": [
        {"type": "training", "ranks": ["server1/gpu0", "server2/gpu0"],
         "gradient_bytes": "256KiB", "compute_s": 2e-5},
        {"type": "incast", "senders": ["server2/gpu1", "server2/gpu2"],
         "receiver": "server1/gpu0", "bytes": "128KiB", "start_s": 2e-5},
    ],
}


@pytest.fixture
def sim(qtbot, examples_dir):
    window = MainWindow(load_design(examples_dir / "two-servers-one-leaf.json"))
    qtbot.addWidget(window)
    sim = install_simulation_ui(window, engine_source)
    yield sim
    sim.shutdown()


def _write(tmp_path, data, name="s.scenario.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_loaded_scenario_is_what_run_uses_until_a_workload_field_changes(sim, tmp_path):
    panel = sim.scenario
    assert "Open scenario" in sim.actions  # also in the Simulation menu
    assert panel.scenario_info.isHidden()
    assert panel.load_scenario_file(_write(tmp_path, TRAINING_PLUS_INCAST))
    request = panel.request()
    scenario = scenario_for(sim.window.design, request)
    assert [w.type for w in scenario.workloads] == ["training", "incast"]
    assert (scenario.seed, scenario.cell_bytes, scenario.routing) == (3, 4096, "ecmp")
    assert panel.seed.value() == 3 and panel.cell.currentData() == 4096
    assert "training step + incast 2:1" in request.label
    assert "training step + incast 2:1" in panel.scenario_info.text()
    assert not panel.scenario_info.isHidden()
    # the fabric choice still applies (Compare swaps it per variant)
    ib = scenario_for(sim.window.design,
                      request.with_changes(technology=Technology.INFINIBAND))
    assert ib.technology is Technology.INFINIBAND and len(ib.workloads) == 2
    panel.size_mib.setValue(panel.size_mib.value() + 1)
    assert panel.loaded is None and panel.scenario_info.isHidden()
    assert panel.request().scenario is None
    assert len(scenario_for(sim.window.design, panel.request()).workloads) == 1


@pytest.mark.parametrize("content, reason", [
    ("{not json", "not valid JSON"),
    ({"format": "fabricstudio-design", "version": 1}, "not a FabricStudio scenario"),
    ({**TRAINING_PLUS_INCAST, "workloads": [{"type": "training", "compute_s": 1}]},
     "gradient_bytes"),
])
def test_a_bad_file_shows_the_reason_and_changes_nothing(sim, tmp_path, content, reason):
    panel = sim.scenario
    assert panel.load_scenario_file(_write(tmp_path, TRAINING_PLUS_INCAST, "good.json"))
    before = panel.request()
    assert not panel.load_scenario_file(_write(tmp_path, content, "bad.json"))
    assert reason in panel.error.text() and "bad.json" in panel.error.text()
    assert panel.request() == before
    assert not panel.load_scenario_file(tmp_path / "missing.json")
    assert "no such file" in panel.error.text()
    assert panel.request() == before


def test_compare_on_a_loaded_training_scenario_reports_gpu_utilisation(qtbot, sim, tmp_path):
    sim.scenario.load_scenario_file(_write(tmp_path, TRAINING_PLUS_INCAST))
    sim.scenario.compare_button.click()
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=120_000)
    assert list(sim.compare.results) == [label for label, _t, _d in COMPARE_VARIANTS]
    assert "gpu_utilisation" in sim.compare.chart_keys
    utilisation = sim.compare.bar_heights("gpu_utilisation")
    assert all(0 < u <= 100 for u in utilisation)
    assert sim.compare.value_text("InfiniBand", "gpu_utilisation").endswith("%")
    assert "training step + incast 2:1" in sim.compare.status.text()


def test_opening_another_design_drops_the_loaded_scenario(sim, tmp_path, examples_dir):
    panel = sim.scenario
    assert panel.load_scenario_file(_write(tmp_path, TRAINING_PLUS_INCAST))
    other = load_design(examples_dir / "tiny.json")
    sim.window.design.load_data(other.to_data())
    assert panel.loaded is None
    assert panel.request().scenario is None


def test_a_deadlock_is_named_and_its_cycle_selected_on_the_canvas(qtbot, examples_dir):
    """The live view says which links froze and selects them (the charts follow)."""
    folder = examples_dir / "scenarios"
    window = MainWindow(load_design(folder / "pfc-ring.design.json"))
    qtbot.addWidget(window)
    sim = install_simulation_ui(window, engine_source)
    try:
        assert sim.scenario.load_scenario_file(folder / "deadlock-ring.scenario.json")
        assert not sim.scenario.dcqcn.isChecked()  # the scenario's PFC-only run
        sim.scenario.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=60_000)
        selected = sorted(item.link.id for item in window.scene.selectedItems())
        assert selected == ["r0", "r1", "r2", "r3", "r4"]
        title = sim.results.title.text()
        assert "Deadlock at" in title and "s0 → s1 → s2 → s3 → s4 → s0" in title
        assert "Deadlock" in window.statusBar().currentMessage()
    finally:
        sim.shutdown()
