"""The Design document: validation rules, port assignment and change signals."""

import pytest

from fabricstudio.model import (
    Design,
    DesignError,
    GpuServer,
    Leaf,
    Link,
    MgmtSwitch,
    Plane,
    Spine,
    StorageServer,
)


def small_design() -> Design:
    d = Design("t")
    d.add_device(GpuServer(id="h1", gpus=2, nics=2, nic_speed_gbps=100))
    d.add_device(Leaf(id="s1", radix=3, port_speed_gbps=100))
    return d


def test_ports_are_assigned_first_free_of_the_plane():
    d = small_design()
    l1 = d.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    l2 = d.add_link(Link(id="l2", a="h1", b="s1", speed_gbps=100))
    assert (l1.a_port, l1.b_port, l2.a_port, l2.b_port) == (0, 0, 1, 1)
    assert d.used_ports("s1") == {0: "l1", 1: "l2"}


def test_no_free_compute_port_is_refused_with_names():
    d = small_design()
    d.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    d.add_link(Link(id="l2", a="h1", b="s1", speed_gbps=100))
    with pytest.raises(DesignError, match="link l3: h1 has no free compute port"):
        d.add_link(Link(id="l3", a="h1", b="s1", speed_gbps=100))
    assert set(d.links) == {"l1", "l2"}


@pytest.mark.parametrize("link, message", [
    (Link(id="x", a="h1", b="nope", speed_gbps=100), "end 'nope' is not a device"),
    (Link(id="x", a="h1", b="s1", speed_gbps=400), "slower than the link's 400 Gb/s"),
    (Link(id="x", a="h1", b="s1", a_port=7, speed_gbps=100), "port 7 out of range"),
    (Link(id="x", a="h1", b="s1", a_port=2, speed_gbps=1), "is a management port, not compute"),
    (Link(id="h1", a="h1", b="s1", speed_gbps=100), "id 'h1' is already used"),
    (Link(id="x", a="h1", b="s1", speed_gbps=100, plane="storage"), "not on the storage network"),
])
def test_invalid_links_are_refused(link, message):
    d = small_design()
    rev = d.revision
    with pytest.raises(DesignError, match=message):
        d.add_link(link)
    assert not d.links and d.revision == rev


@pytest.mark.parametrize("link, message", [
    (Link(id="x", a="h1", b="nope", a_port=0, b_port=0, speed_gbps=100), "'nope' is not a device"),
    (Link(id="x", a="h1", b="s1", a_port=0, b_port=0, speed_gbps=400), "slower than"),
    (Link(id="x", a="h1", b="s1", a_port=7, b_port=0, speed_gbps=100), "port 7 out of range"),
    (Link(id="x", a="h1", b="s1", a_port=0, b_port=3, speed_gbps=100), "port 3 out of range"),
    (Link(id="x", a="h1", b="s1", a_port=2, b_port=0, speed_gbps=1), "management port"),
    (Link(id="h1", a="h1", b="s1", a_port=0, b_port=0, speed_gbps=100), "'h1' is already used"),
    (Link(id="l1", a="h1", b="s1", a_port=1, b_port=1, speed_gbps=100), "'l1' is already used"),
    (Link(id="x", a="h1", b="s1", a_port=0, b_port=1, speed_gbps=100), "port 0 is already used"),
    (Link(id="x", a="h1", b="s1", a_port=1, b_port=0, speed_gbps=100), "port 0 is already used"),
    (Link(id="x", a="h1", b="s1", a_port=0, b_port=1, speed_gbps=100, plane="storage"),
     "not on the storage network"),
])
def test_a_files_links_with_both_ports_given_are_checked_like_added_ones(link, message):
    """Design.from_data checks a saved file's links inline (fast for 100k links); each way a
    link can be wrong still reaches resolve_link, which names the problem."""
    data = small_design().to_data()
    first = Link(id="l1", a="h1", b="s1", a_port=0, b_port=0, speed_gbps=100)
    data = data.model_copy(update={"links": (first, link)})
    with pytest.raises(DesignError, match=message):
        Design.from_data(data)
    ok = Link(id="x", a="h1", b="s1", a_port=1, b_port=1, speed_gbps=100)
    design = Design.from_data(data.model_copy(update={"links": (first, ok)}))
    assert design.used_ports("s1") == {0: "l1", 1: "x"}


def test_port_used_twice_is_refused():
    d = small_design()
    d.add_link(Link(id="l1", a="h1", b="s1", b_port=2, speed_gbps=100))
    with pytest.raises(DesignError, match="port 2 is already used by link l1"):
        d.add_link(Link(id="l2", a="h1", b="s1", b_port=2, speed_gbps=100))


def test_link_to_itself_is_rejected_by_the_model():
    with pytest.raises(ValueError, match="connects s1 to itself"):
        Link(id="x", a="s1", b="s1")


def test_update_device_cannot_break_its_links():
    d = small_design()
    d.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    d.add_link(Link(id="l2", a="h1", b="s1", speed_gbps=100))
    with pytest.raises(DesignError, match="port 1 out of range"):
        d.update_device("s1", radix=1)
    with pytest.raises(DesignError, match="slower than"):
        d.update_device("s1", port_speed_gbps=25)
    with pytest.raises(DesignError, match="greater than or equal to 0.01 .*slowest Ethernet"):
        d.update_device("s1", port_speed_gbps=-5)
    assert d.device("s1").radix == 3
    assert d.update_device("s1", radix=48).radix == 48


def test_signals_fire_for_each_change():
    d = small_design()
    seen = []
    for name in ("device_added", "device_removed", "device_changed", "devices_moved",
                 "link_added", "link_removed", "fabric_changed"):
        getattr(d, name).connect(lambda *a, n=name: seen.append(n))
    d.add_device(Spine(id="sp"))
    d.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    d.move_devices({"h1": (10, 20)})
    d.update_device("sp", radix=32)
    d.remove_link("l1")
    d.remove_device("sp")
    d.set_fabric(d.fabric.model_copy(update={"mtu_bytes": 9000}))
    assert seen == ["device_added", "link_added", "devices_moved", "device_changed",
                    "link_removed", "device_removed", "fabric_changed"]


def test_removing_a_connected_device_needs_its_links_removed_first():
    d = small_design()
    d.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    with pytest.raises(DesignError, match="still has links"):
        d.remove_device("s1")


def test_planes_default_by_kind_and_ports_follow_planes():
    server = GpuServer(id="g", nics=2, storage_nics=1, mgmt_ports=1)
    assert server.planes == (Plane.COMPUTE,)
    assert [server.port_plane(p) for p in range(4)] == [
        Plane.COMPUTE, Plane.COMPUTE, Plane.STORAGE, Plane.MANAGEMENT]
    assert StorageServer(id="st").planes == (Plane.STORAGE,)
    assert MgmtSwitch(id="m").planes == (Plane.MANAGEMENT,)


def test_gpu_to_nic_rail_mapping():
    server = GpuServer(id="g", gpus=8, nics=8)
    assert [server.gpu_nic(i) for i in range(8)] == list(range(8))
    rails = [GpuServer(id="g", gpus=8, nics=4).gpu_nic(i) for i in range(8)]
    assert rails == [0, 0, 1, 1, 2, 2, 3, 3]


def test_copy_is_independent_and_keeps_revision():
    d = small_design()
    d.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    frozen = d.copy()
    d.remove_link("l1")
    assert "l1" in frozen.links and frozen.revision == d.revision - 1


def test_unique_id_skips_used_ids():
    d = small_design()
    d.add_device(Leaf(id="leaf1"))
    assert d.unique_id("leaf") == "leaf2"
