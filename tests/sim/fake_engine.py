"""A stand-in for the engine with the same flow API: every sender address transmits its flows
one after another (FIFO) at ``rate``; a flow finishes ``latency`` after its last byte left.
Streams (``stream=(unit_bytes, released_units, on_units)``) send their units in order as they
are released, each arriving ``latency`` after its last byte.  Lets workload logic be tested
exactly, without the network."""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricstudio.model import Design
from fabricstudio.sim.engine.clock import Clock, environment


@dataclass
class FakeFlow:
    id: int
    src: str
    dst: str
    size_bytes: int
    start_s: float
    finish_s: float | None = None
    delivered_bytes: int = 0
    tag: str = ""


@dataclass
class _Stream:
    record: FakeFlow
    unit: int
    units: int
    released: int
    on_units: object
    on_done: object
    queued: int = 0  # units handed to the sender
    arrived: int = 0
    not_before: float = 0.0
    times: list = field(default_factory=list)


class FakeEngine:
    kind = "cell"

    def __init__(self, rate_bps: float = 100e9 / 8, latency_s: float = 1e-6,
                 design: Design | None = None) -> None:
        self.env = environment()
        self.clock = Clock(self.env)
        self.design = design if design is not None else Design()
        self.rate = rate_bps
        self.latency = latency_s
        self.flows: list[FakeFlow] = []
        self.nvlink_bytes = 0
        self._busy_until: dict[str, float] = {}
        self._streams: dict[int, _Stream] = {}

    @property
    def now(self) -> float:
        return self.env.now

    def add_flow(self, src, dst, size_bytes, start_s=None, on_done=None, tag="", qp=0,
                 stream=None):
        start = self.env.now if start_s is None else start_s
        record = FakeFlow(len(self.flows), src, dst, int(size_bytes), start, tag=tag)
        self.flows.append(record)
        if stream is not None:
            unit, released, on_units = stream
            s = _Stream(record, unit, int(size_bytes) // unit, 0, on_units, on_done,
                        not_before=start)
            self._streams[record.id] = s
            self.release(record.id, released, start)
            return record.id

        def finish(_event):
            record.finish_s = self.env.now
            record.delivered_bytes = record.size_bytes
            if on_done is not None:
                on_done(record)

        sent = max(start, self._busy_until.get(src, 0.0)) + size_bytes / self.rate
        self._busy_until[src] = sent
        duration = sent + self.latency - self.env.now
        self.env.timeout(duration).callbacks.append(finish)
        return record.id

    def release(self, flow_id, units, not_before_s=0.0):
        s = self._streams.get(flow_id)
        if s is None:
            return
        units = min(units, s.units)
        src = s.record.src
        while s.queued < units:
            begin = max(self.env.now, not_before_s, s.not_before,
                        self._busy_until.get(src, 0.0))
            sent = begin + s.unit / self.rate
            self._busy_until[src] = sent
            s.queued += 1
            self.env.timeout(sent + self.latency - self.env.now).callbacks.append(
                lambda _e, s=s: self._arrive(s))

    def _arrive(self, s: _Stream) -> None:
        s.arrived += 1
        s.record.delivered_bytes = s.arrived * s.unit
        if s.on_units is not None:
            s.on_units(s.arrived)
        if s.arrived == s.units:
            s.record.finish_s = self.env.now
            del self._streams[s.record.id]
            if s.on_done is not None:
                s.on_done(s.record)

    def advance(self, until_s):
        self.env.run(until=until_s)
