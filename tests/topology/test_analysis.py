"""Design analysis: bisection, paths, BOM, issues and the report's JSON form."""

import json

import pytest

from fabricstudio.model import Plane, Technology
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.analysis.capacity import _max_flow_split
from fabricstudio.topology.analysis.view import DesignView, plane_graph
from fabricstudio.topology.builders import (
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    build_fabric,
)

FAMILIES = [
    LeafSpineSpec(gpus=2048),
    LeafSpineSpec(gpus=8 * 6 * 8, oversubscription=3),  # 8 full leaves of 6 servers
    FatTreeSpec(switch_radix=8, gpus_per_server=1, nics_per_server=1),
    FatTreeSpec(switch_radix=8, oversubscription=3, gpus_per_server=1, nics_per_server=1,
                gpus=8 * 6 * 4),  # 8 pods of 4 full leaves
    RailOptimizedSpec(gpus=4 * 256, technology=Technology.INFINIBAND),
    RailOptimizedSpec(gpus=16 * 256),  # three tiers
]


def family_id(spec):
    return f"{spec.topology}-{spec.gpus}-o{spec.oversubscription:g}"


@pytest.mark.parametrize("spec", FAMILIES, ids=family_id)
def test_bisection_of_the_families_equals_hosts_over_2_times_c_over_o(spec):
    build = build_fabric(spec)
    report = analyze(build.to_design())
    hosts = build.summary["hosts"]
    formula = hosts / 2 * spec.nic_speed_gbps / spec.oversubscription
    assert report.bisection.method == "clos-formula" and report.bisection.exact
    assert report.bisection.gbps == pytest.approx(formula, rel=0.02)
    assert build.summary["bisection_gbps"] == pytest.approx(formula, rel=0.02)


@pytest.mark.parametrize("spec", [LeafSpineSpec(gpus=128, servers_per_leaf=2),
                                  FatTreeSpec(switch_radix=4, gpus_per_server=1,
                                              nics_per_server=1)],
                         ids=["leaf-spine", "fat-tree"])
def test_formula_agrees_with_max_flow_across_the_split(spec):
    design = build_fabric(spec).to_design()
    view = DesignView.of(design)
    flow = _max_flow_split(view, plane_graph(view))
    assert flow.gbps == pytest.approx(analyze(design).bisection.gbps)


def test_partial_fabric_falls_back_to_max_flow_and_says_so():
    report = analyze(build_fabric(LeafSpineSpec(gpus=2048, oversubscription=3)).to_design())
    assert report.bisection.method == "max-flow-split" and not report.bisection.exact
    assert report.bisection.gbps > 0


def test_hops_and_ecmp_of_a_k4_fat_tree():
    report = analyze(build_fabric(FatTreeSpec(switch_radix=4, gpus_per_server=1,
                                              nics_per_server=1)).to_design())
    p = report.paths
    assert (p.hops.min, p.hops.max, p.diameter_hops) == (2, 6, 6)
    assert p.ecmp_paths.max == 4  # (k/2)^2 between pods
    assert p.ecmp_width.max == 2  # k/2 uplinks
    assert not p.sampled and p.pairs == 16 * 15 and p.unreachable_pairs == 0


def test_leaf_spine_hops_count_same_leaf_pairs_as_two():
    report = analyze(build_fabric(LeafSpineSpec(gpus=64)).to_design())
    # 2 leaves of 4 servers x 8 NICs: pairs on different servers.
    same_leaf = 2 * (32 * 32 - 4 * 64)
    cross = 2 * 32 * 32
    assert report.paths.pairs == same_leaf + cross
    assert report.paths.hops.mean == pytest.approx((2 * same_leaf + 4 * cross)
                                                   / (same_leaf + cross), abs=1e-3)
    assert report.paths.ecmp_width.max == 32


def test_large_fabric_is_sampled_and_says_so():
    design = build_fabric(RailOptimizedSpec(gpus=2048)).to_design()
    exact = analyze(design)
    sampled = analyze(design, max_pairs=2000)
    assert not exact.paths.sampled and sampled.paths.sampled
    assert sampled.paths.pairs_examined < exact.paths.pairs_examined
    assert sampled.paths.hops.mean == pytest.approx(exact.paths.hops.mean, rel=0.05)
    assert "analysis-sampled" in {i.code for i in sampled.issues}
    assert not sampled.deadlock.exact


def test_bill_of_materials_of_a_leaf_spine_with_storage_and_management():
    build = build_fabric(LeafSpineSpec(gpus=64, storage_servers=4, management=True))
    bom = analyze(build.to_design()).bom
    assert (bom.gpu_servers, bom.gpus, bom.storage_servers) == (8, 64, 4)
    switches = {(g.kind, g.port_speed_gbps): g for g in bom.switches}
    assert switches[("leaf", 400.0)].count == 2  # compute leaves
    assert switches[("leaf", 200.0)].count == 1  # the storage leaf runs at storage NIC speed
    assert switches[("mgmt_switch", 1.0)].count == 3 + 1  # 3 racks and their aggregation
    for g in bom.switches:
        assert g.ports_used + g.ports_free == g.count * g.radix
    assert sum(c.count for c in bom.cables) == len(build.links)
    compute = {g.speed_gbps: g for g in bom.nics if g.plane == "compute"}
    assert compute[400.0].count == 64 and compute[400.0].connected == 64
    assert bom.cables_by_class["copper"] == sum(1 for link in build.links
                                                if link.plane is Plane.MANAGEMENT)
    # 64 leaf-spine links at 30 m between twin-port cages: one 2 x 400G module serves two
    # links at each end, so 64 modules, not 128
    assert bom.cables_by_class["optics"] == 64 and bom.transceivers == 64


def test_fat_tree_core_links_need_optics_and_transceivers():
    bom = analyze(build_fabric(FatTreeSpec(switch_radix=4, gpus_per_server=1,
                                           nics_per_server=1)).to_design()).bom
    # 3 m server cables are DAC; 30 m and 100 m links between twin-port 400G cages need
    # transceivers (twin-port cages take no AOC)
    assert bom.cables_by_class == {"DAC": 16, "ACC": 0, "AOC": 0, "optics": 32, "copper": 0}
    assert bom.transceivers == 32  # one twin-port module per pair of switch ports


def test_unconnected_gpu_nic_is_an_error_naming_the_server():
    design = build_fabric(RailOptimizedSpec(gpus=256)).to_design()
    design.remove_link("server3-nic5")
    issues = [i for i in analyze(design).issues if i.code == "gpu-nic-unconnected"]
    assert len(issues) == 1 and issues[0].severity == "error"
    assert issues[0].objects == ["server3"] and "NIC 5" in issues[0].message


def test_partition_speed_mismatch_and_spof_are_reported():
    design = build_fabric(LeafSpineSpec(gpus=64)).to_design()
    for link in list(design.links.values()):
        if link.a == "leaf2" and link.b.startswith("spine"):
            design.remove_link(link.id)
    design.update_link("server1-nic0", speed_gbps=200.0)
    report = analyze(design)
    issues = {i.code: i for i in report.issues}
    assert issues["network-partitioned"].severity == "error"
    assert "server5" in issues["network-partitioned"].objects
    assert "server1-nic0" in issues["speed-mismatch"].objects
    spof = {o for i in report.issues if i.code == "single-point-of-failure" for o in i.objects}
    assert {"leaf1", "server1"} <= spof


def test_rail_optimized_has_no_single_point_of_failure_but_tor_does():
    rail = analyze(build_fabric(RailOptimizedSpec(gpus=256)).to_design())
    tor = analyze(build_fabric(LeafSpineSpec(gpus=256)).to_design())
    assert "single-point-of-failure" not in {i.code for i in rail.issues}
    spof = [i for i in tor.issues if i.code == "single-point-of-failure"]
    assert spof and "leaf1" in spof[0].objects


def test_a_single_spine_link_is_a_bridge():
    design = build_fabric(LeafSpineSpec(gpus=16, servers_per_leaf=1, spines=1)).to_design()
    for link in list(design.links.values()):
        if link.a == "leaf2" and link.id != "leaf2-spine1":
            design.remove_link(link.id)
    issues = [i for i in analyze(design).issues if i.code == "single-point-of-failure"]
    assert any("leaf2-spine1" in i.objects for i in issues)


def test_oversubscription_per_tier_and_leaf():
    report = analyze(build_fabric(LeafSpineSpec(gpus=384, oversubscription=3)).to_design())
    leaf_tier = report.oversubscription.tiers[0]
    assert leaf_tier.tier == "leaf" and leaf_tier.ratio == pytest.approx(3.0)
    assert all(leaf.ratio == pytest.approx(3.0) for leaf in report.oversubscription.leaves)
    assert "oversubscribed" in {i.code for i in report.issues}
    assert report.oversubscription.tiers[-1].ratio is None  # spines: top tier


def test_non_infiniband_speed_warns():
    design = build_fabric(LeafSpineSpec(gpus=16, technology=Technology.INFINIBAND,
                                        nic_speed_gbps=25, port_speed_gbps=25)).to_design()
    assert "non-infiniband-speed" in {i.code for i in analyze(design).issues}


def test_report_is_json_with_stable_keys_and_accepts_design_data():
    build = build_fabric(LeafSpineSpec(gpus=16, servers_per_leaf=1))
    report = analyze(build.to_data())
    doc = json.loads(report.to_json())
    assert set(doc) == {"design", "technology", "lossless", "counts", "issues",
                        "oversubscription", "bisection", "paths", "bom", "deadlock", "cost",
                        "failures"}
    assert doc["cost"] is None  # no cost book given
    assert doc["counts"]["hosts"] == 16
    assert report == analyze(build.to_design())


def test_empty_design_analyses_without_error():
    from fabricstudio.model import Design

    report = analyze(Design())
    assert report.counts.gpus == 0 and report.bisection.method == "none"
    assert report.paths.hops is None and not report.deadlock.risk


def test_design_data_with_links_lacking_ports_is_resolved_first():
    data = build_fabric(LeafSpineSpec(gpus=16, servers_per_leaf=1)).to_data()
    bare = data.model_copy(update={"links": tuple(
        link.model_copy(update={"a_port": None, "b_port": None}) for link in data.links)})
    report = analyze(bare)
    assert report.counts.hosts == 16 and not report.errors()


def test_ports_over_radix_in_unvalidated_data_is_an_error():
    from fabricstudio.model import DesignData

    data = build_fabric(LeafSpineSpec(gpus=16, servers_per_leaf=1)).to_data()
    shrunk = tuple(d.model_copy(update={"radix": 4}) if d.id == "spine1" else d
                   for d in data.nodes)
    report = analyze(DesignData.model_construct(**{**dict(data), "nodes": shrunk}))
    issue = next(i for i in report.issues if i.code == "ports-over-radix")
    assert issue.objects == ["spine1"] and "has 4 ports" in issue.message


def test_data_with_a_dangling_link_raises_design_error():
    from fabricstudio.model import DesignData, DesignError, Link

    data = build_fabric(LeafSpineSpec(gpus=16, servers_per_leaf=1)).to_data()
    bad = DesignData.model_construct(**{**dict(data), "links": data.links + (
        Link(id="ghost", a="leaf1", b="nowhere", a_port=40, b_port=0),)})
    with pytest.raises(DesignError, match="nowhere"):
        analyze(bad)


def test_uniform_but_sparse_wiring_is_not_taken_for_a_clos():
    # Four leaves and four spines wired as one cycle: every switch alike, bisection halved.
    from fabricstudio.model import Design, GpuServer, Leaf, Link, Spine

    design = Design("cycle")
    for i in range(1, 5):
        design.add_device(Leaf(id=f"leaf{i}", radix=4, x=100.0 * i))
        design.add_device(Spine(id=f"spine{i}", radix=4, x=100.0 * i))
        design.add_device(GpuServer(id=f"server{i}", gpus=2, nics=2, x=100.0 * i))
        for nic in range(2):
            design.add_link(Link(id=f"server{i}-nic{nic}", a=f"server{i}", b=f"leaf{i}",
                                 a_port=nic))
    for i in range(1, 5):
        design.add_link(Link(id=f"leaf{i}-spine{i}", a=f"leaf{i}", b=f"spine{i}"))
        design.add_link(Link(id=f"spine{i}-leaf{i % 4 + 1}", a=f"spine{i}", b=f"leaf{i % 4 + 1}"))
    report = analyze(design)
    assert report.bisection.method == "max-flow-split" and not report.bisection.exact
    assert report.bisection.gbps == 2 * 400.0  # the cycle is cut twice


def test_sparse_bfs_used_beyond_dense_limit_matches_the_dense_one():
    import numpy as np

    from fabricstudio.topology.analysis.paths import bfs_counts, bfs_counts_sparse

    view = DesignView.of(build_fabric(FatTreeSpec(switch_radix=8, gpus_per_server=1,
                                                  nics_per_server=1)).to_design())
    graph = plane_graph(view)
    sources = np.array(graph.access()[:5])
    dense = bfs_counts((graph.adjacency() > 0).astype(float), sources)
    sparse = bfs_counts_sparse(graph, sources)
    assert np.array_equal(dense[0], sparse[0]) and np.array_equal(dense[1], sparse[1])
