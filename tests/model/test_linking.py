"""The rules of drawing a link (model.linking): the network, the ports, the speed, refusals."""

from fabricstudio.model import Design, GpuServer, Leaf, MgmtSwitch, Plane, Spine
from fabricstudio.model.linking import propose_link


def design() -> Design:
    d = Design("t")
    d.add_device(GpuServer(id="h1", gpus=2, nics=1, nic_speed_gbps=400,
                           planes=(Plane.COMPUTE, Plane.MANAGEMENT)))
    d.add_device(Leaf(id="s1", radix=2, port_speed_gbps=100))
    d.add_device(Spine(id="sp1", radix=4, port_speed_gbps=400))
    d.add_device(MgmtSwitch(id="m1"))
    return d


def test_a_drag_links_the_first_shared_network_at_the_slower_rate() -> None:
    d = design()
    found = propose_link(d, "h1", "s1", "l1")
    assert found.valid and found.link is not None
    link = found.link
    assert (link.plane, link.speed_gbps, link.a_port, link.length_m) == (Plane.COMPUTE, 100.0,
                                                                         0, 3.0)
    assert found.describe() == "h1 port 0 -> s1 port 0: compute, 100 Gb/s"
    assert not d.links  # nothing is changed
    assert propose_link(d, "s1", "sp1").link.length_m == 30.0  # switch to switch: optics


def test_a_drag_falls_back_to_the_next_network_with_free_ports() -> None:
    d = design()
    d.add_link(propose_link(d, "h1", "s1", "l1").link)
    assert propose_link(d, "h1", "m1").link.plane is Plane.MANAGEMENT


def test_refusals_say_why() -> None:
    d = design()
    assert propose_link(d, "h1", "h1").reason == "a device cannot be linked to itself"
    d.add_link(propose_link(d, "h1", "s1", "l1").link)
    assert propose_link(d, "h1", "sp1").reason == "h1 has no free compute port"
    assert "are on different networks" in propose_link(d, "sp1", "m1").reason
    assert not propose_link(d, "sp1", "m1").valid
