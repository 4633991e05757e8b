"""A stand-in for the engine with the same flow API: every sender address transmits its flows
one after another (FIFO) at ``rate``; a flow finishes ``latency`` after its last byte left.
Lets workload logic be tested exactly, without the network."""

from __future__ import annotations

from dataclasses import dataclass

import simpy


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


class FakeEngine:
    def __init__(self, rate_bps: float = 100e9 / 8, latency_s: float = 1e-6) -> None:
        self.env = simpy.Environment()
        self.rate = rate_bps
        self.latency = latency_s
        self.flows: list[FakeFlow] = []
        self._busy_until: dict[str, float] = {}

    @property
    def now(self) -> float:
        return self.env.now

    def add_flow(self, src, dst, size_bytes, start_s=None, on_done=None, tag="", qp=0):
        start = self.env.now if start_s is None else start_s
        record = FakeFlow(len(self.flows), src, dst, int(size_bytes), start, tag=tag)
        self.flows.append(record)

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

    def advance(self, until_s):
        self.env.run(until=until_s)
