"""``fabricstudio compare A B --scenario S``: design and run figures of two designs, deltas."""

from __future__ import annotations

import json

import pytest

from fabricstudio.cli import main

SCENARIO = {"format": "fabricstudio-scenario", "version": 1, "name": "all-reduce 1 MiB",
            "technology": "roce", "seed": 3,
            "workloads": [{"type": "all_reduce", "ranks": "all", "size_bytes": "1MiB"}]}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A non-blocking leaf-spine (A) and the same at 2:1 (B), 32 GPUs, and a scenario."""
    folder = tmp_path_factory.mktemp("compare")
    for name, ratio in (("a", "1"), ("b", "2")):
        assert main(["generate", "leaf-spine", "--gpus", "32", "--radix", "16",
                     "--oversubscription", ratio, "-o", str(folder / f"{name}.json"),
                     "-q"]) == 0
    (folder / "s.json").write_text(json.dumps(SCENARIO))
    return folder


def test_json_rows_give_both_figures_and_b_minus_a(files, capsys):
    code = main(["compare", str(files / "a.json"), str(files / "b.json"),
                 "--scenario", str(files / "s.json"), "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["format"] == "fabricstudio-compare" and doc["scenarios"] == ["all-reduce 1 MiB"]
    rows = {(r["section"], r["key"]): r for r in doc["rows"]}
    for row in doc["rows"]:
        if row["a"] is not None and row["b"] is not None:
            assert row["delta"] == pytest.approx(row["b"] - row["a"])
    bisection = rows["design", "bisection_gbps"]
    assert bisection["b"] == pytest.approx(bisection["a"] / 2) and bisection["better"] == "a"
    assert rows["design", "leaf_oversubscription"]["b"] == 2
    cost = rows["design", "network_capex"]  # fewer uplinks and optics: B is cheaper
    assert cost["b"] < cost["a"] and cost["better"] == "b"
    assert doc["currency"] == "USD"
    done = rows["all-reduce 1 MiB", "completion_time_s"]
    assert done["b"] > done["a"] and done["better"] == "a"  # half the uplinks: slower
    busbw = rows["all-reduce 1 MiB", "busbw_gbps"]
    assert busbw["b"] < busbw["a"] and busbw["better"] == "a"
    assert rows["all-reduce 1 MiB", "drops"]["delta"] == 0


def test_table_and_json_file(files, tmp_path, capsys):
    out_file = tmp_path / "cmp.json"
    code = main(["compare", str(files / "a.json"), str(files / "b.json"),
                 "--json", str(out_file)])
    text = capsys.readouterr().out
    assert code == 0
    assert "B - A" in text and "Bisection bandwidth" in text and "a.json" in text
    assert "Scenario:" not in text  # no scenario: the designs' own figures only
    doc = json.loads(out_file.read_text())
    assert {r["section"] for r in doc["rows"]} == {"design"}


@pytest.mark.parametrize("args, message", [
    (["missing.json", "{b}"], "missing.json"),
    (["{a}", "{b}", "--scenario", "nowhere.json"], "nowhere.json"),
    (["{a}", "{b}", "--scenario", "{bad}"], "cannot run on B"),
    (["{a}", "{b}", "--json", "{a}"], "input"),
])
def test_bad_input_is_one_line(files, tmp_path, capsys, args, message):
    bad = dict(SCENARIO, workloads=[{"type": "incast", "senders": ["server1", "server2"],
                                     "receiver": "server4", "bytes": 1000}])
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    small = tmp_path / "small.json"
    assert main(["generate", "leaf-spine", "--gpus", "24", "--radix", "16", "-o", str(small),
                 "-q"]) == 0
    names = {"a": files / "a.json", "b": small if message == "cannot run on B" else
             files / "b.json", "bad": tmp_path / "bad.json"}
    code = main(["compare", *(arg.format(**names) for arg in args)])
    err = capsys.readouterr().err.strip()
    assert code in (1, 2)
    assert "\n" not in err and message in err
