"""Failures in the cell engine: lost cells, rerouting after convergence, repairs, the twin."""

from __future__ import annotations

import json

import pytest

from fabricstudio.model import Design, FabricSettings, Link, Spine, Technology
from fabricstudio.model.failures import FailoverSettings, Failure, failed_elements
from fabricstudio.sim import ScenarioError, build_simulation, parse_scenario
from fabricstudio.sim.engine.failures import convergence_delay
from fabricstudio.sim.scenario import Scenario
from tests.sim.engine.designs import leaf, server


def two_tier(technology: Technology = Technology.ROCE) -> Design:
    """4 one-GPU servers, 2 per leaf, both leaves on both spines (100G, 30 m uplinks)."""
    design = Design("two-tier", fabric=FabricSettings(technology=technology))
    for sw in ("leaf1", "leaf2"):
        design.add_device(leaf(sw))
    for sp in ("spine1", "spine2"):
        design.add_device(Spine(id=sp, radix=16, port_speed_gbps=100.0))
    for i, sw in ((1, "leaf1"), (2, "leaf1"), (3, "leaf2"), (4, "leaf2")):
        design.add_device(server(f"h{i}"))
        design.add_link(Link(id=f"h{i}-{sw}", a=f"h{i}", b=sw, speed_gbps=100.0, length_m=3))
    for sw in ("leaf1", "leaf2"):
        for sp in ("spine1", "spine2"):
            design.add_link(Link(id=f"{sw}-{sp}", a=sw, b=sp, speed_gbps=100.0, length_m=30))
    return design


def scenario(failures: list[dict], technology: str = "roce", routing: str = "default",
             convergence: float = 2e-4, **extra) -> Scenario:
    body = {"seed": 1, "technology": technology, "routing": routing,
            "flows": [{"src": "h1", "dst": "h3", "bytes": "4MiB"},
                      {"src": "h2", "dst": "h4", "bytes": "4MiB"}],
            "failures": failures,
            "failover": {"routing_convergence_s": convergence, "sm_resweep_s": convergence,
                         "ib_shield": False}}
    body.update(extra)
    return Scenario.model_validate(body)


def conserved(result) -> bool:
    t = result.totals
    return t.offered_bytes == t.delivered_bytes + t.dropped_bytes + t.in_flight_bytes


SPINE1_DOWN = [{"at_s": 5e-5, "device": "spine1"}]


@pytest.mark.parametrize("technology", ["roce", "infiniband"])
def test_cells_on_a_dead_switch_are_lost_even_on_lossless_fabrics(technology):
    result = build_simulation(two_tier(), scenario(SPINE1_DOWN, technology)).run()
    found = result.failures
    assert found.packets_lost > 0 and found.cells_lost > 0
    assert result.totals.drops >= found.packets_lost
    assert result.totals.lossless_violations == 0  # a cut cable is not a PFC/credit bug
    assert result.finished, "transports recover the lost cells after the reroute"
    assert conserved(result)
    assert [e.event for e in found.events] == ["fail", "reroute"]
    assert found.events[1].at_s == pytest.approx(5e-5 + 2e-4)


def test_after_convergence_no_traffic_crosses_the_dead_switch():
    sim = build_simulation(two_tier(), scenario(SPINE1_DOWN, convergence=1e-4))
    sim.run()
    stream = sim.stream
    keys = [i for i, link in enumerate(stream.links) if "spine1" in (link.src, link.dst)]
    util = stream.link_series("utilisation")
    times = stream.times
    after = [k for k, t in enumerate(times) if t > 5e-5 + 1e-4 + stream.sample_period_s]
    assert after and all(util[k, i] == 0 for k in after for i in keys)
    spine2 = [i for i, link in enumerate(stream.links) if link.src == "spine2"]
    assert max(util[k, i] for k in after for i in spine2) > 0.5  # rerouted traffic


def test_flows_into_a_dead_element_wait_for_the_repair():
    failures = [{"at_s": 0.0, "link": "h3-leaf2", "repair_s": 2e-3}]
    result = build_simulation(two_tier(), scenario(failures)).run()
    h1_h3 = result.flows[0]
    assert h1_h3.finish_s > 2e-3  # nothing reaches h3 before its cable is back
    assert result.flows[1].finish_s < 1.5e-3  # h2 -> h4 goes on (sharing uplinks with h1)
    assert result.failures.unroutable_routes >= 1


def test_no_repair_leaves_the_run_unfinished():
    failures = [{"at_s": 0.0, "link": "h3-leaf2"}]
    result = build_simulation(two_tier(), scenario(failures, until_s=2e-3)).run()
    assert not result.finished
    assert result.failures.with_failures.finished is False
    assert result.failures.without_failures.finished is True


def test_adaptive_routing_reroutes_at_once_and_ib_waits_for_the_subnet_manager():
    settings = FailoverSettings(routing_convergence_s=0.05, sm_resweep_s=0.7, ib_shield=False)
    assert convergence_delay(Technology.ROCE, "adaptive", settings) == 0
    assert convergence_delay(Technology.ROCE, "ecmp", settings) == 0.05
    assert convergence_delay(Technology.INFINIBAND, "static", settings) == 0.7
    shield = settings.model_copy(update={"ib_shield": True})
    assert convergence_delay(Technology.INFINIBAND, "static", shield) == 0
    assert convergence_delay(Technology.INFINIBAND, "static", shield, repair=True) == 0.7
    result = build_simulation(two_tier(), scenario(SPINE1_DOWN, routing="adaptive")).run()
    fail, reroute = result.failures.events[:2]
    assert reroute.event == "reroute" and reroute.at_s == fail.at_s


def test_collective_waits_for_its_slowest_rank_and_the_twin_prices_it():
    failures = [{"at_s": 1e-4, "link": "h2-leaf1", "repair_s": 1.5e-3}]
    body = {"workloads": [{"type": "all_reduce", "size_bytes": "4MiB"}], "flows": []}
    result = build_simulation(two_tier(), scenario(failures, **body)).run()
    found = result.failures
    assert result.collective.time_s > 1.5e-3 - 1e-4  # the ring waited for h2's repair
    assert found.without_failures.collective_time_s < 1e-3
    assert found.cost.collective_time_s == pytest.approx(
        found.with_failures.collective_time_s - found.without_failures.collective_time_s)
    assert found.cost.slowdown > 1.5


def test_training_failure_cost_reports_step_time_and_gpu_utilisation():
    failures = [{"at_s": 1.1e-3, "link": "h2-leaf1", "repair_s": 1.6e-3}]
    body = {"workloads": [{"type": "training", "gradient_bytes": "4MiB", "compute_s": 1e-3,
                           "iterations": 2}], "flows": []}
    result = build_simulation(two_tier(), scenario(failures, **body)).run()
    found = result.failures
    clean = build_simulation(two_tier(), scenario([], **body)).run()
    assert found.without_failures.step_time_s == clean.training.step_time_s
    assert found.without_failures.gpu_utilisation == pytest.approx(
        clean.training.gpu_utilisation)
    assert found.cost.step_time_s > 0 and found.cost.gpu_utilisation < 0
    assert found.with_failures.gpu_utilisation == pytest.approx(
        result.training.gpu_utilisation)


def test_failure_runs_are_deterministic():
    runs = [build_simulation(two_tier(), scenario(SPINE1_DOWN)).run().to_json(timing=False)
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert json.loads(runs[0])["failures"]["failures"] == ["device spine1 at 50 us"]


def test_scenario_refuses_failures_the_design_does_not_have():
    with pytest.raises(ScenarioError, match="no link 'nope'"):
        build_simulation(two_tier(), scenario([{"link": "nope"}]))
    with pytest.raises(ScenarioError, match="no GPU server has a connected compute NIC 5"):
        build_simulation(two_tier(), scenario([{"rail": 5}]))


@pytest.mark.parametrize("failure, message", [
    ({"link": "a", "device": "b"}, "exactly one"),
    ({}, "exactly one"),
    ({"link": "a", "at_s": 0.002, "repair_s": 0.001}, "must be after at_s"),
    ({"link": "a", "at_s": -1}, "greater than or equal"),
    ({"rail": 10**9}, "less than or equal"),
    ({"rail": True}, "boolean"),
    ({"link": "a", "at_s": "soon"}, "at_s"),
    ({"link": "a b"}, "link"),
    ({"link": "a", "when": 1}, "Extra inputs"),
])
def test_hostile_failure_entries_are_refused_with_a_message(failure, message):
    text = json.dumps({"format": "fabricstudio-scenario", "version": 1,
                       "flows": [{"src": "h1", "dst": "h3", "bytes": 1000}],
                       "failures": [failure]})
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text)


def test_rail_failure_takes_the_rail_leaves_or_the_rail_cables():
    from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric

    rail = build_fabric(RailOptimizedSpec(gpus=64, servers_per_su=4)).to_design()
    down = failed_elements(rail, [Failure(rail=3)])
    assert down.devices == {"leaf4", "leaf12"}  # rail 3 of both scalable units
    assert not down.links
    for leaf_id in down.devices:
        ports = {link.port_at(link.other_end(leaf_id)) for link in rail.links_of(leaf_id)
                 if rail.devices[link.other_end(leaf_id)].kind == "gpu_server"}
        assert ports == {3}
    tor = Design("tor")
    tor.add_device(leaf("tor1"))
    for i in (1, 2):
        tor.add_device(server(f"h{i}", nics=2, gpus=2))
        for nic in (0, 1):
            tor.add_link(Link(id=f"h{i}-n{nic}", a=f"h{i}", b="tor1", a_port=nic,
                              speed_gbps=100.0))
    down = failed_elements(tor, [Failure(rail=1)])
    assert not down.devices and down.links == {"h1-n1", "h2-n1"}  # a shared top-of-rack


def test_flow_engine_stops_flows_through_a_dead_element_and_moves_them_at_the_reroute():
    failures = [{"at_s": 1e-4, "device": "spine1"}]
    body = {"engine": "flow", "workloads": [{"type": "all_to_all", "size_bytes": "8MiB"}],
            "flows": []}
    result = build_simulation(two_tier(), scenario(failures, convergence=5e-4, **body)).run()
    found = result.failures
    assert result.finished
    assert [e.event for e in found.events] == ["fail", "reroute"]
    assert found.flows_rerouted > 0 and found.bytes_lost > 0
    assert found.cost.completion_time_s > 0
    # the flows through spine1 stood still for the 0.5 ms of convergence
    assert found.cost.completion_time_s > 2e-4


def test_flow_engine_waits_for_a_repaired_nic_cable():
    failures = [{"at_s": 1e-4, "link": "h3-leaf2", "repair_s": 3e-3}]
    result = build_simulation(two_tier(), scenario(failures, engine="flow")).run()
    assert result.flows[0].finish_s > 3e-3  # h1 -> h3 waited for the cable
    assert result.flows[1].finish_s < 1e-3  # h2 -> h4 ran on


def test_a_flow_level_run_whose_flow_lost_its_only_path_ends_as_a_stall():
    """No horizon, a NIC cable down for good: h1 -> h3 can never finish.  The flow-level run
    goes on past its frames while anything can happen, then ends and says why."""
    failures = [{"at_s": 1e-4, "link": "h3-leaf2"}]
    sim = build_simulation(two_tier(), scenario(failures, engine="flow"))
    result = sim.run()
    assert sim.stalled and not result.finished
    assert result.flows[1].finish_s < 1e-3  # h2 -> h4 ran on
    assert any("unfinished" in w and "a stall: nothing left could move" in w
               for w in result.warnings)


@pytest.mark.parametrize("engine", ["cell", "flow"])
def test_an_element_down_from_time_0_failed_before_the_run(engine):
    """``at_s`` 0 (the designer's marks, ``simulate --fail`` without ``--fail-at``): the
    routes avoid it from the start, even with a long convergence time, so nothing is lost."""
    failures = [{"at_s": 0.0, "device": "spine1"}]
    result = build_simulation(two_tier(), scenario(failures, convergence=0.5,
                                                   engine=engine)).run()
    found = result.failures
    assert [(e.event, e.at_s) for e in found.events[:2]] == [("fail", 0.0), ("reroute", 0.0)]
    assert found.packets_lost == 0 and result.totals.drops == 0
    assert result.finished and result.completion_time_s < 0.01  # not after the 0.5 s


def test_cells_past_the_fork_of_a_reroute_keep_their_old_path(monkeypatch):
    """Flows move off spine1 when its cable to leaf2 fails and back at the repair, while cells
    are between switches: those cells keep their old path through a stand-in that is the flow
    in all but its path."""
    from fabricstudio.sim.engine import failures
    from fabricstudio.sim.engine.flows import Flow

    seen = []
    real_init = failures._OldRoute.__init__

    def spy(self, flow, path):
        real_init(self, flow, path)
        seen.append((isinstance(self, Flow), self.path == path, flow.path != path,
                     self.rec is flow.rec, self.on_drop.__self__ is flow))

    monkeypatch.setattr(failures._OldRoute, "__init__", spy)
    cut = [{"at_s": 5e-5, "link": "leaf2-spine1", "repair_s": 1.5e-4}]
    result = build_simulation(two_tier(), scenario(cut, convergence=1e-5)).run()
    assert seen, "the reroutes found cells past the fork"
    # a Flow to the engine; its own path is the old one, the flow's the new one; everything
    # else (records, methods) is the flow's own
    assert all(all(facts) for facts in seen)
    assert result.finished and conserved(result)
    assert result.failures.flows_rerouted == 4  # moved off spine1, then back
