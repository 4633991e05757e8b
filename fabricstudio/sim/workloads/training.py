"""Data-parallel training step: compute, then a gradient all-reduce that may overlap it.

Per iteration the GPUs compute for ``compute_s``; the gradient all-reduce starts once
``(1 - overlap)`` of the compute is done (backward pass releasing gradients) and the step ends
when both the compute and the all-reduce are finished.  A mixture-of-experts model
(``expert_dispatch``) also stops computing after ``at`` of the compute until its token
dispatch has arrived (see :class:`~fabricstudio.sim.scenario.ExpertDispatchSpec`).  Reported
like a training dashboard: step time, exposed communication (step time - compute) and GPU
utilisation = compute / step.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fabricstudio.sim.scenario import ScenarioError
from fabricstudio.sim.workloads.addresses import server_of
from fabricstudio.sim.workloads.base import Activity, Workload, WorkloadContext
from fabricstudio.sim.workloads.collectives import Collective

if TYPE_CHECKING:
    from fabricstudio.sim.duration import HopTimes


class TrainingStep(Workload):
    """``iterations`` training steps over ``ranks`` with a ring all-reduce of the gradients."""

    kind = "training"

    def __init__(self, ctx: WorkloadContext, index: int, ranks: list[str], spec: Any,
                 where: str = "training") -> None:
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
        #: (src, dst) of the MoE token dispatch of every step (empty for a dense model).
        self.dispatch_pairs = dispatch_pairs(ranks, spec, where)
        if self.dispatch_pairs:
            size = spec.expert_dispatch.bytes
            pairs = len(self.dispatch_pairs)
            fabric = sum(1 for a, b in self.dispatch_pairs if server_of(a) != server_of(b))
            self.planned_bytes += pairs * size * spec.iterations
            self.network_bytes += fabric * size * spec.iterations
            self.planned_flows += pairs * spec.iterations
            self.planned_fabric_flows += fabric * spec.iterations
            self.planned_rate_updates += 2 * fabric * spec.iterations
            self.planned_concurrent = max(self.planned_concurrent, fabric)
        self.steps: list[tuple[float, float]] = []  # (step time, all-reduce time)
        #: Per iteration so far: [began, all-reduce began (None before), ended (None before)].
        self.iterations: list[list[float | None]] = []
        #: Per iteration so far: (dispatch began, ended or None while it runs).
        self.dispatches: list[list[float | None]] = []
        self.flow_ids = self.allreduce.flow_ids

    def estimate_s(self, times: HopTimes) -> float:
        """Every iteration: the compute before the all-reduce starts, then the longer of the
        rest of the compute and the all-reduce."""
        compute, overlap = float(self.spec.compute_s), float(self.spec.overlap)
        return int(self.spec.iterations) * (compute * (1 - overlap) + max(
            compute * overlap, self.allreduce.estimate_s(times)) + self._dispatch_estimate(times))

    def _dispatch_estimate(self, times: HopTimes) -> float:
        """The token dispatch: the busiest receiver's bytes at its line rate, one latency."""
        if not self.dispatch_pairs:
            return 0.0
        spec = self.spec.expert_dispatch
        incoming: dict[str, int] = {}
        for _src, dst in self.dispatch_pairs:
            incoming[dst] = incoming.get(dst, 0) + 1
        busiest = max(incoming, key=lambda d: incoming[d])
        src = next(s for s, d in self.dispatch_pairs if d == busiest)
        return float(incoming[busiest] * spec.bytes / times.send_rate(busiest)
                     + times.delay(src, busiest))

    @property
    def hops(self) -> list[tuple[str, str]]:
        """(src, dst) pairs of the all-reduce and the token dispatch, for path checks."""
        return self.allreduce.hops + self.dispatch_pairs

    @property
    def progress_bytes(self) -> int:
        """Bytes of the gradient all-reduces' and token dispatches' completed flows so far."""
        return self.allreduce.done_bytes + self.done_bytes

    def _run(self) -> Generator[Any, Any, None]:
        env = self.ctx.engine.env
        if self.at_s > env.now:
            yield env.timeout(self.at_s - env.now)
        self.start_s = env.now
        compute_s, overlap = self.spec.compute_s, self.spec.overlap
        dispatch = self.spec.expert_dispatch if self.dispatch_pairs else None
        for _ in range(self.spec.iterations):
            began = env.now
            phases: list[float | None] = [began, None, None]
            self.iterations.append(phases)
            # points on the compute clock (which stops during the dispatch): the all-reduce
            # starts at (1 - overlap) of the compute, the dispatch at `at` of it
            points = [(compute_s * (1 - overlap), 1)]
            if dispatch is not None:
                points.append((compute_s * dispatch.at, 0))
            done = 0.0
            allreduce = None
            for point, what in sorted(points):
                yield env.timeout(point - done)
                done = point
                if what:
                    phases[1] = env.now
                    allreduce = env.process(self.allreduce.execute())
                else:
                    yield from self._dispatch()
            yield env.timeout(compute_s - done)
            assert allreduce is not None and phases[1] is not None
            comm_began = phases[1]
            yield allreduce
            self.steps.append((env.now - began, self.allreduce.runs[-1][1] - comm_began))
            phases[2] = env.now
        self.finish_s = env.now

    def _dispatch(self) -> Generator[Any, Any, None]:
        """Every dispatch pair sends its tokens at once; done when the last one arrives.
        Each pair keeps its connection (queue pair) from step to step."""
        engine = self.ctx.engine
        finished = engine.env.event()
        record: list[float | None] = [engine.env.now, None]
        self.dispatches.append(record)
        pending = [len(self.dispatch_pairs)]
        size = self.spec.expert_dispatch.bytes

        def one_done(flow: Any) -> None:
            self.account(flow.size_bytes)
            pending[0] -= 1
            if not pending[0]:
                record[1] = engine.env.now
                finished.succeed()

        for qp, (src, dst) in enumerate(self.dispatch_pairs):
            self.flow_ids.append(engine.add_flow(src, dst, size, qp=qp, on_done=one_done,
                                                 tag=self.dispatch_tag))
        yield finished

    @property
    def dispatch_tag(self) -> str:
        """Tag of the token dispatch's flows (``"w0:expert_dispatch"``)."""
        return f"w{self.index}:expert_dispatch"

    def activity(self) -> list[Activity]:
        """Compute then the gradient all-reduce, per iteration so far, on every rank."""
        ranks = tuple(self.allreduce.ranks)
        out = []
        runs = self.allreduce.runs
        for i, (began, comm_began, _ended) in enumerate(self.iterations):
            assert began is not None  # set when the iteration starts
            out += self._compute_and_dispatch(i, ranks, began)
            if comm_began is not None:  # iteration i's all-reduce is runs[i] once it is done
                out.append(Activity(ranks, "comm", comm_began,
                                    runs[i][1] if i < len(runs) else None))
        return out

    def _compute_and_dispatch(self, i: int, ranks: tuple[str, ...], began: float
                              ) -> list[Activity]:
        """Iteration ``i``'s compute, split around its token dispatch (if any)."""
        compute = self.spec.compute_s
        if i >= len(self.dispatches):
            if not self.dispatch_pairs:
                return [Activity(ranks, "compute", began, began + compute)]
            before = compute * self.spec.expert_dispatch.at
            return [Activity(ranks, "compute", began, began + before)]
        start, end = self.dispatches[i]
        assert start is not None  # set when the dispatch starts
        out = [Activity(ranks, "compute", began, start), Activity(ranks, "comm", start, end)]
        if end is not None:
            out.append(Activity(ranks, "compute", end, end + compute - (start - began)))
        return out

    def summary(self) -> dict[str, Any] | None:
        """The ``training`` object of the result (means over completed iterations)."""
        if not self.steps:
            return None
        step = sum(s for s, _ in self.steps) / len(self.steps)
        comm = sum(c for _, c in self.steps) / len(self.steps)
        compute = self.spec.compute_s
        out = {"iterations": len(self.steps), "compute_s": compute, "overlap": self.spec.overlap,
               "step_time_s": step, "allreduce_time_s": comm,
               "exposed_comm_s": max(0.0, step - compute), "gpu_utilisation": compute / step}
        done = [b - a for a, b in self.dispatches[:len(self.steps)]
                if a is not None and b is not None]
        if done:
            out["dispatch_time_s"] = sum(done) / len(done)
        return out

    def report(self) -> dict[str, Any]:
        out = super().report()
        out["collective"] = self.allreduce.summary()
        out["training"] = self.summary()
        return out


def dispatch_pairs(ranks: list[str], spec: Any, where: str) -> list[tuple[str, str]]:
    """(src, dst) of a step's MoE token dispatch: every other rank sends to each overloaded
    expert's GPU (empty without ``expert_dispatch``)."""
    dispatch = spec.expert_dispatch
    if dispatch is None:
        return []
    members = set(ranks)
    for expert in dispatch.experts:
        if expert not in members:
            raise ScenarioError(f"{where}: expert_dispatch expert {expert!r} is not one of "
                                "the training's GPUs")
    experts = list(dict.fromkeys(dispatch.experts))
    return [(src, dst) for dst in experts for src in ranks if src != dst]
