"""build_simulation / Simulation / run_simulation on the real engine: determinism, slicing,
statistics window, every workload type, and refusal of bad scenarios before the run."""

import json

import pytest

from fabricstudio.model import Design, GpuServer, Leaf, Link, Plane, StorageServer
from fabricstudio.sim import Scenario, ScenarioError, build_simulation, run_simulation

FLOW = {"src": "h1", "dst": "h2", "bytes": 1e12}


def star(hosts=("h1", "h2", "h3")):
    design = Design("star")
    design.add_device(Leaf(id="s1", radix=16, port_speed_gbps=100))
    for h in hosts:
        design.add_device(GpuServer(id=h, gpus=1, nics=1, nic_speed_gbps=100, mgmt_ports=0))
        design.add_link(Link(id=f"{h}-s1", a=h, b="s1", speed_gbps=100))
    return design


def cluster():
    """Two 2-GPU servers with 2 rails and a storage network with one storage server."""
    design = Design("cluster")
    design.add_device(Leaf(id="leaf", radix=16, port_speed_gbps=100))
    design.add_device(Leaf(id="sleaf", radix=16, port_speed_gbps=100, planes=(Plane.STORAGE,)))
    for i in range(2):
        design.add_device(GpuServer(id=f"g{i}", gpus=2, nics=2, nic_speed_gbps=100,
                                    storage_nics=1, storage_nic_speed_gbps=100, mgmt_ports=0,
                                    planes=(Plane.COMPUTE, Plane.STORAGE)))
        for n in range(2):
            design.add_link(Link(id=f"g{i}n{n}", a=f"g{i}", b="leaf", a_port=n, speed_gbps=100))
        design.add_link(Link(id=f"g{i}s", a=f"g{i}", b="sleaf", plane=Plane.STORAGE,
                             speed_gbps=100))
    design.add_device(StorageServer(id="st", storage_nics=1, storage_nic_speed_gbps=100,
                                    mgmt_ports=0))
    design.add_link(Link(id="sts", a="st", b="sleaf", plane=Plane.STORAGE, speed_gbps=100))
    return design


def scenario(**fields):
    return Scenario.model_validate(fields)


def test_same_inputs_and_seed_give_byte_identical_json():
    s = scenario(until_s=0.0005, seed=3, workloads=[
        {"type": "permutation", "bytes": "2MiB"}, {"type": "all_to_all", "size_bytes": "1MiB"}])
    first = run_simulation(cluster(), s).to_json(timing=False)
    second = run_simulation(cluster(), s).to_json(timing=False)
    assert first == second
    engine = json.loads(first)["engine"]
    assert engine["wall_time_s"] is None and engine["events_per_s"] is None
    assert engine["events"] > 0


def test_advancing_in_slices_gives_the_same_result_as_one_run():
    s = scenario(until_s=0.0004, measure_from_s=0.0001, flows=[FLOW])
    whole = run_simulation(star(), s).to_json(timing=False)
    sim = build_simulation(star(), s)
    seen = []
    while not sim.finished:
        sim.advance(sim.now + 0.00003)
        seen.append(sim.progress)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) > 10
    assert sim.result().to_json(timing=False) == whole
    assert len(sim.stream) > 10


def test_a_run_without_horizon_ends_at_the_same_time_whatever_the_caller_s_steps():
    """The GUI advances in adaptive steps, the CLI in slices: same end, frames and Result."""
    s = scenario(measure_from_s=0.00002, workloads=[
        {"type": "all_reduce", "ranks": ["h1/gpu0", "h2/gpu0", "h3/gpu0"], "size_bytes": "1MiB"}])
    whole = build_simulation(star(), s)
    expected = whole.run().to_json(timing=False)
    for step in (0.7e-6, 13e-6, 1.0):
        sim = build_simulation(star(), s)
        while not sim.finished:
            sim.advance(sim.now + step)
        assert sim.result().to_json(timing=False) == expected
        assert list(sim.stream.times) == list(whole.stream.times)


def test_the_statistics_window_excludes_the_ramp_up():
    # PFC alone shares the port at once (DCQCN takes milliseconds to converge)
    s = scenario(until_s=0.0004, measure_from_s=0.0002, technology="roce", dcqcn=False,
                 flows=[FLOW, {"src": "h3", "dst": "h2", "bytes": 1e12, "start_s": 0.0001}])
    result = run_simulation(star(), s)
    late = result.flows[1]
    # h3 joins at 0.1 ms: over the window (from 0.2 ms) both share the h2 port fairly
    assert late.throughput_gbps == pytest.approx(result.flows[0].throughput_gbps, rel=0.1)
    assert result.completion_time_s is None and not result.finished
    assert any("unfinished" in w for w in result.warnings)


def test_open_horizon_runs_until_the_traffic_completes():
    s = scenario(workloads=[{"type": "all_reduce", "ranks": ["h1/gpu0", "h2/gpu0", "h3/gpu0"],
                             "size_bytes": "3MiB"}],
                 flows=[{"src": "h1", "dst": "h2", "bytes": "1MiB"}])
    seen = []
    result = run_simulation(star(), s, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0 and 0 < seen[len(seen) // 2] < 1
    assert result.finished and result.flows[0].delivered_bytes == 2**20
    assert result.completion_time_s == max(f.finish_s for f in result.flows)
    assert result.end_s >= result.completion_time_s


def test_open_horizon_outlasts_a_long_retransmission_timeout():
    """No safety cap: a lossy incast whose tail waits for a 100 ms RTO (far beyond 50 x the
    1.6 ms estimate that used to end the run) still completes (classic TCP: NewReno, whose
    incast ends in timeouts; SACK with RACK-TLP repairs this one without)."""
    design = star(("h1", "h2", "h3", "h4", "r"))
    design.replace_device(Leaf(id="s1", radix=16, port_speed_gbps=100, buffer_bytes=300_000))
    s = scenario(technology="ethernet", transport="newreno", sample_period_s=1e-4,
                 fabric={"tcp": {"min_rto_us": 100_000}},
                 flows=[{"src": h, "dst": "r", "bytes": "500kB"} for h in ("h1", "h2", "h3", "h4")
                        for _ in range(8)])
    sim = build_simulation(design, s)
    assert sim.stop_s == float("inf")
    result = sim.run()
    assert result.finished and result.totals.timeouts > 0
    assert result.completion_time_s > 0.1 > 50 * sim.estimate_s
    assert not result.totals.deadlock.detected


def test_an_open_horizon_needs_deadlock_detection():
    with pytest.raises(ValueError, match="needs deadlock detection"):
        scenario(deadlock_after_s=None, flows=[FLOW])
    assert scenario(deadlock_after_s=None, until_s=0.001, flows=[FLOW]).deadlock_after_s is None


@pytest.mark.parametrize("workload", [
    {"type": "all_reduce", "size_bytes": "2MiB"},
    {"type": "all_gather", "size_bytes": "2MiB"},
    {"type": "reduce_scatter", "size_bytes": "2MiB", "algorithm": "hierarchical"},
    {"type": "all_to_all", "size_bytes": "1MiB"},
    {"type": "incast", "senders": ["g0/gpu0", "g0/gpu1", "g1/gpu1"], "receiver": "g1/gpu0",
     "bytes": "1MiB"},
    {"type": "permutation", "bytes": "1MiB"},
    {"type": "storage_read", "bytes": "1MiB"},
    {"type": "storage_write", "bytes": "1MiB"},
    {"type": "training", "gradient_bytes": "2MiB", "compute_s": 0.0002, "overlap": 0.5},
])
def test_every_workload_runs_to_completion_on_the_engine(workload):
    result = run_simulation(cluster(), scenario(workloads=[workload]))
    assert result.finished
    assert all(f.delivered_bytes == f.bytes for f in result.flows)
    t = result.totals
    assert t.offered_bytes == t.delivered_bytes + t.dropped_bytes + t.in_flight_bytes
    if workload["type"].startswith("storage"):
        used = {(ln.src, ln.dst) for ln in result.links if ln.utilisation > 0}
        assert used and all("sleaf" in pair for pair in used)  # the storage network only


def test_flat_ring_uses_every_rail():
    result = run_simulation(cluster(), scenario(workloads=[
        {"type": "all_reduce", "size_bytes": "8MiB", "algorithm": "ring"}]))
    c = result.collective
    assert c.algorithm == "ring" and c.channels == 2
    for link in ("g0n0", "g0n1", "g1n0", "g1n1"):
        assert any(ln.id == link and ln.utilisation > 0.3 for ln in result.links)
    # NCCL's flat ring is bounded by the servers' two NICs: busbw <= 2 x 100 Gb/s
    assert c.busbw_gbps <= 200


@pytest.mark.parametrize("fields, fragment", [
    ({"flows": [{"src": "h1", "dst": "ghost", "bytes": 10}]}, "no device 'ghost'"),
    ({"flows": [{"src": "h1", "dst": "s1", "bytes": 10}]}, "is a switch"),
    ({"flows": [{"src": "h1/gpu1", "dst": "h2", "bytes": 10}]}, "has 1 GPUs"),
    ({"flows": [{"src": "h1", "dst": "island", "bytes": 10}]}, "no path from h1 to island"),
    ({"engine": "cell", "flows": [{"src": "h1", "dst": "h2", "bytes": 1e13}]},
     "too long for the cell engine"),
    ({"engine": "cell", "until_s": 100.0, "flows": [FLOW]}, "shorter horizon"),
    ({"workloads": [{"type": "incast", "senders": ["h1"], "receiver": "h1", "bytes": 5}]},
     "also a sender"),
    ({"workloads": [{"type": "storage_read", "bytes": 5}]}, "no storage server"),
    ({"workloads": [{"type": "all_reduce", "ranks": ["h1/gpu0", "h1/gpu0"], "size_bytes": 5}]},
     "listed twice"),
])
def test_bad_scenarios_are_refused_before_the_run(fields, fragment):
    design = star()
    design.add_device(GpuServer(id="island", gpus=1, nics=1, mgmt_ports=0))
    with pytest.raises(ScenarioError, match=fragment):
        build_simulation(design, scenario(**fields))


def test_the_work_limit_suggests_bigger_cells_and_can_be_lifted():
    s = scenario(engine="cell", until_s=100.0, flows=[FLOW])
    with pytest.raises(ScenarioError, match=r"flow engine .* bigger cells \(cell_bytes \d+\)"):
        build_simulation(star(), s)
    assert build_simulation(star(), s, max_cell_hops=None).now == 0


def test_auto_runs_what_the_cell_engine_cannot_at_flow_level_and_says_why():
    sim = build_simulation(star(), scenario(until_s=100.0, flows=[FLOW]))
    assert sim.engine_kind == "flow" and "cell engine would take" in sim.engine_info["reason"]
    small = build_simulation(star(), scenario(until_s=1e-4, flows=[FLOW]))
    assert small.engine_kind == "cell" and small.engine_info["estimate"]["cell_hops"] > 0


def test_the_design_is_frozen_at_build_time():
    design = star()
    sim = build_simulation(design, scenario(until_s=0.0001, flows=[FLOW]))
    design.remove_link("h3-s1")
    design.remove_device("h3")
    sim.advance(0.0001)
    assert "h3" in sim.design.devices and sim.finished


def test_fabric_overrides_reach_the_engine():
    s = scenario(until_s=0.0001, technology="infiniband", dcqcn=False, routing="static",
                 cell_bytes="4KiB", fabric={"mtu_bytes": 2048}, flows=[FLOW])
    result = run_simulation(star(), s)
    assert result.run.technology == "infiniband" and result.run.routing == "static"
    assert result.run.cell_bytes == 4096 and result.engine.cell_bytes == 4096


def test_a_window_opening_after_the_traffic_is_reported():
    s = scenario(measure_from_s=0.5, flows=[{"src": "h1", "dst": "h2", "bytes": "1MiB"}])
    result = run_simulation(star(), s)
    assert result.finished and all(link.utilisation == 0 for link in result.links)
    assert result.flows[0].throughput_gbps > 90  # over its lifetime
    assert any("before the statistics window" in w for w in result.warnings)


def test_the_garbage_collector_is_paused_only_while_a_headless_run_owns_the_process():
    import gc

    s = scenario(until_s=0.0002, flows=[FLOW])
    sim = build_simulation(star(), s)
    sim.advance(0.0001)  # the GUI's thread worker advances like this: collector untouched
    assert gc.isenabled()
    seen = []
    sim.run(progress=lambda _f: seen.append(gc.isenabled()))
    assert seen and not any(seen) and gc.isenabled()
