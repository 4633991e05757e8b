"""Periodic metric frames and windowed link statistics."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.config import FlowRecord
from fabricstudio.sim.metrics import Frame

#: Cumulative per-port counters: port attribute -> frame field (fractions divide by the period).
_TIME_FIELDS = {"busy_time": "utilisation", "paused_time": "paused", "stall_time": "credit_stall"}
_COUNT_FIELDS = {"pauses_sent": "pauses_sent", "marks": "ecn_marks", "cnps": "cnps",
                 "drops": "drops"}


class Sampler:
    """Writes one :class:`Frame` per sample period into the engine's MetricStream."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.stream = engine.stream
        self.period = self.stream.sample_period_s
        self.ports = engine.ports
        n = len(self.ports)
        self._last = {attr: np.zeros(n) for attr in (*_TIME_FIELDS, *_COUNT_FIELDS)}
        self._last_t = 0.0
        self.count = 0
        self._flows: dict[int, FlowRecord] = {}  # flows to report in the next frame
        self._flow_last: dict[int, int] = {}  # delivered bytes at the last report
        engine.clock.call(self.period, self._tick)

    def track(self, rec: FlowRecord) -> None:
        """Report ``rec`` in the next frame (its first progress or its creation)."""
        if rec.id not in self._flows:
            self._flows[rec.id] = rec
            self._flow_last.setdefault(rec.id, 0)

    def _cumulative(self, attr: str) -> np.ndarray:
        return np.fromiter(map(attrgetter(attr), self.ports), dtype=np.float64,
                           count=len(self.ports))

    def _tick(self, _event: Call) -> None:
        now = self.engine.env.now
        self.count += 1
        self.take(now)
        self.engine.clock.call((self.count + 1) * self.period - now, self._tick)

    def take(self, now: float) -> None:
        """Append the frame for ``(last sample, now]``."""
        ports = self.ports
        dt = now - self._last_t
        for port in ports:
            port.settle(now)
        links = {}
        for attr, field in _TIME_FIELDS.items():
            value = self._cumulative(attr)
            links[field] = ((value - self._last[attr]) / dt).astype(np.float32)
            self._last[attr] = value
        for attr, field in _COUNT_FIELDS.items():
            value = self._cumulative(attr)
            links[field] = (value - self._last[attr]).astype(np.int32)
            self._last[attr] = value
        links["queue_bytes"] = np.fromiter((p.q_bytes for p in ports), np.float32, len(ports))
        links["queue_max_bytes"] = np.fromiter((p.frame_max_q for p in ports), np.float32,
                                               len(ports))
        for port in ports:
            port.frame_max_q = port.q_bytes
        ids, delivered, rates = self._flow_columns(dt)
        self.stream.append(Frame(now, links, {"delivered_bytes": delivered, "rate_gbps": rates},
                                 ids))
        self._last_t = now

    def _flow_columns(self, dt: float) -> tuple[tuple[int, ...], np.ndarray, np.ndarray]:
        """Flows that were added, progressed or finished in this period (a flow missing from
        a frame made no progress in it)."""
        flows = [self._flows[i] for i in sorted(self._flows)]
        last = self._flow_last
        ids = tuple(rec.id for rec in flows)
        delivered = np.fromiter((rec.delivered_bytes for rec in flows), np.float64, len(flows))
        before = np.fromiter((last[rec.id] for rec in flows), np.float64, len(flows))
        rates = ((delivered - before) * 8e-9 / dt).astype(np.float32)
        for rec in flows:
            if rec.finish_s is None:
                last[rec.id] = rec.delivered_bytes
            else:
                del last[rec.id]
        self._flows = {}
        return ids, delivered, rates

    # ------------------------------------------------------------------ windows
    def link_stats(self, measure_from_s: float) -> list[dict]:
        """Per directed link statistics over ``[measure_from_s, now]``."""
        engine = self.engine
        now = engine.env.now
        start = min(max(float(measure_from_s), 0.0), now)
        span = now - start
        stream = self.stream
        times = stream.times
        ends = np.asarray(times, dtype=np.float64)
        begins = np.concatenate(([0.0], ends[:-1])) if len(ends) else ends
        lengths = ends - begins
        overlap = np.clip(ends - np.maximum(begins, start), 0.0, None)
        weight = np.divide(overlap, lengths, out=np.zeros_like(overlap), where=lengths > 0)
        for port in self.ports:
            port.settle(now)
        tail_len = now - self._last_t
        tail_w = 1.0 if self._last_t >= start else (now - start) / tail_len if tail_len > 0 else 0
        sums = {}
        for attr, field in _TIME_FIELDS.items():
            framed = (stream.link_series(field) * lengths[:, None] * weight[:, None]).sum(axis=0)
            sums[attr] = framed + (self._cumulative(attr) - self._last[attr]) * tail_w
        for attr, field in _COUNT_FIELDS.items():
            framed = (stream.link_series(field) * weight[:, None]).sum(axis=0)
            sums[attr] = np.rint(framed + (self._cumulative(attr) - self._last[attr]) * tail_w)
        qmax = stream.link_series("queue_max_bytes")
        in_window = weight > 0
        framed_max = qmax[in_window].max(axis=0) if in_window.any() else np.zeros(len(self.ports))
        stats = []
        for i, port in enumerate(self.ports):
            stats.append({
                "id": port.link_id,
                "from": port.src,
                "to": port.dst,
                "from_port": port.src_port,
                "to_port": port.dst_port,
                "speed_gbps": port.speed_gbps,
                "utilisation": float(sums["busy_time"][i] / span) if span > 0 else 0.0,
                "max_queue_bytes": int(max(framed_max[i], port.frame_max_q)),
                "pfc_pauses_sent": int(sums["pauses_sent"][i]),
                "paused_time_s": float(sums["paused_time"][i]),
                "ecn_marks": int(sums["marks"][i]),
                "cnps": int(sums["cnps"][i]),
                "drops": int(sums["drops"][i]),
                "credit_stall_time_s": float(sums["stall_time"][i]),
            })
        return stats
