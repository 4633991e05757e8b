"""RunRequest -> Scenario: the one boundary the CLI and the GUI build runs through."""

import pytest

from fabricstudio.model import Technology
from fabricstudio.sim import ScenarioError
from fabricstudio.sim.request import RunRequest, describe_workloads, scenario_for
from fabricstudio.sim.scenario import WORKLOAD_TYPES, Scenario
from tests.sim.test_run import cluster

BASE = Scenario.model_validate({
    "name": "file", "seed": 7, "cell_bytes": 4096, "routing": "ecmp", "until_s": 0.001,
    "measure_from_s": 0.0002, "technology": "infiniband",
    "workloads": [{"type": "permutation", "bytes": "1MiB"}]})


@pytest.mark.parametrize("workload", WORKLOAD_TYPES)
def test_every_workload_type_becomes_a_valid_scenario(workload):
    scenario = scenario_for(cluster(), RunRequest(workload=workload, size_bytes=2**20))
    expected = ["incast", "stall"] if workload == "stall" else [workload]  # the pause storm
    assert [w.type for w in scenario.workloads] == expected
    assert scenario.name == RunRequest(workload=workload).label


def test_given_settings_override_the_base_scenario_and_the_rest_keep_it():
    kept = scenario_for(cluster(), RunRequest(workload=None, scenario=BASE))
    assert (kept.name, kept.seed, kept.cell_bytes, kept.routing, kept.until_s,
            kept.measure_from_s, kept.technology) == ("file", 7, 4096, "ecmp", 0.001, 0.0002,
                                                      Technology.INFINIBAND)
    request = RunRequest(workload=None, scenario=BASE, seed=1, until_s=None,
                         technology=Technology.ROCE)
    changed = scenario_for(cluster(), request)
    assert (changed.seed, changed.until_s, changed.technology) == (1, None, Technology.ROCE)
    assert changed.cell_bytes == 4096 and changed.measure_from_s == 0.0002
    swapped = scenario_for(cluster(), request.with_changes(technology=Technology.ETHERNET))
    assert swapped.technology is Technology.ETHERNET and swapped.seed == 1


def test_a_workload_adds_to_the_base_scenario():
    request = RunRequest(workload="all_reduce", scenario=BASE, size_bytes=2**20)
    scenario = scenario_for(cluster(), request)
    assert [w.type for w in scenario.workloads] == ["permutation", "all_reduce"]
    assert request.workload_label == "permutation + Ring all-reduce"
    assert describe_workloads(scenario) == "permutation + all-reduce"


def test_the_moe_demo_reads_as_moe_training_with_its_dispatch(examples_dir):
    from fabricstudio.sim import load_scenario

    scenario = load_scenario(examples_dir / "scenarios" / "demo-moe-dispatch.scenario.json")
    assert describe_workloads(scenario) == "2 MoE training steps (dispatch to 4 overloaded experts)"


def test_incast_defaults_to_the_first_server_receiving_from_the_others():
    spec = scenario_for(cluster(), RunRequest(workload="incast")).workloads[0]
    assert spec.receiver == "g0" and spec.senders == ["g1"]
    chosen = RunRequest(workload="incast", receiver="g1/gpu0").workload_spec(cluster())
    assert chosen["senders"] == ["g0"]


def test_what_cannot_run_is_one_readable_error():
    with pytest.raises(ScenarioError, match="two GPU servers"):
        scenario_for(cluster(), RunRequest(workload="incast", ranks=("g0/gpu0", "g0/gpu1")))
    with pytest.raises(ScenarioError, match="measure_from_s"):
        scenario_for(cluster(), RunRequest(until_s=1e-4, measure_from_s=2e-4))


def test_every_workload_type_has_its_words():
    from fabricstudio.sim.request import WORKLOAD_LABELS, WORKLOAD_NOUNS

    assert list(WORKLOAD_LABELS) == list(WORKLOAD_TYPES) or set(WORKLOAD_LABELS) == set(
        WORKLOAD_TYPES)
    assert set(WORKLOAD_NOUNS) == set(WORKLOAD_TYPES)
