"""The demos ship inside the package and open from the command line."""

from __future__ import annotations

from fabricstudio.cli import main
from fabricstudio.sim.demos import DemoError, demo_names, demos_folder, load_demo
from fabricstudio.sim.request import RunRequest, scenario_for
from tests.conftest import EXAMPLES


def test_bundled_demo_files_are_the_examples():
    folder = demos_folder()
    for name in ("demo-rail64.design.json", "demo-training-incast.scenario.json",
                 "demo-moe-dispatch.scenario.json"):
        assert folder.joinpath(name).read_bytes() == (EXAMPLES / "scenarios" / name).read_bytes()


def test_every_bundled_demo_loads_and_its_story_names_known_devices():
    names = demo_names()
    assert names[0] == "moe-dispatch" and "training-incast" in names  # the first opens
    for name in names:
        demo = load_demo(name)
        assert demo.title and demo.scenario is not None
        for step in demo.story.steps:
            objects = getattr(step.camera, "objects", [])
            assert set(objects) <= set(demo.design.devices), (name, objects)
        scenario_for(demo.design, RunRequest(workload=None, scenario=demo.scenario))


def test_unknown_demo_names_the_choices():
    try:
        load_demo("nope")
    except DemoError as exc:
        assert "training-incast" in str(exc)
    else:
        raise AssertionError("no error")


def test_demo_list_and_bad_names_on_the_command_line(capsys):
    assert main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.split()[:2] == ["moe-dispatch", "Where"]
    assert "Where the GPUs' time goes when an MoE dispatch loses its tail" in out
    assert "One burst, four fabrics: where the GPUs' time goes" in out
    assert main(["demo", "nope"]) == 1
    assert "no demo named 'nope'" in capsys.readouterr().err
    assert main(["demo", "--list", "training-incast"]) == 2
    assert main(["demo", "--story", "/nonexistent.story.json"]) == 1
