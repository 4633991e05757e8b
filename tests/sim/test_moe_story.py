"""The product's story, checked from the run's counters so it cannot silently break again:
the bundled MoE demo's token dispatch (four overloaded experts behind one leaf, a 63:1
incast into each) costs lossy Ethernet GPU time - tail losses wait for a loss probe or a
retransmission timeout - while the lossless fabrics deliver it without a drop.

The scenario is the bundled one cut to one short step (1 MiB of gradients, 0.2 ms of
compute, frames every 100 us): the dispatch itself, whose figures make the story, is the
demo's.  Transport defaults unchanged (TCP with SACK and RACK-TLP, 10 ms minimum RTO).
"""

from __future__ import annotations

import pytest

from fabricstudio.formats import load_design
from fabricstudio.sim import build_simulation, load_scenario
from fabricstudio.sim.result import Result
from tests.conftest import EXAMPLES

SCENARIOS = EXAMPLES / "scenarios"
LOSSLESS = {"InfiniBand": {"technology": "infiniband"},
            "RoCE + DCQCN": {"technology": "roce", "dcqcn": True},
            "RoCE, PFC only": {"technology": "roce", "dcqcn": False}}


def short_demo_run(**fabric: object) -> Result:
    scenario = load_scenario(SCENARIOS / "demo-moe-dispatch.scenario.json")
    workloads = scenario.model_dump()["workloads"]
    assert workloads[0]["expert_dispatch"]["experts"]  # the story needs the dispatch
    workloads[0].update(gradient_bytes=2**20, compute_s=2e-4, iterations=1)
    scenario = scenario.with_changes(workloads=workloads, sample_period_s=1e-4, **fabric)
    design = load_design(SCENARIOS / "demo-rail64.design.json")
    return build_simulation(design, scenario).run()


@pytest.fixture(scope="module")
def lossy() -> Result:
    return short_demo_run(technology="ethernet")


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
    result = short_demo_run(**LOSSLESS[name])
    t, training = result.totals, result.training
    assert training is not None and training.dispatch_time_s is not None
    assert t.drops == 0 and t.timeouts == 0 and t.retransmitted_bytes == 0
    assert lossy.training is not None and lossy.training.dispatch_time_s is not None
    assert training.dispatch_time_s < lossy.training.dispatch_time_s / 2
    assert training.gpu_utilisation > 2 * lossy.training.gpu_utilisation
