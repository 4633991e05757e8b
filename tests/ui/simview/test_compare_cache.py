"""Compare fabrics and the presenter with the run cache: the first comparison simulates and
keeps its runs, the same comparison again replays them at once and says so (status line,
rows, presenter badge), and 'Run fresh' simulates them again."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from fabricstudio.formats.story import parse_story
from fabricstudio.sim.run_cache import DISABLE_ENV, RunCache
from fabricstudio.ui.panels import compare_panel

STORY = {"format": "fabricstudio-story", "version": 1, "name": "t", "steps": [
    {"caption": "First", "fabric": "ethernet", "event": "start"},
    {"caption": "Both", "fabric": ["infiniband", "ethernet"], "event": "end"}]}


@pytest.fixture
def sim(sim_window, monkeypatch, tmp_path):
    """The real engine on two servers and a leaf, 5 µs per run, runs in a thread (no child
    processes to spawn), the cache on in ``tmp_path``."""
    monkeypatch.setenv(DISABLE_ENV, "1")
    monkeypatch.setattr(compare_panel, "picklable", lambda _factory: False)
    sim = sim_window.simulation
    sim.compare.cache_source = lambda: RunCache(tmp_path)
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(5.0)
    return sim


def _compare(qtbot, sim) -> None:
    qtbot.mouseClick(sim.scenario.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=60_000)
    assert len(sim.compare.records) == 4


def test_the_same_comparison_again_is_replayed_from_the_cache(qtbot, sim, tmp_path):
    panel = sim.compare
    _compare(qtbot, sim)
    assert panel.cached_labels() == []
    assert "cache" not in panel.status.text() and not panel.fresh_button.isVisible()
    assert len(list(tmp_path.glob("*.fsrun"))) == 4
    fresh = {label: panel.value_text(label, "completion_time_s") for label in panel.labels}

    _compare(qtbot, sim)
    assert panel.cached_labels() == panel.labels
    assert panel.status.text().startswith("Runs replayed from the cache (recorded ")
    assert panel.table.item(0, 1).font().italic()
    assert panel.table.item(0, 1).toolTip().startswith("Replayed from the run cache")
    assert panel.fresh_button.isVisible()
    assert {label: panel.value_text(label, "completion_time_s")
            for label in panel.labels} == fresh

    qtbot.mouseClick(panel.fresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running and len(panel.records) == 4, timeout=60_000)
    assert panel.cached_labels() == [] and not panel.fresh_button.isVisible()
    assert not panel.table.item(0, 1).font().italic()


def test_a_changed_scenario_is_simulated_and_a_corrupt_entry_recomputed(qtbot, sim, tmp_path):
    panel = sim.compare
    _compare(qtbot, sim)
    sim.scenario.horizon_us.setValue(6.0)
    _compare(qtbot, sim)
    assert panel.cached_labels() == []
    entries = sorted(tmp_path.glob("*.fsrun"))
    assert len(entries) == 8
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:100])
    _compare(qtbot, sim)
    assert panel.cached_labels() == []
    assert "corrupt" in panel.status.toolTip()
    _compare(qtbot, sim)
    assert panel.cached_labels() == panel.labels


def test_the_presenter_says_when_its_runs_are_replayed(qtbot, sim):
    player = sim.presenter.player
    player.load(parse_story(json.dumps(STORY)))
    sim.presenter.enter()
    qtbot.waitUntil(lambda: player.prepared and not sim.compare.running, timeout=60_000)
    qtbot.waitUntil(lambda: player.index == 0, timeout=10_000)
    assert "cached" not in sim.presenter.badge.toolTip()
    sim.presenter.leave()
    player.load(parse_story(json.dumps(STORY)))
    sim.scenario.horizon_us.setValue(5.0)  # (unchanged) the same runs
    player._prepared_key = None  # as a fresh start of the demo would
    sim.presenter.enter()
    qtbot.waitUntil(lambda: player.prepared and not sim.compare.running, timeout=10_000)
    qtbot.waitUntil(lambda: player.index == 0, timeout=10_000)
    assert sim.compare.cached_labels() == sim.compare.labels
    assert sim.presenter.badge.text() == "1 / 2  ·  cached runs"


def test_a_stopped_comparisons_late_signals_never_reach_the_next_one(qtbot, sim):
    """Stop, then compare again at once (Run fresh; the presenter preparing again): the
    stopped worker's queued 'finished' used to end the new comparison at "stopped after 0 of
    4" while it ran, and the presenter kept that notice."""
    panel = sim.compare
    _compare(qtbot, sim)  # recorded: the next comparison replays from the cache
    cache = panel.cache_source
    panel.cache_source = lambda: None
    qtbot.mouseClick(sim.scenario.compare_button, Qt.MouseButton.LeftButton)
    assert panel.running
    panel.stop()  # its 'finished' is still queued
    panel.cache_source = cache
    qtbot.mouseClick(sim.scenario.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=60_000)
    assert len(panel.records) == 4
    assert "stopped" not in panel.status.text()
