"""Bulk wiring plans (Qt-free): rail-wise, round-robin and fill, per network, one step."""

from collections import Counter

import pytest

from fabricstudio.model import Design, GpuServer, Leaf, Link, MgmtSwitch, Plane, Spine
from fabricstudio.model.commands import AddFragment
from fabricstudio.topology.bulk_wiring import plan_wiring


def _design(servers=4, leaves=8, radix=64, nics=8, mgmt=False) -> Design:
    d = Design("bulk")
    planes = (Plane.COMPUTE, Plane.MANAGEMENT) if mgmt else (Plane.COMPUTE,)
    for i in range(1, servers + 1):
        d.add_device(GpuServer(id=f"s{i}", nics=nics, nic_speed_gbps=400, planes=planes))
    for i in range(1, leaves + 1):
        d.add_device(Leaf(id=f"leaf{i}", radix=radix, port_speed_gbps=400))
    if mgmt:
        d.add_device(MgmtSwitch(id="mgmt1"))
    return d


def _per_switch(plan) -> Counter:
    return Counter(lk.b for lk in plan.links)


def test_rail_wise_puts_nic_i_on_leaf_i():
    d = _design()
    plan = plan_wiring(d, d.devices, "rail")
    assert len(plan.links) == 32 and not plan.notes
    for link in plan.links:
        assert link.b == f"leaf{link.a_port + 1}"
    assert plan.links[0].id == "s1-nic0" and plan.links[0].speed_gbps == 400
    assert plan.describe(d) == ("32 links: 4 GPU servers to 8 leaves (rail-wise), compute "
                                "network")
    command = AddFragment([], plan.links)
    command.do(d)
    assert len(d.links) == 32
    command.undo(d)
    assert not d.links


def test_round_robin_spreads_links_evenly():
    d = _design(leaves=3)
    plan = plan_wiring(d, d.devices, "round-robin")
    assert sorted(_per_switch(plan).values()) == [10, 11, 11]


def test_fill_uses_the_first_switch_first():
    d = _design(leaves=3, radix=16)
    plan = plan_wiring(d, d.devices, "fill")
    assert _per_switch(plan) == {"leaf1": 16, "leaf2": 16}


def test_rail_wise_leaves_nics_free_when_their_rail_is_full():
    d = _design(leaves=2, radix=8)
    plan = plan_wiring(d, d.devices, "rail")
    assert _per_switch(plan) == {"leaf1": 8, "leaf2": 8}
    assert plan.notes == ["16 compute ports stay free: their switch had no free port left"]


def test_each_network_is_wired_to_its_own_switches():
    d = _design(servers=2, leaves=2, mgmt=True)
    plan = plan_wiring(d, d.devices, "rail")
    planes = Counter(lk.plane for lk in plan.links)
    assert planes == {Plane.COMPUTE: 16, Plane.MANAGEMENT: 2}
    assert {lk.b for lk in plan.links if lk.plane is Plane.MANAGEMENT} == {"mgmt1"}
    AddFragment([], plan.links).do(d)  # valid as a whole


def test_leaves_to_spines_use_the_upper_half_of_new_leaves():
    d = Design()
    for i in (1, 2):
        d.add_device(Leaf(id=f"leaf{i}", radix=64))
        d.add_device(Spine(id=f"spine{i}", radix=64))
    plan = plan_wiring(d, d.devices, "round-robin")
    assert len(plan.links) == 64 and _per_switch(plan) == {"spine1": 32, "spine2": 32}
    assert min(lk.a_port for lk in plan.links) == 32
    assert plan.links[0].id == "leaf1-spine1" and plan.links[2].id == "leaf1-spine1.2"


def test_connected_ports_are_skipped():
    d = _design(servers=1, leaves=2)
    d.add_link(Link(id="x", a="s1", b="leaf1", a_port=0))
    plan = plan_wiring(d, d.devices, "rail")
    assert [lk.a_port for lk in plan.links] == list(range(1, 8))
    AddFragment([], plan.links).do(d)
    again = plan_wiring(d, d.devices, "rail")
    assert not again.links and again.notes == ["every port that could be wired is already "
                                               "connected"]


def test_one_tier_is_not_enough():
    d = _design(servers=3, leaves=0)
    plan = plan_wiring(d, d.devices, "fill")
    assert not plan.links and "two tiers" in plan.notes[0]
    with pytest.raises(ValueError, match="unknown wiring strategy"):
        plan_wiring(d, d.devices, "random")
