"""THE cable-class function: media, modules, breakouts and reach; switch/NIC classes and
port cages by technology."""

import pytest

from fabricstudio.model import (
    Design,
    GpuServer,
    Leaf,
    Link,
    MgmtSwitch,
    Plane,
    Spine,
    Technology,
)
from fabricstudio.model.cabling import (
    CABLE_CLASSES,
    CLASS_OF_MEDIA,
    cable_class,
    cable_for,
    module_label,
)
from fabricstudio.model.hardware import cage_index, nic_class, port_cage, port_name, switch_class

IB, ROCE = Technology.INFINIBAND, Technology.ROCE


def server(speed=400.0, **kw):
    return GpuServer(id="gpu1", nics=8, nic_speed_gbps=speed,
                     planes=(Plane.COMPUTE, Plane.MANAGEMENT), **kw)


def leaf(speed=400.0, radix=64, ident="leaf1"):
    return Leaf(id=ident, radix=radix, port_speed_gbps=speed)


def nic_link(length, speed=400.0, port=0):
    return Link(id="l", a="gpu1", b="leaf1", a_port=0, b_port=port, speed_gbps=speed,
                length_m=length)


def test_management_cable_is_rj45_copper_whatever_its_length_up_to_100_m():
    # the old inspector called a 5 m 1G management cable "AOC", the BOM "copper"
    srv = server()
    mgmt = MgmtSwitch(id="mgmt1")
    link = Link(id="m", a="gpu1", b="mgmt1", a_port=8, b_port=0, speed_gbps=1, length_m=5,
                plane=Plane.MANAGEMENT)
    choice = cable_class(link, srv, mgmt, ROCE)
    assert (choice.media, choice.cable_class, choice.modules) == ("RJ45", "copper", (None, None))
    assert choice.within_reach
    far = cable_class(link.model_copy(update={"length_m": 150}), srv, mgmt, ROCE)
    assert far.media == "RJ45" and not far.within_reach


@pytest.mark.parametrize("length,media,assembly", [
    (1.0, "DAC", "dac-800g-breakout"),
    (3.0, "DAC", "dac-800g-breakout"),
    (4.0, "ACC", "acc-800g-breakout"),
    (5.0, "ACC", "acc-800g-breakout"),
])
def test_short_nic_links_are_copper_breakouts_from_the_twin_port_cage(length, media, assembly):
    choice = cable_class(nic_link(length), server(), leaf(), IB)
    assert choice.media == media and choice.assembly == assembly
    assert choice.modules == (None, None)  # ends built into the cable
    assert choice.breakout == "800G->2x400G"


@pytest.mark.parametrize("length,media,tier,fibre", [
    (15.0, "MMF", "sr", "fibre-mmf-mpo12"),
    (50.0, "MMF", "sr", "fibre-mmf-mpo12"),
    (80.0, "SMF", "dr", "fibre-smf-mpo12"),
    (300.0, "SMF", "dr500", "fibre-smf-mpo12"),
    (1500.0, "SMF", "fr", "fibre-smf-lc"),
    (5000.0, "SMF", "lr", "fibre-smf-lc"),
])
def test_longer_nic_links_get_a_single_port_module_and_a_twin_port_module(length, media, tier,
                                                                          fibre):
    choice = cable_class(nic_link(length), server(), leaf(), IB)
    assert choice.cable_class == "optics" and choice.media == media
    assert choice.module_a == f"xcvr-osfp-400g-{tier}"   # ConnectX-7 single-port 400G
    assert choice.module_b == f"xcvr-osfp-800g-{tier}"   # Quantum-2 twin-port 2 x 400G
    assert choice.assembly == fibre and choice.within_reach


def test_beyond_every_reach_is_flagged():
    choice = cable_class(nic_link(20_000.0), server(), leaf(), IB)
    assert not choice.within_reach and "beyond" in choice.label


def test_aoc_between_single_port_cages_but_never_on_a_twin_port_cage():
    srv = server(200.0)
    hdr = leaf(200.0, radix=40)  # Quantum HDR: single-port QSFP56
    assert cable_class(nic_link(20, 200.0), srv, hdr, IB).media == "AOC"
    assert cable_class(nic_link(20, 400.0), server(), leaf(), IB).media == "MMF"


def test_slow_link_on_a_fast_port_is_a_port_level_breakout():
    choice = cable_class(nic_link(2, 200.0), server(200.0), leaf(400.0), IB)
    assert choice.breakout == "400G->2x200G"
    eth = cable_class(nic_link(2, 400.0), server(400.0), leaf(800.0), ROCE)
    assert eth.breakout == "800G->2x400G"  # Spectrum-4 800G port split to two 400G NICs


def test_switch_to_switch_twin_port_links_are_straight():
    a, b = leaf(), Spine(id="spine1", radix=64, port_speed_gbps=400)
    link = Link(id="u", a="leaf1", b="spine1", a_port=32, b_port=0, length_m=2)
    choice = cable_class(link, a, b, IB)
    assert choice.media == "DAC" and choice.assembly == "dac-800g" and not choice.breakout


def test_switch_and_nic_classes_follow_the_technology_and_speed():
    assert switch_class(leaf(), IB).key == "switch-ib-ndr-64x400g"
    assert switch_class(leaf(), ROCE).key == "switch-eth-51t-64x800g"
    assert switch_class(leaf(800.0, radix=144), IB).key == "switch-ib-xdr-144x800g"
    assert switch_class(leaf(200.0, radix=40), IB).key == "switch-ib-hdr-40x200g"
    assert switch_class(MgmtSwitch(id="m"), IB).key == "switch-mgmt-48x1g"
    assert nic_class(400, Plane.COMPUTE, IB).key == "nic-ib-400g"
    assert nic_class(400, Plane.COMPUTE, ROCE).key == "nic-eth-400g"
    assert nic_class(800, Plane.COMPUTE, IB).key == "nic-ib-800g"
    assert nic_class(1, Plane.MANAGEMENT, IB) is None  # BMC port on the motherboard
    assert nic_class(200, Plane.MANAGEMENT, IB).key == "nic-eth-200g"  # management is Ethernet


def test_twin_port_cages_hold_two_ports_and_nics_one():
    sw, srv = leaf(), server()
    assert port_cage(sw, 0, IB).ports == 2 and port_cage(srv, 0, IB).ports == 1
    assert [cage_index(sw, p, IB) for p in range(5)] == [0, 0, 1, 1, 2]
    assert [port_name(sw, p, IB) for p in range(3)] == ["1/1", "1/2", "2/1"]
    assert [port_name(sw, p, ROCE) for p in range(3)] == ["swp1s0", "swp1s1", "swp2s0"]
    assert port_name(srv, 3, IB) == "mlx5_3" and port_name(srv, 8, IB) == "BMC"


def test_cable_for_reads_the_design_and_every_media_has_a_class():
    design = Design(fabric=None)
    design.add_device(server())
    design.add_device(leaf())
    design.add_link(nic_link(15.0))
    assert cable_for(design, "l") == cable_class(design.link("l"), design.device("gpu1"),
                                                 design.device("leaf1"), ROCE)
    assert set(CLASS_OF_MEDIA.values()) == set(CABLE_CLASSES)


def test_module_labels_read_like_a_catalogue():
    assert module_label("xcvr-osfp-800g-sr") == "800G OSFP twin-port 2xSR4 (MMF, 50 m)"
    assert module_label("xcvr-osfp-400g-dr") == "400G OSFP DR4 (SMF, 100 m)"
    assert module_label("xcvr-osfp-1600g-dr") == "1.6T OSFP twin-port 2xDR4 (SMF, 100 m)"
