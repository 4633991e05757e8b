"""Design A/B in the designer: What-if > Compare with design…, the B - A table, and the
synchronised side-by-side replay of both runs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from fabricstudio.cli import main
from fabricstudio.formats import load_design
from tests.ui.conftest import click_menu_item


@pytest.fixture
def designs(tmp_path):
    """A non-blocking 16-GPU leaf-spine (A, opened) and the same at 2:1 (B, a file)."""
    for name, ratio in (("a", "1"), ("b", "2")):
        assert main(["generate", "leaf-spine", "--gpus", "16", "--radix", "16",
                     "--oversubscription", ratio, "-o", str(tmp_path / f"{name}.json"),
                     "-q"]) == 0
    return tmp_path / "a.json", tmp_path / "b.json"


def small_all_reduce(window) -> None:
    scenario = window.simulation.scenario
    scenario.workload.setCurrentIndex(scenario.workload.findData("all_reduce"))
    scenario.size_mib.setValue(0.25)
    scenario.until_complete.setChecked(True)


def test_menu_runs_a_and_b_shows_deltas_and_replays_both_on_one_cursor(
        qtbot, make_window, designs, monkeypatch):
    a_path, b_path = designs
    window = make_window(load_design(a_path), str(a_path))
    small_all_reduce(window)
    panel = window.design_compare
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(b_path), ""))
    click_menu_item(qtbot, window, "What-if", "Compare with design…")
    assert panel.dock.isVisible() and panel.b_path == b_path
    assert panel.running and not panel.run_button.isEnabled()
    qtbot.waitUntil(lambda: not panel.running, timeout=120_000)
    comparison = panel.comparison
    assert comparison is not None, panel.status.text()
    section = comparison.scenarios[0]
    bisection = comparison.row("design", "bisection_gbps")
    assert bisection.b == pytest.approx(bisection.a / 2) and bisection.better == "a"
    done = comparison.row(section, "completion_time_s")
    assert done.b > done.a and done.better == "a"  # half the uplinks: slower
    assert panel.cell_text("design", "leaf_oversubscription", "B") == "2:1"
    assert panel.cell_text(section, "completion_time_s", "Better") == "A"
    assert panel.cell_text(section, "completion_time_s", "B - A").startswith("+")
    # the open design was not touched by the comparison
    assert not window.modified and window.design.name == load_design(a_path).name
    # Side by side: both runs on the stage, one scrubber drives both panes
    assert panel.side_button.isEnabled()
    qtbot.mouseClick(panel.side_button, Qt.MouseButton.LeftButton)
    stage = window.simulation.stage
    assert stage.showing_side_by_side
    side = stage.side_by_side
    assert [p.record.label for p in side.panes] == ["A: a", "B: b"]  # their files
    a_run, b_run = (p.record.design for p in side.panes)
    assert len(a_run.links) > len(b_run.links)  # each pane draws its own design
    assert side.end_s == pytest.approx(max(p.record.end_s for p in side.panes))
    side.scrubber.setValue(side.scrubber.maximum() // 4)
    t = side.display_time
    assert t > 0
    for pane in side.panes:  # each pane shows its own frame covering the same time
        stream = pane.record.stream
        assert pane.shown_index == stream.index_at(min(t, pane.record.end_s))
    side.scrubber.setValue(side.scrubber.maximum())
    assert side.shown_indices().tolist() == [len(p.record.stream) - 1 for p in side.panes]
    qtbot.mouseClick(side.back_button, Qt.MouseButton.LeftButton)
    assert not stage.showing_side_by_side


def test_a_bad_b_file_is_one_line_and_nothing_runs(make_window, tmp_path, small_design):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json")
    window = make_window(small_design)
    panel = window.design_compare
    assert not panel.load_b(bad)
    text = panel.status.text()
    assert "broken.json" in text and "\n" not in text
    assert panel.b_design is None and not panel.run_button.isEnabled()
    assert len(window.design.devices) == 4  # the open design is intact


def test_a_stopped_pairs_late_signals_never_reach_the_next_run(
        qtbot, make_window, designs):
    """Stop, then run A/B again before the event loop turns: the stopped worker's queued
    'finished' must not end (and wait for) the new run, nor its late results land in it."""
    a_path, b_path = designs
    window = make_window(load_design(a_path), str(a_path))
    small_all_reduce(window)
    panel = window.design_compare
    assert panel.load_b(b_path)
    assert panel.start()
    panel.stop()  # its 'finished' is still queued
    assert panel.start()
    second = panel.worker
    qtbot.wait(50)  # the stopped worker's queued signals are delivered now
    assert panel.running and panel.worker is second
    qtbot.waitUntil(lambda: not panel.running, timeout=120_000)
    assert panel.comparison is not None, panel.status.text()
