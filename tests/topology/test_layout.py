"""auto_layout: role-sorted, rack-grouped positions for designs that have none."""

import pytest

from fabricstudio.model import Design, DeviceKind
from fabricstudio.topology.builders import LeafSpineSpec, RailOptimizedSpec, build_fabric
from fabricstudio.topology.layout import auto_layout, needs_layout
from tests.topology.layout_quality import aspect_ratio, links_through_tiles


def _unplaced(spec):
    build = build_fabric(spec)
    devices = [d.model_copy(update={"x": 0.0, "y": 0.0}) for d in build.devices]
    return devices, build.links


def _placed(devices, positions):
    return [d.model_copy(update={"x": positions[d.id][0], "y": positions[d.id][1]})
            for d in devices]


@pytest.mark.parametrize("spec", [
    LeafSpineSpec(gpus=64), LeafSpineSpec(gpus=64, storage_servers=4, management=True),
    RailOptimizedSpec(gpus=256),
], ids=["leaf-spine", "leaf-spine-storage-management", "rail-optimized"])
def test_with_links_servers_stand_in_their_racks_and_no_cable_crosses_a_device(spec):
    devices, links = _unplaced(spec)
    design = Design.from_data(build_fabric(spec).to_data())
    design.move_devices({d.id: (0.0, 0.0) for d in devices})
    assert needs_layout(design)
    placed = _placed(devices, auto_layout(devices, links))
    assert len({(d.x, d.y) for d in placed}) == len(placed)
    assert links_through_tiles(placed, links, with_names=True) == []
    by_id = {d.id: d for d in placed}
    for link in links:
        a, b = by_id[link.a], by_id[link.b]
        if DeviceKind(a.kind) is DeviceKind.GPU_SERVER and DeviceKind(b.kind) is DeviceKind.LEAF \
                and link.plane.value == "compute":
            assert b.y < a.y


def test_tiers_are_role_sorted_and_networks_apart_without_links():
    devices, _ = _unplaced(LeafSpineSpec(gpus=256, storage_servers=4, management=True))
    placed = _placed(devices, auto_layout(devices))
    assert len({(d.x, d.y) for d in placed}) == len(placed)
    ys = {}
    for d in placed:
        if "compute" in [p.value for p in d.planes][:1]:
            ys.setdefault(d.kind, []).append(d.y)
    assert max(ys["spine"]) < min(ys["leaf"]) < min(ys["gpu_server"])
    compute_right = max(d.x for d in placed if d.kind == "gpu_server")
    assert min(d.x for d in placed if d.id.startswith("sleaf")) > compute_right
    assert min(d.y for d in placed if d.kind == "mgmt_switch") > max(ys["gpu_server"])


@pytest.mark.parametrize("with_links", [True, False])
def test_large_designs_wrap_into_blocks(with_links):
    devices, links = _unplaced(LeafSpineSpec(gpus=2048))
    placed = _placed(devices, auto_layout(devices, links if with_links else ()))
    assert 1.0 <= aspect_ratio(placed) <= 2.8


def test_auto_layout_is_deterministic():
    devices, links = _unplaced(RailOptimizedSpec(gpus=512, storage_servers=4, management=True))
    assert auto_layout(devices, links) == auto_layout(list(devices), list(links))
