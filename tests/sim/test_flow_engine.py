"""The flow-level engine: max-min fair rates, the cell engine's routes, agreement with the cell
engine on collectives and on ECMP collisions, hotspots, and engine choice by work estimate."""

from pathlib import Path

import numpy as np
import pytest

from fabricstudio.formats import load_design
from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, ScenarioError, build_simulation, run_simulation
from fabricstudio.sim.engine import Engine, EngineConfig
from fabricstudio.sim.flow import FlowEngine, max_min_rates
from fabricstudio.sim.flow.maxmin import incidence
from fabricstudio.sim.workloads.nccl_model import Topology, choose
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from tests.sim.engine.designs import star, victim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
DEMO = EXAMPLES / "demo-rail64.design.json"


def matrix(n_links, rows):
    """Incidence from rows = [(link, flow, weight)]."""
    links, flows, weights = zip(*rows, strict=True)
    return incidence(n_links, max(flows) + 1, np.array(links), np.array(flows),
                     np.array(weights, dtype=float))


# ------------------------------------------------------------------ max-min fairness
def test_progressive_filling_gives_the_textbook_max_min_allocation():
    # parking lot: long flow 0 over links 0 and 1, flow 1 on link 0, flows 2 and 3 on link 1
    m = matrix(2, [(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 2, 1), (1, 3, 1)])
    rates = max_min_rates(m, np.array([10.0, 6.0]))
    assert rates == pytest.approx([2.0, 8.0, 2.0, 2.0])


def test_caps_weights_and_groups():
    m = matrix(2, [(0, 0, 1), (0, 1, 1), (1, 1, 1), (1, 2, 1)])
    assert max_min_rates(m, np.array([10.0, 4.0])) == pytest.approx([8, 2, 2])
    # a capped flow leaves the rest to the others
    assert max_min_rates(m, np.array([10.0, 4.0]), caps=np.array([1, np.inf, np.inf])) == \
        pytest.approx([1, 2, 2])
    # flows 0 and 2 in one group run at one rate although flow 0 could have more
    assert max_min_rates(m, np.array([10.0, 4.0]), groups=np.array([0, -1, 0])) == \
        pytest.approx([2, 2, 2])
    # a flow spread half and half over two links (adaptive routing)
    spread = matrix(2, [(0, 0, 0.5), (1, 0, 0.5), (0, 1, 1)])
    assert max_min_rates(spread, np.array([10.0, 10.0])) == pytest.approx([20 / 3, 20 / 3])


def test_every_link_is_within_capacity_and_every_flow_has_a_bottleneck():
    rng = np.random.default_rng(3)
    n_links, n_flows = 30, 200
    rows = [(int(link), f, 1.0) for f in range(n_flows)
            for link in rng.choice(n_links, size=rng.integers(1, 5), replace=False)]
    m = matrix(n_links, rows)
    capacity = rng.uniform(1, 10, n_links)
    rates = max_min_rates(m, capacity)
    load = m.load(rates)
    assert (load <= capacity * (1 + 1e-9)).all()
    full = load >= capacity * (1 - 1e-9)
    on = {ln: [f for ll, f, _ in rows if ll == ln] for ln in range(n_links)}
    for f in range(n_flows):  # bottleneck: a full link where f has the largest rate
        links = [ln for ln, ff, _ in rows if ff == f]
        assert any(full[ln] and rates[f] >= max(rates[on[ln]]) * (1 - 1e-9) for ln in links)


# ------------------------------------------------------------------ engine basics
def test_flows_share_links_max_min_and_end_one_path_delay_after_their_last_byte():
    eng = FlowEngine(star(["h1", "h2", "h3"]), EngineConfig())
    done = {}
    for src, dst, size in (("h1", "h3", 10e6), ("h2", "h3", 10e6), ("h1", "h2", 5e6)):
        eng.add_flow(src, dst, size, on_done=lambda r: done.setdefault(r.dst + r.src, r.finish_s))
    eng.advance(0.01)
    goodput = 100e9 / 8 * 4096 / (4096 + eng.fabric.wire_overhead_bytes())
    delay = eng.route("h1", "h3")[2]
    # h1 > h2 gets half of h1's NIC, the two into h3 half of h3's link each
    assert done["h2h1"] == pytest.approx(5e6 / (goodput / 2) + delay, rel=1e-6)
    assert done["h3h1"] == pytest.approx(20e6 / goodput + delay, rel=1e-6)
    totals = eng.totals()
    assert totals["delivered_bytes"] == totals["offered_bytes"] == 25_000_000
    assert totals["pfc_pauses"] == totals["drops"] == totals["ecn_marks"] == 0
    assert [ln["utilisation"] for ln in eng.link_stats()] == pytest.approx(
        [s["utilisation"] for s in eng.link_stats()], abs=0)


@pytest.mark.parametrize("routing", ["ecmp", "static"])
def test_the_flow_engine_takes_the_cell_engines_paths(routing):
    design = load_design(DEMO)
    cell = Engine(design, EngineConfig(routing=routing))
    flow = FlowEngine(design, EngineConfig(routing=routing))
    assert [ln.key for ln in flow.stream.links] == [ln.key for ln in cell.stream.links]
    pairs = [(f"server{a}/gpu{g}", f"server{b}/gpu{g}", qp)
             for a, b, g, qp in ((1, 2, 0, 0), (1, 5, 3, 1), (8, 2, 7, 2), (4, 6, 1, 5))]
    for src, dst, qp in pairs:
        sep = cell._endpoint(src, *cell.resolve(src)[:2])
        dep = cell._endpoint(dst, *cell.resolve(dst)[:2])
        path, delay = cell._route(sep, dep, qp)
        links, weights, fdelay = flow.route(src, dst, qp)
        assert [p.index for p in path] == list(links) and (weights == 1).all()
        assert fdelay == pytest.approx(delay)


def test_adaptive_routing_spreads_a_flow_over_all_minimal_paths():
    flow = FlowEngine(load_design(DEMO), EngineConfig(routing="adaptive"))
    links, weights, _ = flow.route("server1/gpu0", "server2/gpu1")
    by_link = dict(zip(links.tolist(), weights.tolist(), strict=True))
    ups = [w for i, w in by_link.items() if flow.links[i].src == "leaf1"]
    uplinks = [ln for ln in flow.links if ln.src == "leaf1" and ln.dst.startswith("spine")]
    assert len(ups) == len(uplinks) > 1 and ups == pytest.approx([1 / len(ups)] * len(ups))
    assert sum(w for i, w in by_link.items() if flow.links[i].dst == "server2") == 1


# ------------------------------------------------------------------ agreement with cells
def both(design, workload, **fields):
    results = {}
    for engine in ("cell", "flow"):
        s = Scenario.model_validate({"engine": engine, "workloads": [workload], **fields})
        results[engine] = run_simulation(design, s)
    return results


def test_a_congestion_free_ring_all_reduce_agrees_within_5_percent():
    r = both(load_design(DEMO), {"type": "all_reduce", "size_bytes": "64MiB",
                                 "algorithm": "ring"}, cell_bytes=65536)
    cell, flow = (r[e].collective.time_s for e in ("cell", "flow"))
    assert flow == pytest.approx(cell, rel=0.05)
    assert r["flow"].engine.kind == "flow" and r["flow"].hotspots.count == 0
    assert r["flow"].totals.pfc_pauses == 0 and "PFC pauses" in r["flow"].engine.not_modelled


def test_a_permutation_with_ecmp_collisions_agrees_within_15_percent():
    r = both(load_design(DEMO), {"type": "permutation", "bytes": "8MiB"}, cell_bytes=65536,
             technology="roce", dcqcn=False)
    assert r["flow"].hotspots.count > 0  # hash collisions on leaf-spine links
    cell, flow = (r[e].completion_time_s for e in ("cell", "flow"))
    assert flow == pytest.approx(cell, rel=0.15)
    ideal = 8 * 2**20 * 8 / 400e9
    assert cell > 1.5 * ideal  # the collisions cost both engines


def test_an_incast_is_a_hotspot_and_the_victim_keeps_its_fair_share_at_flow_level():
    eng = FlowEngine(victim(Technology.ROCE), EngineConfig())
    ids = [eng.add_flow(s, d, 1e12) for s, d in
           (("a", "r"), ("b1", "r"), ("b2", "r"), ("b3", "r"), ("v", "w"))]
    eng.advance(1e-3)
    hot = eng.hotspots()
    assert hot["count"] >= 1 and hot["links"][0]["to"] == "r"
    assert hot["links"][0]["peak_offered"] == pytest.approx(4.0)
    del ids  # (the cell engine's PFC gives V a quarter; max-min gives it 3/4: not modelled)
    stats = {(ln["from"], ln["to"]): ln for ln in eng.link_stats(0.5e-3)}
    assert stats[("s2", "r")]["utilisation"] == pytest.approx(1.0, rel=1e-3)
    assert stats[("s1", "s2")]["utilisation"] == pytest.approx(1.0, rel=1e-3)


# ------------------------------------------------------------------ engine choice and limits
def test_results_say_which_engine_ran_and_why():
    result = run_simulation(star(["h1", "h2"]), Scenario.model_validate(
        {"engine": "flow", "flows": [{"src": "h1", "dst": "h2", "bytes": "1MiB"}]}))
    assert result.run.engine == "flow" and result.run.cell_bytes is None
    assert result.engine.reason.startswith("flow: chosen by the scenario (predicted ~")
    assert any("not modelled" in w for w in result.warnings)
    assert result.flow_summary.finished == 1
    assert result.model_validate_json(result.to_json()) == result


def big_rail(gpus):
    return build_fabric(RailOptimizedSpec(gpus=gpus, technology=Technology.ROCE)).to_design()


def test_an_all_to_all_on_thousands_of_gpus_is_refused_before_any_pair_is_built():
    design = big_rail(4096)
    s = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "all_to_all", "size_bytes": "1GiB"}]})
    with pytest.raises(ScenarioError, match=r"too big even for the flow engine: 16,773,120 "):
        build_simulation(design, s)


def test_auto_algorithm_follows_nccls_model_and_says_why():
    def topo(gpus):
        return Topology(ranks=gpus, nodes=gpus // 8, channels=8, inter_gbytes=49, intra_gbytes=56)
    small, why = choose("all_reduce", 256 * 2**20, topo(64), ("ring", "tree"))
    big, why_big = choose("all_reduce", 256 * 2**20, topo(4096), ("ring", "tree"))
    assert (small, big) == ("ring", "tree")
    assert "tuning.cc" in why and "tree" in why_big and "ms" in why_big


def test_incremental_rate_updates_give_the_full_re_solve_allocation():
    """The flow engine re-solves only the flows a change can reach; the iteration time and
    every flow's finish must equal a full re-solve at every update."""
    design = big_rail(256)
    s = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "llm_training", "model": "llama3-8b", "tp": 4, "pp": 4, "global_batch": 32},
        {"type": "permutation", "bytes": "64MiB"}]})
    runs = []
    for exact in (False, True):
        sim = build_simulation(design, s)
        sim.engine.alloc.exact = exact
        result = sim.run()
        runs.append((result.llm_training.iteration_time_s, result.completion_time_s,
                     [f.finish_s for f in result.flows]))
    assert runs[0][0] == pytest.approx(runs[1][0], rel=1e-9)
    assert runs[0][1] == pytest.approx(runs[1][1], rel=1e-9)
    assert runs[0][2] == pytest.approx(runs[1][2], rel=1e-9)


def test_link_utilisation_and_frames_read_the_frames_as_the_plain_formulas_do():
    """link_stats sums the utilisation frames row by row (no frames x links float64 copy)
    and frames list flows from arrays; both give exactly the floats of the plain formulas:
    sum over frames of utilisation x overlap, and per active flow size - remaining."""
    design = build_fabric(RailOptimizedSpec(gpus=64, technology=Technology.ROCE)).to_design()
    scenario = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "permutation", "bytes": "8MiB"}, {"type": "all_to_all", "size_bytes": "1MiB"}]})
    sim = build_simulation(design, scenario)
    sim.run()
    engine = sim.engine
    assert isinstance(engine, FlowEngine)
    stream = engine.stream
    times = np.asarray(stream.times)
    start = float(times[len(times) // 3])
    begins = np.concatenate(([0.0], times[:-1]))
    overlap = np.clip(times - np.maximum(begins, start), 0.0, None)
    util = stream.link_series("utilisation").astype(np.float64)
    assert len(times) > 10 and util.max() > 0.5
    want = (util * overlap[:, None]).sum(axis=0)
    assert np.array_equal(engine._busy(overlap), want)
    listed = [stream.flow_frame(i) for i in range(len(times))]
    assert any(len(ids) > 1 and (flows["rate_gbps"] > 0).any() for _t, ids, flows in listed)
    for _t, ids, flows in listed:
        assert list(ids) == sorted(ids)
        assert flows["delivered_bytes"].dtype == np.float64
        assert flows["rate_gbps"].dtype == np.float32
