"""Periodic metric frames and windowed link statistics."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from fabricstudio.model.units import gigabits
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.config import FlowRecord
from fabricstudio.sim.metrics import Frame, link_fields

if TYPE_CHECKING:
    from fabricstudio.sim.engine.core import Engine
    from fabricstudio.sim.engine.ports import Port

#: Columns of a port snapshot: cumulative times (frame fields are fractions of the period) ...
_TIME_FIELDS = link_fields("fraction")
#: ... then cumulative counts, then the instant and peak queue (``snapshot`` reads the port
#: counters in this order: a new field of the metric spec needs its counter there too).
_COUNT_FIELDS = link_fields("count")
_CUMULATIVE = len(_TIME_FIELDS) + len(_COUNT_FIELDS)


def snapshot(ports: list[Port], now: float) -> np.ndarray:
    """Per port: busy, paused and credit-stalled seconds up to ``now``, pauses sent, ECN
    marks, CNPs, drops, queue bytes and peak queue bytes of the current period (read-only;
    the running intervals are added, as ``Port.busy_until`` and friends do)."""
    return np.array([(
        p.busy_time + ((p.free_at if p.free_at < now else now) - p.tx_start
                       if p.busy and now > p.tx_start else 0.0),
        p.paused_time + (now - p.paused_since if p.paused else 0.0),
        p.stall_time + (now - p.stalled_since if p.stalled_since >= 0 else 0.0),
        p.pauses_sent, p.marks, p.cnps, p.drops, p.q_bytes, p.frame_max_q,
    ) for p in ports], dtype=np.float64).reshape(len(ports), _CUMULATIVE + 2)


class PortStates(Protocol):
    """Stands in for the ports' own counters while something else moves their cells."""

    def frame(self, now: float) -> None:
        """A frame is taken at ``now`` (a sample instant): bring flows and totals there."""

    def snapshot(self, now: float) -> np.ndarray:
        """What :func:`snapshot` would read from every port at ``now`` (at the latest sample
        instant before it when ``now`` is between two)."""
        ...


class Sampler:
    """Writes one :class:`Frame` per sample period into the engine's MetricStream."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.stream = engine.stream
        self.period = self.stream.sample_period_s
        self.ports = engine.ports
        n = len(self.ports)
        self._last = np.zeros((n, _CUMULATIVE))
        self._last_t = 0.0
        self.count = 0
        self._flows: dict[int, FlowRecord] = {}  # flows to report in the next frame
        self._flow_last: dict[int, int] = {}  # delivered bytes at the last report
        self._fluid: dict[int, tuple[FlowRecord, float, float]] = {}
        #: No frame is written after this time (the run's frame budget, sim.budget); the run
        #: may go on, and window statistics then cover the rest as one tail.
        self.until_s = math.inf
        #: Gives the snapshot of every port instead of reading the ports (a solver that moves
        #: cells as arrays: sim.workloads.ring_arrays); None reads them.
        self.provider: PortStates | None = None
        engine.clock.call(self.period, self._tick)

    def track(self, rec: FlowRecord) -> None:
        """Report ``rec`` in the next frame (its first progress or its creation)."""
        if rec.id not in self._flows:
            self._flows[rec.id] = rec
            self._flow_last.setdefault(rec.id, 0)

    def track_fluid(self, rec: FlowRecord, begin: float, end: float) -> None:
        """A transfer that moves at a constant rate from ``begin`` to ``end`` (NVLink): frames
        show its progress (and its record's delivered bytes grow) linearly, not in one step."""
        self._fluid[rec.id] = (rec, begin, end)

    def _advance_fluid(self, now: float) -> None:
        for fid, (rec, begin, end) in list(self._fluid.items()):
            if rec.finish_s is not None:
                del self._fluid[fid]
            elif now > begin:
                share = (now - begin) / (end - begin) if end > begin else 1.0
                rec.delivered_bytes = min(rec.size_bytes - 1, int(rec.size_bytes * share))
                self.track(rec)

    def _tick(self, _event: Call) -> None:
        now = self.engine.env.now
        self.count += 1
        self.take(now)
        following = (self.count + 1) * self.period
        if following <= self.until_s * (1 + 1e-9):
            self.engine.clock.call(following - now, self._tick)

    def take(self, now: float) -> None:
        """Append the frame for ``(last sample, now]``."""
        ports = self.ports
        dt = now - self._last_t
        if self._fluid:
            self._advance_fluid(now)
        provided = self.provider is not None
        if self.provider is not None:
            self.provider.frame(now)
            snap = self.provider.snapshot(now)
        else:
            snap = snapshot(ports, now)
        delta = snap[:, :_CUMULATIVE] - self._last
        self._last = snap[:, :_CUMULATIVE]
        links = {}
        for k, field in enumerate(_TIME_FIELDS):
            links[field] = (delta[:, k] / dt).astype(np.float32)
        for k, field in enumerate(_COUNT_FIELDS, start=len(_TIME_FIELDS)):
            links[field] = np.rint(delta[:, k]).astype(np.int32)
        links["queue_bytes"] = snap[:, _CUMULATIVE].astype(np.float32)
        links["queue_max_bytes"] = snap[:, _CUMULATIVE + 1].astype(np.float32)
        if not provided:  # (a provider keeps its ports' peaks)
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
        rates = (gigabits(delivered - before) / dt).astype(np.float32)
        for rec in flows:
            if rec.finish_s is None:
                last[rec.id] = rec.delivered_bytes
            else:
                del last[rec.id]
        self._flows = {}
        return ids, delivered, rates

    # ------------------------------------------------------------------ windows
    def link_stats(self, measure_from_s: float) -> list[dict[str, Any]]:
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
        tail_len = now - self._last_t
        tail_w = 1.0 if self._last_t >= start else (now - start) / tail_len if tail_len > 0 else 0
        snap = (self.provider.snapshot(now) if self.provider is not None
                else snapshot(self.ports, now))
        tail = (snap[:, :_CUMULATIVE] - self._last) * tail_w
        sums = {}
        for k, field in enumerate(_TIME_FIELDS):
            framed = (stream.link_series(field) * lengths[:, None] * weight[:, None]).sum(axis=0)
            sums[field] = framed + tail[:, k]
        for k, field in enumerate(_COUNT_FIELDS, start=len(_TIME_FIELDS)):
            framed = (stream.link_series(field) * weight[:, None]).sum(axis=0)
            sums[field] = np.rint(framed + tail[:, k])
        qmax = stream.link_series("queue_max_bytes")
        in_window = weight > 0
        framed_max = qmax[in_window].max(axis=0) if in_window.any() else np.zeros(len(self.ports))
        framed_max = np.maximum(framed_max, snap[:, _CUMULATIVE + 1])
        stats = []
        for i, port in enumerate(self.ports):
            stats.append({
                "id": port.link_id,
                "from": port.src,
                "to": port.dst,
                "from_port": port.src_port,
                "to_port": port.dst_port,
                "speed_gbps": port.speed_gbps,
                "utilisation": float(sums["utilisation"][i] / span) if span > 0 else 0.0,
                "max_queue_bytes": int(framed_max[i]),
                "pfc_pauses_sent": int(sums["pauses_sent"][i]),
                "paused_time_s": float(sums["paused"][i]),
                "ecn_marks": int(sums["ecn_marks"][i]),
                "cnps": int(sums["cnps"][i]),
                "drops": int(sums["drops"][i]),
                "credit_stall_time_s": float(sums["credit_stall"][i]),
            })
        return stats
