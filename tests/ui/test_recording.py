"""Recordings of a run and of a story: GIF and MP4 files that decode to the frames asked for,
from the command line and the Python API, with bad arguments refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fabricstudio.cli import main
from fabricstudio.formats import load_design
from fabricstudio.formats.story import parse_story
from fabricstudio.sim.recorded import record_run
from fabricstudio.sim.scenario import load_scenario
from fabricstudio.ui.recorder import FrameRenderer, run_shots, story_shots, write_video

SCENARIOS = "scenarios"


@pytest.fixture(scope="module")
def small_run():
    from tests.conftest import EXAMPLES

    design = load_design(EXAMPLES / SCENARIOS / "incast.design.json")
    scenario = load_scenario(EXAMPLES / SCENARIOS / "v2-incast-roce-pfc.scenario.json")
    scenario = scenario.model_copy(update={"until_s": 60e-6})
    return design, scenario, record_run(design, scenario, "RoCE PFC only")


def test_a_recorded_run_renders_with_its_overlays(qtbot, small_run):
    _design, _scenario, record = small_run
    renderer = FrameRenderer(640, 360)
    shots = list(run_shots(record, 0.0, record.end_s, 1.0, 6))
    assert len(shots) == 6 and shots[-1].t == pytest.approx(record.end_s)
    first = renderer.render(shots[0], 1 / 6)
    last = renderer.render(shots[-1], 1 / 6)
    assert (first.width(), first.height()) == (640, 360)
    assert first != last  # the link state moved on


def test_gif_and_mp4_files_decode_to_the_frames(qtbot, small_run, tmp_path):
    import imageio_ffmpeg
    from PIL import Image

    _design, _scenario, record = small_run
    shots = list(run_shots(record, 0.0, record.end_s, 1.0, 5))
    gif = tmp_path / "run.gif"
    stats = write_video(gif, "gif", FrameRenderer(320, 180), shots, 5)
    with Image.open(gif) as image:
        assert image.size == (320, 180) and image.n_frames == 5
    mp4 = tmp_path / "run.mp4"
    stats = write_video(mp4, "mp4", FrameRenderer(320, 180), shots, 5)
    assert stats.frames == 5 and mp4.stat().st_size == stats.bytes
    reader = imageio_ffmpeg.read_frames(str(mp4))
    meta = next(reader)
    assert tuple(meta["size"]) == (320, 180)
    frames = [np.frombuffer(f, np.uint8) for f in reader]
    assert len(frames) == 5


def test_a_story_plays_its_steps_side_by_side_too(qtbot, small_run):
    design, scenario, record = small_run
    other = record_run(design, scenario.model_copy(update={"technology": "ethernet"}),
                       "Lossy Ethernet")
    story = parse_story(json.dumps({"format": "fabricstudio-story", "version": 1, "steps": [
        {"caption": "One", "fabric": "roce-pfc", "event": "start", "hold_s": 1,
         "play_speed": 1e-5},
        {"fabric": ["roce-pfc", "ethernet"], "event": "end", "hold_s": 1}]}))
    shots = list(story_shots(story, {"RoCE PFC only": record, "Lossy Ethernet": other}, 4))
    assert len(shots) == 8
    assert shots[0].caption == "One" and len(shots[0].runs) == 1
    assert shots[1].t == pytest.approx(1e-5 / 4)
    assert len(shots[-1].runs) == 2 and shots[-1].t == pytest.approx(
        max(record.end_s, other.end_s))
    image = FrameRenderer(480, 270).render(shots[-1], 0.25)
    assert image.width() == 480
    with pytest.raises(ValueError, match="not run"):
        list(story_shots(story, {"RoCE PFC only": record}, 4))


def test_export_command_records_a_gif(tmp_path, capsys, examples_dir):
    out = tmp_path / "v.gif"
    code = main(["export", str(examples_dir / SCENARIOS / "incast.design.json"), "--scenario",
                 str(examples_dir / SCENARIOS / "v1-one-flow.scenario.json"), "--gif", str(out),
                 "--seconds", "1", "--fps", "4", "--width", "320"])
    assert code == 0, capsys.readouterr().err
    assert out.stat().st_size > 0
    assert "4 frames" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--gif", "a.gif", "--mp4", "a.mp4"], "not both"),
    (["--mp4", "a.mp4", "--width", "99999"], "--width"),
    (["--mp4", "a.mp4", "--fps", "500"], "--fps"),
    (["--mp4", "a.mp4", "--seconds", "100000"], "--seconds"),
    (["--mp4", "a.mp4", "--from", "-1"], "--from"),
    (["--mp4", "a.mp4", "--from", "2", "--to", "1"], "--to must be later"),
    (["--mp4", "a.mp4", "--png", "a.png"], "alone"),
])
def test_bad_recording_arguments_are_refused(tmp_path, capsys, examples_dir, extra, message):
    code = main(["export", str(examples_dir / SCENARIOS / "incast.design.json"), "--scenario",
                 str(examples_dir / SCENARIOS / "v1-one-flow.scenario.json"), *extra])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_recording_without_a_scenario_says_so(capsys, examples_dir):
    assert main(["export", str(examples_dir / SCENARIOS / "incast.design.json"), "--gif",
                 "x.gif"]) == 2
    assert "needs --scenario" in capsys.readouterr().err


def test_simulation_menu_records_the_shown_run(qtbot, tmp_path, monkeypatch, examples_dir,
                                               settings):
    from PySide6.QtWidgets import QFileDialog

    from fabricstudio.ui.main_window import MainWindow
    from fabricstudio.ui.simview import install_simulation_ui
    from tests.ui.simview.synthetic import factory

    window = MainWindow(load_design(examples_dir / "two-servers-one-leaf.json"),
                        settings=settings)
    qtbot.addWidget(window)
    sim = install_simulation_ui(window, factory())
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(10.0)
    sim.scenario.run_button.click()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    qtbot.waitUntil(lambda: sim.controller.worker is None, timeout=10_000)
    target = tmp_path / "shown.gif"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), "GIF animation (*.gif)"))
    monkeypatch.setattr("fabricstudio.ui.recording_dialog.RUN_SECONDS", 1.0)
    sim.actions["Record video"].trigger()
    assert target.stat().st_size > 0
    sim.shutdown()
