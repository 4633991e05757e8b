"""Files other tools wrote: kinds are inferred from names, roles and the wiring, each guess is
reported, positions are laid out when missing, and the result is a valid design."""

from __future__ import annotations

import textwrap

import pytest

from fabricstudio.interop import InteropError, import_design
from fabricstudio.model import DeviceKind, Plane

CLAB = """\
name: srl-clos
topology:
  defaults:
    kind: nokia_srlinux
  nodes:
    s1: {image: ghcr.io/nokia/srlinux}
    l1: {image: ghcr.io/nokia/srlinux}
    l2: {image: ghcr.io/nokia/srlinux}
    h1: {kind: linux, image: alpine}
    h2: {kind: linux, image: alpine}
  links:
    - endpoints: ["l1:e1-1", "h1:eth1"]
    - endpoints: ["l2:e1-1", "h2:eth1"]
    - endpoints: ["l1:e1-49", "s1:e1-1"]
    - endpoints: ["l2:e1-49", "s1:e1-2"]
    - endpoints: ["h1:eth9", "host:h1eth9"]
"""


def test_containerlab_from_elsewhere_is_tiered_by_the_wiring(tmp_path):
    path = tmp_path / "srl.clab.yml"
    path.write_text(CLAB)
    result = import_design(path)
    kinds = {i: d.kind for i, d in result.design.devices.items()}
    assert kinds == {"s1": "spine", "l1": "leaf", "l2": "leaf", "h1": "gpu_server",
                     "h2": "gpu_server"}
    assert result.design.links["l1-s1"].a_port == 48  # e1-49 is port 48
    report = "\n".join(result.report)
    assert "spine from the wiring: s1" in report and "gpu_server from its containerlab kind" \
        in report and "host / mgmt-net" in report and "laid out automatically" in report
    positions = {(d.x, d.y) for d in result.design.devices.values()}
    assert len(positions) == 5


CVT_DOT = """\
graph network {
 "sw-l1" [ label="sw-l1" role="leaf" os="cumulus"]
 "sw-s1" [ label="sw-s1" role="spine" os="cumulus" ]
 "sw-c1" [ label="sw-c1" role="super_spine" os="cumulus"]
 "sw-l1":"swp1s0" -- "gpu-node01":"enp3s0np0"
 "sw-l1":"swp1s1" -- "gpu-node02":"enp3s0np0"
 "sw-l1":"swp33" -- "sw-s1":"swp1"
 "sw-s1":"swp33" -- "sw-c1":"swp1"
}
"""


def test_cable_validation_dot_reads_roles(tmp_path):
    path = tmp_path / "cvt.dot"
    path.write_text(CVT_DOT)
    design = import_design(path).design
    assert {i: d.kind for i, d in design.devices.items()} == {
        "sw-l1": "leaf", "sw-s1": "spine", "sw-c1": "core", "gpu-node01": "gpu_server",
        "gpu-node02": "gpu_server"}
    # breakout ports swp1s0/swp1s1 end in different numbers: both kept, no clash
    assert len(design.links) == 4


def test_air_dot_functions_and_storage_network(tmp_path):
    path = tmp_path / "air.dot"
    path.write_text(textwrap.dedent("""\
        graph "Demo" {
          "spine01" [ function="spine" os="sonic-vs-202305" ]
          "leaf01" [ function="leaf" ]
          "nas01" [ function="host" ]
          "gpu01" [ function="host" ]
          "leaf01":"eth1" -- "nas01":"eth1"
          "leaf01":"eth2" -- "gpu01":"eth1"
          "leaf01":"eth3" -- "spine01":"eth1"
        }"""))
    result = import_design(path)
    design = result.design
    assert design.devices["nas01"].kind == "storage_server"
    assert design.links["leaf01-nas01"].plane is Plane.STORAGE
    assert "RoCE assumed" in "\n".join(result.report)


def test_graphml_from_another_tool_uses_labels(tmp_path):
    path = tmp_path / "yed.graphml"
    path.write_text("""<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="label" attr.type="string"/>
  <key id="d1" for="edge" attr.name="speed_gbps" attr.type="double"/>
  <graph edgedefault="undirected">
    <node id="n0"><data key="d0">Spine A</data></node>
    <node id="n1"><data key="d0">Leaf A</data></node>
    <node id="n2"><data key="d0">GPU host 1</data></node>
    <edge source="n1" target="n0"><data key="d1">800</data></edge>
    <edge source="n2" target="n1"><data key="d1">400</data></edge>
  </graph>
</graphml>""")
    design = import_design(path).design
    assert [d.kind for d in design.devices.values()] == ["spine", "leaf", "gpu_server"]
    assert design.devices["n0"].name == "Spine A"
    assert design.devices["n0"].port_speed_gbps == 800


def test_netbox_with_netbox_export_headers(tmp_path):
    (tmp_path / "devices.csv").write_text(
        "Name,Role,Device Type,Site\nrtr-spine-1,Spine,SN5600,dc1\n"
        "tor-1,Leaf,SN5600,dc1\ndgx-01,Compute,DGX H100,dc1\n")
    (tmp_path / "cables.csv").write_text(
        "side_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name,length,"
        "length_unit\n"
        "tor-1,dcim.interface,swp1,dgx-01,dcim.interface,enp1,10,ft\n"
        "tor-1,dcim.interface,swp64,rtr-spine-1,dcim.interface,swp1,50,m\n")
    result = import_design(tmp_path)
    design = result.design
    assert [d.kind for d in design.devices.values()] == ["spine", "leaf", "gpu_server"]
    assert design.links["tor-1-dgx-01"].length_m == pytest.approx(3.048)
    assert design.devices["tor-1"].radix == 64


def test_unknowable_device_is_refused_by_name(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text('graph { "a" -- "b" }')
    with pytest.raises(InteropError, match="node 'a': cannot tell what kind"):
        import_design(path)


def test_kind_attribute_that_is_no_kind_is_refused(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text('graph { "r1" [kind="toaster"]; "leaf1" -- "r1" }')
    with pytest.raises(InteropError, match="node 'r1': unknown kind 'toaster'"):
        import_design(path)


def test_kinds_can_be_named_explicitly(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text('graph { "a" [kind="leaf"]; "b" [kind="gpu_server"]; a -- b }')
    design = import_design(path).design
    assert design.devices["a"].kind == DeviceKind.LEAF


def test_netbox_racks_become_rack_groups(tmp_path):
    (tmp_path / "devices.csv").write_text(
        "name,role,device_type,rack,position\n"
        "leaf1,Leaf,SN5600,R 01,42\ndgx1,GPU server,DGX H100,R 01,1\n"
        "dgx2,GPU server,DGX H100,R 02,\n")
    (tmp_path / "racks.csv").write_text("name,u_height\nR 01,48\n")
    (tmp_path / "cables.csv").write_text(
        "side_a_device,side_a_name,side_b_device,side_b_name\n"
        "leaf1,swp1,dgx1,eth1\nleaf1,swp2,dgx2,eth1\n")
    result = import_design(tmp_path / "devices.csv")
    groups = result.design.groups
    assert [g.name for g in groups.values()] == ["R 01", "R 02"]
    first = next(iter(groups.values()))
    assert first.kind == "rack" and first.height_u == 48
    assert first.u_positions == {"leaf1": 42, "dgx1": 1}
    assert "2 rack(s)" in "\n".join(result.report)
