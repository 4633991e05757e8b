"""Fabric builders: counts of the textbook families, arithmetic, errors, determinism."""

import math

import pytest

from fabricstudio.model import Plane
from fabricstudio.topology.builders import (
    BuildError,
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    build_fabric,
    parse_spec,
)


def kinds(build):
    counts = {}
    for d in build.devices:
        counts[d.kind] = counts.get(d.kind, 0) + 1
    return counts


def compute_hosts(build):
    return sum(1 for link in build.links if link.plane is Plane.COMPUTE and link.id.count("-nic"))


@pytest.mark.parametrize("k", [4, 8, 16])
def test_k_ary_fat_tree_has_k3_over_4_hosts_and_5k2_over_4_switches(k):
    build = build_fabric(FatTreeSpec(switch_radix=k, gpus_per_server=1, nics_per_server=1))
    c = kinds(build)
    assert compute_hosts(build) == k**3 // 4
    assert c["gpu_server"] == k**3 // 4
    assert c["leaf"] + c["spine"] + c["core"] == 5 * k * k // 4
    assert (c["leaf"], c["spine"], c["core"]) == (k * k // 2, k * k // 2, k * k // 4)
    assert build.summary["pods"] == k


def test_fat_tree_with_multi_nic_servers_keeps_k3_over_4_host_nics():
    build = build_fabric(FatTreeSpec(switch_radix=16))
    assert build.summary["hosts"] == 16**3 // 4
    assert build.summary["gpus"] == 1024
    assert build.summary["switches_total"] == 5 * 16 * 16 // 4


def test_radix_64_non_blocking_leaf_spine_serves_2048_hosts_with_64_leaves_32_spines():
    build = build_fabric(LeafSpineSpec(gpus=2048, gpus_per_server=8, nics_per_server=8))
    s = build.summary
    assert s["hosts"] == 2048
    assert s["switches"]["leaf"] == 64
    assert s["switches"]["spine"] == 32
    assert s["oversubscription"]["leaf"] == 1.0
    assert s["max_gpus"] == 2048


def test_one_more_gpu_server_than_two_tiers_serve_is_refused():
    with pytest.raises(BuildError, match=r"2,056 GPUs need more than the 2 tiers of radix-64 "
                                         r"switches can serve \(max 2,048\)"):
        build_fabric(LeafSpineSpec(gpus=2056))


@pytest.mark.parametrize("radix,ratio,down,up", [(64, 3, 48, 16), (64, 1, 32, 32),
                                                 (32, 3, 24, 8), (48, 2, 32, 16)])
def test_oversubscription_splits_leaf_ports(radix, ratio, down, up):
    gpus_per_leaf = down  # one GPU and NIC per server
    build = build_fabric(LeafSpineSpec(gpus=gpus_per_leaf * 4, gpus_per_server=1,
                                       nics_per_server=1, switch_radix=radix,
                                       oversubscription=ratio))
    s = build.summary
    assert (s["down_ports_per_leaf"], s["uplinks_per_leaf"]) == (down, up)
    assert s["oversubscription"]["leaf"] == pytest.approx(down / up)
    leaf_links = [link for link in build.links if link.a == "leaf1"]
    assert len(leaf_links) == up
    assert sum(1 for link in build.links if link.b == "leaf1") == down


def test_rail_optimized_puts_nic_i_of_every_server_on_rail_leaf_i():
    build = build_fabric(RailOptimizedSpec(gpus=512))
    names = {d.id: d.name for d in build.devices}
    for link in build.links:
        if "-nic" in link.id:
            server, nic = link.id.split("-nic")
            su = (int(server.removeprefix("server")) - 1) // 32 + 1
            assert names[link.b] == f"su{su}-rail{int(nic) + 1}"
    s = build.summary
    assert s["scalable_units"] == 2 and s["tiers"] == 2
    assert s["switches"]["leaf"] == 16


def test_rail_optimized_grows_spines_with_units_and_a_core_when_two_tiers_cannot_serve():
    spines = [build_fabric(RailOptimizedSpec(gpus=256 * su)).summary["switches"]["spine"]
              for su in (1, 2, 4, 8)]
    assert spines == sorted(spines) and spines[0] < spines[-1]
    big = build_fabric(RailOptimizedSpec(gpus=256 * 16)).summary
    assert big["tiers"] == 3 and big["switches"]["core"] > 0
    with pytest.raises(BuildError, match="2 tiers"):
        build_fabric(RailOptimizedSpec(gpus=256 * 16, tiers=2))


def test_dgx_superpod_four_units_matches_reference_counts():
    # DGX H100 SuperPOD compute fabric, 4 SUs x 32 nodes: 32 rail leaves, 16 spines.
    s = build_fabric(RailOptimizedSpec(gpus=4 * 32 * 8, technology="infiniband")).summary
    assert (s["switches"]["leaf"], s["switches"]["spine"]) == (32, 16)


def test_build_is_deterministic_and_valid():
    spec = RailOptimizedSpec(gpus=512, storage_servers=4, management=True)
    a, b = build_fabric(spec), build_fabric(spec)
    assert a.to_data() == b.to_data()
    design = a.to_design()
    assert len(design.devices) == len(a.devices) and len(design.links) == len(a.links)
    assert [d.id for d in a.devices][:3] == ["server1", "server2", "server3"]


def test_layout_rows_are_role_sorted():
    build = build_fabric(FatTreeSpec(switch_radix=8))
    y = {}
    for d in build.devices:
        y.setdefault(d.kind, set()).add(d.y)
    assert max(y["core"]) < min(y["spine"]) < min(y["leaf"]) < min(y["gpu_server"])
    positions = {(d.x, d.y) for d in build.devices}
    assert len(positions) == len(build.devices)


def test_storage_and_management_networks_are_placed_apart_and_complete():
    build = build_fabric(LeafSpineSpec(gpus=64, storage_servers=4, management=True))
    by_id = {d.id: d for d in build.devices}
    servers_y = max(d.y for d in build.devices if d.kind == "gpu_server")
    storage_leaves = [d for d in build.devices if d.id.startswith("sleaf")]
    assert storage_leaves and min(d.y for d in storage_leaves) > servers_y
    storage_y = max(d.y for d in build.devices if d.kind == "storage_server")
    mgmt = [d for d in build.devices if d.kind == "mgmt_switch"]
    assert mgmt and min(d.y for d in mgmt) > storage_y
    managed = {link.a for link in build.links if link.plane is Plane.MANAGEMENT
               and by_id[link.a].kind in ("gpu_server", "storage_server")}
    servers = {d.id for d in build.devices if d.kind in ("gpu_server", "storage_server")}
    assert managed == servers
    racks = math.ceil(8 / 4) + math.ceil(4 / 4)
    assert sum(1 for d in mgmt if d.id.startswith("mgmt") and "agg" not in d.id) == racks
    storage_links = [link for link in build.links if link.plane is Plane.STORAGE]
    assert sum(1 for link in storage_links if link.id.endswith("-stor0")) == 8 + 4


@pytest.mark.parametrize("spec,message", [
    (LeafSpineSpec(gpus=16, switch_radix=0), "radix 0: must be at least 2"),
    (LeafSpineSpec(gpus=-8), "GPU count -8: must be at least 1"),
    (LeafSpineSpec(gpus=12), "not a whole number of 8-GPU servers"),
    (LeafSpineSpec(), "give the size"),
    (LeafSpineSpec(gpus=16, oversubscription=0.5), "oversubscription 0.5"),
    (LeafSpineSpec(gpus=16, nic_speed_gbps=-1), "NIC speed -1 Gb/s"),
    (LeafSpineSpec(gpus=256, spines=3), "3 spines: must divide"),
    (FatTreeSpec(switch_radix=8, gpus=1024), "3 tiers of radix-8 switches can serve (max 128)"),
    (RailOptimizedSpec(gpus=256, switch_radix=32), "radix 32 is too small"),
])
def test_bad_options_give_one_clear_sentence(spec, message):
    with pytest.raises(BuildError) as info:
        build_fabric(spec)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_parse_spec_rejects_unknown_topology_and_bad_types():
    with pytest.raises(BuildError, match="unknown topology 'torus'"):
        parse_spec({"topology": "torus"})
    with pytest.raises(BuildError, match="gpus"):
        parse_spec({"topology": "leaf-spine", "gpus": "many"})
    assert isinstance(parse_spec({"topology": "fat-tree"}), FatTreeSpec)


def test_bom_counts_of_generated_families():
    build = build_fabric(LeafSpineSpec(gpus=2048))
    s = build.summary
    assert s["cables"]["compute"] == 2048 + 64 * 32
    # 3 m to the top-of-rack leaf: DAC; 30 m to the spines from twin-port cages: optics
    assert s["cables_by_class"]["DAC"] == 2048 and s["cables_by_class"]["optics"] == 64 * 32
    ft = build_fabric(FatTreeSpec(switch_radix=8, gpus_per_server=1, nics_per_server=1))
    # k-ary: k^3/4 host links plus k^3/4 per switch tier boundary.
    assert ft.summary["cables"]["compute"] == 3 * 8**3 // 4
    assert ft.summary["cables_by_class"]["optics"] == 2 * 8**3 // 4


def test_fragment_for_renames_clashing_ids_and_places_beside_existing_devices():
    from fabricstudio.model.commands import AddFragment

    design = build_fabric(LeafSpineSpec(gpus=16, servers_per_leaf=1)).to_design()
    build = build_fabric(RailOptimizedSpec(gpus=64, servers_per_su=8))
    devices, links, groups = build.fragment_for(design)
    assert devices[0].id == "f2-server1" and links[0].a == "f2-server1"
    assert groups[0].id == "f2-rack1" and groups[0].members[0] == "f2-server1"
    assert min(d.x for d in devices) > max(d.x for d in design.devices.values())
    groups_before = dict(design.groups)
    command = AddFragment(devices, links, groups=groups)
    command.do(design)
    assert len(design.devices) == 4 + 2 + len(build.devices)
    assert design.group("f2-su1").members[0] == "f2-rack1"
    command.undo(design)
    assert "f2-server1" not in design and dict(design.groups) == groups_before
    assert build.fragment_for(None) == (build.devices, build.links, build.groups)


@pytest.mark.parametrize("spec,message", [
    (LeafSpineSpec(gpus=64, servers_per_leaf=0), "servers per leaf 0: must be at least 1"),
    (LeafSpineSpec(gpus=64, spines=-2), "spine count -2"),
    (FatTreeSpec(leaves_per_pod=0), "leaves per pod 0"),
    (RailOptimizedSpec(gpus=64, servers_per_su=0), "servers per scalable unit 0"),
    (LeafSpineSpec(gpus=64, servers_per_leaf=5), "5 server(s) x 8 NICs do not fit the 32 down"),
])
def test_family_options_are_checked(spec, message):
    with pytest.raises(BuildError) as info:
        build_fabric(spec)
    assert message in str(info.value)
