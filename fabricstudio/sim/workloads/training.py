"""Data-parallel training step: compute, then a gradient all-reduce that may overlap it.

Per iteration the GPUs compute for ``compute_s``; the gradient all-reduce starts once
``(1 - overlap)`` of the compute is done (backward pass releasing gradients) and the step ends
when both the compute and the all-reduce are finished.  Reported like a training dashboard:
step time, exposed communication (step time - compute) and GPU utilisation = compute / step.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fabricstudio.sim.workloads.base import Activity, Workload, WorkloadContext
from fabricstudio.sim.workloads.collectives import Collective

if TYPE_CHECKING:
    from fabricstudio.sim.duration import HopTimes


class TrainingStep(Workload):
    """``iterations`` training steps over ``ranks`` with a ring all-reduce of the gradients."""

    kind = "training"

    def __init__(self, ctx: WorkloadContext, index: int, ranks: list[str], spec: Any) -> None:
        super().__init__(ctx, index)
        self.spec = spec
        self.at_s = spec.start_s
        self.allreduce = Collective(ctx, index, "all_reduce", ranks, spec.gradient_bytes,
                                    spec.slice_bytes, spec.channels, spec.algorithm)
        self.allreduce.kind = "training"
        self.planned_bytes = self.allreduce.planned_bytes * spec.iterations
        self.network_bytes = self.allreduce.network_bytes * spec.iterations
        self.planned_flows = self.allreduce.planned_flows * spec.iterations
        self.planned_fabric_flows = self.allreduce.planned_fabric_flows * spec.iterations
        self.planned_rate_updates = self.allreduce.planned_rate_updates * spec.iterations
        self.planned_concurrent = self.allreduce.planned_concurrent
        self.unit_bytes_hint = self.allreduce.unit_bytes_hint
        self.steps: list[tuple[float, float]] = []  # (step time, all-reduce time)
        #: Per iteration so far: [began, all-reduce began (None before), ended (None before)].
        self.iterations: list[list[float | None]] = []
        self.flow_ids = self.allreduce.flow_ids

    def estimate_s(self, times: HopTimes) -> float:
        """Every iteration: the compute before the all-reduce starts, then the longer of the
        rest of the compute and the all-reduce."""
        compute, overlap = float(self.spec.compute_s), float(self.spec.overlap)
        return int(self.spec.iterations) * (compute * (1 - overlap) + max(
            compute * overlap, self.allreduce.estimate_s(times)))

    @property
    def hops(self) -> list[tuple[str, str]]:
        """(src, dst) pairs of the all-reduce, for path checks."""
        return self.allreduce.hops

    @property
    def progress_bytes(self) -> int:
        """Bytes of the gradient all-reduces' completed flows so far."""
        return self.allreduce.done_bytes

    def _run(self) -> Generator[Any, Any, None]:
        env = self.ctx.engine.env
        if self.at_s > env.now:
            yield env.timeout(self.at_s - env.now)
        self.start_s = env.now
        compute_s, overlap = self.spec.compute_s, self.spec.overlap
        for _ in range(self.spec.iterations):
            began = env.now
            phases: list[float | None] = [began, None, None]
            self.iterations.append(phases)
            yield env.timeout(compute_s * (1 - overlap))
            comm_began = env.now
            phases[1] = comm_began
            yield env.all_of([env.process(self.allreduce.execute()),
                              env.timeout(compute_s * overlap)])
            self.steps.append((env.now - began, self.allreduce.runs[-1][1] - comm_began))
            phases[2] = env.now
        self.finish_s = env.now

    def activity(self) -> list[Activity]:
        """Compute then the gradient all-reduce, per iteration so far, on every rank."""
        ranks = tuple(self.allreduce.ranks)
        out = []
        runs = self.allreduce.runs
        for i, (began, comm_began, _ended) in enumerate(self.iterations):
            assert began is not None  # set when the iteration starts
            out.append(Activity(ranks, "compute", began, began + self.spec.compute_s))
            if comm_began is not None:  # iteration i's all-reduce is runs[i] once it is done
                out.append(Activity(ranks, "comm", comm_began,
                                    runs[i][1] if i < len(runs) else None))
        return out

    def summary(self) -> dict[str, Any] | None:
        """The ``training`` object of the result (means over completed iterations)."""
        if not self.steps:
            return None
        step = sum(s for s, _ in self.steps) / len(self.steps)
        comm = sum(c for _, c in self.steps) / len(self.steps)
        compute = self.spec.compute_s
        return {"iterations": len(self.steps), "compute_s": compute, "overlap": self.spec.overlap,
                "step_time_s": step, "allreduce_time_s": comm,
                "exposed_comm_s": max(0.0, step - compute), "gpu_utilisation": compute / step}

    def report(self) -> dict[str, Any]:
        out = super().report()
        out["collective"] = self.allreduce.summary()
        out["training"] = self.summary()
        return out
