"""Palette units: a scalable unit and a rack, built as valid fragments with their groups."""

import pytest

from fabricstudio.model import Design, GpuServer
from fabricstudio.model.commands import AddFragment
from fabricstudio.topology.builders import BuildError
from fabricstudio.topology.builders.units import build_unit


def _add(design: Design, spec: dict, origin=(0.0, 0.0)):
    unit = build_unit(spec, lambda ident: ident in design, origin)
    AddFragment(unit.devices, unit.links, groups=unit.groups).do(design)
    return unit


def test_scalable_unit_is_32_servers_on_8_rail_leaves():
    design = Design()
    unit = _add(design, {"type": "scalable_unit"})
    servers = design.devices_of_kind("gpu_server")
    leaves = design.devices_of_kind("leaf")
    assert len(servers) == 32 and len(leaves) == 8 and len(design.links) == 256
    for link in design.links.values():  # NIC i on rail leaf i
        assert design.device(link.b).name.endswith(f"rail{link.a_port + 1}")
    su = design.group(unit.top)
    assert su.kind == "scalable_unit" and su.label == "SU 1"
    tree = design.group_tree()
    assert sorted(tree.devices(unit.top)) == sorted(design.devices)
    assert len([g for g in design.groups.values() if g.kind == "rack"]) == 9  # 8 + leaves


def test_second_unit_gets_fresh_ids():
    design = Design()
    _add(design, {"type": "scalable_unit", "servers": 4, "rails": 2})
    second = _add(design, {"type": "scalable_unit", "servers": 4, "rails": 2}, (2000.0, 0.0))
    assert second.top == "su2" and "gpu5" in design and "gpu5-nic0" in design.links
    assert min(d.x for d in second.devices) > max(d.x for d in design.devices.values()
                                                  if d.id in {"gpu1", "gpu4"})


def test_rack_with_top_of_rack_leaf_and_management():
    design = Design()
    design.add_device(GpuServer(id="gpu1"))  # taken: the rack's servers start at gpu2
    unit = _add(design, {"type": "rack"})
    rack = design.group(unit.top)
    assert rack.kind == "rack" and rack.height_u == 42
    assert rack.members == ("gpu2", "gpu3", "gpu4", "gpu5", "leaf1", "mgmt1")
    assert rack.u_positions == {"gpu2": 1, "gpu3": 9, "gpu4": 17, "gpu5": 25, "leaf1": 42,
                                "mgmt1": 41}
    planes = sorted(lk.plane.value for lk in design.links.values())
    assert planes.count("compute") == 32 and planes.count("management") == 4


def test_rack_without_leaf_for_rail_wiring():
    design = Design()
    unit = _add(design, {"type": "rack", "tor_leaf": False, "management": False})
    assert not design.links and len(design.group(unit.top).members) == 4


@pytest.mark.parametrize("spec, message", [
    ({"type": "rack", "servers": 9}, "72 ports"),
    ({"type": "scalable_unit", "servers": 70}, "radix 64 is too small"),
    ({"type": "scalable_unit", "rails": 0}, "rails"),
    ({"type": "pod"}, "unknown unit type"),
    ({"type": "rack", "colour": "red"}, "unexpected keyword"),
])
def test_bad_units_are_refused_with_a_reason(spec, message):
    with pytest.raises(BuildError, match=message):
        build_unit(spec, lambda ident: False)
