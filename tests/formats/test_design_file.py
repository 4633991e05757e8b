"""Design files: round trips, the minimal hand-written file, and hostile input."""

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricstudio.formats import (
    MAX_FILE_BYTES,
    DesignFileError,
    dump_design,
    load_design,
    parse_design,
    save_design,
)
from fabricstudio.formats.schema import design_schema_text
from fabricstudio.model import Design, GpuServer, Leaf, Link, Spine, Technology

ROOT = Path(__file__).resolve().parents[2]
TINY = ('{"format":"fabricstudio-design","version":1,"name":"tiny","fabric":{"technology":"roce"},'
        '"nodes":[{"id":"h1","kind":"gpu_server","gpus":1,"nics":1,"nic_speed_gbps":100},'
        '{"id":"s1","kind":"leaf","radix":32,"port_speed_gbps":100}],'
        '"links":[{"id":"l1","a":"h1","b":"s1","speed_gbps":100}]}')


def test_minimal_hand_written_file_loads_with_defaults():
    d = parse_design(TINY)
    assert d.name == "tiny" and d.fabric.technology is Technology.ROCE
    assert d.fabric.mtu_bytes == 4096 and d.fabric.dcqcn.g == pytest.approx(1 / 256)
    assert d.device("s1").buffer_bytes == 64 * 1024 * 1024
    link = d.link("l1")
    assert (link.a_port, link.b_port, link.length_m) == (0, 0, 3.0)


def test_save_is_atomic_and_round_trips(tmp_path):
    d = parse_design(TINY)
    path = tmp_path / "d.json"
    save_design(d, path)
    assert load_design(path).to_data() == d.to_data()
    assert [p.name for p in tmp_path.iterdir()] == ["d.json"]


def test_failed_save_leaves_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "d.json"
    path.write_text("original")

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(DesignFileError, match="No space left"):
        save_design(parse_design(TINY), path)
    assert path.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["d.json"]


ids = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)


@st.composite
def designs(draw):
    d = Design(draw(st.text(max_size=20)))
    tech = draw(st.sampled_from(list(Technology)))
    d.set_fabric(d.fabric.model_copy(update={"technology": tech,
                                            "mtu_bytes": draw(st.sampled_from([4096, 9000]))}))
    names = draw(st.lists(ids, min_size=1, max_size=8, unique=True))
    for name in names:
        kind = draw(st.sampled_from([GpuServer, Leaf, Spine]))
        pos = dict(x=draw(st.floats(-1e4, 1e4)), y=draw(st.floats(-1e4, 1e4)))
        if kind is GpuServer:
            d.add_device(GpuServer(id=name, gpus=draw(st.integers(1, 8)),
                                   nics=draw(st.integers(1, 4)), nic_speed_gbps=400, **pos))
        else:
            d.add_device(kind(id=name, radix=draw(st.integers(2, 16)), **pos))
    for n in range(draw(st.integers(0, 10))):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
        if a == b:
            continue
        try:
            d.add_link(Link(id=f"link{n}", a=a, b=b, speed_gbps=draw(st.sampled_from([100, 400])),
                            length_m=draw(st.floats(0.5, 500))))
        except Exception:  # noqa: BLE001 - invalid random links are simply skipped
            pass
    return d


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs())
def test_load_of_save_is_identity(d):
    assert parse_design(dump_design(d)).to_data() == d.to_data()


def test_published_schema_is_current():
    published = (ROOT / "docs" / "design.schema.json").read_text(encoding="utf-8")
    assert published == design_schema_text(), (
        "docs/design.schema.json is stale: run python -m fabricstudio.formats.schema")


def _doc(**changes):
    doc = json.loads(TINY)
    doc.update(changes)
    return json.dumps(doc)


@pytest.mark.parametrize("raw, message", [
    (TINY[:-40], "not valid JSON.*truncated"),
    (b"\xff\xfe\x00garbage", "not UTF-8 text"),
    (TINY.encode() + b"\xc3\x28", "not UTF-8 text"),
    ("", "file is empty"),
    ("[1, 2]", "expected a JSON object at the top, found an array"),
    (_doc(format="something-else"), "not a FabricStudio design"),
    ('{"name": "x"}', "has no \"format\" field"),
    (_doc(version=3), "newer FabricStudio.*version 3"),
    (_doc(version=0), "unknown format version 0"),
    (_doc(version="1"), "\"version\" must be an integer"),
    (_doc(nodes="lots"), "nodes"),
    (_doc(nodes=[{"id": "h1", "kind": "gpu_server", "gpus": "eight"}]), "nodes.0.gpu_server.gpus"),
    (_doc(nodes=[{"id": "h1", "kind": "toaster"}]), "does not match any of the expected tags"),
    (_doc(nodes=[{"kind": "leaf"}]), "id: Field required"),
    (_doc(links=[{"id": "l1", "a": "h1"}]), "links.0.b: Field required"),
    (_doc(nodes=[{"id": "h1", "kind": "leaf"}, {"id": "h1", "kind": "spine"}], links=[]),
     "duplicate device id 'h1'"),
    (_doc(links=[{"id": "l1", "a": "h1", "b": "ghost", "speed_gbps": 100}]),
     "end 'ghost' is not a device"),
    (_doc(links=[{"id": "l1", "a": "h1", "b": "s1", "speed_gbps": -1}]),
     "greater than or equal to 0.01"),
    (_doc(links=[{"id": "l1", "a": "h1", "b": "s1", "speed_gbps": 100},
                 {"id": "l2", "a": "h1", "b": "s1", "speed_gbps": 100, "b_port": 5}]),
     "h1 has no free compute port"),
    (_doc(links=[{"id": "l1", "a": "h1", "b": "s1", "speed_gbps": 100, "b_port": 99}]),
     "port 99 out of range"),
    (_doc(fabric={"technology": "token-ring"}), "fabric.technology"),
    (_doc(surprise=1), "surprise: Extra inputs are not permitted"),
])
def test_hostile_inputs_give_clear_messages(raw, message):
    with pytest.raises(DesignFileError, match=message):
        parse_design(raw, source="x.json")


def test_deep_nesting_is_refused_quickly():
    deep = ('{"format":"fabricstudio-design","version":1,"name":'
            + "[" * 200_000 + "]" * 200_000 + "}")
    start = time.perf_counter()
    with pytest.raises(DesignFileError, match="nested too deeply|name"):
        parse_design(deep)
    assert time.perf_counter() - start < 10  # a sanity bound against hangs, not a benchmark


def test_huge_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(DesignFileError, match=r"too large \(256 MiB; the limit is 256 MiB\)"):
        load_design(path)


@pytest.mark.parametrize("name, message", [("missing.json", "no such file"), (".", "is a folder")])
def test_unreadable_paths(tmp_path, name, message):
    with pytest.raises(DesignFileError, match=message):
        load_design(tmp_path / name)
