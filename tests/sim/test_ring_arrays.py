"""Rings solved as arrays (sim.workloads.ring_arrays) give exactly the per-cell engine's run.

Each case runs the same scenario twice - once with the engine sealed for the lone collective
(its rings go to the arrays), once cell by cell - and compares everything a user or the
Result sees: the collective's time, every flow's finish time and bytes, the engine totals
and statistics, the link statistics and every frame (per link and per flow), bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fabricstudio.model import Technology
from fabricstudio.sim import Scenario, build_simulation
from fabricstudio.sim.engine import Engine
from fabricstudio.sim.metrics import LINK_FIELDS
from fabricstudio.sim.workloads import ring_arrays
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric


def _run(gpus: int, size: int, cell: int, arrays: bool, fabric: dict[str, Any] | None = None,
         frames_until: float | None = None, technology: Technology = Technology.ROCE,
         **scenario: Any) -> tuple[Any, Any, list]:
    spec_fabric = RailOptimizedSpec(gpus=gpus, technology=technology, **(fabric or {}))
    design = build_fabric(spec_fabric).to_design()
    spec = {"engine": "cell", "cell_bytes": cell,
            "workloads": [{"type": "all_reduce", "size_bytes": size, "algorithm": "ring"}]}
    spec.update(scenario)
    sim = build_simulation(design, Scenario.model_validate(spec))
    engine = sim.engine
    assert isinstance(engine, Engine)
    assert engine.sole_traffic == ("until_s" not in scenario)  # a lone collective to its end
    engine.sole_traffic = engine.sole_traffic and arrays
    if frames_until is not None:  # the run's frame budget ends before the ring does
        engine.sampler.until_s = frames_until
    return engine, sim.run(), engine.ring_arrays


def _same_run(fast: Any, slow: Any) -> None:
    (ea, ra, _), (eb, rb, _) = fast, slow
    assert ra.collective.time_s == rb.collective.time_s
    assert ea.totals() == eb.totals()
    assert ea.stats()["cell_hops"] == eb.stats()["cell_hops"]
    assert [(f.id, f.start_s, f.finish_s, f.delivered_bytes) for f in ea.flows] == \
        [(f.id, f.start_s, f.finish_s, f.delivered_bytes) for f in eb.flows]
    assert ea.link_stats() == eb.link_stats()
    assert ea.link_stats(measure_from_s=ea.now / 3) == eb.link_stats(measure_from_s=eb.now / 3)
    sa, sb = ea.stream, eb.stream
    assert list(sa.times) == list(sb.times)
    for field in LINK_FIELDS:
        assert np.array_equal(sa.link_series(field), sb.link_series(field)), field
    for k in range(len(sa.times)):
        ta, ids_a, flows_a = sa.flow_frame(k)
        tb, ids_b, flows_b = sb.flow_frame(k)
        assert (ta, ids_a) == (tb, ids_b)
        for name in flows_a:
            assert np.array_equal(flows_a[name], flows_b[name]), (k, name)
    assert ea.now == eb.now
    for port_a, port_b in zip(ea.ports, eb.ports, strict=True):
        assert (port_a.busy_time, port_a.busy, port_a.tx_cells, port_a.tx_bytes,
                port_a.free_at, port_a.frame_max_q, port_a.credits) == (
            port_b.busy_time, port_b.busy, port_b.tx_cells, port_b.tx_bytes, port_b.free_at,
            port_b.frame_max_q, port_b.credits)


@pytest.mark.parametrize(("gpus", "size", "cell", "fabric"), [
    (64, 16 * 2**20, 65536, {}),  # 32 KiB units, one cell each: queues at every switch
    (128, 8 * 2**20, 16384, {"servers_per_su": 4}),  # 8 KiB units, some paths via spines
    (256, 8 * 2**20, 65536, {"servers_per_su": 4, "tiers": 3}),  # and via cores
])
def test_arrays_give_the_per_cell_run(gpus: int, size: int, cell: int,
                                      fabric: dict[str, Any]) -> None:
    fast = _run(gpus, size, cell, arrays=True, fabric=fabric)
    slow = _run(gpus, size, cell, arrays=False, fabric=fabric)
    hops = {len(path) for path, _delay in slow[0]._routes.values() if path}
    assert max(hops) == {0: 2, 1: 4, 2: 6}[len(fabric)]  # NIC + leaf (+ spine (+ core))
    assert fast[2] == [None], fast[2]  # the arrays took the ring
    assert slow[2] == ["not sealed: other traffic or a horizon may come"]
    _same_run(fast, slow)


def test_dcqcn_off_and_a_horizon_cutting_frames() -> None:
    """PFC only, and a sample period fine enough that frames fall inside queue waits."""
    kwargs: dict[str, Any] = {"dcqcn": False, "sample_period_s": 3e-7}
    fast = _run(64, 4 * 2**20, 65536, arrays=True, **kwargs)
    slow = _run(64, 4 * 2**20, 65536, arrays=False, **kwargs)
    assert fast[2] in ([None], ["a queue change falls on a sample instant"])
    _same_run(fast, slow)


def test_frames_end_before_the_ring() -> None:
    """The frame budget stops frames half-way: the rest still ends in the same state (the
    peak queue after the last frame reaches link_stats)."""
    fast = _run(64, 16 * 2**20, 65536, arrays=True, frames_until=3e-5)
    slow = _run(64, 16 * 2**20, 65536, arrays=False, frames_until=3e-5)
    assert fast[2] == [None]
    assert slow[0].stream.times[-1] < 0.5 * slow[1].collective.time_s
    _same_run(fast, slow)
    fast = _run(64, 16 * 2**20, 65536, arrays=True, frames_until=1e-9)  # no more frames
    assert fast[2] == [None] and len(fast[0].stream.times) <= 1  # the one already due
    _same_run(fast, _run(64, 16 * 2**20, 65536, arrays=False, frames_until=1e-9))


def test_declines_where_cells_span_several_units() -> None:
    """Units of several cells (big chunks) are left to the per-cell engine."""
    fast = _run(16, 64 * 2**20, 16384, arrays=True)
    assert fast[2] == ["units of more than one cell"]


@pytest.mark.parametrize(("seed", "size", "cell", "extra"), [
    (1, 2 * 2**20, 65536, {}),
    (2, 4 * 2**20, 65536, {"sample_period_s": 3e-7}),  # three shared links, fine frames
    (4, 4 * 2**20, 65536, {"dcqcn": False}),
    (1, 2 * 2**20, 16384, {}),
])
def test_streams_sharing_a_link_first_come_first_served(
        seed: int, size: int, cell: int, extra: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """ECMP puts two rings' hops on one core link: they queue behind each other's cells, and
    cells of twin rings reach it at the same instants (the ring made first goes first)."""
    fabric = {"servers_per_su": 2, "tiers": 3}
    seen = {"together": 0, "behind": 0}
    serve = ring_arrays.SharedLink.serve

    def counting(link: Any, k: int, h: Any, *args: Any) -> None:
        users = link.rows[args[5][link.rows]]  # (tail, begin, finish, came, pure, live)
        heads = np.sort(h[users])
        seen["together"] += int(np.sum(heads[1:] == heads[:-1]))
        before = link.last_end
        serve(link, k, h, *args)
        seen["behind"] += int(link.record and heads[0] < before)

    monkeypatch.setattr(ring_arrays.SharedLink, "serve", counting)
    fast = _run(128, size, cell, arrays=True, fabric=fabric, seed=seed, **extra)
    assert fast[2] == [None], fast[2]
    assert seen["together"] and seen["behind"]  # ties resolved; cells queued at the link
    slow = _run(128, size, cell, arrays=False, fabric=fabric, seed=seed, **extra)
    shared = [port for port in slow[0].ports if sum(
        port in path for path, _delay in slow[0]._routes.values() if path) > 1]
    assert shared  # (the routes the per-cell run took share a link)
    _same_run(fast, slow)


@pytest.mark.parametrize(("gpus", "size", "cell", "fabric"), [
    (64, 16 * 2**20, 65536, {}),  # 32 KiB units: queues at every switch
    (128, 8 * 2**20, 16384, {"servers_per_su": 4}),  # via spines
])
def test_infiniband_credits(gpus: int, size: int, cell: int, fabric: dict[str, Any]) -> None:
    """InfiniBand: credits never run short (half the credits at most are ever out), so the
    cells move as on RoCE; the credits still due when the rings end are returned at their
    instants and a return after a port's last cell sums its busy time, as cell by cell."""
    ib = Technology.INFINIBAND
    fast = _run(gpus, size, cell, arrays=True, fabric=fabric, technology=ib)
    assert fast[2] == [None], fast[2]
    slow = _run(gpus, size, cell, arrays=False, fabric=fabric, technology=ib)
    assert any(p.credits < p.credit_max for p in slow[0].ports) or any(
        not p.busy and p.tx_cells for p in slow[0].ports[1::2])  # (the end state is tested)
    _same_run(fast, slow)


def test_a_horizon_keeps_the_ring_cell_by_cell() -> None:
    """A run stopped by a horizon may stop a ring half-way: no arrays there."""
    engine, _result, outcome = _run(64, 4 * 2**20, 65536, arrays=True, until_s=2e-5)
    assert outcome == ["not sealed: other traffic or a horizon may come"]
    assert not engine.sole_traffic
