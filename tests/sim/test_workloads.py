"""Workload logic against a stand-in engine (FIFO senders at a fixed rate): dependencies,
pipelining and nccl-tests bookkeeping, exactly."""

import random

import pytest

from fabricstudio.model import Design, GpuServer, Leaf, Link
from fabricstudio.sim.scenario import PermutationSpec, ScenarioError, TrainingSpec
from fabricstudio.sim.workloads import Collective, TrainingStep, WorkloadContext, bus_factor
from fabricstudio.sim.workloads.addresses import all_gpus, check_address, group_by_server
from fabricstudio.sim.workloads.collectives import flat_ring_phases
from fabricstudio.sim.workloads.traffic import permutation
from tests.sim.fake_engine import FakeEngine

RATE = 100e9 / 8
LATENCY = 1e-6


def rail_design(servers=2, gpus=4):
    design = Design()
    for r in range(gpus):
        design.add_device(Leaf(id=f"rail{r}"))
    for s in range(servers):
        design.add_device(GpuServer(id=f"s{s}", gpus=gpus, nics=gpus))
        for r in range(gpus):
            design.add_link(Link(id=f"l{s}_{r}", a=f"s{s}", b=f"rail{r}", a_port=r))
    return design


def run(workload, engine):
    workload.start()
    engine.advance(10)
    return workload


@pytest.mark.parametrize("name, steps_per_rank", [("all_reduce", 6), ("reduce_scatter", 3),
                                                  ("all_gather", 3)])
def test_ring_moves_the_textbook_bytes_and_time(name, steps_per_rank):
    engine = FakeEngine(RATE, LATENCY)
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    ranks = [f"h{i}" for i in range(4)]
    size = 8 * 2**20
    c = run(Collective(ctx, 0, name, ranks, size, 512 * 1024, 1, "ring"), engine)
    per_rank = {r: sum(f.size_bytes for f in engine.flows if f.src == r) for r in ranks}
    assert set(per_rank.values()) == {steps_per_rank * size // 4}
    # Pipelined ring on FIFO senders: bandwidth term plus one flow latency, exactly.
    assert c.summary()["time_s"] == pytest.approx(steps_per_rank * size / 4 / RATE + LATENCY)


def test_slices_are_pipelined_across_steps():
    engine = FakeEngine(RATE, 20e-6)  # long latency: unpipelined steps would pay it 6 times
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    c = run(Collective(ctx, 0, "all_reduce", [f"h{i}" for i in range(4)], 2**24, 2**20, 1,
                       "ring"), engine)
    unpipelined = 6 * (2**22 / RATE + 20e-6)
    assert c.summary()["time_s"] < unpipelined - 4 * 20e-6


@pytest.mark.parametrize("name, n, factor", [("all_reduce", 8, 1.75), ("all_gather", 8, 0.875),
                                             ("reduce_scatter", 4, 0.75),
                                             ("all_to_all", 2, 0.5)])
def test_nccl_tests_bus_factors(name, n, factor):
    assert bus_factor(name, n) == factor


def test_collective_bandwidths_follow_nccl_tests_definitions():
    engine = FakeEngine(RATE, LATENCY)
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    c = run(Collective(ctx, 0, "all_to_all", [f"h{i}" for i in range(4)], 4 * 2**20,
                       512 * 1024), engine)
    s = c.summary()
    assert s["algbw_gbps"] == 4 * 2**20 * 8 / s["time_s"] / 1e9
    assert s["busbw_gbps"] == s["algbw_gbps"] * 3 / 4
    assert len(engine.flows) == 12 and {f.size_bytes for f in engine.flows} == {2**20}


def test_flat_ring_channels_stay_on_their_rail_between_servers():
    design = rail_design(servers=3, gpus=4)
    ranks = all_gpus(design)
    (rings,) = flat_ring_phases("all_reduce", ranks, 2**20, 4)
    assert len(rings) == 4
    for channel, ring in enumerate(rings):
        assert len(ring.hops) == 12 and ring.steps == 22
        crossing = [(a, b) for a, b in ring.hops if a.split("/")[0] != b.split("/")[0]]
        assert len(crossing) == 3
        assert {a.split("/")[1] for a, b in crossing} == {f"gpu{channel}"}
        assert {b.split("/")[1] for a, b in crossing} == {f"gpu{channel}"}


def test_hierarchical_all_reduce_phases():
    design = rail_design(servers=2, gpus=4)
    engine = FakeEngine(RATE, LATENCY, design)
    ctx = WorkloadContext(engine, design, random.Random(1))
    c = run(Collective(ctx, 0, "all_reduce", all_gpus(design), 2**22, 2**30,
                       algorithm="hierarchical"), engine)
    assert c.algorithm == "hierarchical" and c.channels == 4
    network = [f for f in engine.flows if f.src.split("/")[0] != f.dst.split("/")[0]]
    # per rail: 2 servers, each hop one transfer of 2(n-1) = 2 steps of S/(g n)
    assert len(network) == 4 * 2 and {f.size_bytes for f in network} == {2 * 2**22 // 8}
    assert all(f.src.split("/")[1] == f.dst.split("/")[1] for f in network)


def test_training_reports_step_time_and_gpu_utilisation():
    engine = FakeEngine(RATE, LATENCY)
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    spec = TrainingSpec(type="training", ranks=["a", "b"], gradient_bytes=2**23,
                        compute_s=1e-3, overlap=0.25, iterations=3, algorithm="ring")
    t = run(TrainingStep(ctx, 0, ["a", "b"], spec), engine)
    comm = 2**23 / 2 / RATE * 2 + LATENCY  # 2 steps of S/2, longer than the overlap
    summary = t.summary()
    assert summary["iterations"] == 3
    assert summary["step_time_s"] == pytest.approx(0.75e-3 + comm)
    assert summary["exposed_comm_s"] == pytest.approx(comm - 0.25e-3)
    assert summary["gpu_utilisation"] == pytest.approx(1e-3 / (0.75e-3 + comm))


def test_fully_overlapped_training_keeps_gpus_busy():
    engine = FakeEngine(RATE, LATENCY)
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    spec = TrainingSpec(type="training", ranks=["a", "b"], gradient_bytes=2**16,
                        compute_s=1e-3, overlap=1.0)
    assert run(TrainingStep(ctx, 0, ["a", "b"], spec), engine).summary()["gpu_utilisation"] == 1


def test_expert_dispatch_stops_the_compute_until_the_tokens_arrive():
    engine = FakeEngine(RATE, LATENCY)
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    ranks = ["a/gpu0", "b/gpu0", "c/gpu0"]
    spec = TrainingSpec(type="training", ranks=ranks, gradient_bytes=2**16, compute_s=1e-3,
                        overlap=0.0, iterations=2, algorithm="ring",
                        expert_dispatch={"experts": ["a/gpu0"], "bytes": 2**20, "at": 0.25})
    t = TrainingStep(ctx, 0, ranks, spec)
    assert t.dispatch_pairs == [("b/gpu0", "a/gpu0"), ("c/gpu0", "a/gpu0")]
    assert t.hops[-2:] == t.dispatch_pairs
    run(t, engine)
    dispatch = 2**20 / RATE + LATENCY  # each sender alone on its own NIC (the fake engine)
    summary = t.summary()
    assert summary["dispatch_time_s"] == pytest.approx(dispatch)
    assert summary["step_time_s"] == pytest.approx(1e-3 + dispatch + summary["allreduce_time_s"])
    assert summary["gpu_utilisation"] == pytest.approx(1e-3 / summary["step_time_s"])
    began, d0 = t.iterations[0][0], t.dispatches[0][0]
    assert d0 == pytest.approx(began + 0.25e-3)
    kinds = [(a.kind, a.start_s, a.end_s) for a in t.activity()[:3]]
    assert kinds[0] == ("compute", began, d0)
    assert kinds[1][0] == "comm" and kinds[1][2] == pytest.approx(d0 + dispatch)
    assert kinds[2][0] == "compute" and kinds[2][2] - kinds[2][1] == pytest.approx(0.75e-3)
    assert len([f for f in engine.flows if f.tag == "w0:expert_dispatch"]) == 4


def test_expert_dispatch_during_an_overlapped_all_reduce():
    engine = FakeEngine(RATE, LATENCY)
    ctx = WorkloadContext(engine, Design(), random.Random(1))
    ranks = ["a/gpu0", "b/gpu0"]
    spec = TrainingSpec(type="training", ranks=ranks, gradient_bytes=2**16, compute_s=1e-3,
                        overlap=0.5, expert_dispatch={"experts": ["b/gpu0"], "bytes": 2**16,
                                                      "at": 0.75})
    t = run(TrainingStep(ctx, 0, ranks, spec), engine)
    began, reduce_began, _ = t.iterations[0]
    assert reduce_began == pytest.approx(began + 0.5e-3)
    assert t.dispatches[0][0] == pytest.approx(began + 0.75e-3)
    dispatch = t.summary()["dispatch_time_s"]
    assert t.summary()["step_time_s"] == pytest.approx(1e-3 + dispatch)


def test_expert_dispatch_experts_must_be_training_gpus():
    ctx = WorkloadContext(FakeEngine(RATE, LATENCY), Design(), random.Random(1))
    spec = TrainingSpec(type="training", ranks=["a/gpu0", "b/gpu0"], gradient_bytes=2**16,
                        compute_s=1e-3, expert_dispatch={"experts": ["z/gpu0"], "bytes": 1})
    with pytest.raises(ScenarioError, match="expert 'z/gpu0' is not one of the training's"):
        TrainingStep(ctx, 0, ["a/gpu0", "b/gpu0"], spec, "workloads[0] (training)")
    with pytest.raises(ValueError, match="at"):
        TrainingSpec(type="training", gradient_bytes=1, compute_s=1e-3,
                     expert_dispatch={"experts": ["a/gpu0"], "bytes": 1, "at": 1.0})


def test_permutation_is_a_seeded_derangement_across_servers():
    design = rail_design(servers=4, gpus=2)
    hosts = all_gpus(design)
    spec = PermutationSpec(type="permutation", bytes=1000)
    flows = permutation(WorkloadContext(None, design, random.Random(7)), 0, hosts, spec).flows
    assert sorted(f[0] for f in flows) == sorted(f[1] for f in flows) == sorted(hosts)
    assert all(f[0].split("/")[0] != f[1].split("/")[0] for f in flows)
    again = permutation(WorkloadContext(None, design, random.Random(7)), 0, hosts, spec).flows
    assert again == flows


def test_addresses_are_checked_against_the_design():
    design = rail_design(servers=1, gpus=4)
    check_address(design, "s0/gpu3")
    for bad, fragment in [("nope", "no device"), ("s0/gpu4", "4 GPUs"), ("rail0", "switch"),
                          ("s0/port1", "expected")]:
        with pytest.raises(ScenarioError, match=fragment):
            check_address(design, bad)


def test_ranks_group_by_server_in_order():
    assert group_by_server(["a/gpu0", "b/gpu0", "a/gpu1"]) == [["a/gpu0", "a/gpu1"], ["b/gpu0"]]
