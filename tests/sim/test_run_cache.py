"""The run cache: a recorded run comes back whole (hit), nothing is found for another design,
scenario or fabric (miss), an entry of another engine is refused (stale), and a damaged or
hostile entry is ignored and removed, never crashing (corrupt)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import zlib

import numpy as np
import pytest

from fabricstudio.formats import load_design
from fabricstudio.model import Design, freeze
from fabricstudio.sim import run_cache
from fabricstudio.sim.recorded import record_run
from fabricstudio.sim.run_cache import MAGIC, RunCache, engine_fingerprint, run_key
from fabricstudio.sim.scenario import load_scenario
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def small_run():
    design = freeze(load_design(EXAMPLES / "scenarios" / "incast.design.json"))
    scenario = load_scenario(EXAMPLES / "scenarios" / "v2-incast-roce-pfc.scenario.json")
    scenario = scenario.model_copy(update={"until_s": 40e-6})
    return design, scenario, record_run(design, scenario, "RoCE PFC only")


def _stored(tmp_path, small_run):
    design, scenario, record = small_run
    cache = RunCache(tmp_path)
    key = run_key(design, scenario, record.label)
    assert cache.store(key, record) == cache.path(key)
    return cache, key


def test_a_stored_run_comes_back_whole(tmp_path, small_run):
    design, _scenario, record = small_run
    cache, key = _stored(tmp_path, small_run)
    found = cache.lookup(key, record.label, design)
    assert found.status == "hit"
    back = found.record
    assert back.cached_at is not None and record.cached_at is None
    assert back.design is design and back.label == record.label
    assert back.result == record.result
    assert back.captions == record.captions and back.facts == record.facts
    assert len(back.stream) == len(record.stream) > 3
    assert np.array_equal(back.stream.times, record.stream.times)
    for i in (0, len(record.stream) // 2, -1):
        a, b = record.stream.frame(i), back.stream.frame(i)
        assert a.flow_ids == b.flow_ids
        assert all(np.array_equal(a.links[k], b.links[k]) for k in a.links)
    assert back.stream.finished and back.stream.flow_ends == record.stream.flow_ends
    assert back.timeline.rows(0, len(back.stream))[0].tolist() == \
        record.timeline.rows(0, len(record.stream))[0].tolist()
    assert not list(tmp_path.glob("*.fabricstudio-tmp"))  # written atomically


def test_another_design_scenario_or_fabric_is_a_miss(tmp_path, small_run):
    design, scenario, record = small_run
    cache, key = _stored(tmp_path, small_run)
    other_seed = scenario.model_copy(update={"seed": scenario.seed + 1})
    renamed = Design()
    renamed.load_data(design.to_data())
    renamed.set_name("renamed")
    assert len({key, run_key(design, other_seed, record.label),
                run_key(design, scenario, "Lossy Ethernet"),
                run_key(renamed, scenario, record.label)}) == 4
    assert run_key(freeze(renamed), scenario, record.label) == run_key(renamed, scenario,
                                                                       record.label)
    assert cache.lookup(run_key(design, other_seed, record.label), record.label,
                        design).status == "miss"
    assert RunCache(tmp_path / "nowhere").lookup(key, record.label, design).status == "miss"


def test_an_entry_of_another_engine_is_stale_and_removed(tmp_path, small_run, monkeypatch):
    design, _scenario, record = small_run
    cache, key = _stored(tmp_path, small_run)
    monkeypatch.setattr(run_cache, "engine_fingerprint", lambda: "0" * 64)
    found = cache.lookup(key, record.label, design)
    assert found.status == "stale" and "engine" in found.detail
    assert not cache.path(key).exists()  # recomputed and replaced


def test_the_fingerprint_follows_the_engine_source(tmp_path, monkeypatch):
    import fabricstudio

    before = engine_fingerprint()
    root = tmp_path / "fabricstudio"
    for package in run_cache.ENGINE_PACKAGES:
        (root / package).mkdir(parents=True)
        (root / package / "a.py").write_text("x = 1\n")
    (root / "resources").mkdir()
    (root / "resources" / "catalogue.json").write_text("{}")
    monkeypatch.setattr(fabricstudio, "__file__", str(root / "__init__.py"))
    engine_fingerprint.cache_clear()
    try:
        first = engine_fingerprint()
        engine_fingerprint.cache_clear()
        (root / "sim" / "a.py").write_text("x = 2\n")
        assert engine_fingerprint() != first
    finally:
        engine_fingerprint.cache_clear()
    monkeypatch.undo()
    assert engine_fingerprint() == before


def _rewrite(path, mutate):
    raw = path.read_bytes()
    path.write_bytes(mutate(raw))


@pytest.mark.parametrize("damage", [
    lambda raw: raw[: len(raw) // 2],                                   # truncated
    lambda raw: raw[:-10] + bytes(b ^ 0xFF for b in raw[-10:]),           # flipped bytes
    lambda raw: b"",                                                      # empty
    lambda raw: b"garbage\n" + raw,                                       # not an entry
    lambda raw: MAGIC + b"{not json\n" + raw.split(b"\n", 2)[2],          # bad header
])
def test_a_damaged_entry_is_ignored_and_removed(tmp_path, small_run, damage):
    design, _scenario, record = small_run
    cache, key = _stored(tmp_path, small_run)
    _rewrite(cache.path(key), damage)
    found = cache.lookup(key, record.label, design)
    assert found.status == "corrupt" and found.record is None
    assert not cache.path(key).exists()
    assert cache.store(key, record) is not None  # recomputed runs are kept again
    assert cache.lookup(key, record.label, design).status == "hit"


def _entry_with(cache, key, parts) -> None:
    """An entry with a consistent header around any pickled ``parts``."""
    payload = zlib.compress(pickle.dumps(parts))
    header = {"format": run_cache.CACHE_FORMAT, "version": run_cache.CACHE_VERSION,
              "key": key, "label": "x", "recorded_at": 0.0, **run_cache.environment(),
              "payload_bytes": len(payload),
              "payload_sha256": hashlib.sha256(payload).hexdigest()}
    cache.path(key).write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + payload)


class _Hostile:
    def __reduce__(self):
        return (os.remove, ("/nonexistent/fabricstudio-never-removed",))


@pytest.mark.parametrize("parts", [{"stream": _Hostile()}, [1, 2, 3],
                                   {"stream": 1, "result": None, "timeline": None,
                                    "captions": [], "facts": None}])
def test_an_entry_with_unexpected_contents_is_refused(tmp_path, small_run, parts):
    design, _scenario, record = small_run
    cache = RunCache(tmp_path)
    key = run_key(design, _scenario, record.label)
    _entry_with(cache, key, parts)
    found = cache.lookup(key, record.label, design)
    assert found.status == "corrupt" and found.record is None
    assert not cache.path(key).exists()


def test_an_unwritable_cache_never_stops_a_run(tmp_path, small_run):
    design, scenario, record = small_run
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert RunCache(blocker / "runs").store(run_key(design, scenario, "x"), record) is None


def test_the_folder_is_pruned_oldest_used_first(tmp_path, small_run):
    design, scenario, record = small_run
    cache = RunCache(tmp_path)
    keys = [run_key(design, scenario, f"run {i}") for i in range(3)]
    cache.store(keys[0], record)
    size = cache.path(keys[0]).stat().st_size
    cache.max_bytes = 2 * size + size // 2
    os.utime(cache.path(keys[0]), (1, 1))
    cache.store(keys[1], record)
    os.utime(cache.path(keys[1]), (2, 2))
    assert cache.lookup(keys[0], "run 0", design).status == "hit"  # used now: kept longest
    cache.store(keys[2], record)
    assert [p.name for p in cache.entries()] == [f"{keys[0]}.fsrun", f"{keys[2]}.fsrun"]
    assert cache.clear() == 2 and not cache.entries()


def test_the_cache_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(run_cache.DISABLE_ENV, "off")
    assert not run_cache.cache_enabled()
    monkeypatch.setenv(run_cache.DISABLE_ENV, "1")
    assert run_cache.cache_enabled()
