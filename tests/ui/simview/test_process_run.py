"""The engine in a child process: frames stream back, Stop leaves no process behind."""

import multiprocessing

from fabricstudio.formats import load_design
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.simview import install_simulation_ui
from fabricstudio.ui.simview.process_worker import ProcessRunWorker
from tests.ui.simview.synthetic import slow_source


def test_child_process_run_streams_frames_and_stops_cleanly(qtbot, examples_dir):
    design = load_design(examples_dir / "two-servers-one-leaf.json")
    window = MainWindow(design)
    qtbot.addWidget(window)
    sim = install_simulation_ui(window, slow_source)
    assert sim.controller.use_process
    before = window.design.to_data()
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(100_000.0)
    sim.scenario.run_button.click()
    worker = sim.controller.worker
    assert isinstance(worker, ProcessRunWorker)
    qtbot.waitUntil(lambda: sim.controller.stream is not None
                    and len(sim.controller.stream) > 5, timeout=30_000)
    qtbot.waitUntil(lambda: sim.controller.shown_index >= 0, timeout=5_000)
    process = worker.process
    sim.scenario.stop_button.click()
    assert not worker.isRunning()
    assert not process.is_alive()
    assert multiprocessing.active_children() == []
    assert not sim.controller.timer.isActive()
    assert sim.controller.state == "stopped"
    assert window.design.to_data() == before
    frames = len(sim.controller.stream)
    sim.controller.seek_index(frames - 1)
    assert sim.controller.overlay.frame_time == sim.controller.stream.times[-1]


def test_compare_in_child_processes_yields_a_result_per_fabric(qtbot, examples_dir):
    from fabricstudio.ui.simview.source import COMPARE_VARIANTS
    from tests.ui.simview.synthetic import fast_source

    design = load_design(examples_dir / "two-servers-one-leaf.json")
    window = MainWindow(design)
    qtbot.addWidget(window)
    sim = install_simulation_ui(window, fast_source)
    sim.scenario.compare_button.click()
    assert sim.compare.worker._use_process
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=60_000)
    assert list(sim.compare.results) == [label for label, _t, _d in COMPARE_VARIANTS]
    assert sim.compare.results["Lossy Ethernet"]["dropped"] == 7
    assert multiprocessing.active_children() == []
