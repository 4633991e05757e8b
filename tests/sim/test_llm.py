"""The llm_training workload: 1F1B schedule, placement, the ideal network and the tax, on the
flow and the cell engine, and the CLI."""

from pathlib import Path

import pytest

from fabricstudio.cli import main
from fabricstudio.formats import load_design
from fabricstudio.sim import Scenario, ScenarioError, build_simulation, run_simulation
from fabricstudio.sim.llm import formulas as f
from fabricstudio.sim.llm.plan import make_plan
from fabricstudio.sim.llm.workload import ideal_iteration
from fabricstudio.sim.scenario import LlmTrainingSpec
from fabricstudio.sim.work import flow_engine_seconds
from fabricstudio.sim.workloads.addresses import all_gpus, server_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
DEMO = EXAMPLES / "demo-rail64.design.json"
#: A small dense model: 16 layers split evenly, a tiny vocabulary so the last stage's logits
#: do not unbalance the pipeline.
TINY = {"name": "tiny", "layers": 16, "hidden": 2048, "heads": 16, "ffn": 8192, "vocab": 16}


def spec(**fields):
    return LlmTrainingSpec.model_validate({"type": "llm_training", **fields})


def plan_for(**fields):
    design = load_design(DEMO)
    return design, make_plan(design, spec(**fields), all_gpus(design), "workloads[0]")


def test_placement_keeps_tensor_groups_in_a_server_and_data_peers_on_a_rail():
    _, plan = plan_for(model=TINY, tp=4, pp=2, cp=2, global_batch=16)
    assert (plan.tp, plan.pp, plan.cp, plan.dp) == (4, 2, 2, 4)
    for p in range(2):
        for d in range(4):
            for c in range(2):
                servers = {server_of(plan.address(p, d, c, t)) for t in range(4)}
                assert len(servers) == 1
    gpu = [plan.address(0, d, 0, 1).split("/")[1] for d in range(4)]
    assert len(set(gpu)) == 1  # data-parallel peers: the same GPU index, so the same rail
    assert server_of(plan.address(0, 0, 0, 0)) != server_of(plan.address(1, 0, 0, 0))


def test_on_an_ideal_network_one_stage_takes_m_times_forward_backward_and_tp():
    design, plan = plan_for(model=TINY, tp=8, pp=1, global_batch=32)
    cost = plan.stages[0]
    ideal = ideal_iteration(plan, design)
    m = plan.micro_batches
    expected = m * (cost.forward_s + cost.backward_s + cost.tp_forward_s + cost.tp_backward_s)
    assert ideal.time_s == pytest.approx(expected, rel=1e-9)
    assert ideal.breakdown["bubble"] == 0 and ideal.breakdown["pp"] == 0
    assert ideal.breakdown["tp"] == pytest.approx(m * (cost.tp_forward_s + cost.tp_backward_s))


def test_the_1f1b_pipeline_bubble_is_p_minus_1_stage_times():
    design, plan = plan_for(model=TINY, tp=8, pp=4, global_batch=16)
    cost = plan.stages[0]
    stage = cost.forward_s + cost.backward_s + cost.tp_forward_s + cost.tp_backward_s
    m, p = plan.micro_batches, plan.pp
    ideal = ideal_iteration(plan, design)
    # (the last stage's logits over a 16-token vocabulary add a few microseconds)
    assert ideal.time_s == pytest.approx((m + p - 1) * stage, rel=1e-3)
    idle = ideal.breakdown["bubble"] / ideal.time_s
    assert idle == pytest.approx(f.one_f_one_b_bubble(p, m), rel=1e-3)


def llm_result(engine="flow", **fields):
    s = Scenario.model_validate({"engine": engine, "workloads": [
        {"type": "llm_training", **fields}]})
    return run_simulation(load_design(DEMO), s)


def test_the_fabric_costs_time_the_ideal_network_does_not_and_mfu_is_consistent():
    r = llm_result(model="llama3-8b", tp=8, pp=2, global_batch=32)
    t = r.llm_training
    assert t is not None and t.iteration_time_s is not None
    assert t.iteration_time_s >= t.ideal.iteration_time_s
    assert t.network_tax_s == pytest.approx(t.iteration_time_s - t.ideal.iteration_time_s)
    assert t.exposed_comm_s["pp"] > 0  # pipeline sends cross the fabric
    spec_ = spec(model="llama3-8b")
    flops = f.model_flops_per_token(spec_.model_spec, 8192) * 32 * 8192
    assert t.mfu == pytest.approx(flops / (t.iteration_time_s * 64 * 989e12))
    assert t.tokens_per_s == pytest.approx(32 * 8192 / t.iteration_time_s)
    parts = t.compute_s + t.bubble_s + sum(t.exposed_comm_s.values())
    assert parts == pytest.approx(t.iteration_time_s, rel=1e-6)  # the slowest rank's ledger
    assert t.dp_collectives["reduce_scatter"].reason.startswith("auto: NCCL")
    assert [w for w in r.workloads if w.type == "llm_training"][0].llm_training == t


def test_expert_and_context_parallel_traffic_is_simulated_and_exposed():
    moe = {"name": "tiny-moe", "layers": 8, "hidden": 1024, "heads": 8, "ffn": 4096,
           "vocab": 16, "experts": 16, "top_k": 2}
    # 16 expert-parallel ranks span two 8-GPU servers: NVLink inside, the fabric between
    t = llm_result(model=moe, tp=1, pp=1, ep=16, global_batch=64, seq_len=4096).llm_training
    assert t.exposed_comm_s["ep"] > 0 and t.ideal.exposed_comm_s["ep"] > 0  # NVLink part
    assert t.exposed_comm_s["ep"] > t.ideal.exposed_comm_s["ep"]
    t = llm_result(model=TINY, tp=4, pp=1, cp=4, global_batch=16, seq_len=32768).llm_training
    assert t.parallelism["cp"] == 4 and t.iteration_time_s > 0


def test_the_cell_engine_runs_the_same_iteration_close_to_the_flow_engine():
    fields = {"model": {**TINY, "hidden": 1024, "ffn": 4096}, "tp": 8, "pp": 2,
              "global_batch": 8, "seq_len": 2048}
    cell = llm_result("cell", **fields).llm_training
    flow = llm_result("flow", **fields).llm_training
    assert cell.iteration_time_s == pytest.approx(flow.iteration_time_s, rel=0.05)


@pytest.mark.parametrize("fields, fragment", [
    ({"tp": 16}, "must divide the 8 GPUs of a server"),
    ({"tp": 8, "pp": 2, "global_batch": 3}, "not a multiple of DP"),
    ({"ep": 2}, "needs a mixture-of-experts model"),
    ({"ep": 3}, "needs a mixture-of-experts model"),
    ({"tp": 8, "pp": 8, "dp": 2}, "the design has 64"),
    ({"model": "gpt5"}, "unknown model 'gpt5'"),
])
def test_impossible_plans_are_refused_with_the_reason(fields, fragment):
    with pytest.raises((ScenarioError, ValueError), match=fragment) as caught:
        s = Scenario.model_validate({"workloads": [{"type": "llm_training", **fields}]})
        build_simulation(load_design(DEMO), s)
    assert "experts" not in str(caught.value) or "needs a mixture" in str(caught.value)
    assert "the 0 experts" not in str(caught.value)  # a dense model: one reason, not two


def test_a_plan_that_does_not_fit_in_memory_is_flagged():
    _, plan = plan_for(model="llama3-70b", tp=8, pp=1, global_batch=8, recompute="none")
    assert plan.memory_gb > 80 and "exceeds the H100 SXM's 80 GB" in plan.warnings[-1]


def test_the_cli_runs_an_llm_iteration_and_prints_the_network_tax(capsys):
    code = main(["simulate", str(DEMO), "--workload", "llm", "--model", "llama3-8b",
                 "--tp", "8", "--pp", "2", "--global-batch", "16", "--engine", "flow"])
    out = capsys.readouterr().out
    assert code == 0
    assert "LLM training: Llama-3 8B on 64 x H100 SXM (TP 8, PP 2, DP 4" in out
    assert "network tax:" in out and "MFU" in out and "not modelled at flow level" in out


def test_the_live_view_sees_llm_gpus_compute_and_sit_in_pipeline_bubbles():
    from fabricstudio.sim.activity import GpuState, track_simulation

    s = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "llm_training", "model": "llama3-8b", "tp": 8, "pp": 2, "global_batch": 8}]})
    sim = build_simulation(load_design(DEMO), s)
    tracker = track_simulation(sim)
    while not sim.finished:
        sim.advance(sim.now + 0.01)
        tracker.update()
    t = sim.result().llm_training
    assert t is not None
    timeline = tracker.timeline
    # the fleet's compute time over the frames is the iteration's (GPU utilisation x time;
    # the frames run on to the end of the last slice)
    computed = timeline.utilisation_so_far(len(timeline) - 1) * float(sim.stream.times[-1])
    assert computed == pytest.approx(t.gpu_utilisation * t.iteration_time_s, rel=0.03)
    first = timeline.states(0)  # stage 0 computes its first forward, stage 1 waits idle
    assert (first == GpuState.COMPUTING).sum() == 32 and (first == GpuState.IDLE).sum() == 32
    from fabricstudio.sim.moments import find_captions

    texts = [c.text for c in find_captions(sim)]
    assert any("training starts: TP 8 x PP 2 x DP 4 on 64 GPUs" in x for x in texts)
    assert any(x.startswith("Iteration 1 done in") for x in texts)


def llm_on_rail(gpus: int, global_batch: int):
    from fabricstudio.model import Technology
    from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

    design = build_fabric(RailOptimizedSpec(gpus=gpus, technology=Technology.ROCE)).to_design()
    scenario = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "llm_training", "model": "llama3-70b", "tp": 8, "pp": 4,
         "global_batch": global_batch}]})
    return build_simulation(design, scenario)


def test_replicas_whose_pipeline_sends_never_contend_count_as_one_in_lockstep():
    """256 GPUs, one scalable unit: every stage boundary stays under the rail leaves, so the
    8 replicas send at the same instants: two per send and direction (start, end) and two
    per stage's gradient collective - not two per replica and send (8x as many)."""
    sim = llm_on_rail(256, 64)  # 8 micro-batches
    estimated = sim.engine_info["estimate"]["rate_updates"]
    assert estimated == 2 * 8 * 3 * 2 + 2 * 2 * 4
    assert sim.workloads[0].planned_rate_updates == 2 * 8 * 8 * 3 * 2 + 2 * 2 * 4
    measured = sim.run().engine.rate_updates
    assert measured == pytest.approx(estimated, rel=0.1), (measured, estimated)


def test_contended_sends_are_counted_per_replica_from_the_routes_and_predict_the_run():
    """1,024 GPUs: every stage boundary crosses the spines, where ECMP collisions give the
    flows of a send different rates; the replicas drift apart, each send starting on an
    instant of its own and ending on one per distinct rate of its flows.  Counted from the
    routes the flow engine will use (before the run), it lands within 2x of the run (the
    count per send alone was 5.7x low at 4,096 GPUs and 8x high at 256)."""
    from fabricstudio.sim.llm.updates import pipeline_send_updates

    sim = llm_on_rail(1024, 256)
    workload = sim.workloads[0]
    engine = sim.engine
    estimated = sim.engine_info["estimate"]["rate_updates"]
    sends = pipeline_send_updates(workload.plan, lambda a, b: engine.route(a, b)[:2],
                                  engine.capacity)
    assert estimated == sends + 2 * 2 * 4 and sends > 2 * 8 * 3 * 2 * 4  # not in lockstep
    result = sim.run()
    measured = result.engine.rate_updates
    assert estimated / 2 <= measured <= estimated * 2, (measured, estimated)
    # the predicted seconds follow the counts: every transfer is foreseen, and the prediction
    # stays within the rate-update count's error of the cost model applied to what was counted
    work = sim.engine_info["work"]
    assert result.flow_summary is not None
    assert work.transfers == result.flow_summary.flows
    counted = flow_engine_seconds(work, result.flow_summary.flows, measured)
    assert counted / 2 <= work.flow_seconds <= counted * 2, (work.flow_seconds, counted)
