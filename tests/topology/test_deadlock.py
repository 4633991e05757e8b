"""PFC deadlock risk: cyclic buffer dependencies."""

import pytest

from fabricstudio.model import Technology
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import (
    FatTreeSpec,
    LeafSpineSpec,
    RailOptimizedSpec,
    build_fabric,
)
from tests.topology.designs import ring_design


def test_a_ring_of_four_switches_has_a_cycle_naming_them():
    report = analyze(ring_design(4))
    assert report.deadlock.risk
    assert report.deadlock.method == "buffer-dependency graph"
    cycle = report.deadlock.cycles[0]
    assert sorted(cycle.switches) == ["sw1", "sw2", "sw3", "sw4"]
    issue = next(i for i in report.issues if i.code == "pfc-deadlock-risk")
    assert issue.severity == "error" and sorted(issue.objects) == ["sw1", "sw2", "sw3", "sw4"]


def test_the_same_ring_on_lossy_ethernet_is_only_information():
    report = analyze(ring_design(4, Technology.ETHERNET))
    issue = next(i for i in report.issues if i.code == "pfc-deadlock-risk")
    assert issue.severity == "info" and report.deadlock.risk


def test_a_line_of_switches_has_no_cycle():
    report = analyze(ring_design(4, closed=False))
    assert report.deadlock.method == "buffer-dependency graph"
    assert not report.deadlock.risk and report.deadlock.dependencies > 0


def test_a_ring_of_three_has_no_cycle_with_shortest_paths():
    # Every pair is adjacent, so no route makes a turn: no dependency at all.
    report = analyze(ring_design(3))
    assert not report.deadlock.risk


@pytest.mark.parametrize("spec", [
    LeafSpineSpec(gpus=512),
    FatTreeSpec(switch_radix=8, gpus_per_server=1, nics_per_server=1),
    RailOptimizedSpec(gpus=256 * 16),
], ids=["leaf-spine", "fat-tree", "rail-3-tier"])
def test_generated_fabrics_have_no_cycle(spec):
    report = analyze(build_fabric(spec).to_design())
    assert not report.deadlock.risk
    assert report.deadlock.method == "up-down certificate" and report.deadlock.exact


def test_explicit_graph_agrees_with_the_certificate_on_a_small_clos():
    from fabricstudio.topology.analysis.deadlock import _dependencies
    from fabricstudio.topology.analysis.paths import distances
    from fabricstudio.topology.analysis.view import DesignView, plane_graph

    view = DesignView.of(build_fabric(FatTreeSpec(switch_radix=4, gpus_per_server=1,
                                                  nics_per_server=1)).to_design())
    graph = plane_graph(view)
    import networkx as nx

    deps, complete = _dependencies(graph, distances(graph, 10**6))
    assert complete and deps.number_of_edges() > 0 and nx.is_directed_acyclic_graph(deps)


def test_a_missing_uplink_forces_the_explicit_graph_which_finds_no_cycle():
    design = build_fabric(LeafSpineSpec(gpus=64, servers_per_leaf=1, spines=8)).to_design()
    design.remove_link("leaf1-spine1")
    report = analyze(design)
    assert report.deadlock.method == "buffer-dependency graph"
    assert report.deadlock.dependencies > 0 and not report.deadlock.risk
