"""Every bundled example through every exporter, each output read back by a parser of its
format and checked against the design."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections import Counter

import networkx as nx
import pytest
import yaml

from fabricstudio.interop import export_design, export_formats
from fabricstudio.interop.dotlang import parse_dot
from fabricstudio.interop.hostlist import expand
from fabricstudio.interop.netbox_schema import COLUMNS
from fabricstudio.model import DeviceKind, Plane
from tests.interop.conftest import EXAMPLE_FILES

FORMATS = sorted(export_formats())


def test_every_format_is_registered():
    assert set(FORMATS) == {"air", "containerlab", "dot", "drawio", "graphml", "netbox", "slurm"}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", [p.name for p in EXAMPLE_FILES])
def test_example_exports_and_reads_back(example_designs, name, fmt):
    design = example_designs[name]
    if fmt == "slurm" and not design.devices_of_kind(DeviceKind.LEAF):
        pytest.skip("no compute leaves: no Slurm topology")
    bundle = export_design(design, fmt)
    assert bundle.files and all(isinstance(v, bytes) and v for v in bundle.files.values())
    CHECKS[fmt](design, bundle.files)


def _only(files, suffix):
    (text,) = [v.decode() for k, v in files.items() if k.endswith(suffix)]
    return text


def check_graphml(design, files):
    graph = nx.parse_graphml(_only(files, ".graphml"), force_multigraph=True)
    assert set(graph.nodes) == set(design.devices)
    assert graph.number_of_edges() == len(design.links)
    for ident, device in design.devices.items():
        assert graph.nodes[ident]["kind"] == device.kind
        assert graph.nodes[ident]["x"] == device.x and graph.nodes[ident]["y"] == device.y


def check_dot(design, files):
    graph = parse_dot(_only(files, ".dot"), "test")
    assert list(graph.nodes) == list(design.devices)
    assert len(graph.edges) == len(design.links)
    for (a, a_port, b, b_port, attrs), link in zip(graph.edges, design.links.values(), strict=True):
        assert (a, b, attrs["id"]) == (link.a, link.b, link.id)
        assert a_port and b_port, "every cable names its interfaces (cable validation)"
    roles = {graph.nodes[d.id].get("role") for d in design.devices_of_kind("spine")}
    assert roles <= {"spine"}


def check_containerlab(design, files):
    doc = yaml.safe_load(_only(files, ".clab.yml"))
    nodes = doc["topology"]["nodes"]
    assert doc["name"] and len(nodes) == len(design.devices)
    assert all(spec["kind"] and spec["image"] for spec in nodes.values())
    seen = Counter()
    for link in doc["topology"]["links"]:
        assert len(link["endpoints"]) == 2
        for end in link["endpoints"]:
            node, _, iface = end.partition(":")
            assert node in nodes and iface
            seen[end] += 1
    assert not [end for end, n in seen.items() if n > 1], "an interface is used twice"
    assert sum(seen.values()) == 2 * len(design.links)


def check_drawio(design, files):
    root = ET.fromstring(_only(files, ".drawio"))
    pages = root.findall("diagram")
    planes = [p for p in Plane if any(p in d.planes for d in design.devices.values())]
    assert [page.get("name").split()[0].lower() for page in pages] == [p.value for p in planes]
    for page, plane in zip(pages, planes, strict=True):
        cells = page.findall("./mxGraphModel/root/mxCell")
        vertices = [c for c in cells if c.get("vertex") == "1"]
        edges = [c for c in cells if c.get("edge") == "1"]
        assert len(vertices) == sum(plane in d.planes for d in design.devices.values())
        assert len(edges) == sum(lk.plane is plane for lk in design.links.values())
        ids = {c.get("id") for c in vertices}
        assert all(e.get("source") in ids and e.get("target") in ids for e in edges)
        assert all(v.find("mxGeometry").get("width") for v in vertices)
        spots = {(v.find("mxGeometry").get("x"), v.find("mxGeometry").get("y")) for v in vertices}
        assert len(spots) == len(vertices), "devices drawn on top of each other"


def check_slurm(design, files):
    conf = files["topology.conf"].decode()
    listed = [n for line in conf.splitlines() if line.startswith("SwitchName=")
              for part in line.split() if part.startswith("Nodes=")
              for n in expand(part[len("Nodes="):])]
    gpus = [d.id for d in design.devices_of_kind(DeviceKind.GPU_SERVER)]
    assert sorted(listed) == sorted(gpus), "every GPU server exactly once"
    doc = yaml.safe_load(files["topology.yaml"])
    tree, block = doc[0]["tree"], doc[1]["block"]
    assert sorted(n for s in tree["switches"] if "nodes" in s for n in expand(s["nodes"])) \
        == sorted(gpus)
    in_blocks = sorted(n for b in block["blocks"] for n in expand(b["nodes"]))
    assert in_blocks == sorted(gpus)
    sizes = block["block_sizes"]
    assert all(b * 2 == c for b, c in zip(sizes, sizes[1:], strict=False))
    assert min(len(expand(b["nodes"])) for b in block["blocks"]) >= sizes[0]


def check_netbox(design, files):
    for name, columns in COLUMNS.items():
        rows = list(csv.DictReader(io.StringIO(files[name].decode())))
        assert tuple(rows[0].keys()) == columns
    devices = list(csv.DictReader(io.StringIO(files["devices.csv"].decode())))
    assert [r["name"] for r in devices] == list(design.devices)
    racks = {r["name"] for r in csv.DictReader(io.StringIO(files["racks.csv"].decode()))}
    assert all(r["rack"] in racks and int(r["position"]) >= 1 for r in devices)
    cables = list(csv.DictReader(io.StringIO(files["cables.csv"].decode())))
    assert len(cables) == len(design.links)
    assert {c["status"] for c in cables} == {"planned"}
    assert all(c["type"] and float(c["length"]) > 0 and c["length_unit"] == "m" for c in cables)
    types = list(yaml.safe_load_all(files["device_types.yaml"]))
    assert all(t["interfaces"] for t in types)


def check_air(design, files):
    doc = json.loads(_only(files, ".air.json"))
    assert doc["format"] == "JSON" and doc["title"] == design.name
    nodes = doc["content"]["nodes"]
    assert all({"cpu", "memory", "storage", "os"} <= set(v) for v in nodes.values())
    ends = Counter((e["node"], e["interface"]) for pair in doc["content"]["links"] for e in pair)
    assert all(node in nodes for node, _ in ends) and max(ends.values(), default=1) == 1
    dot = parse_dot(_only(files, ".air.dot"), "air")
    assert set(dot.nodes) == set(nodes) and len(dot.edges) == len(doc["content"]["links"])


CHECKS = {"graphml": check_graphml, "dot": check_dot, "containerlab": check_containerlab,
          "drawio": check_drawio, "slurm": check_slurm, "netbox": check_netbox,
          "air": check_air}


def test_odd_but_accepted_names_export_everywhere():
    """Ids with colons, quotes, semicolons, formulas and non-ASCII letters are valid in the
    model (control characters are refused in ids, accepted in names): every exporter writes
    them and the XML/YAML/DOT outputs still parse."""
    from fabricstudio.model import Design, GpuServer, Leaf, Link

    design = Design('odd "name"\nline')
    odd = ["x:1", 'q"uote', "a;b", "=HYPERLINK(1)", "λ-leaf"]
    design.add_device(Leaf(id=odd[4], name="leaf\x07 λ", radix=8, port_speed_gbps=400))
    for i, ident in enumerate(odd[:4]):
        design.add_device(GpuServer(id=ident, nics=1, x=i * 100.0, y=300))
        design.add_link(Link(id=f"l{i}:{ident}", a=ident, b=odd[4]))
    for fmt in FORMATS:
        files = export_design(design, fmt).files
        for name, data in files.items():
            text = data.decode()
            if name.endswith((".graphml", ".drawio")):
                ET.fromstring(text)
            elif name.endswith((".yml", ".yaml")):
                list(yaml.safe_load_all(text))
            elif name.endswith(".dot"):
                assert parse_dot(text, name).nodes
            elif name.endswith(".json"):
                json.loads(text)
