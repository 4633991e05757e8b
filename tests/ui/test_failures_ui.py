"""What-if failures in the designer: right click > Mark failed, the analysis without the
element, the next run with it down, and the live view drawing it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QContextMenuEvent

from fabricstudio.formats import load_design
from fabricstudio.model import Technology
from fabricstudio.model.failures import Failure
from fabricstudio.sim.failure_timeline import failure_timeline, state_at
from tests.ui.conftest import click_menu_item


@pytest.fixture
def window(make_window, examples_dir):
    return make_window(load_design(examples_dir / "leaf-spine-16-gpu-roce.json"))


def right_click(window, scene_point: QPointF):
    """A real context-menu event on the canvas at ``scene_point``; returns the menu shown."""
    view = window.view
    pos = view.mapFromScene(scene_point)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos))
    view.contextMenuEvent(event)
    menu = window.context_menu
    menu.close()
    return menu


def menu_action(menu, text: str):
    found = [a for a in menu.actions() if a.text().replace("&", "") == text]
    assert found, f"{text!r} not in {[a.text() for a in menu.actions()]}"
    return found[0]


def device_centre(window, device_id: str) -> QPointF:
    return window.scene.device_items[device_id].sceneBoundingRect().center()


def analysed(qtbot, window):
    panel = window.analysis
    panel.timer.stop()
    panel.start_analysis()
    qtbot.waitUntil(lambda: not panel.running and panel.report is not None
                    and panel._revision == window.design.revision, timeout=20_000)
    panel.wait()
    qtbot.wait(10)
    return panel.report


def test_right_click_marks_a_spine_failed_and_the_analysis_loses_its_bandwidth(qtbot, window):
    healthy = analysed(qtbot, window)
    assert healthy.failures is None
    menu = right_click(window, device_centre(window, "spine1"))
    assert window.editor.selected_device_ids() == ["spine1"]
    menu_action(menu, "Mark failed (what-if)").trigger()
    assert window.failures.marks.devices == ["spine1"]
    assert window.failures.shown.devices == {"spine1": "down"}
    spine1_cables = {lk.id for lk in window.design.links.values() if "spine1" in (lk.a, lk.b)}
    assert set(window.failures.shown.links) == spine1_cables  # a dead switch takes its cables
    qtbot.waitUntil(lambda: window.analysis.report is not None
                    and window.analysis.report.failures is not None, timeout=20_000)
    report = window.analysis.report
    assert report.failures.devices_down == ["spine1"]
    assert report.failures.bisection_gbps == pytest.approx(
        report.failures.healthy_bisection_gbps / 2)
    top = [window.analysis.tree.topLevelItem(i).text(0)
           for i in range(window.analysis.tree.topLevelItemCount())]
    assert any(text.startswith("Failures (what-if): device spine1") for text in top)
    # the same right click now offers the repair, and the analysis is whole again
    menu = right_click(window, device_centre(window, "spine1"))
    texts = [a.text().replace("&", "") for a in menu.actions()]
    assert "Mark failed (what-if)" not in texts
    menu_action(menu, "Mark repaired").trigger()
    assert not window.failures.marks
    assert window.failures.shown.devices == {}
    qtbot.waitUntil(lambda: window.analysis.report is not None
                    and window.analysis.report.failures is None, timeout=20_000)


def test_right_click_on_a_cable_marks_it_and_clear_all_unmarks(qtbot, window):
    link_id = next(lk.id for lk in window.design.links.values()
                   if {lk.a, lk.b} == {"leaf1", "spine2"})
    line = window.scene.link_items[link_id].line()
    menu = right_click(window, line.pointAt(0.3))  # not where the cross links meet
    assert window.editor.selected_link_ids() == [link_id]
    menu_action(menu, "Mark failed (what-if)").trigger()
    assert window.failures.marks.links == [link_id]
    assert window.failures.shown.links == {link_id: "down"}
    assert window.failures.layer("links").boundingRect().contains(line.pointAt(0.5))
    # an empty spot offers Clear all failures
    menu = right_click(window, QPointF(-5000, -5000))
    menu_action(menu, "Clear all failures").trigger()
    assert not window.failures.marks
    # deleting a marked element forgets its mark
    window.editor.select_ids([link_id])
    window.failures.mark_selection()
    window.editor.delete_selection()
    assert not window.failures.marks


def test_next_run_starts_with_the_marks_down_and_the_live_view_shows_them(qtbot, window):
    sim = window.simulation
    window.editor.select_ids(["spine1"])
    click_menu_item(qtbot, window, "What-if", "Mark failed (what-if)")
    assert window.failures.marks.devices == ["spine1"]
    scenario = sim.scenario
    scenario.workload.setCurrentIndex(scenario.workload.findData("all_reduce"))
    scenario.size_mib.setValue(1.0)
    scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.state in ("finished", "failed"), timeout=60_000)
    assert sim.controller.state == "finished"
    request = sim.controller.request
    assert request.failures == (Failure(device="spine1"),)
    assert "spine1 down" in request.label
    result = sim.controller.result
    found = result.failures
    assert found is not None and found.failures[0].startswith("device spine1")
    # marked before the run: routed around from the start, so nothing is black-holed
    assert found.packets_lost == 0
    assert found.events[1].event == "reroute" and found.events[1].at_s == 0
    assert found.without_failures is not None
    # the live view draws spine1 as routed around, and no traffic crosses it
    qtbot.waitUntil(lambda: sim.controller.shown_index >= 0, timeout=5_000)
    assert window.failures.shown.devices == {"spine1": "rerouted"}
    overlay = sim.controller.overlay
    stream = sim.controller.stream
    spine1 = [i for i, d in enumerate(stream.links) if "spine1" in (d.src, d.dst)]
    spine2 = [i for i, d in enumerate(stream.links) if "spine2" in (d.src, d.dst)]
    util = stream.link_series("utilisation")
    assert util[:, spine1].max() == 0
    assert util[:, spine2].max() > 0.3
    assert overlay.links  # the overlay is bound to the run
    note = sim.results.failure_note
    assert not note.isHidden() and "spine1" in note.text()
    assert "routed around from the start" in note.text()


def test_the_live_view_follows_a_timed_failure(window):
    """A scenario failure is drawn only from its time on, red until the fabric reroutes."""
    failures = [Failure(at_s=1e-3, device="spine1", repair_s=5e-3)]
    timeline = failure_timeline(window.design, failures, Technology.ROCE, "default")
    assert state_at(timeline, 0.5e-3).devices == {}
    assert state_at(timeline, 1.01e-3).devices == {"spine1": "down"}
    assert state_at(timeline, 1.01e-3).links  # its cables too
    assert state_at(timeline, 4e-3).devices == {"spine1": "down"}  # 50 ms convergence
    window.failures.timeline = timeline
    window.failures.shown_time = 0.0
    window.failures.show_time(2e-3)
    assert window.failures.shown.devices == {"spine1": "down"}
    window.failures.show_time(6e-3)
    assert window.failures.shown.devices == {}
    adaptive = failure_timeline(window.design, failures, Technology.ROCE, "adaptive")
    assert state_at(adaptive, 1.01e-3).devices == {"spine1": "rerouted"}
