"""The cable plan: one row per cable, racks and U, port names, slack, safe CSV/XLSX."""

import csv
import zipfile
from collections import defaultdict
from types import SimpleNamespace

import pytest

from fabricstudio.formats.tables import csv_cell, write_tables
from fabricstudio.model import Design, GpuServer, Leaf, Link, Technology
from fabricstudio.topology.builders import LeafSpineSpec, RailOptimizedSpec, build_fabric
from fabricstudio.topology.cableplan import cable_plan, order_length
from fabricstudio.topology.racks import RACK_UNITS, rack_plan

SPEC = LeafSpineSpec(gpus=128, management=True, storage_servers=4)


@pytest.fixture(scope="module")
def plan():
    return cable_plan(build_fabric(SPEC).to_design())


def test_one_row_per_link_and_breakout_tails_share_their_cable(plan):
    assert len(plan.rows) == len(build_fabric(SPEC).links)
    assert len({r.link_id for r in plan.rows}) == len(plan.rows)
    dac = [r for r in plan.rows if r.media == "DAC"]
    heads = defaultdict(list)
    for row in dac:
        head, tail = row.cable_id.split("/")
        heads[head].append(int(tail))
    # 800G -> 2 x 400G splitters: two tails per cable, both from one twin-port cage
    assert all(sorted(t) == [1, 2] for t in heads.values()) and len(heads) == len(dac) // 2
    optics = [r.cable_id for r in plan.rows if r.media in ("MMF", "SMF", "RJ45", "AOC")]
    assert len(optics) == len(set(optics))


def test_rows_name_racks_units_ports_and_modules(plan):
    row = next(r for r in plan.rows if r.segment == "server-leaf" and r.network == "compute")
    server_end = (row.a_device, row.a_port, row.a_rack) if row.a_device.startswith("server") \
        else (row.b_device, row.b_port, row.b_rack)
    leaf_end = (row.b_device, row.b_port, row.b_rack) if server_end[0] == row.a_device \
        else (row.a_device, row.a_port, row.a_rack)
    assert server_end[1].startswith("mlx5_") and leaf_end[1].startswith("swp")
    assert server_end[2] == leaf_end[2]  # top-of-rack: same rack
    assert row.breakout == "800G->2x400G" and row.a_module == "built into the DAC"
    uplink = next(r for r in plan.rows if r.segment == "leaf-spine")
    assert uplink.a_module == "800G OSFP twin-port 2xSR4 (MMF, 50 m)"
    assert uplink.media == "MMF" and uplink.order_length_m == 40.0  # 30 m + slack


def test_racks_put_each_rack_of_servers_with_its_leaf_and_management_switch(plan):
    racks = defaultdict(list)
    for device, slot in plan.racks.items():
        racks[slot.rack].append((device, slot))
    server_racks = [r for r, m in racks.items() if any(d.startswith("server") for d, _ in m)]
    assert len(server_racks) == 4
    for name in server_racks:
        members = {d for d, _ in racks[name]}
        assert sum(d.startswith("server") for d in members) == 4
        assert sum(d.startswith("leaf") for d in members) == 1
        assert sum(d.startswith("mgmt") for d in members) == 1
    for members in racks.values():
        units = set()
        for _device, slot in members:
            span = set(range(slot.position, slot.position + slot.height))
            assert not span & units and min(span) >= 1 and max(span) <= RACK_UNITS
            units |= span


def test_rail_fabric_servers_four_to_a_rack_and_switches_in_network_racks():
    plan = rack_plan(build_fabric(RailOptimizedSpec(gpus=256)).to_design())
    servers = {r: m for r, m in plan.racks.items() if any(d.startswith("server") for d in m)}
    assert len(servers) == 8 and all(len(m) == 4 for m in servers.values())
    others = [m for r, m in plan.racks.items() if r not in servers]
    assert others and all(not d.startswith("server") for m in others for d in m)


def test_rack_groups_of_the_model_win_with_their_u_positions():
    rack = SimpleNamespace(id="rack7", kind="rack", label="Row A / 7",
                           members=("g1", "g2", "l1"), u_positions={"g1": 10}, height_u=48)

    class Racked(Design):  # a model with rack groups (the large-fabrics model has them)
        groups = {"rack7": rack}

    design = Racked()
    for device in (GpuServer(id="g1"), GpuServer(id="g2"), Leaf(id="l1"), Leaf(id="l2")):
        design.add_device(device)
    plan = rack_plan(design)
    slots = plan.slots
    assert slots["g1"].rack == "Row A / 7" and slots["g1"].position == 10
    assert slots["l1"].position == 48  # stacked from the top of its 48U rack
    assert slots["g2"].position == 1
    assert slots["l2"].rack != "Row A / 7"  # outside every rack group: derived


@pytest.mark.parametrize("length,media,reach,expected", [
    (3.0, "DAC", 3.0, 3.0), (2.2, "DAC", 3.0, 2.5), (4.2, "ACC", 5.0, 5.0),
    (30.0, "MMF", 50.0, 40.0), (48.0, "MMF", 50.0, 50.0), (30.0, "AOC", 30.0, 30.0),
    (120.0, "SMF", 500.0, 140.0), (1500.0, "SMF", 2000.0, 1650.0), (3.0, "RJ45", 100.0, 5.0),
])
def test_slack_rule_and_stock_lengths(length, media, reach, expected):
    assert order_length(length, media, reach) == expected


def test_csv_and_xlsx_are_formula_injection_safe(tmp_path):
    design = Design(fabric=None)
    design.set_fabric(design.fabric.model_copy(update={"technology": Technology.INFINIBAND}))
    design.add_device(GpuServer(id="=cmd|calc!A1", nics=1))
    design.add_device(Leaf(id="+leaf", name="@SUM(1+1)"))
    design.add_link(Link(id="-link", a="=cmd|calc!A1", b="+leaf", length_m=20))
    plan = cable_plan(design)
    written = write_tables(tmp_path / "plan.csv", plan.sheets())
    assert [p.name for p in written] == ["plan.csv", "plan.summary.csv"]
    with open(written[0], encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    cells = [c for row in rows for c in row]
    assert "'=cmd|calc!A1" in cells and "'@SUM(1+1)" in cells and "'-link" in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert csv_cell(-3) == -3  # numbers stay numbers
    write_tables(tmp_path / "plan.xlsx", plan.sheets())
    with zipfile.ZipFile(tmp_path / "plan.xlsx") as book:
        sheet = book.read("xl/worksheets/sheet1.xml").decode()
        strings = book.read("xl/sharedStrings.xml").decode()
    assert "<f>" not in sheet and "=cmd" in strings and "Cable ID" in strings


def test_inspector_bom_and_cable_plan_share_one_cable_class_function():
    from collections import Counter

    from fabricstudio.model.cabling import cable_for
    from fabricstudio.topology.analysis import analyze

    design = build_fabric(LeafSpineSpec(gpus=64, management=True, storage_servers=2,
                                        technology=Technology.INFINIBAND)).to_design()
    plan = cable_plan(design)
    by_link = {row.link_id: row for row in plan.rows}
    for link in design.links.values():
        choice = cable_for(design, link)  # what the inspector shows
        row = by_link[link.id]
        assert (row.media, row.cable_part, row.breakout) == (choice.media, choice.assembly,
                                                             choice.breakout)
    bom = analyze(design).bom
    media = Counter()
    for group in bom.cables:
        media[group.media] += group.count
    assert media == Counter(row.media for row in plan.rows)
