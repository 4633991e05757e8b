"""Cost books: the shipped defaults, overrides, and hostile files (one-line errors)."""

import json
import os

import pytest

from fabricstudio.formats.costbook import (
    MAX_COSTBOOK_BYTES,
    CostBookError,
    default_cost_book,
    load_cost_book,
    parse_cost_book,
)
from fabricstudio.model.costbook import GPU_HOUR
from fabricstudio.topology.analysis.bom import GPU_PART, STORAGE_PART
from tests.topology.parts import producible_parts


def write(tmp_path, doc, name="book.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def envelope(items, currency="USD"):
    return {"format": "fabricstudio-costbook", "version": 1, "currency": currency,
            "items": items}


def test_default_book_prices_every_part_the_cabling_and_hardware_functions_produce():
    book = default_cost_book()
    missing = sorted(p for p in producible_parts() | {GPU_PART, STORAGE_PART, GPU_HOUR}
                     if book.item(p) is None)
    assert missing == []


def test_every_default_item_states_its_source_date_and_confidence():
    book = default_cost_book()
    assert book.currency == "USD"
    for item in book.items:
        assert item.source and item.date and item.label, item.part
        assert item.confidence in ("sourced", "weak", "placeholder")
    sourced = {i.part for i in book.items if i.confidence == "sourced"}
    assert "switch-ib-ndr-64x400g" in sourced  # $36k-50k, Aug 2024 cost sheet
    assert book.item("switch-ib-ndr-64x400g").price_range == (36000, 50000)


def test_override_merges_item_by_item(tmp_path):
    path = write(tmp_path, envelope([
        {"class": "switch-ib-ndr-64x400g", "price": 30000},
        {"class": "my-extra", "price": 5, "power_w": 1}]))
    book = load_cost_book(path)
    default = default_cost_book().item("switch-ib-ndr-64x400g")
    item = book.item("switch-ib-ndr-64x400g")
    assert item.price == 30000 and item.power_w == default.power_w  # power kept
    assert item.confidence == "sourced" and "book.json" in item.source
    assert book.item("my-extra").price == 5
    assert len(book.items) == len(default_cost_book().items) + 1


@pytest.mark.parametrize("doc,message", [
    ("{", "not valid JSON"),
    ("", "file is empty"),
    ("[1, 2]", "expected a JSON object"),
    ('{"format": "fabricstudio-design", "version": 1}', "not a FabricStudio cost book"),
    ({"format": "fabricstudio-costbook", "version": 9, "items": []}, "newer than this"),
    ({"format": "fabricstudio-costbook", "version": True, "items": []}, "must be an integer"),
    ({"format": "fabricstudio-costbook", "version": 1, "items": {}}, "must be a list"),
    (envelope([{"price": 3}]), "\"class\" string"),
    (envelope([{"class": "a", "price": -1}]), "greater than or equal to 0"),
    (envelope([{"class": "a", "price": 1e300}]), "less than or equal"),
    (envelope([{"class": "a"}]), "price"),
    (envelope([{"class": "a", "price": 1, "bogus": 2}]), "bogus"),
    (envelope([{"class": "a", "price": 1, "confidence": "sure"}]), "confidence"),
    (envelope([{"class": "a", "price": 1, "price_range": [5, 2]}]), "low <= high"),
    (envelope([{"class": "a", "price": 1}], currency="EUR"), "give every class again"),
    (envelope([{"class": "a", "price": 1}], currency="euro"), "three-letter code"),
    ('{"format": "fabricstudio-costbook", "version": 1, "items": [{"class": "a", '
     '"price": NaN}]}', "NaN is not a JSON number"),
    ('{"format": "fabricstudio-costbook", "version": 1, "items": [{"class": "a", '
     '"price": Infinity}]}', "Infinity"),
    ('{"format": "fabricstudio-costbook", "format": "x", "version": 1}', "duplicate key"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_hostile_override_files_fail_in_one_line(tmp_path, doc, message):
    path = write(tmp_path, doc)
    with pytest.raises(CostBookError) as info:
        load_cost_book(path)
    text = str(info.value)
    assert message in text and "\n" not in text and str(path) in text


def test_unreadable_paths_fail_in_one_line(tmp_path):
    for path, message in ((tmp_path / "none.json", "no such file"), (tmp_path, "is a folder")):
        with pytest.raises(CostBookError, match=message):
            load_cost_book(path)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for path, message in ((fifo, "not a regular file"),):
        with pytest.raises(CostBookError, match=message):
            load_cost_book(path)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_COSTBOOK_BYTES + 1))
    with pytest.raises(CostBookError, match="too large"):
        load_cost_book(big)
    bad = tmp_path / "bin.json"
    bad.write_bytes(b"\xff\xfe{}")
    with pytest.raises(CostBookError, match="not UTF-8"):
        load_cost_book(bad)


def test_parse_complete_book_checks_duplicates():
    doc = envelope([{"class": "a", "price": 1}, {"class": "a", "price": 2}])
    with pytest.raises(CostBookError, match="listed twice"):
        parse_cost_book(json.dumps(doc))


def test_docs_list_every_default_figure_with_its_source():
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "cost.md").read_text(encoding="utf-8")
    for item in default_cost_book().items:
        row = next((ln for ln in text.splitlines() if ln.startswith(f"| `{item.part}` |")), "")
        assert f"| {item.price:,.2f}" in row, item.part
        assert f"| {item.power_w:g} |" in row and item.date in row, item.part
