"""Measurement helpers shared by the engine tests."""

from __future__ import annotations

from fabricstudio.sim.engine import Engine, window_goodput_gbps


def assert_conserved(eng: Engine) -> None:
    """offered = delivered + dropped + in flight, nothing negative, queues within flight."""
    t = eng.totals()
    assert t["offered_bytes"] == t["delivered_bytes"] + t["dropped_bytes"] + t["in_flight_bytes"]
    assert t["in_flight_bytes"] >= 0
    queued = 0
    for port in eng.ports:
        assert port.q_bytes >= 0
        assert port.q_bytes == sum(c.bytes for c in port.queue)
        queued += port.q_bytes
    assert queued <= t["in_flight_bytes"]
    if eng.technology.is_lossless and eng.fabric.pfc.enabled:
        assert t["dropped_bytes"] == 0 or t["lossless_violations"] + t["watchdog_drops"] > 0


#: Goodput of each flow over a window (advances the engine).
rates_gbps = window_goodput_gbps


def jain(values: list[float]) -> float:
    """Jain's fairness index."""
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values))
