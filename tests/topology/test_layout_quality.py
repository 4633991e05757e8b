"""The builders' layouts read well: no cable drawn across a device it does not end at, bundle
counts clear of the devices, a screen-friendly shape from 16 to 2,048 GPUs."""

from itertools import pairwise

import pytest

from fabricstudio.topology.builders import (
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    build_fabric,
)
from tests.topology.layout_quality import (
    aspect_ratio,
    bundle_labels_on_devices,
    links_through_tiles,
)

#: Fabrics whose groups fit one row: every cable must run clear of every other device.
SINGLE_ROW = {
    "leaf-spine 16 GPUs, one server per leaf": LeafSpineSpec(gpus=16, servers_per_leaf=1),
    "leaf-spine 64 GPUs": LeafSpineSpec(gpus=64),
    "leaf-spine 96 GPUs, 6 per leaf": LeafSpineSpec(gpus=96, servers_per_leaf=6, switch_radix=128),
    "leaf-spine with storage and management": LeafSpineSpec(gpus=64, storage_servers=4,
                                                            management=True),
    "leaf-spine with management only": LeafSpineSpec(gpus=64, management=True),
    "leaf-spine with storage only": LeafSpineSpec(gpus=64, storage_servers=2),
    "leaf-spine 128 GPUs with storage and management": LeafSpineSpec(
        gpus=128, storage_servers=8, management=True),
    "fat tree with a three-tier storage network": FatTreeSpec(
        switch_radix=4, gpus=8, gpus_per_server=1, nics_per_server=1, storage_servers=2,
        management=True),
    "rail-optimised, one scalable unit": RailOptimizedSpec(gpus=256),
    "rail-optimised, small units": RailOptimizedSpec(gpus=64, servers_per_su=8,
                                                     nics_per_server=4, gpus_per_server=4),
    "fat tree, two pods": FatTreeSpec(switch_radix=4, gpus=8, gpus_per_server=1,
                                      nics_per_server=1),
}


@pytest.mark.parametrize("name", sorted(SINGLE_ROW))
def test_no_cable_crosses_a_device_it_does_not_end_at(name):
    build = build_fabric(SINGLE_ROW[name])
    assert links_through_tiles(build.devices, build.links, with_names=True) == []


@pytest.mark.parametrize("name", sorted(SINGLE_ROW))
@pytest.mark.parametrize("label_at", [0.38, 0.5])
def test_bundle_counts_sit_clear_of_devices(name, label_at):
    build = build_fabric(SINGLE_ROW[name])
    assert bundle_labels_on_devices(build.devices, build.links, label_at) == []


def test_the_canvas_draws_bundle_counts_where_the_check_looks():
    from fabricstudio.ui.canvas.items.link_item import LABEL_AT

    assert 0.3 <= LABEL_AT <= 0.5


@pytest.mark.parametrize("spec", [
    LeafSpineSpec(gpus=16), LeafSpineSpec(gpus=256), LeafSpineSpec(gpus=2048),
    LeafSpineSpec(gpus=2048, storage_servers=16, management=True),
    FatTreeSpec(switch_radix=8), FatTreeSpec(switch_radix=16), FatTreeSpec(gpus=2048),
    RailOptimizedSpec(gpus=256), RailOptimizedSpec(gpus=1024), RailOptimizedSpec(gpus=2048),
    RailOptimizedSpec(gpus=2048, tiers=3),
], ids=lambda s: f"{s.topology}-{s.gpus or 'full'}")
def test_shape_suits_a_wide_screen(spec):
    """Large fabrics wrap into blocks instead of one endless strip."""
    build = build_fabric(spec)
    ratio = aspect_ratio(build.devices)
    low = 1.0 if len(build.devices) > 40 else 0.45
    assert low <= ratio <= 2.8, ratio


def test_racks_and_units_are_grouped_with_gaps_between_them():
    build = build_fabric(LeafSpineSpec(gpus=64))
    x = {d.id: d.x for d in build.devices}
    rack1 = [x[f"server{i}"] for i in range(1, 5)]
    rack2 = [x[f"server{i}"] for i in range(5, 9)]
    inside = max(b - a for a, b in pairwise(rack1))
    assert min(rack2) - max(rack1) > inside
    assert min(rack1) < x["leaf1"] < max(rack1) and min(rack2) < x["leaf2"] < max(rack2)
