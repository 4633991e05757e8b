"""Sweeps: grid expansion, where each key goes, cached and resumable points, the Pareto
front, and the same rows from this process, a local pool and a real Dask LocalCluster."""

from __future__ import annotations

import json

import pytest

from fabricstudio.sim.sweep import (
    Executor,
    PointCache,
    SweepError,
    pareto_front,
    parse_sweep,
    run_sweep,
)
from fabricstudio.sim.sweep import runner as sweep_runner
from fabricstudio.sim.sweep.point import point_inputs, point_key
from fabricstudio.sim.sweep.spec import apply

#: The smallest fabric that shows the effect: 16 GPUs on two leaves, two spines.
BASE = {"topology": "leaf-spine", "gpus": 16, "switch_radix": 16}
SCENARIO = {"name": "all-reduce", "seed": 2,
            "workloads": [{"type": "all_reduce", "ranks": "all", "size_bytes": "256KiB"}]}


def sweep(grid: dict, **extra) -> dict:
    return {"format": "fabricstudio-sweep", "version": 1, "base": dict(BASE), "grid": grid,
            "scenario": json.loads(json.dumps(SCENARIO)), **extra}


def test_points_are_every_combination_last_key_fastest():
    spec = parse_sweep(sweep({"oversubscription": [1, 2], "technology": ["roce", "ethernet"],
                              "seed": [1, 2, 3]}))
    points = spec.points()
    assert spec.size == len(points) == 12
    assert points[0] == {"oversubscription": 1, "technology": "roce", "seed": 1}
    assert points[1] == {"oversubscription": 1, "technology": "roce", "seed": 2}
    assert points[-1] == {"oversubscription": 2, "technology": "ethernet", "seed": 3}


def test_each_key_lands_where_it_belongs():
    spec = parse_sweep(sweep({"family": ["fat-tree"], "radix": [8], "technology": ["infiniband"],
                              "dcqcn": [False], "size_bytes": ["4MiB"],
                              "failures": [[{"device": "spine1"}]],
                              "scenario.workloads.0.ranks": [["server1", "server2"]]}))
    generator, design, scenario = apply(spec, spec.points()[0])
    assert design is None
    assert generator["topology"] == "fat-tree" and generator["switch_radix"] == 8
    assert generator["technology"] == scenario["technology"] == "infiniband"
    assert scenario["dcqcn"] is False and scenario["failures"] == [{"device": "spine1"}]
    assert scenario["workloads"][0]["size_bytes"] == "4MiB"
    assert scenario["workloads"][0]["ranks"] == ["server1", "server2"]
    assert spec.scenario["workloads"][0]["size_bytes"] == "256KiB"  # the spec is untouched


@pytest.mark.parametrize("change, message", [
    ({"format": "other"}, '"format"'),
    ({"version": 2}, '"version"'),
    ({"grid": {"colour": [1]}}, "grid.colour"),
    ({"grid": {"gpus": []}}, "non-empty list"),
    ({"grid": {"seed": list(range(400)), "gpus": list(range(300))}}, "at most 100,000"),
    ({"base": {}}, '"base"'),
    ({"scenario": []}, '"scenario"'),
    ({"extra": 1}, "unknown key"),
])
def test_bad_sweep_files_are_refused_with_the_reason(change, message):
    with pytest.raises(SweepError, match=message):
        parse_sweep({**sweep({"seed": [1]}), **change})


def test_a_design_file_base_refuses_generator_keys(tmp_path, examples_dir):
    data = sweep({"spines": [2]})
    data["base"] = {"design": str(examples_dir / "leaf-spine-16-gpu-roce.json")}
    with pytest.raises(SweepError, match="design file"):
        parse_sweep(data)
    data["grid"] = {"seed": [1, 2]}
    spec = parse_sweep(data)
    assert spec.design is not None and spec.size == 2


def test_the_hash_follows_the_inputs():
    spec = parse_sweep(sweep({"seed": [1, 2]}))
    one, two = (point_inputs(spec, p) for p in spec.points())
    assert point_key(one) != point_key(two)
    assert point_key(one) == point_key(point_inputs(spec, spec.points()[0]))


def test_points_are_cached_and_an_interrupted_sweep_resumes(tmp_path, monkeypatch):
    # 4 MiB: enough ring traffic over the uplinks for halving them to show (a 256 KiB ring
    # ends within the same ~28 us at 1:1 and 2:1 on the cell engine)
    scenario = json.loads(json.dumps(SCENARIO))
    scenario["workloads"][0]["size_bytes"] = "4MiB"
    spec = parse_sweep(sweep({"oversubscription": [1, 2]}, scenario=scenario))
    cache = PointCache(tmp_path / "cache")
    seen = []
    first = run_sweep(spec, cache=cache, executor=Executor(workers=1), progress=seen.append)
    assert [p.done for p in seen] == [0, 1, 2] and seen[-1].cached == 0
    assert all(row["error"] is None and row["finished"] for row in first)
    slow, fast = first[1], first[0]  # 2:1 has half the uplinks
    assert slow["leaf_oversubscription"] == 2 and slow["completion_time_s"] > \
        fast["completion_time_s"]
    # "interrupt": one point's file is lost, the other is kept; only the lost one runs again
    (tmp_path / "cache" / f"{first[1]['key']}.json").unlink()
    ran = []
    real = sweep_runner.evaluate_point
    monkeypatch.setattr(sweep_runner, "evaluate_point", lambda i: ran.append(1) or real(i))
    seen.clear()
    again = run_sweep(spec, cache=cache, executor=Executor(workers=1), progress=seen.append)
    assert len(ran) == 1 and seen[0].cached == 1
    assert again == first
    # a damaged cache file is run again, not trusted
    (tmp_path / "cache" / f"{first[0]['key']}.json").write_text("{not json")
    ran.clear()
    assert run_sweep(spec, cache=cache, executor=Executor(workers=1)) == first
    assert len(ran) == 1


def test_a_point_that_cannot_run_is_a_row_with_its_reason(tmp_path):
    spec = parse_sweep(sweep({"gpus": [16, 7]}))  # 7 GPUs is not a whole number of servers
    rows = run_sweep(spec, executor=Executor(workers=1))
    assert rows[0]["error"] is None
    assert rows[1]["error"].startswith("BuildError") and rows[1]["completion_time_s"] is None


def test_pareto_front_keeps_the_points_nothing_beats():
    rows = [{"capex": 10, "step_time_s": 5.0}, {"capex": 20, "step_time_s": 3.0},
            {"capex": 15, "step_time_s": 6.0}, {"capex": 30, "step_time_s": 3.0},
            {"capex": 5, "step_time_s": None}, {"capex": 40, "step_time_s": 1.0}]
    assert pareto_front(rows, "capex", "step_time_s") == [0, 1, 5]
    util = [{"capex": 10, "gpu_utilisation": 0.5}, {"capex": 20, "gpu_utilisation": 0.4},
            {"capex": 30, "gpu_utilisation": 0.9}]
    assert pareto_front(util, "capex", "gpu_utilisation") == [0, 2]  # higher is better


def test_local_pool_and_a_real_dask_local_cluster_give_the_same_rows():
    """Two points, three executors: this process, a pool of two, a LocalCluster of two."""
    spec = parse_sweep(sweep({"technology": ["roce", "infiniband"]}))
    here = run_sweep(spec, executor=Executor(workers=1))
    pool = run_sweep(spec, executor=Executor("local", workers=2))
    dask = run_sweep(spec, executor=Executor("dask", dask_local=2))
    assert here == pool == dask
    assert here[0]["technology"] == "roce" and here[1]["technology"] == "infiniband"
    assert all(row["error"] is None for row in here)


def test_the_documented_example_has_100_points(examples_dir):
    from fabricstudio.sim.sweep import load_sweep

    spec = load_sweep(examples_dir / "sweeps" / "oversubscription.sweep.json")
    assert spec.size == 100 and list(spec.grid) == ["oversubscription", "technology",
                                                    "size_bytes", "seed"]
