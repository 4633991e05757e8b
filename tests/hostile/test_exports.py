"""Exports never crash on values the loader accepts (issue 17, item 5): far-away coordinates,
huge designs (refused up front with the size they would need, nothing written), moments into
a missing folder."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from fabricstudio.model import Design, GpuServer
from fabricstudio.ui.export import (
    MAX_SVG_BYTES,
    ExportError,
    check_png_size,
    check_svg_size,
    preflight,
)
from tests.hostile.helpers import PAIR, one_line_error, run_cli

SCENARIO = {"format": "fabricstudio-scenario", "version": 1, "until_s": 2e-5,
            "workloads": [{"type": "all_reduce", "size_bytes": "64KiB"}]}


def _far_design(tmp_path):
    doc = json.loads(PAIR.read_text())
    doc["nodes"][0]["x"], doc["nodes"][1]["x"], doc["nodes"][2]["y"] = 1e7, -1e7, 1e7
    path = tmp_path / "far.json"
    path.write_text(json.dumps(doc))
    return path


def test_design_at_the_coordinate_limit_exports_svg_and_refuses_png_by_size(tmp_path):
    path = _far_design(tmp_path)
    svg = tmp_path / "far.svg"
    assert run_cli("export", path, "--svg", svg).returncode == 0
    ET.parse(svg)
    png = tmp_path / "far.png"
    one_line_error(run_cli("export", path, "--png", png), "px PNG would need", "MiB of memory",
                   "use a scale of")
    assert not png.exists()


def test_moment_of_a_far_design_is_refused_by_size_not_an_overflow(tmp_path):
    path = _far_design(tmp_path)
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(SCENARIO))
    out = run_cli("export", path, "--scenario", scenario, "--png", tmp_path / "m.png")
    one_line_error(out, "px PNG would need")


def test_huge_svg_is_refused_up_front_with_the_size_it_would_need():
    with pytest.raises(ExportError, match=r"300,000 devices .* would need about 1,736 MiB "
                                          r"\(the limit is 256 MiB\)"):
        check_svg_size(300_000, 400_000)
    check_svg_size(13_312, 196_608)  # the 65,536-GPU rail fabric still exports


def test_huge_design_refused_before_a_scene_is_built(monkeypatch):
    import fabricstudio.ui.export as export

    design = Design("many")
    for i in range(40):
        design.add_device(GpuServer(id=f"h{i}", x=i * 100.0))
    monkeypatch.setattr(export, "MAX_SVG_BYTES", 100_000)
    with pytest.raises(ExportError, match="40 devices"):
        preflight(design, svg=True)
    with pytest.raises(ExportError, match="PNG would need"):
        preflight(design, png_scale=16_000.0)
    preflight(design, png_scale=2.0)


def test_svg_export_of_a_too_large_design_writes_no_file(tmp_path, monkeypatch):
    from fabricstudio.formats import load_design
    from fabricstudio.ui import export
    from fabricstudio.ui.headless import export_design

    monkeypatch.setattr(export, "MAX_SVG_BYTES", 1_000)
    svg = tmp_path / "big.svg"
    with pytest.raises(ExportError, match="would need about"):
        export_design(load_design(PAIR), svg=str(svg))
    assert not svg.exists() and list(tmp_path.iterdir()) == []


def test_png_limit_message_names_memory_and_a_scale_that_fits():
    with pytest.raises(ExportError, match=r"40,000 x 40,000 px PNG would need 6,104 MiB .* "
                                          r"scale of 1 or less"):
        check_png_size(40_000, 40_000, 2.0)
    assert MAX_SVG_BYTES == 256 * 2**20


def test_moment_into_a_missing_folder_is_a_message_before_simulating(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(SCENARIO))
    out = run_cli("export", PAIR, "--scenario", scenario, "--png", tmp_path / "no" / "m.png")
    one_line_error(out, "folder", "does not exist")


def test_storage_server_as_a_collective_rank_is_a_message(tmp_path):
    design = tmp_path / "st.json"
    assert run_cli("generate", "leaf-spine", "--gpus", "16", "--storage-servers", "2",
                   "-o", design).returncode == 0
    one_line_error(run_cli("simulate", design, "--workload", "all-reduce", "--size", "1MiB",
                           "--ranks", "storage1,server1/gpu0"),
                   "rank 'storage1' is a storage server")
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({**SCENARIO, "workloads": [
        {"type": "all_to_all", "ranks": ["server1/gpu0", "storage2"], "size_bytes": "1MiB"}]}))
    one_line_error(run_cli("simulate", design, "--scenario", scenario), "storage2")
    one_line_error(run_cli("export", design, "--scenario", scenario, "--png",
                           tmp_path / "m.png"), "storage2")


def _refused_after_progress(out, *needles):
    """Progress lines ("simulating ...") and then one error line."""
    last = out.stderr.strip().splitlines()[-1]
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert last.startswith("fabricstudio: error:")
    for needle in needles:
        assert needle in last, (needle, last)


def test_gif_too_large_for_memory_is_refused_before_rendering(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(SCENARIO))
    gif = tmp_path / "big.gif"
    out = run_cli("export", PAIR, "--scenario", scenario, "--gif", gif, "--fps", "60",
                  "--seconds", "600", "--width", "3840", mem_mib=1536, timeout=120)
    _refused_after_progress(out, "36,000 frames of 3840 x 2160 px", "MiB of frames in memory",
                            "record an MP4")
    assert not gif.exists()


def test_story_of_endless_holds_is_refused_before_a_shot_exists(tmp_path):
    from tests.hostile.helpers import ROOT

    story = json.loads((ROOT / "fabricstudio/resources/demos/training-incast.story.json")
                       .read_text())
    story.update(design="d.json", scenario="s.json",
                 steps=[dict(story["steps"][0], hold_s=600)] * 500)
    (tmp_path / "d.json").write_bytes(PAIR.read_bytes())
    (tmp_path / "s.json").write_text(json.dumps(SCENARIO))
    (tmp_path / "long.story.json").write_text(json.dumps(story))
    out = run_cli("export", tmp_path / "d.json", "--scenario", tmp_path / "s.json", "--story",
                  tmp_path / "long.story.json", "--mp4", tmp_path / "v.mp4", "--fps", "60",
                  mem_mib=1536, timeout=120)
    _refused_after_progress(out, "18,000,000 frames", "too long a video")
    assert not (tmp_path / "v.mp4").exists()
