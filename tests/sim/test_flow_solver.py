"""The flow engine's max-min solver against the textbook algorithm it replaced.

``textbook`` is the previous water-filling: every level recomputes the unfrozen load of every
link from every entry.  The solver now keeps that load by subtracting the flows that freeze,
and the engine solves a group of flows (a pipelined ring's hops) as one unit loading all its
members' links; both must give the textbook allocation, at every rate update of a run."""

import numpy as np
import pytest

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, build_simulation
from fabricstudio.sim.flow import allocation
from fabricstudio.sim.flow.core import FlowEngine
from fabricstudio.sim.flow.maxmin import (
    Incidence,
    _fill_incremental,
    _fill_recomputing,
    incidence,
    max_min_small,
    max_min_with_bottlenecks,
)
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric


def textbook(inc: Incidence, capacity, caps=None, groups=None):
    """Progressive filling, the load of the unfrozen flows recomputed at every level."""
    n = inc.n_flows
    rates, neck = np.zeros(n), np.full(n, -1)
    caps = np.full(n, np.inf) if caps is None else caps
    remaining = np.asarray(capacity, dtype=float).copy()
    tol = 1e-9 * np.maximum(remaining, 1.0)
    frozen = np.zeros(n, dtype=bool)
    level = 0.0
    while not frozen.all():
        active = ~frozen
        load = inc.load(active.astype(float))
        loaded = load > 0
        step = min(np.min(remaining[loaded] / load[loaded], initial=np.inf),
                   np.min(caps[active]) - level)
        if not np.isfinite(step):
            rates[active] = np.inf
            break
        level += max(step, 0.0)
        rates[active] = level
        remaining -= max(step, 0.0) * load
        full = loaded & (remaining <= tol)
        at_full = full[inc.link] & active[inc.flow]
        neck[inc.flow[at_full]] = inc.link[at_full]
        freeze = active & inc.touching(full) | active & (caps <= level * (1 + 1e-9))
        if groups is not None:
            hit = np.unique(groups[freeze & (groups >= 0)])
            freeze |= active & np.isin(groups, hit) & (groups >= 0)
        frozen |= freeze
    return rates, neck


def random_problem(rng, weighted: bool):
    n_links, n_flows = int(rng.integers(1, 30)), int(rng.integers(1, 40))
    rows = [(int(link), f, float(rng.choice([1.0, 0.5, 0.25])) if weighted else 1.0)
            for f in range(n_flows)
            for link in rng.choice(n_links, size=min(int(rng.integers(1, 5)), n_links),
                                   replace=False)]
    links, flows, weights = map(np.array, zip(*rows, strict=True))
    inc = incidence(n_links, n_flows, links, flows, weights)
    capacity = rng.choice([10.0, 25.0, 40.0, 100.0], size=n_links)
    caps = np.where(rng.random(n_flows) < 0.3, rng.choice([1.0, 5.0, 12.0], size=n_flows),
                    np.inf)
    return inc, capacity, caps


@pytest.mark.parametrize("fill", [_fill_incremental, _fill_recomputing])
def test_both_fillings_give_the_textbook_rates_and_bottlenecks(fill):
    """(The solver uses the recomputing filling below 1,000 entries, else the incremental.)"""
    rng = np.random.default_rng(7)
    for trial in range(300):
        inc, capacity, caps = random_problem(rng, weighted=trial % 2 == 1)
        groups = np.where(rng.random(inc.n_flows) < 0.5, rng.integers(0, 4, inc.n_flows), -1)
        for cap, group in ((None, None), (caps, None), (caps, groups)):
            want_rates, want_neck = textbook(inc, capacity, cap, group)
            rates, neck = fill(inc, capacity, cap, group)
            assert rates == pytest.approx(want_rates, rel=1e-12), trial
            assert (neck == want_neck).all(), trial


def test_a_group_solved_as_one_unit_gets_the_rate_of_its_members():
    """A group is one column loading its members' links with their summed weights."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        inc, capacity, caps = random_problem(rng, weighted=True)
        groups = np.where(rng.random(inc.n_flows) < 0.6, rng.integers(0, 3, inc.n_flows), -1)
        caps = np.where(groups >= 0, np.inf, caps)  # the engine gives a group one cap
        want, _ = textbook(inc, capacity, caps, groups)
        # columns: one per group, one per flow alone
        column = np.where(groups >= 0, groups, 3 + np.arange(inc.n_flows))
        ids, col = np.unique(column, return_inverse=True)
        pairs = {}
        for link, c, w in zip(inc.link, col[inc.flow], inc.weight, strict=True):
            pairs[(link, c)] = pairs.get((link, c), 0.0) + w
        (links, cols), weights = zip(*pairs, strict=True), list(pairs.values())
        units = incidence(inc.n_links, len(ids), np.array(links), np.array(cols),
                          np.array(weights))
        rates, _ = max_min_with_bottlenecks(units, capacity, caps[np.unique(col,
                                                                      return_index=True)[1]])
        assert rates[col] == pytest.approx(want, rel=1e-9)


def test_every_rate_update_of_a_run_equals_the_textbook_allocation(monkeypatch):
    """Incremental re-solves of units, checked after every update of a small run (pipeline
    sends, data-parallel rings as groups, a permutation) against the textbook algorithm
    solving every active flow with its group."""
    design = build_fabric(RailOptimizedSpec(gpus=256, technology=Technology.ROCE)).to_design()
    scenario = Scenario.model_validate({"engine": "flow", "workloads": [
        {"type": "llm_training", "model": "llama3-8b", "tp": 4, "pp": 4, "global_batch": 32},
        {"type": "permutation", "bytes": "64MiB"}]})
    checked = []
    update = FlowEngine._update

    def checked_update(engine, event):
        update(engine, event)
        act = engine._active
        if not len(act):
            return
        s = engine._slots
        rows = s.links[act]
        mask = rows >= 0
        flows = np.broadcast_to(np.arange(len(act))[:, None], rows.shape)[mask]
        local, inverse = np.unique(rows[mask], return_inverse=True)
        inc = incidence(len(local), len(act), inverse, flows, s.weights[act][mask])
        want, _ = textbook(inc, engine.capacity[local], s.cap[act], s.group[act])
        assert s.rate[act] == pytest.approx(want, rel=1e-9, abs=1e-3)
        checked.append((len(act), int((s.group[act] >= 0).sum())))

    monkeypatch.setattr(FlowEngine, "_update", checked_update)
    result = build_simulation(design, scenario).run()
    assert result.llm_training is not None and len(checked) > 20
    assert max(n for n, _ in checked) > 200  # up to 252 flows at once ...
    assert any(grouped and grouped < n for n, grouped in checked)  # rings among other flows


@pytest.mark.parametrize("weighted", [False, True])
def test_the_plain_python_solver_equals_the_array_solver_bit_for_bit(weighted):
    """``max_min_small`` (a few flows, dicts; whole-number weights kept by subtraction) gives
    exactly the floats of the array filling it stands in for: the engine's results do not
    depend on which of the two solved an update."""
    rng = np.random.default_rng(5)
    for trial in range(400):
        inc, capacity, caps = random_problem(rng, weighted=weighted)
        groups = np.where(rng.random(inc.n_flows) < 0.3, rng.integers(0, 4, inc.n_flows), -1)
        flow_links = [[] for _ in range(inc.n_flows)]
        for e in np.argsort(inc.flow, kind="stable"):
            flow_links[inc.flow[e]].append((int(inc.link[e]), float(inc.weight[e])))
        used = {link: float(capacity[link]) for pairs in flow_links for link, _ in pairs}
        for cap, group in ((None, None), (caps, None), (caps, groups)):
            want_rates, want_neck = _fill_recomputing(inc, capacity, cap, group)
            rates, neck = max_min_small(
                flow_links, used, [np.inf] * inc.n_flows if cap is None else cap.tolist(),
                [-1] * inc.n_flows if group is None else group.tolist(), integral=not weighted)
            assert np.array_equal(rates, want_rates), trial
            assert np.array_equal(neck, want_neck), trial


def _completions(monkeypatch, design, scenario, **settings):
    """Every flow's completion time, and the links' carried bytes, time overloaded and peak
    offered load, of one run with the allocation's ``settings``."""
    for name, value in settings.items():
        monkeypatch.setattr(allocation, name, value)
    done = []
    finish = FlowEngine._finish

    def recorded(engine, event):
        done.append((engine._slot_rec[event.arg].id, engine.env.now))
        finish(engine, event)

    monkeypatch.setattr(FlowEngine, "_finish", recorded)
    sim = build_simulation(design, scenario)
    sim.run()
    alloc = sim.engine.alloc
    return sorted(done), alloc._bytes.copy(), alloc._hot.copy(), alloc.peak_offered.copy()


@pytest.mark.parametrize("routing", ["ecmp", "adaptive"])
def test_element_wise_updates_give_the_array_updates_results_bit_for_bit(monkeypatch, routing):
    """Small changes and re-solves run element by element in plain Python; forcing every
    update through the array code gives the same completion times and link integrals, bit
    for bit (single-path and spread routes, pipeline sends, rings as groups, a permutation)."""
    design = build_fabric(RailOptimizedSpec(gpus=128, technology=Technology.ROCE)).to_design()
    scenario = Scenario.model_validate({"engine": "flow", "routing": routing, "workloads": [
        {"type": "llm_training", "model": "llama3-8b", "tp": 4, "pp": 4, "global_batch": 16},
        {"type": "permutation", "bytes": "16MiB"}]})
    small = _completions(monkeypatch, design, scenario)
    arrays = _completions(monkeypatch, design, scenario, SMALL=-1, SMALL_CHANGE=-1)
    assert len(small[0]) > 500
    assert small[0] == arrays[0]
    for got, want in zip(small[1:], arrays[1:], strict=True):
        assert np.array_equal(got, want)
