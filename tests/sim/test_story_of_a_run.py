"""The story a run tells, derived from the run: GPU states, captions, facts, the explanation.

One small scenario (5 single-GPU servers under one 4 MB-buffer leaf: two training steps whose
all-reduce meets a 4:1 burst) runs once per fabric for the module; each run takes about a
second.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricstudio.formats import load_design
from fabricstudio.sim.activity import BUSY_NIC, GpuState, GpuTimeline, track_simulation
from fabricstudio.sim.explain import explain_fabrics
from fabricstudio.sim.moments import RunFacts, caption_at, find_captions, run_facts
from fabricstudio.sim.run import build_simulation
from fabricstudio.sim.scenario import scenario_from_dict

FABRICS = {"InfiniBand": ("infiniband", False), "RoCE + DCQCN": ("roce", True),
           "RoCE PFC only": ("roce", False), "Lossy Ethernet": ("ethernet", False)}


def _scenario(technology: str, dcqcn: bool):
    return scenario_from_dict({
        "format": "fabricstudio-scenario", "version": 1, "name": "story", "seed": 1,
        "technology": technology, "dcqcn": dcqcn, "fabric": {"tcp": {"min_rto_us": 500}},
        "workloads": [
            {"type": "training", "ranks": "all", "gradient_bytes": "4MiB",
             "compute_s": 0.0001, "iterations": 2},
            {"type": "incast", "senders": ["h1", "h2", "h3", "h4"], "receiver": "r",
             "bytes": "3MB", "start_s": 0.0001}]})


@pytest.fixture(scope="module")
def runs(examples_dir_module):
    design = load_design(examples_dir_module / "scenarios" / "incast.design.json")
    out = {}
    for label, (technology, dcqcn) in FABRICS.items():
        sim = build_simulation(design, _scenario(technology, dcqcn))
        tracker = track_simulation(sim)
        while not sim.finished:
            sim.advance(sim.now + 2e-5)  # in slices, as the live view runs it
            tracker.update()
        result = sim.result()
        out[label] = (sim, tracker.timeline, result, find_captions(sim),
                      run_facts(sim, result))
    return out


@pytest.fixture(scope="module")
def examples_dir_module():
    from tests.conftest import EXAMPLES
    return EXAMPLES


def test_timeline_has_a_row_per_frame_and_its_running_utilisation_is_the_results(runs):
    for sim, timeline, result, _c, _f in runs.values():
        assert len(timeline) == len(sim.stream)
        assert timeline.gpus == ("h1/gpu0", "h2/gpu0", "h3/gpu0", "h4/gpu0", "r/gpu0")
        assert timeline.utilisation_so_far(len(timeline) - 1) == pytest.approx(
            result.training.gpu_utilisation, abs=0.005)


def _timed_out(runs) -> bool:
    """Whether the lossy run had a retransmission timeout.  In this 5-server story that is a
    chance event of the cell-level TCP model: the same scenario at packet level (4 KiB cells)
    recovers every loss by fast retransmit, and which start times end in a timeout changes
    with any timing detail of the engine (issue 9), so the timeout part of the story is
    checked when the run has one."""
    return runs["Lossy Ethernet"][2].totals.timeouts > 0


def test_gpus_compute_during_compute_and_wait_when_a_timeout_stalls_the_ring(runs):
    sim, timeline, _r, _c, _f = runs["Lossy Ethernet"]
    times = sim.stream.times
    first = timeline.states(int(np.searchsorted(times, 50e-6)))
    assert (first == GpuState.COMPUTING).all()
    stalls = [c for c in runs["Lossy Ethernet"][3] if c.kind == "timeout"]
    assert bool(stalls) == _timed_out(runs)
    if not stalls:
        pytest.skip("no retransmission timeout in this run (a chance event, see _timed_out)")
    middle = (stalls[0].start_s + stalls[0].end_s) / 2
    index = int(np.searchsorted(times, middle))
    during = timeline.states(index)
    # every GPU has the ring outstanding: those whose NIC still moves the burst's data
    # communicate, the others wait for the lost tail (the ring waits with them)
    assert (during == GpuState.WAITING).sum() >= 1
    assert not (during == GpuState.COMPUTING).any() and not (during == GpuState.IDLE).any()
    assert timeline.computing_now(index) == 0.0
    util = sim.stream.link_rows("utilisation", index, index + 1)[0]
    for gpu, state in zip(timeline.gpus, during, strict=True):
        server = gpu.split("/")[0]
        sends = max(util[link.index] for link in sim.stream.links if link.src == server)
        receives = max(util[link.index] for link in sim.stream.links if link.dst == server)
        busy = max(sends, receives) >= BUSY_NIC
        assert (state == GpuState.COMMUNICATING) == busy, (gpu, sends, receives)


def test_a_lossless_ring_without_contention_communicates(runs):
    sim, timeline, _r, _c, _f = runs["InfiniBand"]
    step2 = [a for w in sim.workloads if w.kind == "training" for a in w.activity()
             if a.kind == "comm"][1]
    index = int(np.searchsorted(sim.stream.times, (step2.start_s + step2.end_s) / 2))
    counts = timeline.fleet_counts(index)
    assert counts[GpuState.COMMUNICATING] >= 4
    assert counts[GpuState.COMPUTING] == 0


def test_timeline_survives_pickling_and_counts_per_server(runs):
    import pickle

    timeline = runs["RoCE + DCQCN"][1]
    copy = pickle.loads(pickle.dumps(timeline))
    assert isinstance(copy, GpuTimeline) and len(copy) == len(timeline)
    counts = copy.server_counts(0)
    assert counts.shape == (5, 4) and counts.sum() == 5


def _kinds(captions):
    return {c.kind for c in captions}


def test_captions_come_from_each_fabrics_own_events(runs):
    assert "credit" in _kinds(runs["InfiniBand"][3])
    assert "pause" in _kinds(runs["RoCE PFC only"][3])
    assert "ecn" in _kinds(runs["RoCE + DCQCN"][3])
    lossy = runs["Lossy Ethernet"][3]
    assert "drop" in _kinds(lossy)
    assert ("timeout" in _kinds(lossy)) == _timed_out(runs)
    for label in ("InfiniBand", "RoCE PFC only", "RoCE + DCQCN"):
        assert not {"drop", "timeout"} & _kinds(runs[label][3])


def test_caption_numbers_and_times_are_the_runs(runs):
    sim, _t, result, captions, _f = runs["RoCE PFC only"]
    pause = next(c for c in captions if c.kind == "pause")
    assert pause.text.startswith("PAUSE spreads from s1 to 4 senders")
    assert f"{result.totals.pfc_pauses:,} PAUSE frames" in pause.text
    first = sim.stream.first_time("pauses_sent")
    assert first - sim.stream.sample_period_s <= pause.start_s + 1e-12 <= first
    lossy_sim, _t, lossy, captions, _f = runs["Lossy Ethernet"]
    drop = next(c for c in captions if c.kind == "drop")
    assert f"({lossy.totals.drops:,} drops in the run)" in drop.text
    timeout = next((c for c in captions if c.kind == "timeout"), None)
    assert (timeout is not None) == _timed_out(runs)
    if timeout is not None:
        assert "waits for a 500 µs retransmission timeout" in timeout.text
        assert timeout.end_s - timeout.start_s >= 250e-6
    ecn = next(c for c in runs["RoCE + DCQCN"][3] if c.kind == "ecn")
    assert "DCQCN slows 4 burst senders" in ecn.text
    assert f"({runs['RoCE + DCQCN'][2].totals.cnps:,} CNPs)" in ecn.text


def test_caption_at_shows_the_latest_started(runs):
    captions = runs["RoCE PFC only"][3]
    assert caption_at(captions, -1.0) is None
    assert caption_at(captions, 0.0).text.startswith("Step 1: 5 GPUs compute")
    assert caption_at(captions, 1.0) is captions[-1]


def test_facts_are_the_runs_figures(runs):
    _s, _t, result, _c, facts = runs["Lossy Ethernet"]
    assert facts.drops == result.totals.drops > 0
    assert facts.timeouts == result.totals.timeouts
    assert facts.meeting_port == "s1 > r"
    assert facts.burst_senders == 4
    assert 0.0 < facts.port_share["training"] < 1.0
    assert sum(facts.port_share.values()) <= 1.0 + 1e-6
    assert RunFacts(**facts.to_dict()) == facts


def test_explanation_names_losses_and_only_claims_causes_the_figures_carry(runs):
    facts = {label: run[4] for label, run in runs.items()}
    text = " ".join(explain_fabrics(facts))
    lossy = facts["Lossy Ethernet"]
    assert f"Lossy Ethernet dropped {lossy.drops:,} packets" in text
    assert ("retransmission timeout" in text) >= (lossy.timeouts > 0)
    assert ("stalled every GPU of the collective" in text) == (lossy.timeouts > 0)
    assert "The lossless fabrics drop nothing: credits and PAUSE hold senders back" in text
    best = max((f.gpu_utilisation, label) for label, f in facts.items() if not f.drops)[1]
    shares = {label: f.port_share.get("training", 0.0) for label, f in facts.items()
              if not f.drops}
    claims = "keeps the GPUs busiest" in text
    assert claims == (max(shares, key=shares.get) == best)


def _facts(**changes) -> RunFacts:
    base = dict(technology="roce", dcqcn=True, ib_congestion_control=False,
                gpu_utilisation=0.6, completion_s=0.006, step_times_s=[0.004, 0.0025],
                drops=0, retransmitted_bytes=0, timeouts=0, min_rto_s=0.01,
                longest_stall_s=0.0, pauses=0, ecn_marks=100, cnps=30, credit_stall_s=0.0,
                meeting_port="leaf1 > server1", burst_senders=7, burst_start_s=0.002,
                burst_end_s=0.005, contention_s=(0.002, 0.004),
                port_share={"incast": 0.7, "training": 0.18}, port_peak_queue_bytes=11e6)
    base.update(changes)
    return RunFacts(**base)


def test_explanation_of_dcqcn_over_credits_uses_the_port_shares():
    facts = {"InfiniBand": _facts(technology="infiniband", dcqcn=False, gpu_utilisation=0.57,
                                  cnps=0, port_share={"incast": 0.88, "training": 0.12},
                                  step_times_s=[0.0047, 0.0023]),
             "RoCE + DCQCN": _facts()}
    text = " ".join(explain_fabrics(facts))
    assert "RoCE + DCQCN keeps the GPUs busiest (60.0%)" in text
    assert "30 CNPs slowed the 7 burst senders" in text
    assert "no congestion control here" in text and "as cells arrive: 12%" in text
    assert "4 ms / 4.7 ms" in text
    # the same ranking with shares that do not explain it: no causal claim
    facts["InfiniBand"] = _facts(technology="infiniband", dcqcn=False, gpu_utilisation=0.57,
                                 port_share={"training": 0.3})
    assert "busiest" not in " ".join(explain_fabrics(facts))
    assert explain_fabrics({}) == []


def test_explanation_says_so_when_a_lossy_fabric_keeps_the_gpus_busier():
    facts = {"InfiniBand": _facts(technology="infiniband", dcqcn=False, gpu_utilisation=0.57,
                                  cnps=0, port_share={"incast": 0.88, "training": 0.12}),
             "RoCE + DCQCN": _facts(gpu_utilisation=0.46,
                                    port_share={"incast": 0.7, "training": 0.10}),
             "Lossy Ethernet": _facts(technology="ethernet", dcqcn=False, gpu_utilisation=0.59,
                                      drops=6084, retransmitted_bytes=24_900_000, cnps=0)}
    text = " ".join(explain_fabrics(facts))
    assert "InfiniBand keeps the GPUs busiest of the lossless fabrics (57.0%)" in text
    assert ("its GPUs were busier (59.0%, InfiniBand 57.0%); fast retransmit recovered every "
            "loss without a retransmission timeout") in text
    facts["Lossy Ethernet"] = _facts(technology="ethernet", gpu_utilisation=0.24, drops=10,
                                     timeouts=2)
    assert "busier (" not in " ".join(explain_fabrics(facts))
