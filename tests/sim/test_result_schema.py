"""The Result JSON keeps its published keys and layout, and reads back byte for byte.

``FROZEN`` is the version-1 layout: every key path published in docs/simulation.md, in
document order.  New keys may be added (after the existing ones of their object, see
``fabricstudio/sim/result.py``); none of these may be renamed, dropped or reordered.
"""

import json

import pytest

import tests.sim.test_examples_scenarios as examples
from fabricstudio.sim.result import RESULT_FORMAT, Result

FROZEN = {
    "": ["format", "version", "run", "completion_time_s", "end_s", "collective", "training",
         "totals", "engine", "warnings", "workloads", "links", "flows", "flows_omitted"],
    "run": ["design", "scenario", "technology", "dcqcn", "routing", "cell_bytes", "seed",
            "until_s", "measure_from_s", "sample_period_s"],
    "collective": ["name", "ranks", "size_bytes", "algorithm", "channels", "time_s",
                   "algbw_gbps", "busbw_gbps"],
    "training": ["iterations", "compute_s", "overlap", "step_time_s", "allreduce_time_s",
                 "exposed_comm_s", "gpu_utilisation"],
    "totals": ["offered_bytes", "delivered_bytes", "dropped_bytes", "retransmitted_bytes",
               "in_flight_bytes", "duplicate_bytes", "goodput_bytes", "nvlink_bytes", "drops",
               "pfc_pauses", "paused_time_s", "ecn_marks", "cnps", "credit_stall_time_s",
               "lossless_violations", "watchdog_drops", "timeouts"],
    "engine": ["events", "cell_bytes", "cell_hops", "wall_time_s", "events_per_s"],
    "links[]": ["id", "from", "to", "from_port", "to_port", "speed_gbps", "utilisation",
                "max_queue_bytes", "pfc_pauses_sent", "paused_time_s", "ecn_marks", "cnps",
                "drops", "credit_stall_time_s"],
    "flows[]": ["id", "src", "dst", "bytes", "delivered_bytes", "start_s", "finish_s",
                "throughput_gbps", "tag"],
    "workloads[]": ["type", "tag", "start_s", "finish_s", "time_s", "flows"],
    "workloads[flows]": ["bytes"],
    "workloads[collective]": ["name", "ranks", "size_bytes", "algorithm", "channels",
                              "algbw_gbps", "busbw_gbps"],
    "workloads[training]": ["collective", "training"],
    "workloads[stall]": ["receiver"],
}
_COLLECTIVES = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}


def _in_order(keys: list[str], frozen: list[str], where: str) -> None:
    missing = [k for k in frozen if k not in keys]
    assert not missing, f"{where or 'top level'}: published keys missing: {missing}"
    positions = [keys.index(k) for k in frozen]
    assert positions == sorted(positions), f"{where or 'top level'}: keys reordered: {keys}"


def _check_layout(doc: dict) -> None:
    _in_order(list(doc), FROZEN[""], "")
    for part in ("run", "totals", "engine", "collective", "training"):
        if doc[part] is not None:
            _in_order(list(doc[part]), FROZEN[part], part)
    for name in ("links", "flows"):
        for entry in doc[name]:
            _in_order(list(entry), FROZEN[f"{name}[]"], f"{name}[]")
    for entry in doc["workloads"]:
        kind = (entry["type"] if entry["type"] in ("training", "stall") else
                "collective" if entry["type"] in _COLLECTIVES else "flows")
        keys = list(entry)
        _in_order(keys, FROZEN["workloads[]"], "workloads[]")
        _in_order(keys[len(FROZEN["workloads[]"]):], FROZEN[f"workloads[{kind}]"],
                  f"workloads[{kind}]")


@pytest.mark.parametrize("name", list(examples.PAIRS))
def test_example_results_keep_the_published_layout_and_read_back(name):
    _sim, result = examples.simulate(name)
    text = result.to_json(timing=False)
    doc = json.loads(text)
    assert doc["format"] == RESULT_FORMAT and doc["version"] == 1
    _check_layout(doc)
    assert Result.from_json(text).to_json(timing=False) == text
    assert result.to_json(timing=True) == Result.from_json(result.to_json()).to_json()


def test_every_workload_kind_and_optional_part_appears_in_the_examples():
    """The layout test above sees each workload report kind and the optional objects."""
    docs = [json.loads(examples.simulate(name)[1].to_json()) for name in examples.PAIRS]
    kinds = {w["type"] for doc in docs for w in doc["workloads"]}
    assert {"training", "all_reduce", "incast"} <= kinds
    assert any(doc["training"] for doc in docs) and any(doc["collective"] for doc in docs)
    assert any(doc["completion_time_s"] is None for doc in docs)


def test_a_document_with_unknown_or_missing_keys_is_refused():
    _sim, result = examples.simulate("v1-one-flow")
    doc = json.loads(result.to_json())
    doc["totals"]["mystery"] = 1
    with pytest.raises(ValueError, match="mystery"):
        Result.from_json(json.dumps(doc))
    del doc["totals"]["mystery"]
    del doc["run"]
    with pytest.raises(ValueError, match="run"):
        Result.from_json(json.dumps(doc))
