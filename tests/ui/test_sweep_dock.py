"""The Sweep dock: What-if > Sweep…, Run, points and Pareto front, Stop and resume, saves."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QFileDialog

from fabricstudio.sim.sweep import read_results
from tests.ui.conftest import click_menu_item

SPEC = {"format": "fabricstudio-sweep", "version": 1,
        "base": {"topology": "leaf-spine", "gpus": 16, "switch_radix": 16},
        "grid": {"oversubscription": [1, 2]},
        "scenario": {"workloads": [{"type": "all_reduce", "ranks": "all",
                                    "size_bytes": "256KiB"}]}}


def test_menu_run_plot_and_save(qtbot, make_window, tmp_path, monkeypatch):
    spec = tmp_path / "grid.json"
    spec.write_text(json.dumps(SPEC))
    window = make_window()
    panel = window.sweep
    assert panel.show_action in window.act.whatif_menu.actions()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(spec), ""))
    click_menu_item(qtbot, window, "What-if", "Sweep…")
    assert panel.dock.isVisible() and panel.spec is not None and panel.spec.size == 2
    assert "2 points" in panel.info.text()
    panel.workers.setValue(1)
    panel.run_button.click()
    assert panel.running and not panel.run_button.isEnabled()
    qtbot.waitUntil(lambda: not panel.running, timeout=120_000)
    assert [r["oversubscription"] for r in panel.rows] == [1, 2]
    assert panel.x_axis.currentData() == "network_capex"
    assert panel.y_axis.currentData() == "completion_time_s"
    assert panel.front  # the cheaper 2:1 and the faster 1:1 both stay on the front
    assert len(panel.plot.getPlotItem().listDataItems()) >= 2
    assert "2 of 2 points" in panel.status.text()
    out = tmp_path / "r.parquet"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    panel.save_results_button.click()
    assert [r["point"] for r in read_results(out)] == [0, 1]
    png = tmp_path / "p.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(png), ""))
    panel.save_plot_button.click()
    assert png.read_bytes()[:4] == b"\x89PNG"
    # Run again: every point comes from the cache beside the sweep file
    assert len(list(panel.cache_dir().glob("*.json"))) == 2
    panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.running, timeout=30_000)
    assert len(panel.rows) == 2


def test_a_bad_sweep_file_says_why(make_window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**SPEC, "version": 7}))
    panel = make_window().sweep
    assert not panel.load(bad)
    assert '"version"' in panel.status.text() and not panel.run_button.isEnabled()


def test_stop_keeps_the_finished_points_and_run_resumes(qtbot, make_window, tmp_path):
    spec = tmp_path / "grid.json"
    spec.write_text(json.dumps(SPEC))
    panel = make_window().sweep
    assert panel.load(spec)
    panel.workers.setValue(1)
    panel.run_button.click()
    panel.stop_button.click()  # ends after the point in progress
    qtbot.waitUntil(lambda: not panel.running, timeout=60_000)
    assert len(panel.rows) == 1 and "1 of 2 points" in panel.status.text()
    panel.run_button.click()
    qtbot.waitUntil(lambda: not panel.running, timeout=60_000)
    assert [r["point"] for r in panel.rows] == [0, 1]
