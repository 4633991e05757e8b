"""design -> file -> design keeps ids, kinds, ports, speeds and links (GraphML, DOT and NetBox
exactly; containerlab keeps kinds, ports and networks, and reports what it guessed)."""

from __future__ import annotations

import pytest

from fabricstudio.interop import export_design, import_design, write_bundle
from tests.interop.conftest import EXAMPLE_FILES

#: The 1,024-GPU fat tree goes through every exporter in test_exports.py; its round trips
#: (10 s) add nothing the smaller examples do not cover.
NAMES = [p.name for p in EXAMPLE_FILES if p.name != "fat-tree-1024-gpu.json"]


def _through(design, fmt, target):
    write_bundle(export_design(design, fmt), target, fmt)
    return import_design(target)


@pytest.mark.parametrize("fmt,target", [("graphml", "d.graphml"), ("dot", "d.dot"),
                                        ("netbox", "set"), ("netbox", "set.zip")])
@pytest.mark.parametrize("name", NAMES)
def test_exact_round_trip(example_designs, name, fmt, target, tmp_path):
    design = example_designs[name]
    result = _through(design, fmt, tmp_path / target)
    assert result.format == fmt
    assert result.design.to_data() == design.to_data()
    assert result.report == []


@pytest.mark.parametrize("name", NAMES)
def test_containerlab_round_trip_keeps_kinds_ports_and_networks(example_designs, name,
                                                                 tmp_path):
    design = example_designs[name]
    result = _through(design, "containerlab", tmp_path / "lab.clab.yml")
    back = result.design
    assert {i: d.kind for i, d in back.devices.items()} == \
        {i: d.kind for i, d in design.devices.items()}
    ends = lambda d: sorted((lk.a, lk.a_port, lk.b, lk.b_port, lk.plane)  # noqa: E731
                            for lk in d.links.values())
    assert ends(back) == ends(design)
    assert any("speeds" in line for line in result.report)


def test_netbox_import_from_one_csv_of_the_set(example_designs, tmp_path):
    design = example_designs["two-servers-one-leaf.json"]
    write_bundle(export_design(design, "netbox"), tmp_path / "nb")
    result = import_design(tmp_path / "nb" / "cables.csv")
    assert result.format == "netbox" and result.design.to_data() == design.to_data()
