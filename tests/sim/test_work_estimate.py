"""The work estimate against what the engines count, and the ``auto`` engine choice it drives
(counts and the choice logic only: no timings)."""

from __future__ import annotations

import pytest

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, build_simulation
from fabricstudio.sim.hops import RouteLengths
from fabricstudio.sim.run import MAX_CELL_HOPS, check_work
from fabricstudio.sim.scenario import ScenarioError
from fabricstudio.sim.work import (
    ARRAY_S_PER_CELL_HOP,
    ARRAY_S_PER_STEP,
    AUTO_CELL_BUDGET_S,
    CELL_S_PER_CELL_HOP,
    ETHERNET_CELL_HOP_FACTOR,
    WorkEstimate,
    choose_engine,
)
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric


@pytest.fixture(scope="module")
def rail64():
    """8 servers of 8 GPUs in two scalable units: rail leaves under spines."""
    return build_fabric(RailOptimizedSpec(gpus=64, servers_per_su=4,
                                          technology=Technology.ROCE)).to_design()


@pytest.mark.parametrize("workload", [
    {"type": "all_reduce", "size_bytes": 1_000_000, "algorithm": "ring"},
    {"type": "all_to_all", "size_bytes": 1_000_000},
    {"type": "permutation", "bytes": 125_000},
], ids=["ring", "all_to_all", "permutation"])
def test_cell_hops_are_counted_from_the_routes_each_nic_takes(rail64, workload):
    """A GPU sends through its own NIC: on a rail fabric GPU 3 of one server reaches GPU 5 of
    another only through a spine (4 links), not through a leaf both servers share (2).  The
    old estimate took server-to-server distances and was 2x low for the all-to-all and the
    permutation; counted per NIC route it lands within a few per cent (a transfer's last cell
    is partly full; the all-to-all's pairs are sampled)."""
    scenario = Scenario.model_validate({"engine": "cell", "cell_bytes": 16384, "dcqcn": False,
                                        "workloads": [workload]})
    sim = build_simulation(rail64, scenario)
    estimated = sim.engine_info["estimate"]["cell_hops"]
    counted = sim.run().engine.cell_hops
    assert counted is not None
    assert counted == pytest.approx(estimated, rel=0.06), (counted, estimated)


def test_route_lengths_follow_the_nic_of_each_gpu(rail64):
    routes = RouteLengths(rail64)
    servers = sorted(d.id for d in rail64.devices.values() if d.kind == "gpu_server")
    a, b, far = servers[0], servers[1], servers[-1]
    assert routes.links(f"{a}/gpu0", f"{a}/gpu5") == 0  # NVLink
    assert routes.links(f"{a}/gpu2", f"{b}/gpu2") == 2  # one rail leaf
    assert routes.links(f"{a}/gpu2", f"{b}/gpu3") == 4  # leaf, spine, leaf
    assert routes.links(f"{a}/gpu2", f"{far}/gpu2") == 4  # the other scalable unit
    assert routes.mean([(f"{a}/gpu2", f"{b}/gpu2"), (f"{a}/gpu2", f"{b}/gpu3"),
                        (f"{a}/gpu0", f"{a}/gpu1")]) == 3.0


def estimate(cell_hops: float, rate_updates: int = 10, factor: float = 1.0,
             array_steps: int = 0, ring_arrays: bool = False) -> WorkEstimate:
    return WorkEstimate(transfers=100, fabric_transfers=100, fabric_bytes=1e9,
                        cell_hops=cell_hops, mean_hops=2.0, frames=10, links=8,
                        rate_updates=rate_updates, concurrent_entries=200,
                        cell_hop_factor=factor, array_steps=array_steps,
                        ring_arrays=ring_arrays)


def test_auto_runs_the_cell_engine_while_its_prediction_fits_the_budget_and_says_why():
    fits = AUTO_CELL_BUDGET_S / CELL_S_PER_CELL_HOP * 0.9  # cell-hops within the budget
    kind, reason = choose_engine("auto", estimate(fits))
    assert kind == "cell"
    assert reason.startswith("auto: the cell engine is predicted to take ~54 s (")
    assert "million cell-hops" in reason and "within the 60 s budget" in reason
    assert "flow level: ~" in reason  # the alternative's prediction too
    kind, reason = choose_engine("auto", estimate(fits * 1.2))
    assert kind == "flow"
    assert reason.startswith("auto: the cell engine would take ~65 s (")
    assert "over the 60 s budget: flow level instead" in reason and "10 rate updates" in reason
    assert "(1,790 cell-hops x 12 us)" in choose_engine("auto", estimate(1790))[1]


def test_lossy_ethernet_cell_hops_cost_more_so_auto_turns_to_flow_level_sooner():
    hops = AUTO_CELL_BUDGET_S / CELL_S_PER_CELL_HOP * 0.9
    assert choose_engine("auto", estimate(hops))[0] == "cell"
    assert ETHERNET_CELL_HOP_FACTOR > 1.2
    assert choose_engine("auto", estimate(hops, factor=ETHERNET_CELL_HOP_FACTOR))[0] == "flow"


@pytest.mark.parametrize("engine", ["cell", "flow"])
def test_an_engine_the_scenario_names_runs_whatever_its_prediction(engine):
    kind, reason = choose_engine(engine, estimate(1e12, rate_updates=10**9))
    assert kind == engine
    assert reason.startswith(f"{engine}: chosen by the scenario (predicted ~")


def test_the_result_and_the_cli_summary_say_why_auto_chose_and_what_it_predicted(rail64):
    from fabricstudio.cli.simulate_cmd import summary_text

    scenario = Scenario.model_validate({"workloads": [
        {"type": "all_reduce", "size_bytes": 1_000_000, "algorithm": "ring"}]})
    sim = build_simulation(rail64, scenario)
    result = sim.run()
    assert result.engine.kind == "cell" and result.engine.requested == "auto"
    assert result.engine.reason == sim.engine_info["reason"]
    assert result.engine.reason.startswith("auto: the cell engine is predicted to take ~")
    assert result.engine.estimate is not None
    assert result.engine.estimate.cell_hop_s == CELL_S_PER_CELL_HOP
    assert f"engine: {result.engine.reason}" in summary_text(result)


def test_a_ring_the_arrays_take_is_predicted_at_their_cost_and_auto_says_so():
    """The 4,096-GPU 256 MiB ring: 69.7 million cell-hops in 8,190 unit steps.  Cell by cell
    that is ~840 s (auto ran it at flow level); as ring arrays it is ~23 s, so auto runs the
    cell engine and says the arrays will be used."""
    hops, steps = 69_713_280, 8_190
    per_cell = estimate(hops, array_steps=steps)
    assert per_cell.cell_seconds > 10 * AUTO_CELL_BUDGET_S
    assert choose_engine("auto", per_cell)[0] == "flow"
    arrays = estimate(hops, array_steps=steps, ring_arrays=True)
    assert arrays.cell_seconds == pytest.approx(
        steps * ARRAY_S_PER_STEP + hops * ARRAY_S_PER_CELL_HOP + 100 * 3e-5)
    kind, reason = choose_engine("auto", arrays)
    assert kind == "cell"
    assert reason.startswith("auto: the cell engine is predicted to take ~")
    assert "69.7 million cell-hops in 8,190 unit steps, solved as ring arrays" in reason
    assert "within the 60 s budget" in reason
    # a ring too big even for the arrays goes to flow level, saying what the arrays would take
    kind, reason = choose_engine("auto", estimate(hops * 16, array_steps=steps * 4,
                                                  ring_arrays=True))
    assert kind == "flow" and "solved as ring arrays" in reason and "over the 60 s" in reason


def test_the_cell_engine_accepts_a_ring_the_arrays_take_beyond_the_cell_hop_ceiling():
    """The cell-hop ceiling stands for a run cell by cell; the arrays are held to the time
    limit by their own prediction (the 8,192-GPU ring: 279 million cell-hops)."""
    scenario = Scenario.model_validate({"workloads": [
        {"type": "all_reduce", "size_bytes": 1_000_000}]})
    hops, steps = 278_887_168, 16_382
    with pytest.raises(ScenarioError, match="too long for the cell engine"):
        check_work(estimate(hops, array_steps=steps), "cell", scenario, MAX_CELL_HOPS)
    check_work(estimate(hops, array_steps=steps, ring_arrays=True), "cell", scenario,
               MAX_CELL_HOPS)
    with pytest.raises(ScenarioError, match="too long for the cell engine"):
        check_work(estimate(hops * 16, array_steps=steps * 4, ring_arrays=True), "cell",
                   scenario, MAX_CELL_HOPS)


def test_a_ring_counts_the_unit_steps_its_arrays_would_sweep(rail64):
    """Per phase, the most units one stream sends: a flat ring's 2 (n - 1) steps times the
    units of a chunk."""
    scenario = Scenario.model_validate({"engine": "cell", "cell_bytes": 16384, "workloads": [
        {"type": "all_reduce", "size_bytes": 4 * 2**20, "algorithm": "ring"}]})
    sim = build_simulation(rail64, scenario)
    ring = sim.workloads[0]
    steps = 2 * (64 - 1)
    chunk = 4 * 2**20 // ring.channels // 64
    per_chunk = -(-chunk // ring.slice_bytes)
    assert sim.engine_info["estimate"]["array_steps"] == steps * per_chunk


def test_auto_knows_before_building_which_rings_the_arrays_take_and_says_so(rail64):
    """The arrays' pre-check (sim.workloads.ring_fit) runs before the engine is built: the
    estimate prices the ring at the arrays' cost, auto's reason says they will be used, and
    the cell engine then does use them.  Where they cannot (InfiniBand), the reason says why
    the ring runs cell by cell."""
    ring = {"type": "all_reduce", "size_bytes": 4 * 2**20, "algorithm": "ring"}
    scenario = Scenario.model_validate({"cell_bytes": 65536, "workloads": [ring]})
    sim = build_simulation(rail64, scenario)
    work = sim.engine_info["work"]
    assert work.ring_arrays and work.cell_seconds == work.array_seconds
    assert sim.engine_info["kind"] == "cell"
    assert "solved as ring arrays" in sim.engine_info["reason"]
    result = sim.run()
    assert sim.engine.ring_arrays and all(why is None for why in sim.engine.ring_arrays)
    assert result.engine.estimate is not None and result.engine.estimate.ring_arrays
    ib = build_simulation(rail64, scenario.with_changes(technology="infiniband"))
    assert not ib.engine_info["work"].ring_arrays
    assert "cell by cell: only RoCE" in ib.engine_info["reason"]
    horizon = build_simulation(rail64, scenario.with_changes(until_s=1e-3))
    assert horizon.engine_info["work"].arrays_reason == ""  # not a sealed ring: not asked


def test_a_ring_accepted_for_its_arrays_stops_if_they_decline_once_it_runs(rail64,
                                                                             monkeypatch):
    """The pre-check cannot see two events tie on one instant; if the arrays then decline,
    a ring accepted only for them (here: over a 1,000 cell-hop ceiling) stops with the reason
    instead of running cell by cell for hours.  Within the ceiling it may go on."""
    import fabricstudio.sim.workloads.collectives as collectives
    from fabricstudio.sim.engine import EngineError

    scenario = Scenario.model_validate({"cell_bytes": 65536, "engine": "cell", "workloads": [
        {"type": "all_reduce", "size_bytes": 4 * 2**20, "algorithm": "ring"}]})
    sim = build_simulation(rail64, scenario, max_cell_hops=1000)
    assert sim.engine.arrays_required and "cell by cell it would take" in \
        sim.engine.arrays_required
    sim.run()  # the arrays take it
    monkeypatch.setattr(collectives, "try_array_rings", lambda engine, runs: "a tie")
    with pytest.raises(EngineError, match=r"cannot be solved as arrays \(a tie\), and cell by"):
        build_simulation(rail64, scenario, max_cell_hops=1000).run()
    assert build_simulation(rail64, scenario).engine.arrays_required is None
