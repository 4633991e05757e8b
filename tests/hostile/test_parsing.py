"""Lax parsing and display (issue 17, items 5 and 6): duplicate keys, numbers that are not
numbers, numbers out of physical range, giant integers, control characters in names, and
formula injection in CSV."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET

import pytest

from fabricstudio.formats import DesignFileError, dump_design, load_design, parse_design
from fabricstudio.model import Design, GpuServer, Leaf, Link
from fabricstudio.sim.scenario import ScenarioError, parse_scenario
from tests.hostile.helpers import EXAMPLES, PAIR, ROOT, TINY, one_line_error, run_cli

HEAD = '{"format": "fabricstudio-design", "version": 1, '
SCENARIO = ('{"format": "fabricstudio-scenario", "version": 1, '
            '"flows": [{"src": "h1", "dst": "h2", "bytes": 4096}]')


def _design(mutate) -> str:
    doc = json.loads(TINY.read_text())
    mutate(doc)
    return json.dumps(doc)


def _refused(text: str, *needles: str) -> str:
    with pytest.raises(DesignFileError) as exc:
        parse_design(text, source="x.json")
    message = str(exc.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, message
    return message


# ------------------------------------------------------------------------- JSON
def test_duplicate_key_in_a_design_is_refused():
    _refused(HEAD + '"name": "a", "name": "b"}', 'duplicate key "name"')


def test_duplicate_key_deep_inside_is_refused():
    text = _design(lambda d: None).replace('"gpus": 1', '"gpus": 1, "gpus": 8')
    _refused(text, 'duplicate key "gpus"')


def test_duplicate_key_in_a_scenario_is_refused():
    with pytest.raises(ScenarioError, match='duplicate key "seed"'):
        parse_scenario(SCENARIO + ', "seed": 1, "seed": 2}')


def test_integer_of_5000_digits_is_a_message_not_an_internal_error(tmp_path):
    path = tmp_path / "huge-int.json"
    path.write_text(HEAD + '"name": "x", "description": ' + "9" * 5000 + "}")
    _refused(path.read_text(), "integer of 5,000 digits is too long")
    one_line_error(run_cli("validate", path), "5,000 digits")
    with pytest.raises(ScenarioError, match="5,000 digits"):
        parse_scenario(SCENARIO + ', "seed": ' + "9" * 5000 + "}")


@pytest.mark.parametrize("literal, needle", [("NaN", "NaN is not a JSON number"),
                                             ("Infinity", "Infinity is not a JSON number"),
                                             ("-Infinity", "-Infinity is not a JSON number"),
                                             ("1e400", "1e400 is out of range")])
def test_non_finite_numbers_are_refused(literal, needle):
    _refused(_design(lambda d: None).replace('"gpus": 1', f'"gpus": {literal}'), needle)


def test_unpaired_surrogate_escape_is_refused():
    _refused(HEAD + '"name": "bad \\ud800 name"}', "surrogate")


# --------------------------------------------------------------- strict numbers
@pytest.mark.parametrize("where, value", [
    (("nodes", 0, "gpus"), True), (("nodes", 0, "gpus"), "12"),
    (("nodes", 0, "x"), False), (("links", 0, "speed_gbps"), "100"),
    (("links", 0, "length_m"), True), (("fabric", "mtu_bytes"), "4096"),
])
def test_booleans_and_numeric_text_are_not_numbers(where, value):
    def mutate(doc):
        target = doc
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = value

    _refused(_design(mutate), ".".join(str(w) for w in where[:-1]), where[-1],
             "expected a number, found")


def test_whole_floats_still_fill_integer_fields():
    assert parse_design(_design(lambda d: d["nodes"][0].update(gpus=8.0))).device("h1").gpus == 8


def test_scenario_numbers_are_numbers_but_sizes_keep_their_units():
    with pytest.raises(ScenarioError, match="seed: expected a number, found a boolean"):
        parse_scenario(SCENARIO + ', "seed": true}')
    with pytest.raises(ScenarioError, match="until_s: expected a number, found text"):
        parse_scenario(SCENARIO + ', "until_s": "1"}')
    sized = SCENARIO.replace('"bytes": 4096', '"bytes": "4KiB"') + "}"
    assert parse_scenario(sized).flows[0].bytes == 4096


# ------------------------------------------------------------- physical ranges
@pytest.mark.parametrize("where, value, needle", [
    (("links", 0, "speed_gbps"), 1e-300, "slowest Ethernet"),
    (("links", 0, "speed_gbps"), 1e6, "100 Tb/s"),
    (("nodes", 0, "nic_speed_gbps"), 0.001, "slowest Ethernet"),
    (("links", 0, "length_m"), 1e-300, "no cable is shorter than 10 cm"),
    (("links", 0, "length_m"), 1e9, "wide-area"),
    (("nodes", 0, "x"), 1e308, "every exporter can draw them"),
    (("nodes", 1, "y"), -1e12, "every exporter can draw them"),
    (("fabric", "propagation_ns_per_m"), 1.0, "light in vacuum"),
    (("fabric", "tcp", "min_rto_us"), 1e-300, "timer events"),
    (("fabric", "dcqcn", "rate_increase_timer_us"), 1e-3, "whole microseconds"),
    (("fabric", "dcqcn", "alpha_update_us"), 1e-9, "whole microseconds"),
    (("fabric", "dcqcn", "min_rate_mbps"), 1e-9, "below 1 Mb/s"),
])
def test_values_outside_physical_ranges_are_refused_with_the_reason(where, value, needle):
    def mutate(doc):
        target = doc
        for key in where[:-1]:
            target = target[key] if isinstance(key, int) else target.setdefault(key, {})
        target[where[-1]] = value

    _refused(_design(mutate), where[-1], needle, "got")


def test_every_checked_in_example_still_loads():
    files = sorted(EXAMPLES.glob("*.json")) + sorted(EXAMPLES.glob("scenarios/*.design.json"))
    assert len(files) >= 8
    for path in files:
        load_design(path)


def test_canvas_moves_are_clamped_to_what_files_accept():
    design = parse_design(TINY.read_text())
    design.move_devices({"h1": (1e300, -1e300)})
    moved = design.device("h1")
    assert (moved.x, moved.y) == (1e7, -1e7)
    parse_design(dump_design(design))  # saved positions open again


# -------------------------------------------------------- control characters
NASTY = "rack\x1b[2J\x1b]0;pwned\x07 one\u202e<&>\t\x00"


def _nasty_design() -> Design:
    design = Design(NASTY)
    design.add_device(GpuServer(id="h1", name=NASTY, gpus=2, nics=1, nic_speed_gbps=100))
    design.add_device(GpuServer(id="h2", name="second\x9b31m", gpus=2, nics=1,
                                nic_speed_gbps=100, x=200))
    design.add_device(Leaf(id="s1", name="leaf\x1b", radix=8, port_speed_gbps=100, x=100,
                           y=-150))
    design.add_link(Link(id="l1", a="h1", b="s1", speed_gbps=100))
    design.add_link(Link(id="l2", a="h2", b="s1", speed_gbps=100))
    return design


def test_ids_with_control_characters_are_refused():
    _refused(_design(lambda d: d["nodes"][0].update(id="h\u001b1")), "nodes.0", "id")


def test_names_reach_the_terminal_without_control_characters(tmp_path):
    path = tmp_path / "nasty.json"
    path.write_text(dump_design(_nasty_design()))
    for args in (("analyze", path), ("validate", path),
                 ("simulate", path, "--workload", "all-reduce", "--size", "64KiB")):
        out = run_cli(*args)
        assert out.returncode == 0, out.stderr
        shown = out.stdout + out.stderr
        assert not any(ord(c) < 32 and c not in "\n" or 0x7F <= ord(c) < 0xA0 for c in shown)
        assert "\u202e" not in shown
    assert "rack[2J]0;pwned one" in run_cli("analyze", path).stdout


def test_svg_of_control_character_names_is_valid_xml(tmp_path):
    path = tmp_path / "nasty.json"
    path.write_text(dump_design(_nasty_design()))
    svg = tmp_path / "nasty.svg"
    out = run_cli("export", path, "--svg", svg)
    assert out.returncode == 0, out.stderr
    root = ET.fromstring(svg.read_bytes())  # raises on control characters
    text = "".join(root.itertext())
    assert "rack[2J]0;pwned one" in text and "<&>" in text


def test_tooltip_escapes_markup():
    from fabricstudio.ui.canvas.items.device_item import device_tooltip

    tip = device_tooltip(GpuServer(id="h1", name="<img src=x onerror=1>"))
    assert "<img" not in tip and "&lt;img" in tip


def test_metrics_csv_cells_cannot_start_a_formula(tmp_path):
    design = Design("formula")
    evil = '=HYPERLINK("evil.example","x")'
    design.add_device(GpuServer(id=evil.replace(" ", ""), gpus=1, nics=1, nic_speed_gbps=100))
    design.add_device(GpuServer(id="+h2", gpus=1, nics=1, nic_speed_gbps=100, x=200))
    design.add_device(Leaf(id="@leaf", radix=4, port_speed_gbps=100, x=100, y=-150))
    design.add_link(Link(id="-l1", a=evil.replace(" ", ""), b="@leaf", speed_gbps=100))
    design.add_link(Link(id="l2", a="+h2", b="@leaf", speed_gbps=100))
    path = tmp_path / "formula.json"
    path.write_text(dump_design(design))
    metrics = tmp_path / "m.csv"
    out = run_cli("simulate", path, "--workload", "all-to-all", "--size", "64KiB",
                  "--metrics", metrics)
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(metrics.open(encoding="utf-8")))
    cells = [cell for row in rows[1:] for cell in row[2:5]]
    assert cells and not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert any(c.startswith("'=HYPERLINK") for c in cells)


def test_gui_metrics_csv_cells_cannot_start_a_formula(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QWidget

    from fabricstudio.sim.metrics import DirectedLink, Frame, MetricStream, empty_link_arrays
    from fabricstudio.ui.panels.results_panel import export_metrics_dialog

    stream = MetricStream((DirectedLink(0, "=cmd|' /C calc'!A0", "@a", 0, "+b", 0, 100.0),),
                          1e-6)
    stream.append(Frame(1e-6, empty_link_arrays(1)))
    path = tmp_path / "gui.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    parent = QWidget()
    qtbot.addWidget(parent)
    assert "Wrote 1 rows" in export_metrics_dialog(parent, stream)
    row = list(csv.reader(path.open(encoding="utf-8")))[1]
    assert row[2].startswith("'=") and row[3] == "'@a" and row[4] == "'+b"


def test_pair_example_still_simulates_from_the_cli():
    out = run_cli("simulate", PAIR, "--workload", "all-reduce", "--size", "64KiB")
    assert out.returncode == 0, out.stderr


def test_netbox_csvs_are_formula_safe_and_import_back_to_the_same_ids(tmp_path):
    design = Design("=cmd|' /C calc'!A0\x1b[2J")
    evil = '=HYPERLINK("evil.example","x")'
    design.add_device(GpuServer(id=evil, name="@SUM(1+1)\x07", gpus=1, nics=1,
                                nic_speed_gbps=100))
    design.add_device(GpuServer(id="+h2", name="-2+3", gpus=1, nics=1, nic_speed_gbps=100,
                                x=200))
    design.add_device(Leaf(id="@leaf", radix=4, port_speed_gbps=100, x=100, y=-150))
    design.add_link(Link(id="-l1", a=evil, b="@leaf", speed_gbps=100))
    design.add_link(Link(id="l2", a="+h2", b="@leaf", speed_gbps=100))
    path = tmp_path / "formula.json"
    path.write_text(dump_design(design))
    folder = tmp_path / "netbox"
    assert run_cli("export", path, "--format", "netbox", "-o", folder).returncode == 0
    cells = [cell for table in sorted(folder.glob("*.csv"))
             for row in csv.reader(table.open(encoding="utf-8")) for cell in row]
    assert len(cells) > 100
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert not [c for c in cells if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in c)]
    assert "'=HYPERLINK(\"evil.example\",\"x\")" in cells
    back = tmp_path / "back.json"
    out = run_cli("import", folder, "-o", back)
    assert out.returncode == 0, out.stderr
    loaded = load_design(back)
    assert set(loaded.devices) == {evil, "+h2", "@leaf"}
    assert set(loaded.links) == {"-l1", "l2"}


@pytest.mark.parametrize("item, needle", [
    ({"price": True}, "price: expected a number, found a boolean"),
    ({"price": "12"}, "price: expected a number, found text"),
    ({"price": 1, "power_w": "300"}, "power_w: expected a number, found text"),
    ({"price": 1, "price_range": [True, "3"]}, "price_range"),
    ({}, 'duplicate key "price"'),
])
def test_cost_book_numbers_are_numbers(tmp_path, item, needle):
    body = json.dumps({"class": "gpu-server-per-gpu", **item})
    if "duplicate" in needle:
        body = '{"class": "gpu-server-per-gpu", "price": 1, "price": 2}'
    book = tmp_path / "book.json"
    book.write_text('{"format": "fabricstudio-costbook", "version": 1, "currency": "USD", '
                    f'"items": [{body}]}}')
    one_line_error(run_cli("analyze", TINY, "--cost-book", book), needle)


@pytest.mark.parametrize("old, new, needle", [
    ('"hold_s": 10', '"hold_s": true', "hold_s: expected a number, found a boolean"),
    ('"hold_s": 10', '"hold_s": "10"', "hold_s: expected a number, found text"),
    ('"hold_s": 10', '"hold_s": 1e400', "1e400 is out of range"),
    ('"hold_s": 10', '"hold_s": 10, "hold_s": 3', 'duplicate key "hold_s"'),
    ('"hold_s": 10', '"hold_s": ' + "9" * 5000, "5,000 digits"),
    ('"camera": "fit"', '"camera": {"rectangle": [true, "1", 3, 4]}', "four numbers"),
])
def test_story_numbers_are_numbers(old, new, needle):
    from fabricstudio.formats.story import StoryError, parse_story

    text = (ROOT / "fabricstudio/resources/demos/training-incast.story.json").read_text()
    assert old in text
    parse_story(text)
    with pytest.raises(StoryError, match=needle):
        parse_story(text.replace(old, new, 1))
