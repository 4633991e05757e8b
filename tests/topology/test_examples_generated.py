"""The generated examples: current with the builders, valid, and analysed."""

import pytest

from fabricstudio.formats import dump_design, load_design
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import (
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    build_fabric,
)

#: File -> (spec the CLI command in docs/generate.md builds, expected GPUs, bisection Gb/s).
GENERATED = {
    "leaf-spine-16-gpu-roce.json": (
        LeafSpineSpec(gpus=16, servers_per_leaf=1, name="Leaf-spine 16 GPUs RoCE"), 16, 3200),
    "rail-optimized-256-gpu-infiniband.json": (
        RailOptimizedSpec(gpus=256, technology="infiniband"), 256, 51200),
    "fat-tree-1024-gpu.json": (FatTreeSpec(switch_radix=16), 1024, 204800),
    "leaf-spine-storage-management.json": (
        LeafSpineSpec(gpus=64, storage_servers=4, management=True), 64, 12800),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_example_is_current_valid_and_analysed(examples_dir, name):
    spec, gpus, bisection = GENERATED[name]
    path = examples_dir / name
    assert path.read_text() == dump_design(build_fabric(spec).to_design()), (
        f"{name} is stale: regenerate it with the command in docs/generate.md")
    assert path.stat().st_size < 3_000_000
    report = analyze(load_design(path))
    assert report.counts.gpus == gpus
    assert not report.errors()
    assert report.bisection.gbps == bisection and report.bisection.exact
    assert not report.deadlock.risk


def test_storage_and_management_example_has_all_three_networks(examples_dir):
    design = load_design(examples_dir / "leaf-spine-storage-management.json")
    planes = {link.plane.value for link in design.links.values()}
    assert planes == {"compute", "storage", "management"}
