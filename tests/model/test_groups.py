"""Groups in the model: validation, the Design's group API and the group commands."""

import pytest
from pydantic import ValidationError

from fabricstudio.model import Design, DesignError, GpuServer, Group, GroupKind, Leaf, Link
from fabricstudio.model.commands import (
    AddFragment,
    GroupObjects,
    RemoveDevices,
    SetGroupProperties,
    Ungroup,
)
from fabricstudio.model.groups import lift_selection, prune_groups, u_height


@pytest.fixture
def design() -> Design:
    d = Design("g")
    for i in range(1, 5):
        d.add_device(GpuServer(id=f"s{i}", nics=1, x=i * 100.0))
    d.add_device(Leaf(id="leaf1", radix=8))
    for i in range(1, 5):
        d.add_link(Link(id=f"l{i}", a=f"s{i}", b="leaf1"))
    d.set_groups([Group(id="rack1", kind=GroupKind.RACK, members=("s1", "s2", "leaf1"),
                        height_u=42, u_positions={"s1": 1, "s2": 9, "leaf1": 42}),
                  Group(id="rack2", kind=GroupKind.RACK, members=("s3", "s4")),
                  Group(id="su1", kind=GroupKind.SCALABLE_UNIT, members=("rack1", "rack2"))])
    return d


def roundtrip(design: Design, command) -> None:
    """do, undo (back to before), redo (same as after do)."""
    before = design.to_data()
    command.do(design)
    after = design.to_data()
    command.undo(design)
    assert design.to_data() == before
    command.do(design)
    assert design.to_data() == after


@pytest.mark.parametrize("fields, message", [
    (dict(members=("a", "a")), "lists 'a' twice"),
    (dict(members=()), "at least 1"),
    (dict(members=("g1",)), "cannot contain itself"),
    (dict(members=("a",), u_positions={"a": 1}), "only racks"),
    (dict(kind="rack", members=("a",), u_positions={"b": 1}), "not a member"),
    (dict(kind="rack", members=("a",), height_u=42, u_positions={"a": 43}), "outside the rack"),
    (dict(kind="rack", members=("a",), height_u=61), "less than or equal to 60"),
    (dict(kind="building", members=("a",)), "Input should be"),
])
def test_group_values_are_validated(fields, message):
    with pytest.raises(ValidationError, match=message):
        Group(id="g1", **fields)


@pytest.mark.parametrize("groups, message", [
    ([Group(id="g", members=("ghost",))], "member 'ghost' is not a device or group"),
    ([Group(id="g", members=("s1",)), Group(id="h", members=("s1",))], "s1 is in two groups"),
    ([Group(id="s1", members=("s2",))], "group id 's1' is already used"),
    ([Group(id="g", members=("h",)), Group(id="h", members=("g",))], "contains itself"),
    ([Group(id="g", members=("s1",)), Group(id="r", kind="rack", members=("g",))],
     "rack r can hold devices only"),
])
def test_design_refuses_bad_groups_and_stays_unchanged(design, groups, message):
    before = design.to_data()
    with pytest.raises(DesignError, match=message):
        design.set_groups(groups)
    assert design.to_data() == before


def test_tree_queries(design):
    tree = design.group_tree()
    assert tree.roots() == ["su1"]
    assert tree.ancestors("s1") == ["rack1", "su1"]
    assert tree.top("s3") == "su1" and tree.top("su1") == "su1"
    assert tree.devices("su1") == ["s1", "s2", "leaf1", "s3", "s4"]
    assert tree.subgroups("su1") == ["rack1", "rack2"]
    assert design.group_of("rack2") == "su1" and design.group_of("su1") is None


def test_group_signal_names_what_changed(design):
    seen = []
    design.groups_changed.connect(seen.append)
    design.update_group("rack2", name="Rack B")
    design.update_group("rack2", name="Rack B")  # no change: no signal
    assert seen == [("rack2",)]
    assert design.group("rack2").label == "Rack B"


def test_a_device_in_a_group_is_taken_out_before_removal(design):
    design.remove_link("l3")
    with pytest.raises(DesignError, match="is in group rack2"):
        design.remove_device("s3")
    with pytest.raises(DesignError, match="is in group su1"):
        design.remove_group("rack1")


def test_deleting_devices_prunes_groups_and_undo_restores_them(design):
    roundtrip(design, RemoveDevices(["s3", "s4"]))
    assert "rack2" not in design.groups  # emptied, and gone from su1 too
    assert design.group("su1").members == ("rack1",)
    RemoveDevices(["s1"]).do(design)
    assert "s1" not in design.group("rack1").u_positions


def test_prune_drops_emptied_parents_too():
    groups = [Group(id="r", members=("a",)), Group(id="u", members=("r",)),
              Group(id="p", members=("u", "b"))]
    assert [g.id for g in prune_groups(groups, ["a"])] == ["p"]
    assert prune_groups(groups, ["a"])[0].members == ("b",)


def test_grouping_nests_in_the_common_parent_and_ungrouping_restores(design):
    command = GroupObjects(Group(id="row", members=("rack2",)))
    roundtrip(design, command)
    assert design.group("su1").members == ("rack1", "row")
    assert design.group("row").members == ("rack2",)
    roundtrip(design, Ungroup(["row"]))
    assert design.group("su1").members == ("rack1", "rack2")


def test_ungrouping_a_top_group_frees_its_members(design):
    Ungroup(["su1"]).do(design)
    assert design.group_tree().roots() == ["rack1", "rack2"]


def test_grouping_members_of_two_groups_takes_them_out():
    d = Design()
    for i in range(1, 5):
        d.add_device(GpuServer(id=f"s{i}"))
    d.set_groups([Group(id="a", members=("s1", "s2")), Group(id="b", members=("s3", "s4"))])
    GroupObjects(Group(id="mixed", members=("s2", "s3"))).do(d)
    assert d.group("a").members == ("s1",) and d.group("b").members == ("s4",)
    assert d.group_of("mixed") is None
    GroupObjects(Group(id="all", members=("s1", "s4"))).do(d)
    assert set(d.groups) == {"mixed", "all"}  # a and b emptied


def test_devices_of_a_rack_stay_in_it(design):
    with pytest.raises(DesignError, match="s3 is in rack rack2"):
        GroupObjects(Group(id="pair", members=("s3", "s4"))).do(design)


def test_selection_lifts_to_whole_groups(design):
    tree = design.group_tree()
    assert lift_selection(tree, ["s3", "s4", "s1"]) == ["rack2", "s1"]
    assert lift_selection(tree, ["s1", "s2", "leaf1", "s3", "s4"]) == ["su1"]
    assert lift_selection(tree, ["leaf1"]) == ["leaf1"]


def test_grouping_refuses_a_used_id(design):
    with pytest.raises(DesignError, match="already used"):
        GroupObjects(Group(id="s1", members=("s2",))).do(design)


def test_collapse_is_one_undoable_step(design):
    roundtrip(design, SetGroupProperties(["su1", "rack1"], {"collapsed": True}))
    assert design.group("su1").collapsed and design.group("rack1").collapsed
    with pytest.raises(DesignError, match="group rack1"):
        SetGroupProperties(["rack1"], {"height_u": 0}).do(design)


def test_add_fragment_with_groups_is_one_step(design):
    devices = [GpuServer(id="n1", nics=1), GpuServer(id="n2", nics=1)]
    group = Group(id="rack9", kind="rack", members=("n1", "n2"))
    roundtrip(design, AddFragment(devices, [], groups=[group]))
    assert design.group("rack9").members == ("n1", "n2")
    with pytest.raises(DesignError):
        AddFragment([GpuServer(id="n3", nics=1)], [],
                    groups=[Group(id="bad", members=("n3", "ghost"))]).do(design)
    assert "n3" not in design


def test_ids_are_unique_across_devices_links_and_groups(design):
    assert "su1" in design and design.unique_id("su") == "su2"
    with pytest.raises(DesignError, match="already used"):
        design.add_device(GpuServer(id="rack1"))


def test_heights_follow_the_device():
    assert u_height(GpuServer(id="g")) == 8 and u_height(GpuServer(id="g", gpus=4)) == 4
    assert u_height(Leaf(id="l", radix=64, port_speed_gbps=400)) == 1  # 25.6 Tb/s: 1U
    assert u_height(Leaf(id="l", radix=64, port_speed_gbps=800)) == 2  # 51.2 Tb/s: 2U
