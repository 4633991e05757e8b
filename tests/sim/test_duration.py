"""The duration estimate that paces a run without a horizon: it counts a ring's per-step
latency, so a latency-bound ring is not cut short where a flow-level run's frames end."""

import pytest

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, budget, build_simulation
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

# 64 GPUs (2 scalable units of 4 servers x 8 rails, a spine between them): a 1 MiB flat ring
# moves 2 KiB per step and channel over 126 steps - a few microseconds of bytes at 400 Gb/s,
# over a hundred of per-step latency, paced by the two hops that cross the spine.
LATENCY_BOUND = {"type": "all_reduce", "size_bytes": "1MiB", "algorithm": "ring"}
BANDWIDTH_BOUND = {"type": "all_reduce", "size_bytes": "64MiB", "algorithm": "ring"}
# NCCL's double binary tree: its NICs carry two trees' edges, and it fills and drains
TREE = {"type": "all_reduce", "size_bytes": "4MiB", "algorithm": "tree"}


@pytest.fixture(scope="module")
def rail64():
    return build_fabric(RailOptimizedSpec(gpus=64, servers_per_su=4,
                                         technology=Technology.ROCE)).to_design()


def ring(engine, workload):
    return Scenario.model_validate({"engine": engine, "cell_bytes": 65536,
                                    "workloads": [workload]})


@pytest.mark.parametrize("engine", ["flow", "cell"])
@pytest.mark.parametrize("workload", [LATENCY_BOUND, BANDWIDTH_BOUND, TREE],
                         ids=["latency-bound", "bandwidth-bound", "tree"])
def test_the_estimate_covers_the_ring_and_stays_close(rail64, engine, workload):
    sim = build_simulation(rail64, ring(engine, workload))
    result = sim.run()
    took = result.collective.time_s
    assert took is not None
    assert took < sim.estimate_s < 1.5 * took


def test_a_latency_bound_flow_ring_finishes_when_the_frame_budget_is_tight(rail64, monkeypatch):
    """At 8,192 GPUs the frame budget holds ~700 frames, so a flow-level run without a horizon
    stops little after the estimate: the same budget squeezed onto 64 GPUs."""
    links = 2 * len(rail64.links)
    monkeypatch.setattr(budget, "MAX_SAMPLE_VALUES", 700 * links // 9)
    result = build_simulation(rail64, ring("flow", LATENCY_BOUND)).run()
    assert not [w for w in result.warnings if "unfinished" in w]
    assert result.collective.time_s is not None


def test_a_flow_level_run_outlasting_its_frames_still_finishes(rail64, monkeypatch):
    """The estimate counts no contention: a permutation whose ECMP collisions across the spine
    make it ~3x longer goes on past the frame budget (as a cell-level run does) and says
    where its frames end, instead of stopping unfinished there."""
    monkeypatch.setattr(budget, "MAX_SAMPLE_VALUES", 50 * 2 * len(rail64.links) // 9)
    sim = build_simulation(rail64, Scenario.model_validate(
        {"engine": "flow", "workloads": [{"type": "permutation", "bytes": "8MiB"}]}))
    result = sim.run()
    assert result.completion_time_s > 2 * sim.frame_limit_s
    assert not [w for w in result.warnings if "unfinished" in w]
    assert any(w.startswith(f"frames end at {sim.frame_limit_s:.6g} s") for w in result.warnings)
    assert sim.stream.times[-1] <= sim.frame_limit_s * (1 + 1e-9)
