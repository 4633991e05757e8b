"""Measurements over a window of simulated time, for validation tests and benchmarks."""

from __future__ import annotations

from fabricstudio.model.units import throughput_gbps
from fabricstudio.sim.engine.core import Engine


def window_goodput_gbps(eng: Engine, flow_ids: list[int], t0: float, t1: float) -> list[float]:
    """Goodput (Gb/s) of each flow between ``t0`` and ``t1`` (advances the engine to ``t1``)."""
    eng.advance(t0)
    before = [eng.flows[i].delivered_bytes for i in flow_ids]
    eng.advance(t1)
    return [throughput_gbps(eng.flows[i].delivered_bytes - b, t1 - t0)
            for i, b in zip(flow_ids, before, strict=True)]
