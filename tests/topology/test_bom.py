"""Optics-correct bill of materials: modules per cage, assemblies per cable, classes by
technology."""

from collections import Counter

from fabricstudio.model import Design, Leaf, Link, Spine, Technology
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import LeafSpineSpec, RailOptimizedSpec, build_fabric


def modules(bom, plane="compute", segment=None):
    out = Counter()
    for group in bom.cables:
        if group.plane == plane and (segment is None or group.segment == segment):
            out.update(group.modules)
    return dict(out)


def test_256_gpu_nic_to_leaf_order_is_256_single_port_plus_128_twin_port_modules():
    # a real 256-GPU SU order (Vitex case study): not 512 of one kind
    design = build_fabric(RailOptimizedSpec(gpus=256, technology=Technology.INFINIBAND,
                                            server_cable_m=15)).to_design()
    bom = analyze(design).bom
    assert modules(bom, segment="server-leaf") == {"xcvr-osfp-400g-sr": 256,
                                                   "xcvr-osfp-800g-sr": 128}
    nic_links = [g for g in bom.cables if g.segment == "server-leaf"]
    assert sum(g.count for g in nic_links) == 256
    assert sum(g.assemblies for g in nic_links) == 256  # one MPO fibre per link
    items = {i.part: i.count for i in bom.items}
    assert items["nic-ib-400g"] == 256 and items["switch-ib-ndr-64x400g"] == 8 + 4


def test_short_nic_links_take_one_breakout_cable_per_twin_port_cage():
    design = build_fabric(LeafSpineSpec(gpus=128)).to_design()  # 3 m to the leaf
    bom = analyze(design).bom
    group = next(g for g in bom.cables if g.segment == "server-leaf")
    assert (group.media, group.breakout, group.count) == ("DAC", "800G->2x400G", 128)
    assert group.assemblies == 64 and group.transceivers == 0
    assert {i.part: i.count for i in bom.items}["dac-800g-breakout"] == 64


def test_switch_and_nic_parts_follow_the_technology():
    parts = {}
    for tech in (Technology.INFINIBAND, Technology.ROCE):
        bom = analyze(build_fabric(LeafSpineSpec(gpus=64, technology=tech)).to_design()).bom
        parts[tech] = {i.part for i in bom.items if i.category in ("switches", "nics")}
    assert parts[Technology.INFINIBAND] == {"switch-ib-ndr-64x400g", "nic-ib-400g"}
    assert parts[Technology.ROCE] == {"switch-eth-51t-64x800g", "nic-eth-400g"}


def _two_switches(*links):
    design = Design()
    design.add_device(Leaf(id="a", radix=64, port_speed_gbps=400))
    design.add_device(Spine(id="b", radix=64, port_speed_gbps=400))
    for link in links:
        design.add_link(link)
    return design


def test_twin_port_dac_serves_both_links_of_its_cages():
    design = _two_switches(Link(id="x", a="a", b="b", a_port=0, b_port=0, length_m=2),
                           Link(id="y", a="a", b="b", a_port=1, b_port=1, length_m=2))
    bom = analyze(design).bom
    assert {i.part: i.count for i in bom.items if i.category == "cables"} == {"dac-800g": 1}


def test_a_cage_whose_links_need_different_reaches_gets_one_module_of_the_longer_reach():
    design = _two_switches(Link(id="x", a="a", b="b", a_port=0, b_port=0, length_m=40),
                           Link(id="y", a="a", b="b", a_port=1, b_port=2, length_m=90))
    bom = analyze(design).bom
    got = {i.part: i.count for i in bom.items if i.category == "transceivers"}
    # cage 0 of a: one DR module for both links; b: cage 0 SR (port 0), cage 1 DR (port 2)
    assert got == {"xcvr-osfp-800g-dr": 2, "xcvr-osfp-800g-sr": 1}
    assert bom.transceivers == 3


def test_links_beyond_reach_are_noted():
    design = _two_switches(Link(id="far", a="a", b="b", a_port=0, b_port=0, length_m=50_000))
    assert any("far" in note for note in analyze(design).bom.notes)
