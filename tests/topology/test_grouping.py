"""Generated fabrics come with their racks (U positions), scalable units and pods."""

import pytest

from fabricstudio.model import GroupKind
from fabricstudio.model.groups import u_height
from fabricstudio.topology.builders import (
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    build_fabric,
)
from fabricstudio.topology.racks import rack_plan

SPECS = [
    LeafSpineSpec(gpus=64, storage_servers=4, management=True),
    LeafSpineSpec(gpus=64, servers_per_leaf=3, management=True),
    RailOptimizedSpec(gpus=256),
    RailOptimizedSpec(gpus=8192, management=True, storage_servers=8),
    RailOptimizedSpec(servers=40, servers_per_su=10, servers_per_rack=3, management=True),
    FatTreeSpec(switch_radix=16),
    FatTreeSpec(switch_radix=8, nics_per_server=3),
    LeafSpineSpec(gpus=64, nic_speed_gbps=800, port_speed_gbps=800),  # 2U switches
    LeafSpineSpec(gpus=32, gpus_per_server=4),  # 4U servers
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.topology)
def test_every_device_is_in_exactly_one_rack(spec):
    build = build_fabric(spec)
    build.to_design()  # validates the groups
    racks = [g for g in build.groups if g.kind is GroupKind.RACK]
    in_racks = [m for r in racks for m in r.members]
    assert sorted(in_racks) == sorted(d.id for d in build.devices)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.topology)
def test_rack_positions_do_not_overlap(spec):
    build = build_fabric(spec)
    devices = {d.id: d for d in build.devices}
    plan = rack_plan(build.to_design())
    for rack in (g for g in build.groups if g.kind is GroupKind.RACK):
        assert rack.u_positions, rack.id
        used = set()
        for device, bottom in rack.u_positions.items():
            units = set(range(bottom, bottom + u_height(devices[device])))
            assert units <= set(range(1, rack.height_u + 1)), (rack.id, device)
            assert not units & used, (rack.id, device)
            used |= units
            # the rack plan (NetBox export, rack view) reads the same slot and height
            assert (plan.slots[device].position, plan.slots[device].height) == \
                (bottom, u_height(devices[device]))


def test_rail_optimised_units_and_pods():
    build = build_fabric(RailOptimizedSpec(gpus=8192, management=True))
    design = build.to_design()
    tree = design.group_tree()
    units = [g for g in build.groups if g.kind is GroupKind.SCALABLE_UNIT]
    pods = [g for g in build.groups if g.kind is GroupKind.POD]
    assert len(units) == 32 and len(pods) == 8
    su1 = tree.devices("su1")
    assert sum(1 for d in su1 if d.startswith("server")) == 32
    assert sum(1 for d in su1 if d.startswith("leaf")) == 8
    assert sum(1 for d in su1 if d.startswith("mgmt")) == 8  # one per rack of 4
    assert tree.ancestors("server1") == ["rack1", "su1", "pod1"]
    assert tree.top("spine1") == "pod1" and tree.ancestors("spine1")[0].startswith("netrack")
    assert design.group_of("rack1") == "su1"


def test_top_of_rack_leaf_shares_its_servers_rack():
    build = build_fabric(LeafSpineSpec(gpus=64, management=True))
    rack1 = build.to_design().group("rack1")
    assert rack1.members == ("server1", "server2", "server3", "server4", "leaf1", "mgmt1")
    assert rack1.u_positions["leaf1"] == 42 and rack1.u_positions["mgmt1"] == 41


def test_racks_never_straddle_scalable_units():
    build = build_fabric(RailOptimizedSpec(servers=20, servers_per_su=10, servers_per_rack=4,
                                           management=True))
    design = build.to_design()
    for rack in (g for g in build.groups if g.kind is GroupKind.RACK):
        units = {design.group_of(rack.id)}
        assert len(units) == 1
    # 10 servers per unit in racks of 4: 4 + 4 + 2, twice; one management switch per rack
    assert sum(1 for d in build.devices if d.id.startswith("mgmt") and "agg" not in d.id) == 6
