"""Focused runs: a region at cell level inside a flow-level run of the whole fabric."""

import pytest

from fabricstudio.cli import main
from fabricstudio.formats import dump_design
from fabricstudio.model import GpuServer, Technology
from fabricstudio.sim import Scenario, ScenarioError, build_simulation, run_simulation
from fabricstudio.sim.focus import region_design, resolve_region
from fabricstudio.sim.scenario import FocusSpec
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric


@pytest.fixture(scope="module")
def fabric():
    """512 GPUs, rail-optimised: two scalable units (su1, su2) under spines, where the
    ECMP hashes of a permutation collide on leaf uplinks."""
    spec = RailOptimizedSpec(gpus=512, technology=Technology.ROCE)
    return build_fabric(spec).to_design()


def test_a_region_is_its_devices_the_cables_among_them_and_a_stub_per_cable_leaving(fabric):
    region = resolve_region(fabric, FocusSpec(group="su1"))
    servers = [d for d in region.devices if isinstance(fabric.devices[d], GpuServer)]
    assert len(servers) == 32 and len(region.devices) == 40  # + the SU's 8 rail leaves
    sub, stubs = region_design(fabric, region)
    leaving = [ln for ln in fabric.links.values()
               if (ln.a in region.devices) != (ln.b in region.devices)]
    assert len(stubs) == len(leaving) > 0
    for link in leaving:
        stub = sub.devices[stubs[link.id]]
        assert isinstance(stub, GpuServer) and stub.nics == 1
        assert sub.links[link.id].speed_gbps == link.speed_gbps
    assert len(sub.devices) == len(region.devices) + len(stubs)
    rail = resolve_region(fabric, FocusSpec(rail=2))
    assert {d for d in rail.devices if not isinstance(fabric.devices[d], GpuServer)} == {
        "leaf3", "leaf11"}


def test_bad_regions_are_refused(fabric):
    with pytest.raises(ScenarioError, match="no group 'pod9'"):
        resolve_region(fabric, FocusSpec(group="pod9"))
    with pytest.raises(ValueError, match="needs a group, a rail or devices"):
        FocusSpec()


def focused(design, workload, **fields):
    s = Scenario.model_validate({"workloads": [workload], "cell_bytes": 65536,
                                 "technology": "roce", "dcqcn": False, **fields})
    return run_simulation(design, s)


def test_collisions_in_the_region_queue_at_cell_level_the_whole_run_stays_flow_level(fabric):
    perm = {"type": "permutation", "bytes": "2MiB"}
    whole = focused(fabric, perm, engine="flow")
    result = focused(fabric, perm, focus={"rail": 2})
    # the whole-cluster answer is the flow-level one
    assert result.engine.kind == "flow" and result.completion_time_s == whole.completion_time_s
    f = result.focus
    assert f is not None and f.region == "rail 2" and f.stubs > 0
    assert f.background_flows > 0 and f.background_unpaced > 0
    # queues build where the hashes collide: marked, lossless, in the region
    assert max(ln.max_queue_bytes for ln in f.links) > 1e6
    assert f.totals.ecn_marks > 0 and f.totals.drops == 0
    assert result.hotspots is not None and result.hotspots.count > 0


def test_the_regions_own_flows_run_as_themselves_close_to_flow_level(fabric):
    ranks = [f"server{s}/gpu0" for s in range(1, 9)]  # one leaf: rail 0 of su1
    ring = {"type": "permutation", "hosts": ranks, "bytes": "2MiB"}
    f = focused(fabric, ring, focus={"devices": ["server1", "server2", "server3", "server4",
                                                 "server5", "server6", "server7",
                                                 "server8"]}).focus
    assert f.foreground.flows == 8 and f.foreground.finished == 8
    assert f.foreground.mean_slowdown == pytest.approx(1.0, rel=0.05)


def test_the_cli_runs_a_focused_run(tmp_path, capsys, fabric):
    path = tmp_path / "rail512.json"
    path.write_text(dump_design(fabric))
    code = main(["simulate", str(path), "--workload", "permutation", "--size", "1MiB",
                 "--focus", "rail:2", "--cell-size", "64KiB", "--no-dcqcn",
                 "--technology", "roce"])
    out = capsys.readouterr().out
    assert code == 0 and "focus: rail 2 at cell level" in out and "ECN marks" in out
    with pytest.raises(SystemExit):
        main(["simulate", str(path), "--workload", "permutation", "--size", "4MiB",
              "--focus", "rail:x"])


def test_a_focus_window_after_the_run_is_refused(fabric):
    s = Scenario.model_validate({"workloads": [{"type": "permutation", "bytes": "1MiB"}],
                                 "focus": {"rail": 1, "from_s": 5.0}})
    sim = build_simulation(fabric, s)
    with pytest.raises(ScenarioError, match="window"):
        sim.run()


def test_a_region_too_big_for_the_cell_engine_is_one_clear_cli_message(tmp_path, capsys,
                                                                        fabric, monkeypatch):
    """Known only once the flow-level run is over: it was reported as an internal error
    (exit 3); it is a plain refusal naming a window that would fit and how to set it."""
    import fabricstudio.cli.simulate_cmd as simulate_cmd

    monkeypatch.setattr(simulate_cmd, "MAX_CELL_HOPS", 1000.0)
    path = tmp_path / "rail512.json"
    path.write_text(dump_design(fabric))
    code = main(["simulate", str(path), "--workload", "permutation", "--size", "1MiB",
                 "--focus", "su1", "--technology", "roce"])
    err = capsys.readouterr().err.strip()
    assert code == 1 and "internal error" not in err and len(err.splitlines()) == 1
    assert "focus: the region's cell-level run is too big" in err
    assert "a window of about" in err and "--until on the command line" in err
