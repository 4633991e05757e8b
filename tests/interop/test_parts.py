"""Subsets, derived racks, hostlists and the one-module registry."""

from __future__ import annotations

import pytest

from fabricstudio.interop import InteropError
from fabricstudio.interop.hostlist import compress, expand
from fabricstudio.interop.registry import ExportFormat, _discover
from fabricstudio.interop.subset import apply_subset
from fabricstudio.model import DeviceKind, Plane
from fabricstudio.topology.groups import leaf_units, pods
from fabricstudio.topology.racks import device_height, rack_plan


def test_rail_subset_is_one_rail_with_its_spines(example_designs):
    design = example_designs["rail-optimized-256-gpu-infiniband.json"]
    part = apply_subset(design, "rail:3")
    leaves = part.devices_of_kind(DeviceKind.LEAF)
    assert len(leaves) == len(leaf_units(design))  # one rail leaf per scalable unit
    assert all(lk.port_at(lk.a) == 2 for lk in part.links.values()
               if part.devices[lk.a].kind == "gpu_server")
    assert part.devices_of_kind(DeviceKind.SPINE)


def test_su_and_pod_and_network_subsets(example_designs):
    fat = example_designs["fat-tree-1024-gpu.json"]
    first = pods(fat)[0]
    part = apply_subset(fat, "pod:1")
    assert {d.id for d in part.devices_of_kind("leaf")} == set(first.leaves)
    assert not part.devices_of_kind(DeviceKind.CORE)
    mixed = example_designs["leaf-spine-storage-management.json"]
    unit = apply_subset(mixed, "su:2")
    assert {lk.plane for lk in unit.links.values()} == {Plane.COMPUTE}
    storage = apply_subset(mixed, "network:storage")
    assert storage.links and {lk.plane for lk in storage.links.values()} == {Plane.STORAGE}


@pytest.mark.parametrize("spec,message", [("rack:1", "write pod:N"), ("su:x", "not a number"),
                                          ("pod:0", "pod:1 .. pod:1"),
                                          ("network:wifi", "unknown network")])
def test_bad_subsets(example_designs, spec, message):
    with pytest.raises(InteropError, match=message):
        apply_subset(example_designs["two-servers-one-leaf.json"], spec)


@pytest.mark.parametrize("name", ["leaf-spine-storage-management.json",
                                  "rail-optimized-256-gpu-infiniband.json",
                                  "fat-tree-1024-gpu.json"])
def test_rack_plan_places_every_device_once_without_overlap(example_designs, name):
    design = example_designs[name]
    plan = rack_plan(design)
    assert set(plan.slots) == set(design.devices)
    for rack, members in plan.racks.items():
        used = set()
        for ident in members:
            slot = plan.slots[ident]
            units = set(range(slot.position, slot.position + slot.height))
            assert slot.rack == rack and not units & used and max(units) <= plan.heights[rack]
            assert slot.height == device_height(design.devices[ident])
            used |= units


def test_management_switch_racks_hold_their_servers(example_designs):
    design = example_designs["leaf-spine-storage-management.json"]
    plan = rack_plan(design)
    rack = plan.slots["mgmt1"].rack
    served = {lk.other_end("mgmt1") for lk in design.links_of("mgmt1")
              if design.devices[lk.other_end("mgmt1")].kind == "gpu_server"}
    assert served and all(plan.slots[s].rack == rack for s in served)


@pytest.mark.parametrize("names,text", [
    (["server1", "server2", "server3", "gpu07", "server5"], "server[1-3,5],gpu07"),
    (["node01", "node02", "node10"], "node[01-02,10]"),
    (["leaf"], "leaf"), (["a9"], "a9")])
def test_hostlist(names, text):
    assert compress(names) == text
    assert sorted(expand(text)) == sorted(names)


def test_a_new_module_is_a_new_format(tmp_path, monkeypatch):
    package = tmp_path / "fake_exporters"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "csvlinks.py").write_text(
        "from fabricstudio.interop.registry import ExportFormat\n"
        "FORMAT = ExportFormat(name='csvlinks', summary='links as CSV', suffixes=('.csv',),\n"
        "                      export=lambda design, options: None)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = _discover("fake_exporters", ExportFormat)
    assert list(found) == ["csvlinks"]


def test_rack_plan_follows_the_design_rack_groups(example_designs):
    design = example_designs["leaf-spine-storage-management.json"]
    plan = rack_plan(design)
    racks = [g for g in design.groups.values() if g.kind == "rack"]
    assert racks and list(plan.racks)[:len(racks)] == [g.label for g in racks]
    for group in racks:
        for device, u in group.u_positions.items():
            assert plan.slots[device].position == u and plan.slots[device].rack == group.label
