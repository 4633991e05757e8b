"""``fabricstudio demo --prepare``: a demo's runs are simulated with no window and kept in the
run cache, so opening the demo afterwards replays them (the same keys as presenting)."""

from __future__ import annotations

import json
import shutil

import pytest

from fabricstudio.cli import main
from fabricstudio.sim.run_cache import DISABLE_ENV
from tests.conftest import EXAMPLES


@pytest.fixture
def story(tmp_path, monkeypatch):
    """A story file on the small incast design, 20 µs per run, the cache in tmp_path."""
    monkeypatch.setenv(DISABLE_ENV, "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = EXAMPLES / "scenarios"
    shutil.copy(folder / "incast.design.json", tmp_path / "incast.design.json")
    scenario = json.loads((folder / "v2-incast-roce-pfc.scenario.json").read_text())
    scenario.update(until_s=20e-6, measure_from_s=0.0)
    (tmp_path / "short.scenario.json").write_text(json.dumps(scenario))
    path = tmp_path / "short.story.json"
    path.write_text(json.dumps({
        "format": "fabricstudio-story", "version": 1, "name": "short",
        "design": "incast.design.json", "scenario": "short.scenario.json",
        "steps": [{"caption": "Lossy", "fabric": "ethernet", "event": "start"},
                  {"caption": "Both", "fabric": ["infiniband", "ethernet"], "event": "end"}]}))
    return path


def test_prepare_keeps_the_runs_and_a_second_prepare_finds_them(qtbot, story, capsys, tmp_path):
    assert main(["demo", "--story", str(story), "--prepare"]) == 0
    first = capsys.readouterr().out
    assert "ready (4 run(s) simulated and kept)" in first
    assert len(list((tmp_path / "cache").rglob("*.fsrun"))) == 4
    assert main(["demo", "--story", str(story), "--prepare"]) == 0
    assert "ready (4 already in the cache)" in capsys.readouterr().out


def test_prepare_refuses_without_a_cache_or_with_kiosk(qtbot, story, capsys, monkeypatch):
    assert main(["demo", "--story", str(story), "--prepare", "--kiosk"]) == 2
    assert "--kiosk" in capsys.readouterr().err
    monkeypatch.setenv(DISABLE_ENV, "0")
    assert main(["demo", "--story", str(story), "--prepare"]) == 1
    assert "the run cache is off" in capsys.readouterr().err
