"""Undoable commands: do/undo restore the design exactly; failures change nothing."""

import pytest

from fabricstudio.model import (
    Design,
    DesignError,
    FabricSettings,
    GpuServer,
    Leaf,
    Link,
    Technology,
)
from fabricstudio.model.commands import (
    AddDevice,
    AddFragment,
    Connect,
    Disconnect,
    MoveDevices,
    RemoveDevices,
    RenameDesign,
    ReplaceContents,
    SetDeviceProperties,
    SetFabric,
    SetLinkProperties,
)


@pytest.fixture
def design() -> Design:
    d = Design("t")
    d.add_device(GpuServer(id="h1", gpus=2, nics=2, nic_speed_gbps=100))
    d.add_device(GpuServer(id="h2", gpus=2, nics=2, nic_speed_gbps=100))
    d.add_device(Leaf(id="s1", radix=8, port_speed_gbps=100))
    for h in ("h1", "h2"):
        d.add_link(Link(id=f"{h}-a", a=h, b="s1", speed_gbps=100))
    return d


def roundtrip(design: Design, command) -> None:
    before = design.to_data()
    command.do(design)
    after = design.to_data()
    assert after != before
    command.undo(design)
    assert design.to_data() == before
    command.do(design)  # redo
    assert design.to_data() == after


def test_each_command_undoes_and_redoes(design):
    roundtrip(design, AddDevice(Leaf(id="s2")))
    roundtrip(design, AddFragment([Leaf(id="s3", port_speed_gbps=100)],
                                  [Link(id="x", a="h1", b="s3", speed_gbps=100)]))
    roundtrip(design, RemoveDevices(["s1"]))
    design_links = set(design.links)
    assert not any(lk.startswith("h1-a") for lk in design_links)
    roundtrip(design, Connect(Link(id="y", a="h2", b="s3", speed_gbps=100)))
    roundtrip(design, Disconnect(["y"]))
    roundtrip(design, MoveDevices({"h1": (5, 6), "h2": (7, 8)}))
    roundtrip(design, SetDeviceProperties(["h1", "h2"], {"gpus": 4}))
    roundtrip(design, SetLinkProperties(["x"], {"length_m": 20}))
    roundtrip(design, SetFabric(FabricSettings(technology=Technology.INFINIBAND)))
    roundtrip(design, RenameDesign("renamed", "about it"))


def test_remove_device_restores_its_links_with_the_same_ports(design):
    before = design.to_data()
    cmd = RemoveDevices(["s1"])
    cmd.do(design)
    assert "s1" not in design.devices and not design.links
    cmd.undo(design)
    assert design.to_data() == before


def test_failing_fragment_rolls_back_everything(design):
    before = design.to_data()
    bad = AddFragment([Leaf(id="s9")], [Link(id="ok", a="h1", b="s9", speed_gbps=100),
                                        Link(id="bad", a="h1", b="missing", speed_gbps=100)])
    with pytest.raises(DesignError, match="missing"):
        bad.do(design)
    assert design.to_data() == before


def test_invalid_property_on_many_devices_changes_none(design):
    before = design.to_data()
    with pytest.raises(DesignError):
        SetDeviceProperties(["h1", "s1"], {"nic_speed_gbps": 0}).do(design)
    assert design.to_data() == before


def test_edits_of_one_field_merge_and_moves_do_not(design):
    first = SetDeviceProperties(["h1"], {"gpus": 4})
    first.do(design)
    second = SetDeviceProperties(["h1"], {"gpus": 8})
    second.do(design)
    assert first.merge(second)
    first.undo(design)
    assert design.device("h1").gpus == 2
    first.do(design)
    assert design.device("h1").gpus == 8
    assert not first.merge(SetDeviceProperties(["h1"], {"nics": 1}))
    assert not first.merge(SetDeviceProperties(["h2"], {"gpus": 8}))
    assert not MoveDevices({"h1": (1, 1)}).merge(MoveDevices({"h1": (2, 2)}))


def test_replace_contents_is_one_step(design):
    other = Design("other")
    other.add_device(Leaf(id="only"))
    roundtrip(design, ReplaceContents(other.to_data()))
