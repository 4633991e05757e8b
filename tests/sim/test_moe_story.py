"""The product's story, checked from the run's counters so it cannot silently break again:
the bundled MoE demo's token dispatch (four overloaded experts behind one leaf, a 63:1
incast into each) costs lossy Ethernet GPU time - tail losses wait for a loss probe or a
retransmission timeout - while the lossless fabrics deliver it without a drop.

The scenario is the bundled one cut to one short step (1 MiB of gradients, 0.2 ms of
compute, frames every 100 us): the dispatch itself, whose figures make the story, is the
demo's.  Transport defaults unchanged (TCP with SACK and RACK-TLP, 10 ms minimum RTO).
"""

from __future__ import annotations

from functools import cache

import pytest

from fabricstudio.formats import load_design
from fabricstudio.sim import build_simulation, load_scenario
from fabricstudio.sim.explain import explain_fabrics
from fabricstudio.sim.moments import find_captions, run_facts
from fabricstudio.sim.result import Result
from fabricstudio.sim.run import Simulation
from tests.conftest import EXAMPLES

SCENARIOS = EXAMPLES / "scenarios"
LOSSLESS = {"InfiniBand": {"technology": "infiniband"},
            "RoCE + DCQCN": {"technology": "roce", "dcqcn": True},
            "RoCE, PFC only": {"technology": "roce", "dcqcn": False}}


@cache
def short_demo_run(**fabric: object) -> tuple[Simulation, Result]:
    scenario = load_scenario(SCENARIOS / "demo-moe-dispatch.scenario.json")
    workloads = scenario.model_dump()["workloads"]
    assert workloads[0]["expert_dispatch"]["experts"]  # the story needs the dispatch
    workloads[0].update(gradient_bytes=2**20, compute_s=2e-4, iterations=1)
    scenario = scenario.with_changes(workloads=workloads, sample_period_s=1e-4, **fabric)
    design = load_design(SCENARIOS / "demo-rail64.design.json")
    sim = build_simulation(design, scenario)
    return sim, sim.run()


@pytest.fixture(scope="module")
def lossy_run() -> tuple[Simulation, Result]:
    return short_demo_run(technology="ethernet")


@pytest.fixture(scope="module")
def lossy(lossy_run) -> Result:
    return lossy_run[1]


def test_lossy_ethernet_waits_for_its_lost_tails(lossy):
    t, training = lossy.totals, lossy.training
    assert training is not None and training.dispatch_time_s is not None
    assert t.drops > 0 and t.lossless_violations == 0
    # the losses in mid-flow are repaired by fast retransmit; the tails are not
    assert t.fast_retransmits > 0
    assert t.tail_loss_probes + t.timeouts > 0
    # a loss probe waits 2 SRTT + 2 ms at least (Linux tcp_schedule_loss_probe)
    assert training.dispatch_time_s > 2e-3


@pytest.mark.parametrize("name", list(LOSSLESS))
def test_lossless_fabrics_keep_the_gpus_busier(name, lossy):
    _sim, result = short_demo_run(**LOSSLESS[name])
    t, training = result.totals, result.training
    assert training is not None and training.dispatch_time_s is not None
    assert t.drops == 0 and t.timeouts == 0 and t.retransmitted_bytes == 0
    assert lossy.training is not None and lossy.training.dispatch_time_s is not None
    assert training.dispatch_time_s < lossy.training.dispatch_time_s / 2
    assert training.gpu_utilisation > 2 * lossy.training.gpu_utilisation


def test_captions_and_explanation_tell_the_stall_from_the_counters(lossy_run):
    sim, result = lossy_run
    captions = find_captions(sim)
    dispatch = next(c for c in captions if c.text.startswith("Step 1: an MoE layer"))
    assert "every GPU sends 512 KiB to each of 4 overloaded experts" in dispatch.text
    assert "a 63:1 incast into each" in dispatch.text
    stall = next(c for c in captions if c.kind == "timeout")
    assert "for its lost last packets" in stall.text and "loss probe" in stall.text
    assert stall.text.endswith("every GPU waits for these tokens")
    assert stall.end_s - stall.start_s >= 2e-3  # the probe's own allowance at least
    arrived = next(c for c in captions if c.text.startswith("Step 1: the last tokens"))
    assert arrived.start_s >= stall.end_s - sim.stream.sample_period_s
    facts = run_facts(sim, result)
    assert facts.tail_loss_probes == result.totals.tail_loss_probes > 0
    assert facts.dispatch_s == result.training.dispatch_time_s
    assert facts.drop_switch == "su1-rail1"
    lossless = run_facts(*short_demo_run(technology="infiniband"))
    text = " ".join(explain_fabrics({"InfiniBand": lossless, "lossy Ethernet": facts}))
    assert f"lossy Ethernet dropped {facts.drops:,} packets at su1-rail1" in text
    assert "lost last packets waited for" in text and "loss probe" in text
    assert "The GPUs wait for the token dispatch; it took 0.59" in text
