"""The stalled-receiver workload: a NIC that stops draining for a while (the pause storm)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from fabricstudio.sim.engine import Engine
from fabricstudio.sim.scenario import ScenarioError, StallSpec
from fabricstudio.sim.workloads.base import Workload, WorkloadContext


class ReceiverStall(Workload):
    """Holds ``spec.receiver``'s NIC from ``start_s`` for ``duration_s`` (no traffic of its
    own: the cells others send toward it are held, paused or dropped by the engine)."""

    kind = "stall"

    def __init__(self, ctx: WorkloadContext, index: int, spec: StallSpec) -> None:
        super().__init__(ctx, index)
        self.spec = spec
        self.duration_hint_s = spec.start_s + spec.duration_s

    @property
    def hops(self) -> list[tuple[str, str]]:
        """No traffic of its own."""
        return []

    def start(self) -> None:
        """Tell the engine when the NIC stops and resumes, and follow it on the clock."""
        engine = self.ctx.engine
        if not isinstance(engine, Engine):
            raise ScenarioError(f"{self.tag}: a stalled receiver needs the cell engine "
                                "(engine \"cell\"); the flow level does not model pauses")
        engine.stall_receiver(self.spec.receiver, self.spec.start_s, self.spec.duration_s)
        super().start()

    def _run(self) -> Generator[Any, Any, None]:
        env = self.ctx.engine.env
        if self.spec.start_s > env.now:
            yield env.timeout(self.spec.start_s - env.now)
        self.start_s = env.now
        yield env.timeout(self.spec.duration_s)
        self.finish_s = env.now

    def report(self) -> dict[str, Any]:
        out = super().report()
        out["receiver"] = self.spec.receiver
        return out
