"""The story of an LLM training run: GPU states from the iterations' ledgers (compute, the
pipeline bubble as idle, exposed NVLink all-reduces as communication), its captions, the
fleet utilisation and the Results figure.

One tiny model (TP 4 x PP 2 x DP 8 on the 64-GPU demo, 2 micro-batches, 2 iterations) on the
flow engine, sliced as the live view runs it: under a second.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricstudio.formats import load_design
from fabricstudio.sim.activity import GpuState, track_simulation
from fabricstudio.sim.moments import find_captions, gpu_utilisation, run_facts
from fabricstudio.sim.run import build_simulation
from fabricstudio.sim.scenario import Scenario
from fabricstudio.ui.panels.results_summary import result_figures
from tests.conftest import EXAMPLES

TINY = {"name": "tiny", "layers": 16, "hidden": 2048, "heads": 16, "ffn": 8192, "vocab": 16}


@pytest.fixture(scope="module")
def run():
    design = load_design(EXAMPLES / "scenarios" / "demo-rail64.design.json")
    scenario = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "llm_training", "model": TINY, "tp": 4, "pp": 2, "global_batch": 16,
         "iterations": 2}]})
    sim = build_simulation(design, scenario)
    tracker = track_simulation(sim)
    step = sim.workloads[0].duration_hint_s / 100
    while not sim.finished:
        sim.advance(sim.now + step)
        tracker.update()
    return sim, tracker.timeline, sim.result()


def test_the_first_stage_computes_while_the_second_sits_in_the_pipeline_bubble(run):
    sim, timeline, _result = run
    plan = sim.workloads[0].plan
    index = {gpu: i for i, gpu in enumerate(timeline.gpus)}
    states = timeline.states(0)
    for stage, expected in ((0, GpuState.COMPUTING), (1, GpuState.IDLE)):
        gpus = [index[plan.address(stage, d, 0, t)] for d in range(plan.dp)
                for t in range(plan.tp)]
        assert (states[gpus] == expected).all()


def test_every_gpu_computes_communicates_and_idles(run):
    _sim, timeline, _result = run
    seen = np.stack([timeline.states(k) for k in range(len(timeline))])
    for state in (GpuState.COMPUTING, GpuState.COMMUNICATING, GpuState.IDLE):
        assert (seen == state).any(axis=0).all(), state


def test_the_timelines_compute_share_is_the_iterations(run):
    """The frames' compute over the whole run is the iterations' compute (the result's
    utilisation is per iteration: scale it by the iterations' share of the run)."""
    sim, timeline, result = run
    workload = sim.workloads[0]
    iterations_s = sum(r.time_s for r in workload.results)
    expected = result.llm_training.gpu_utilisation * iterations_s / float(sim.stream.times[-1])
    assert timeline.utilisation_so_far(len(timeline) - 1) == pytest.approx(expected, abs=0.01)


def test_captions_tell_the_plan_each_iteration_and_the_end(run):
    sim, _timeline, result = run
    captions = find_captions(sim)
    phase = [c.text for c in captions if c.kind == "phase"]
    assert phase == ["tiny training starts: TP 4 x PP 2 x DP 8 on 64 GPUs"]
    steps = [c for c in captions if c.kind == "step"]
    assert [c.text.split(" done")[0] for c in steps] == ["Iteration 1", "Iteration 2"]
    end = [c.text for c in captions if c.kind == "end"][0]
    llm = result.llm_training
    assert f"{100 * llm.gpu_utilisation:.1f}% of the time (2 iterations" in end


def test_the_gauge_facts_and_results_show_the_llm_utilisation(run):
    sim, _timeline, result = run
    value = result.llm_training.gpu_utilisation
    assert result.training is None and value > 0
    assert gpu_utilisation(result) == value
    assert run_facts(sim, result).gpu_utilisation == value
    assert result_figures(result)["gpu_utilisation"] == value
