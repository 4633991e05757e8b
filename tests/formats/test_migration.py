"""Design-file versions: version-1 files (no groups) migrate; version-2 files carry groups."""

import json
from pathlib import Path

import pytest

from fabricstudio.formats import CURRENT_VERSION, DesignFileError, dump_design, parse_design
from fabricstudio.formats.design_file import MIGRATIONS
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

ROOT = Path(__file__).resolve().parents[2]
V1 = {"format": "fabricstudio-design", "version": 1, "name": "old",
      "nodes": [{"id": "h1", "kind": "gpu_server", "nics": 1},
                {"id": "s1", "kind": "leaf", "radix": 8}],
      "links": [{"id": "l1", "a": "h1", "b": "s1"}]}


def test_every_older_version_has_a_migration():
    assert CURRENT_VERSION == 2
    assert set(MIGRATIONS) == set(range(1, CURRENT_VERSION))


def test_version_1_file_loads_without_groups_and_saves_as_version_2():
    design = parse_design(json.dumps(V1))
    assert list(design.devices) == ["h1", "s1"] and not design.groups
    saved = json.loads(dump_design(design))
    assert saved["version"] == 2 and saved["groups"] == []
    assert parse_design(dump_design(design)).to_data() == design.to_data()


def test_checked_in_version_1_examples_still_load():
    for name in ("tiny.json", "two-servers-one-leaf.json"):
        doc = json.loads((ROOT / "examples" / name).read_text())
        assert doc["version"] == 1
        assert parse_design(json.dumps(doc)).devices


def test_the_migration_does_not_change_its_input():
    doc = dict(V1)
    MIGRATIONS[1](doc)
    assert doc == V1


def test_version_1_file_with_groups_is_refused():
    doc = dict(V1, groups=[{"id": "g", "members": ["h1"]}])
    with pytest.raises(DesignFileError, match='"groups" needs format version 2'):
        parse_design(json.dumps(doc))


def test_groups_round_trip_with_rack_positions():
    design = build_fabric(RailOptimizedSpec(gpus=512, management=True)).to_design()
    text = dump_design(design)
    again = parse_design(text)
    assert again.to_data() == design.to_data()
    rack = again.group("rack1")
    assert rack.kind == "rack" and rack.height_u == 42 and rack.u_positions["server1"] == 1
    assert again.group("su2").members[0] == "rack9"


@pytest.mark.parametrize("groups, message", [
    ([{"id": "g", "members": ["ghost"]}], "member 'ghost' is not a device or group"),
    ([{"id": "g", "members": ["h1"]}, {"id": "g2", "members": ["h1"]}], "h1 is in two groups"),
    ([{"id": "g", "kind": "rack", "members": ["h1"], "u_positions": {"h1": 99}}],
     "outside the rack"),
    ([{"id": "g", "members": []}], "groups.0.members"),
    ([{"id": "g", "members": ["h1"], "colour": "red"}], "Extra inputs are not permitted"),
])
def test_bad_groups_give_a_clear_message(groups, message):
    doc = dict(V1, version=2, groups=groups)
    with pytest.raises(DesignFileError, match=message):
        parse_design(json.dumps(doc))
