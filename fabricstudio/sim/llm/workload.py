"""The ``llm_training`` workload: training iterations of a transformer on the fabric, and
the same iterations on an ideal network, so the network's cost in GPU time is one number."""

from __future__ import annotations

import itertools
from collections.abc import Generator
from typing import Any

import simpy

from fabricstudio.sim.llm.iteration import KINDS, Iteration, IterationResult
from fabricstudio.sim.llm.network import FabricNetwork, IdealNetwork
from fabricstudio.sim.llm.plan import LlmPlan, make_plan
from fabricstudio.sim.llm.updates import pipeline_send_updates
from fabricstudio.sim.scenario import LlmTrainingSpec
from fabricstudio.sim.workloads.addresses import group_by_server, server_of
from fabricstudio.sim.workloads.base import Activity, Workload, WorkloadContext


def ideal_iteration(plan: LlmPlan, design: Any) -> IterationResult:
    """One iteration with every transfer between servers instantaneous (own clock)."""
    env = simpy.Environment()
    net = IdealNetwork(env, design, plan.nvlink_bps, "ideal", plan.spec.algorithm,
                       plan.gpu.nvls)
    done = Iteration(plan, net).run()
    env.run()
    result = done.value
    assert isinstance(result, IterationResult)
    return result


class LlmTraining(Workload):
    """``iterations`` training iterations (see :mod:`fabricstudio.sim.llm.iteration`)."""

    kind = "llm_training"

    def __init__(self, ctx: WorkloadContext, index: int, spec: LlmTrainingSpec,
                 gpus: list[str], where: str) -> None:
        super().__init__(ctx, index)
        self.spec = spec
        self.at_s = spec.start_s
        self.plan = make_plan(ctx.design, spec, gpus, where)
        self.ideal = ideal_iteration(self.plan, ctx.design)
        self.results: list[IterationResult] = []
        self.duration_hint_s = spec.iterations * self.ideal.time_s
        self._count_work()
        self._net: FabricNetwork | None = None
        #: The iterations run on the fabric so far (their ledgers' spans: GPU states).
        self.iterations: list[Iteration] = []

    # ------------------------------------------------------------------ estimates
    def _count_work(self) -> None:
        plan, it = self.plan, self.spec.iterations
        replicas = plan.dp * plan.cp
        sends = replicas * plan.micro_batches * (plan.pp - 1) * 2 * plan.tp
        groups = replicas if replicas > 1 else 0
        dp_streams = (1 if plan.spec.zero == 0 else 2) * plan.pp * plan.tp * groups
        servers_per_group = max(1, min(plan.ep, len(group_by_server(
            [plan.address(0, d, 0, 0) for d in range(min(plan.ep, plan.dp))]))))
        ep_flows = (plan.pp * plan.cp * (plan.dp // plan.ep) * plan.tp * plan.ep
                    * (servers_per_group - 1) * 2 * plan.micro_batches) if plan.ep > 1 else 0
        cp_flows = (plan.pp * plan.dp * plan.micro_batches * 2 * plan.tp * plan.cp
                    if plan.cp > 1 else 0)
        self.planned_flows = self.planned_fabric_flows = it * (sends + dp_streams + ep_flows
                                                                + cp_flows)
        cost = plan.stages
        pp_bytes = sends * cost[0].pp_bytes
        dp_bytes = sum(2 * s.params_per_gpu * 4 for s in cost) * plan.tp * groups
        ep_bytes = sum(s.ep_bytes for s in cost) * replicas * plan.tp * plan.micro_batches * 2
        cp_bytes = sum(s.cp_bytes for s in cost) * replicas * plan.tp * plan.micro_batches * 2
        self.network_bytes = int(it * (pp_bytes + dp_bytes + ep_bytes + cp_bytes))
        self.planned_bytes = self.network_bytes
        self.planned_rate_updates = it * self._rate_updates(groups)
        self.planned_concurrent = replicas * plan.tp * 2 + dp_streams // 2

    def _rate_updates(self, dp_groups: int) -> int:
        """Flow-engine rate updates of one iteration before any route is known (instants at
        which flows start or end): two per pipeline send of every replica (the tensor-parallel
        flows of a send start together and, without contention, end together).  Once the flow
        engine is built, :meth:`rate_updates_on` counts the sends from the routes instead
        (this count is 0.12-2.79x off across 256-32,768 GPUs: replicas stay in lockstep where
        nothing contends, and collisions split a send's ends)."""
        plan = self.plan
        sends = plan.dp * plan.cp * plan.micro_batches * (plan.pp - 1) * 2
        return 2 * sends + self._collective_updates(dp_groups)

    def _collective_updates(self, dp_groups: int) -> int:
        """Rate updates of one iteration's data-parallel rings and all-to-alls: two per
        stage's gradient collective (its tensor-parallel rings start at one rendezvous and,
        without contention, end together) and per all-to-all."""
        plan = self.plan
        m = plan.micro_batches
        rings = (1 if plan.spec.zero == 0 else 2) * plan.pp if dp_groups else 0
        experts = (plan.pp * plan.cp * (plan.dp // plan.ep) * plan.tp * m * 2
                   if plan.ep > 1 else 0)
        context = plan.pp * plan.dp * m * 2 * plan.tp if plan.cp > 1 else 0
        return 2 * (rings + experts + context)

    def rate_updates_on(self, engine: Any) -> int:
        """Rate updates on the flow engine, the pipeline sends counted from the stage
        boundaries' routes on ``engine`` (:mod:`fabricstudio.sim.llm.updates`): lockstep
        replicas where a boundary's flows all get one rate, else every replica's send on its
        own instants."""
        plan = self.plan
        replicas = plan.dp * plan.cp

        def route(src: str, dst: str) -> tuple[Any, Any]:
            links, weights, _delay = engine.route(src, dst)
            return links, weights

        sends = pipeline_send_updates(plan, route, engine.capacity)
        groups = replicas if replicas > 1 else 0
        return self.spec.iterations * (sends + self._collective_updates(groups))

    @property
    def hops(self) -> list[tuple[str, str]]:
        """Pairs that prove every GPU of the job reachable (a chain through its servers) and
        give typical hop counts (pipeline and data-parallel neighbours)."""
        plan = self.plan
        firsts = [g[0] for g in group_by_server(
            [plan.address(p, d, c, 0) for p in range(plan.pp) for d in range(plan.dp)
             for c in range(plan.cp)])]
        pairs = list(itertools.pairwise(firsts))
        pairs += [(plan.address(p, 0, 0, 0), plan.address(p + 1, 0, 0, 0))
                  for p in range(plan.pp - 1)]
        return [(a, b) for a, b in pairs if server_of(a) != server_of(b)] or pairs

    # ------------------------------------------------------------------ running
    def _run(self) -> Generator[Any, Any, None]:
        engine = self.ctx.engine
        env = engine.env
        if self.at_s > env.now:
            yield env.timeout(self.at_s - env.now)
        self.start_s = env.now
        plan = self.plan
        for _ in range(self.spec.iterations):
            self._net = FabricNetwork(engine, plan.nvlink_bps, self.tag, plan.spec.algorithm,
                                      plan.gpu.nvls)
            iteration = Iteration(plan, self._net, record_spans=True)
            self.iterations.append(iteration)
            result = yield iteration.run()
            self.results.append(result)
            self.done_bytes += self.network_bytes // self.spec.iterations
        self.finish_s = env.now

    def activity(self) -> list[Activity]:
        """Each process's tensor-parallel GPUs computing, or communicating (tensor-parallel
        all-reduces, waits for a pipeline transfer, data-, expert- and context-parallel
        collectives), so far; pipeline bubbles are idle time."""
        plan = self.plan
        out = []
        for iteration in self.iterations:
            for (p, d, c), ledger in list(iteration.ledgers.items()):
                gpus = tuple(plan.address(p, d, c, t) for t in range(plan.tp))
                for kind, start, end in _merged(ledger.spans):
                    out.append(Activity(gpus, kind, start, end))
        return out

    # ------------------------------------------------------------------ reporting
    def summary(self) -> dict[str, Any] | None:
        """The ``llm_training`` object of the result (means over completed iterations)."""
        plan, spec = self.plan, self.spec
        out: dict[str, Any] = {
            "model": plan.model.name, "gpu": plan.gpu.name, "gpus": plan.gpus,
            "parallelism": {"tp": plan.tp, "pp": plan.pp, "dp": plan.dp, "ep": plan.ep,
                            "cp": plan.cp, "zero": spec.zero, "recompute": spec.recompute,
                            "seq_len": spec.seq_len, "global_batch": spec.global_batch,
                            "micro_batch": spec.micro_batch,
                            "micro_batches": plan.micro_batches},
            "placement": "Megatron order: TP inside a server, then CP, DP, PP outermost",
            "compute_efficiency": spec.compute_efficiency,
            "memory_gb_per_gpu": round(plan.memory_gb, 2),
            "iterations": len(self.results),
            "ideal": self._figures(self.ideal),
            "warnings": list(plan.warnings),
        }
        if self._net is not None and self._net.chosen:
            out["dp_collectives"] = {name: {"algorithm": a, "reason": r}
                                     for name, (a, r) in self._net.chosen.items()}
        if not self.results:
            out.update({"iteration_time_s": None, "network_tax_s": None})
            return out
        n = len(self.results)
        mean = IterationResult(
            sum(r.time_s for r in self.results) / n,
            {k: sum(r.breakdown[k] for r in self.results) / n for k in KINDS},
            sum(r.utilisation for r in self.results) / n)
        out.update(self._figures(mean))
        tax = mean.time_s - self.ideal.time_s
        out["network_tax_s"] = tax
        out["network_tax_fraction"] = tax / mean.time_s if mean.time_s else None
        out["network_tax_gpu_hours"] = tax * plan.gpus / 3600
        return out

    def _figures(self, r: IterationResult) -> dict[str, Any]:
        plan = self.plan
        t = r.time_s
        flops = plan.model_flops_per_iteration()
        peak = plan.gpu.bf16_tflops * 1e12
        b = r.breakdown
        return {
            "iteration_time_s": t,
            "compute_s": b["compute"],
            "bubble_s": b["bubble"],
            "exposed_comm_s": {k: b[k] for k in ("tp", "pp", "dp", "ep", "cp")},
            "gpu_utilisation": r.utilisation,
            "mfu": flops / (t * plan.gpus * peak) if t else None,
            "model_tflops_per_gpu": flops / (t * plan.gpus) / 1e12 if t else None,
            "tokens_per_s": plan.tokens / t if t else None,
        }

    def report(self) -> dict[str, Any]:
        out = super().report()
        out["llm_training"] = self.summary()
        return out


def _merged(spans: list[list[Any]]) -> list[tuple[str, float, float | None]]:
    """Ledger spans as activity kinds ("compute", "nvlink" or "comm"), touching spans of one kind
    joined (an open span, end None, stays last)."""
    out: list[tuple[str, float, float | None]] = []
    for kind, start, end in sorted(spans, key=lambda span: span[1]):
        # a tensor-parallel all-reduce is a fixed NVLink time the engine does not carry
        kind = {"compute": "compute", "tp": "nvlink"}.get(kind, "comm")
        last = out[-1] if out else None
        if (last is not None and last[0] == kind and last[2] is not None
                and start <= last[2] + 1e-12):
            out[-1] = (kind, last[1], None if end is None else max(last[2], end))
        else:
            out.append((kind, start, end))
    return out
