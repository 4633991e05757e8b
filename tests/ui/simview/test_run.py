"""Running from the GUI: completion, Stop, scrubbing, comparison, moment export."""

import threading

import numpy as np
import pytest
from PySide6.QtGui import QImage

from fabricstudio.formats import load_design
from fabricstudio.model import Technology
from fabricstudio.ui.export import export_rect
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.simview import install_simulation_ui
from fabricstudio.ui.simview.moment import save_png
from fabricstudio.ui.simview.source import COMPARE_VARIANTS
from tests.ui.simview.synthetic import factory


@pytest.fixture
def window(qtbot, examples_dir, settings):
    design = load_design(examples_dir / "two-servers-one-leaf.json")
    window = MainWindow(design, settings=settings)
    qtbot.addWidget(window)
    yield window
    if getattr(window, "simulation", None) is not None:
        window.simulation.shutdown()


def _install(window, **kwargs):
    return install_simulation_ui(window, factory(**kwargs))


def _horizon(sim, microseconds):
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(microseconds)


def test_tiny_scenario_runs_to_completion_from_the_gui(qtbot, window):
    sim = _install(window)
    window.show()
    assert not sim.docks["charts"].isVisible()  # the canvas has the room until a run
    _horizon(sim, 20.0)
    sim.scenario.run_button.click()
    assert sim.docks["charts"].isVisible()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    qtbot.waitUntil(lambda: not sim.controller.timer.isActive(), timeout=5_000)
    stream = sim.controller.stream
    assert len(stream) == 20
    assert sim.controller.shown_index == 19
    assert sim.results.value_text("completion_time_s") == "20.00 µs"  # as the clock shows it
    assert sim.controls.progress_bar.value() == 1000
    assert sim.scenario.run_button.isEnabled()


def test_stop_mid_run_leaves_nothing_running_and_design_unchanged(qtbot, window):
    sim = _install(window, wall_per_frame_s=0.002)
    before = window.design.to_data()
    threads_before = threading.active_count()
    _horizon(sim, 100_000.0)
    sim.scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.stream is not None
                    and len(sim.controller.stream) > 5, timeout=10_000)
    worker = sim.controller.worker
    frozen = sim.controller.run_design
    window.design.move_devices({"leaf1": (999.0, 999.0)})  # editing during a run is safe
    sim.scenario.stop_button.click()
    assert not worker.isRunning()
    assert sim.controller.worker is None
    assert not sim.controller.timer.isActive()
    assert sim.controller.state == "stopped"
    assert len(sim.controller.stream) < 100_000
    assert threading.active_count() <= threads_before
    assert frozen.to_data() == before
    assert window.design.device("leaf1").x == 999.0


def test_scrubbing_to_t_shows_frame_t(qtbot, window):
    sim = _install(window)
    _horizon(sim, 12.0)
    sim.scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    stream = sim.controller.stream
    sim.controls.scrubber.setValue(4)
    expected = stream.frame(4)
    for name, values in expected.links.items():
        np.testing.assert_array_equal(sim.controller.overlay.state[name], values)
    assert sim.controller.overlay.frame_time == expected.t
    sim.controller.seek_time(stream.times[7] + 1e-9)
    assert sim.controller.shown_index == 7
    assert sim.controls.scrubber.value() == 7
    assert sim.controller.overlay.paused_ends() == [(stream.links[0].src, stream.links[0].src_port)]
    assert sim.controller.jump("first_pause")
    assert sim.controller.shown_index == 1
    assert not sim.controller.jump("first_drop")


def test_compare_yields_a_result_per_technology(qtbot, window):
    sim = _install(window)
    _horizon(sim, 5.0)
    sim.scenario.compare_button.click()
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=10_000)
    assert list(sim.compare.results) == [label for label, _t, _d in COMPARE_VARIANTS]
    heights = sim.compare.bar_heights("dropped")
    assert heights[-1] == 7 and heights[0] == 0
    assert sim.compare.value_text("Lossy Ethernet", "gpu_utilisation") == "50.0%"
    assert sim.scenario.run_button.isEnabled()


def test_moment_png_differs_from_idle_where_links_are_busy(qtbot, window, tmp_path):
    sim = _install(window)
    idle = sim.moment_image()
    _horizon(sim, 10.0)
    sim.scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    busy = sim.moment_image()
    path = tmp_path / "moment.png"
    sim.controller.seek_index(9)
    save_png(sim.moment_image(), path)
    assert QImage(str(path)).width() > 0
    link = window.scene.link_items[next(iter(window.design.links))].line()
    mid = (link.p1() + link.p2()) / 2
    rect = export_rect(window.scene)
    scale = 2.0
    x = int((mid.x() - rect.left()) * scale)
    y_idle = int((mid.y() - rect.top()) * scale + (idle.height() - rect.height() * scale) / 2)
    y_busy = int((mid.y() - rect.top()) * scale + (busy.height() - rect.height() * scale) / 2)
    assert idle.pixelColor(x, y_idle) != busy.pixelColor(x, y_busy)


def test_technology_choice_reaches_the_request(qtbot, window):
    sim = _install(window)
    sim.scenario.technology.setCurrentIndex(2)
    request = sim.scenario.request()
    assert request.technology is Technology.ETHERNET and not request.dcqcn


def test_loading_another_design_clears_the_run_and_keeps_the_overlay(qtbot, window, examples_dir):
    sim = _install(window)
    _horizon(sim, 5.0)
    sim.scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    other = load_design(examples_dir / "tiny.json")
    window.design.load_data(other.to_data())
    assert sim.controller.stream is None and sim.controller.state == "idle"
    _horizon(sim, 5.0)
    sim.scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    assert sim.controller.overlay.scene() is window.scene
    assert len(sim.controller.overlay.busy_links()) == 2  # both directions of tiny's one link


def test_selected_servers_become_the_ranks(qtbot, window):
    sim = _install(window)
    servers = [d for d in window.design.devices.values() if d.kind == "gpu_server"]
    for server in servers:
        window.scene.device_items[server.id].setSelected(True)
    sim.scenario.ranks.setCurrentIndex(1)
    ranks = sim.scenario.request().ranks
    assert ranks == tuple(f"{s.id}/gpu{g}" for s in servers for g in range(s.gpus))
    window.scene.clearSelection()
    with pytest.raises(ValueError, match="Select at least two"):
        sim.scenario.request()
    sim.scenario.run_button.click()
    assert "Select at least two" in sim.scenario.error.text()
    assert sim.controller.state == "idle"


def test_scenario_follows_the_designs_technology(qtbot, window):
    sim = _install(window)
    window.set_technology(Technology.INFINIBAND)
    window.analysis.wait()
    window.undo_stack.setClean()  # closing must not ask to save
    assert sim.scenario.request().technology is Technology.INFINIBAND
