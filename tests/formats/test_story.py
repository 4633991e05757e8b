"""The storyboard format: valid stories load and round-trip; hostile ones are refused with one
line naming the problem."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricstudio.formats.story import (
    MAX_FILE_BYTES,
    ObjectsCamera,
    RectangleCamera,
    StoryError,
    dump_story,
    load_story,
    parse_story,
)

GOOD = {
    "format": "fabricstudio-story", "version": 1, "name": "Demo",
    "design": "demo-rail64.design.json", "scenario": "demo-training-incast.scenario.json",
    "steps": [
        {"caption": "Training starts", "camera": "fit", "fabric": "roce", "event": "start",
         "play_speed": 0.0005},
        {"camera": {"objects": ["leaf1", "server1"]}, "fabric": "ethernet",
         "event": "first_drop", "hold_s": 8},
        {"caption": "Four fabrics", "camera": {"rectangle": [0, 0, 800, 400]},
         "fabric": ["infiniband", "roce", "roce-pfc", "ethernet"], "time_s": 0.004},
    ],
}


def _text(doc) -> str:
    return json.dumps(doc)


def test_a_good_story_loads_and_round_trips():
    story = parse_story(_text(GOOD))
    assert story.name == "Demo" and len(story.steps) == 3
    assert story.steps[0].fabrics == ("roce",)
    assert isinstance(story.steps[1].camera, ObjectsCamera)
    assert isinstance(story.steps[2].camera, RectangleCamera)
    assert story.steps[2].fabrics == ("infiniband", "roce", "roce-pfc", "ethernet")
    assert story.steps[1].hold_s == 8 and story.steps[0].hold_s == 6.0
    assert parse_story(dump_story(story)) == story


def test_load_story_reads_a_file_and_refuses_folders_and_missing_files(tmp_path):
    path = tmp_path / "a.story.json"
    path.write_text(_text(GOOD), encoding="utf-8")
    assert load_story(path).name == "Demo"
    with pytest.raises(StoryError, match="no such file"):
        load_story(tmp_path / "missing.json")
    with pytest.raises(StoryError, match="is a folder, not a file"):
        load_story(tmp_path)


def _bad(change) -> dict:
    doc = json.loads(_text(GOOD))
    change(doc)
    return doc


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("[1, 2]", "object at the top"),
    ("{\"format\": \"fabricstudio-story\", \"version\": 1, \"version\": 2, \"steps\": []}",
     'duplicate key "version"'),
    ("{\"format\": \"fabricstudio-story\", \"version\": 1, \"steps\": [{\"time_s\": NaN}]}",
     "NaN is not a JSON number"),
    ("{\"format\": \"fabricstudio-story\", \"version\": 1, \"steps\": [{\"time_s\": Infinity}]}",
     "Infinity is not a JSON number"),
    ("{\"format\": \"fabricstudio-story\"", "not valid JSON"),
    (_text({**GOOD, "format": "fabricstudio-design"}), "not a FabricStudio story"),
    (_text({**GOOD, "version": 2}), "newer FabricStudio"),
    (_text({**GOOD, "version": True}), "must be an integer"),
    (_text({**GOOD, "steps": []}), "steps"),
    (_text({**GOOD, "extra": 1}), "extra"),
    (_text({**GOOD, "design": "../../etc/passwd"}), "plain file name"),
    (_text({**GOOD, "scenario": "/etc/passwd"}), "plain file name"),
    (_text({**GOOD, "name": "bell\x07"}), "control characters"),
    (_text(_bad(lambda d: d["steps"][0].update(event="first_pause", time_s=1.0))),
     "time_s or event, not both"),
    (_text(_bad(lambda d: d["steps"][0].update(fabric=["roce", "ethernet", "infiniband"]))),
     "2 or 4 fabrics"),
    (_text(_bad(lambda d: d["steps"][0].update(fabric=["roce", "roce"]))), "listed twice"),
    (_text(_bad(lambda d: d["steps"][0].update(fabric="token-ring"))), "fabric"),
    (_text(_bad(lambda d: d["steps"][0].update(event="lunch"))), "event"),
    (_text(_bad(lambda d: d["steps"][0].update(time_s=-1))), "time_s"),
    (_text(_bad(lambda d: d["steps"][0].update(play_speed=1e9))), "play_speed"),
    (_text(_bad(lambda d: d["steps"][0].update(hold_s=0))), "hold_s"),
    (_text(_bad(lambda d: d["steps"][0].update(camera="zoom"))), "camera"),
    (_text(_bad(lambda d: d["steps"][0].update(camera={"rectangle": [0, 0, -1, 5]}))),
     "width and height"),
    (_text(_bad(lambda d: d["steps"][0].update(camera={"objects": []}))), "objects"),
    (_text(_bad(lambda d: d["steps"][0].update(caption="x" * 5000))), "caption"),
    (_text(_bad(lambda d: d["steps"][0].update(caption=7))), "caption"),
    ("\ufeff" + "[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_hostile_stories_are_refused_with_one_line(text, message):
    with pytest.raises(StoryError) as info:
        parse_story(text, source="s.json")
    line = str(info.value)
    assert line.startswith("s.json: ")
    assert message in line
    assert "\n" not in line


def test_oversized_and_non_utf8_input_is_refused():
    with pytest.raises(StoryError, match="too large"):
        parse_story(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(StoryError, match="not UTF-8"):
        parse_story(b"{\xff}")


def test_too_many_steps_are_refused():
    doc = {**GOOD, "steps": [{"caption": "x"}] * 501}
    with pytest.raises(StoryError, match="steps"):
        parse_story(_text(doc))


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=20)
                    | st.integers(), lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=30))
def test_arbitrary_json_never_escapes_as_another_exception(value):
    for doc in (value, {"format": "fabricstudio-story", "version": 1, "steps": value},
                {"format": "fabricstudio-story", "version": 1, "steps": [value]}):
        try:
            parse_story(json.dumps(doc))
        except StoryError:
            pass
