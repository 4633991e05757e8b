"""Hostile imports are refused in one line naming the problem, like design files: size,
depth, aliases, object construction, entities, unknown kinds, dangling ends, duplicate
interfaces, bad syntax, zip bombs, special files."""

from __future__ import annotations

import io
import os
import zipfile

import pytest

from fabricstudio.interop import InteropError, import_design, safety

CLAB_HEAD = "name: x\ntopology:\n  nodes:\n    leaf1: {kind: nokia_srlinux}\n" \
            "    h1: {kind: linux}\n"


def refused(path, match, fmt=None):
    with pytest.raises(InteropError, match=match) as info:
        import_design(path, fmt)
    message = str(info.value)
    assert "\n" not in message and str(path.name) in message
    return message


def test_size_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(safety, "MAX_IMPORT_BYTES", 1000)
    monkeypatch.setattr("fabricstudio.interop.importers._common.read_limited",
                        lambda p: safety.read_limited(p, 1000))
    path = tmp_path / "big.dot"
    path.write_text("graph {" + " a -- b;" * 200 + "}")
    refused(path, "too large")


def test_yaml_object_construction_refused(tmp_path):
    path = tmp_path / "evil.clab.yml"
    path.write_text("name: !!python/object/apply:os.system ['echo pwned']\ntopology: {}\n")
    refused(path, "not valid YAML")


def test_yaml_depth_refused(tmp_path):
    path = tmp_path / "deep.clab.yml"
    path.write_text("topology: " + "[" * 200 + "]" * 200 + "\n")
    refused(path, "nested too deeply")


def test_yaml_alias_bomb_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(safety, "MAX_ITEMS", 10_000)
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    path = tmp_path / "laughs.clab.yml"
    path.write_text("\n".join(lines) + "\ntopology: {nodes: {}, links: [*a8]}\n")
    refused(path, "too many values")


def test_xml_entities_refused(tmp_path):
    path = tmp_path / "lol.graphml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
                    '<!ENTITY lol2 "&lol;&lol;&lol;">]>\n'
                    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph>'
                    '<node id="&lol2;"/></graph></graphml>')
    refused(path, "XML refused")


def test_xml_external_entity_refused(tmp_path):
    path = tmp_path / "xxe.graphml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                    '<graphml><graph><node id="&x;"/></graph></graphml>')
    refused(path, "XML refused")


def test_xml_depth_refused(tmp_path):
    path = tmp_path / "deep.graphml"
    path.write_text("<graphml>" + "<g>" * 100 + "</g>" * 100 + "</graphml>")
    refused(path, "nested too deeply")


def test_dangling_end(tmp_path):
    path = tmp_path / "x.clab.yml"
    path.write_text(CLAB_HEAD + '  links:\n    - endpoints: ["leaf1:e1-1", "ghost:eth1"]\n')
    refused(path, "end 'ghost' is not a node")


def test_duplicate_interface(tmp_path):
    path = tmp_path / "x.clab.yml"
    path.write_text(CLAB_HEAD + '  links:\n    - endpoints: ["leaf1:e1-1", "h1:eth1"]\n'
                    '    - endpoints: ["leaf1:e1-1", "h1:eth2"]\n')
    refused(path, "duplicate interface: leaf1 e1-1")


def test_duplicate_node(tmp_path):
    path = tmp_path / "x.graphml"
    path.write_text('<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph '
                    'edgedefault="undirected"><node id="a"/><node id="a"/></graph></graphml>')
    with pytest.raises(InteropError):
        import_design(path)


def test_self_loop(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text('graph { leaf1 -- leaf1 }')
    refused(path, "connects 'leaf1' to itself")


def test_dot_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text('graph {\n leaf1 -- h1\n leaf1 -- [\n}')
    refused(path, "line 3")


def test_dot_nesting_refused(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text("graph {" + "{" * 500 + "}" * 500 + "}")
    refused(path, "nested too deeply")


def test_bad_numbers_refused(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text('graph { leaf1 -- h1 [speed_gbps="fast"] }')
    refused(path, "speed: 'fast' is not a number")
    path.write_text('graph { leaf1 -- h1 [speed_gbps="-5"] }')
    refused(path, "link leaf1-h1")


def test_containerlab_shape_errors(tmp_path):
    path = tmp_path / "x.clab.yml"
    for text, match in (("- a\n- b\n", "not a containerlab topology"),
                        ("topology: {nodes: [a, b]}\n", "topology.nodes must be a mapping"),
                        (CLAB_HEAD + '  links:\n    - endpoints: ["leaf1:e1-1"]\n',
                         "has 1 endpoints"),
                        (CLAB_HEAD + "  links:\n    - endpoints: [3, 4]\n", "not NODE:INTERFACE"),
                        ("topology: {nodes: {}}\n", "no devices found"),
                        ("", "file is empty")):
        path.write_text(text)
        refused(path, match, "containerlab")


def test_not_utf8(tmp_path):
    path = tmp_path / "x.dot"
    path.write_bytes(b"graph { \xff }")
    refused(path, "not UTF-8")


def test_zip_bomb_refused_before_unpacking(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("devices.csv", b"name\n" + b"a" * (80 * 2**20))
    path = tmp_path / "bomb.zip"
    path.write_bytes(buffer.getvalue())
    refused(path, "unpack to")


def test_not_a_zip(tmp_path):
    path = tmp_path / "set.zip"
    path.write_bytes(b"not a zip")
    refused(path, "not a readable zip")


def test_netbox_cable_to_a_front_port_is_refused(tmp_path):
    (tmp_path / "devices.csv").write_text("name,role\nleaf1,Leaf\nh1,Server\n")
    (tmp_path / "cables.csv").write_text(
        "side_a_device,side_a_type,side_a_name,side_b_device,side_b_type,side_b_name\n"
        "leaf1,dcim.frontport,p1,h1,dcim.interface,eth1\n")
    refused(tmp_path / "cables.csv", "ends on a dcim.frontport")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_not_read(tmp_path):
    path = tmp_path / "pipe.dot"
    os.mkfifo(path)
    refused(path, "not a regular file")


def test_unknown_format_names_the_known_ones(tmp_path):
    path = tmp_path / "x.dot"
    path.write_text("graph {}")
    with pytest.raises(InteropError, match="choose one of containerlab, dot, graphml, netbox"):
        import_design(path, "visio")


def test_unrecognised_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    refused(path, "cannot tell the format")
