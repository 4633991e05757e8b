"""One training iteration as SimPy processes: 1F1B pipelines, data-parallel reduction, expert
and context parallel exchanges, on a fabric or an ideal network.

Every (data-parallel rank, context-parallel rank, pipeline stage) is one process standing for
its tensor-parallel GPUs (they compute and communicate in lockstep inside their server).
Stage s runs the 1F1B schedule (Narayanan et al. 2021): ``min(p - s - 1, m)`` warm-up
forwards, then one forward and one backward alternately, then the remaining backwards.

- a forward waits for its activations from stage s-1 and sends its own to s+1; a backward
  waits for the gradients from s+1 and sends to s-1 (one flow per tensor-parallel GPU pair,
  on its rail); sends do not block the sender;
- compute takes FLOPs / (peak x efficiency); tensor-parallel all-reduces (NVLink) follow it,
  exposed; the expert all-to-alls of the stage's MoE layers run after it, exposed, once every
  member of the expert group has arrived; context-parallel K/V exchanges hide under the
  attention compute, the rest is exposed;
- gradients are reduced over the data- and context-parallel group (ZeRO 0: all-reduce;
  ZeRO >= 1: reduce-scatter, then the weights' all-gather), from the start of the last
  backward with ``overlap_grad_reduce`` (else after it), once every member has arrived; the
  all-gather hides under the next iteration's first forward with ``overlap_param_gather``
  (what it does not hide is counted); ZeRO 3 also gathers the weights before every pass.

Each process keeps a :class:`Ledger` of where its time went; the one that ends last sets the
iteration time and its ledger is the breakdown (compute, bubble, exposed TP/PP/DP/EP/CP).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import simpy

from fabricstudio.sim.llm import formulas as f
from fabricstudio.sim.llm.plan import LlmPlan

KINDS = ("compute", "bubble", "tp", "pp", "dp", "ep", "cp")


@dataclass
class Ledger:
    """Seconds a process spent per kind (``compute`` = busy GPUs)."""

    spent: dict[str, float] = field(default_factory=lambda: dict.fromkeys(KINDS, 0.0))
    start: float = 0.0
    end: float = 0.0

    def add(self, kind: str, seconds: float) -> None:
        if seconds > 0:
            self.spent[kind] += seconds


class _Rendezvous:
    """Starts an operation once all ``size`` members arrived; each member waits for it."""

    def __init__(self, env: simpy.Environment, size: int,
                 start: Callable[[], simpy.Event]) -> None:
        self.env, self.size, self.start = env, size, start
        self.count = 0
        self.done = env.event()

    def _finish(self, _event: simpy.Event) -> None:
        self.done.succeed()

    def arrive(self) -> simpy.Event:
        self.count += 1
        if self.count == self.size:
            op = self.start()
            op.callbacks.append(self._finish)
        return self.done


class _Slot:
    """A pipeline transfer: when its sender started it, and its arrival."""

    __slots__ = ("sent_at", "arrived")

    def __init__(self, env: simpy.Environment) -> None:
        self.sent_at: float | None = None
        self.arrived = env.event()


@dataclass
class IterationResult:
    """Time and breakdown of one iteration."""

    time_s: float
    breakdown: dict[str, float]
    utilisation: float  #: compute / time, mean over all GPUs


class Iteration:
    """Runs one iteration of ``plan`` on ``net`` (a Fabric- or IdealNetwork)."""

    def __init__(self, plan: LlmPlan, net: Any) -> None:
        self.plan = plan
        self.net = net
        self.env: simpy.Environment = net.env
        self._slots: dict[tuple[Any, ...], _Slot] = {}
        self._meetings: dict[tuple[Any, ...], _Rendezvous] = {}
        self.ledgers: dict[tuple[int, int, int], Ledger] = {}

    # ------------------------------------------------------------------ helpers
    def _slot(self, key: tuple[Any, ...]) -> _Slot:
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(self.env)
        return slot

    def _meet(self, key: tuple[Any, ...], size: int,
              start: Callable[[], simpy.Event]) -> simpy.Event:
        meeting = self._meetings.get(key)
        if meeting is None:
            meeting = self._meetings[key] = _Rendezvous(self.env, size, start)
        return meeting.arrive()

    def run(self) -> simpy.Event:
        """Start every process; the returned event fires with an :class:`IterationResult`."""
        plan = self.plan
        procs: list[simpy.Event] = []
        for p in range(plan.pp):
            for d in range(plan.dp):
                for c in range(plan.cp):
                    ledger = self.ledgers[(p, d, c)] = Ledger(start=self.env.now)
                    procs.append(self.env.process(self._stage(p, d, c, ledger)))
        return self.env.process(self._collect(procs))

    def _collect(self, procs: list[simpy.Event]) -> Any:
        started = self.env.now
        yield self.env.all_of(procs)
        worst = max(self.ledgers.values(), key=lambda led: (led.end, -led.start))
        time_s = worst.end - started
        compute = sum(led.spent["compute"] for led in self.ledgers.values()) / len(self.ledgers)
        return IterationResult(time_s, dict(worst.spent), compute / time_s if time_s else 0.0)

    # ------------------------------------------------------------------ a stage's process
    def _stage(self, p: int, d: int, c: int, led: Ledger) -> Any:
        plan = self.plan
        m = plan.micro_batches
        warmup = min(plan.pp - p - 1, m)
        order = [("F", i) for i in range(warmup)]
        for i in range(m - warmup):
            order += [("F", warmup + i), ("B", i)]
        order += [("B", i) for i in range(m - warmup, m)]
        dp_wait = None
        for kind, i in order:
            if kind == "B" and i == m - 1 and plan.spec.overlap_grad_reduce:
                dp_wait = self._gradients(p, d, c)
            if kind == "F":
                yield from self._forward(p, d, c, i, led)
            else:
                yield from self._backward(p, d, c, i, led)
        if dp_wait is None:
            dp_wait = self._gradients(p, d, c)
        began = self.env.now
        yield dp_wait
        led.add("dp", self.env.now - began)
        hidden = yield from self._weights(p, led)
        led.end = self.env.now - hidden

    def _receive(self, key: tuple[Any, ...], led: Ledger) -> Any:
        slot = self._slot(key)
        began = self.env.now
        yield slot.arrived
        now = self.env.now
        sent = slot.sent_at if slot.sent_at is not None else began
        led.add("bubble", min(sent, now) - began)
        led.add("pp", now - max(began, sent))

    def _send(self, key: tuple[Any, ...], pairs: list[tuple[str, str]]) -> None:
        slot = self._slot(key)
        slot.sent_at = self.env.now
        event = self.net.p2p(pairs, self.plan.stages[0].pp_bytes)
        event.callbacks.append(lambda _e: slot.arrived.succeed())

    def _pairs(self, p: int, q: int, d: int, c: int) -> list[tuple[str, str]]:
        plan = self.plan
        return [(plan.address(p, d, c, t), plan.address(q, d, c, t)) for t in range(plan.tp)]

    def _forward(self, p: int, d: int, c: int, i: int, led: Ledger) -> Any:
        plan = self.plan
        cost = plan.stages[p]
        if p > 0:
            yield from self._receive(("F", p, d, c, i), led)
        gather = self._zero3_start(p, i, "F")
        yield from self._compute(p, d, c, i, "F", cost.forward_s, cost.tp_forward_s, led)
        yield from self._finish_zero3(gather, led)
        if p < plan.pp - 1:
            self._send(("F", p + 1, d, c, i), self._pairs(p, p + 1, d, c))

    def _backward(self, p: int, d: int, c: int, i: int, led: Ledger) -> Any:
        plan = self.plan
        cost = plan.stages[p]
        if p < plan.pp - 1:
            yield from self._receive(("B", p, d, c, i), led)
        gather = self._zero3_start(p, i, "B")
        yield from self._compute(p, d, c, i, "B", cost.backward_s, cost.tp_backward_s, led)
        yield from self._finish_zero3(gather, led)
        if p > 0:
            self._send(("B", p - 1, d, c, i), self._pairs(p, p - 1, d, c))

    def _compute(self, p: int, d: int, c: int, i: int, kind: str, compute_s: float,
                 tp_s: float, led: Ledger) -> Any:
        plan = self.plan
        cost = plan.stages[p]
        env = self.env
        hidden = cost.attention_s if plan.cp > 1 else 0.0
        yield env.timeout(compute_s - hidden)
        if plan.cp > 1:  # K/V exchange of the context-parallel ring under the attention
            began = env.now
            ranks = [[plan.address(p, d, cc, t) for cc in range(plan.cp)] for t in range(plan.tp)]
            size = cost.cp_bytes * plan.cp / (plan.cp - 1)
            exchange = self._meet(("cp", kind, p, d, i), plan.cp, lambda: env.all_of(
                [self.net.collective("all_gather", r, size) for r in ranks]))
            yield env.all_of([env.timeout(hidden), exchange])
            led.add("cp", env.now - began - hidden)
        led.add("compute", compute_s)
        if tp_s > 0:
            yield env.timeout(tp_s)
            led.add("tp", tp_s)
        if cost.ep_bytes > 0:
            began = env.now
            yield self._experts(p, d, c, i, kind)
            led.add("ep", env.now - began)

    def _experts(self, p: int, d: int, c: int, i: int, kind: str) -> simpy.Event:
        plan = self.plan
        group = d // plan.ep
        members = range(group * plan.ep, (group + 1) * plan.ep)
        per_gpu = plan.stages[p].ep_bytes

        def start() -> simpy.Event:
            return self.env.all_of([self.net.all_to_all(
                [plan.address(p, dd, c, t) for dd in members], per_gpu)
                for t in range(plan.tp)])

        return self._meet(("ep", kind, p, c, group, i), plan.ep, start)

    def _group(self, p: int, t: int) -> list[str]:
        plan = self.plan
        return [plan.address(p, d, c, t) for d in range(plan.dp) for c in range(plan.cp)]

    def _gradients(self, p: int, d: int, c: int) -> simpy.Event:
        """Arrive at the stage's gradient reduction (returns the event to wait for)."""
        plan = self.plan
        size = f.dp_gradient_bytes(plan.stages[p].params_per_gpu)
        name = "all_reduce" if plan.spec.zero == 0 else "reduce_scatter"
        members = plan.dp * plan.cp
        if members < 2:
            return self.env.timeout(0)

        def start() -> simpy.Event:
            return self.env.all_of([self.net.collective(name, self._group(p, t), size)
                                    for t in range(plan.tp)])

        return self._meet(("grad", p), members, start)

    def _weights(self, p: int, led: Ledger) -> Any:
        """ZeRO >= 1: all-gather the updated weights.  With ``overlap_param_gather`` up to one
        forward of it hides under the next iteration (returned, so the iteration ends that
        much earlier); the rest counts as exposed data-parallel time."""
        plan = self.plan
        members = plan.dp * plan.cp
        if plan.spec.zero == 0 or members < 2:
            return 0.0
        size = f.dp_param_bytes(plan.stages[p].params_per_gpu)
        began = self.env.now
        yield self._meet(("weights", p), members, lambda: self.env.all_of(
            [self.net.collective("all_gather", self._group(p, t), size)
             for t in range(plan.tp)]))
        took = self.env.now - began
        hidden = min(took, plan.stages[p].forward_s if plan.spec.overlap_param_gather else 0.0)
        led.add("dp", took - hidden)
        return hidden

    def _zero3_start(self, p: int, i: int, kind: str) -> simpy.Event | None:
        """ZeRO 3: the stage's weights are gathered for each pass, prefetched while it
        computes (what the compute does not cover is exposed)."""
        plan = self.plan
        members = plan.dp * plan.cp
        if plan.spec.zero < 3 or members < 2:
            return None
        size = f.dp_param_bytes(plan.stages[p].params_per_gpu)
        return self._meet(("z3", kind, p, i), members, lambda: self.env.all_of(
            [self.net.collective("all_gather", self._group(p, t), size)
             for t in range(plan.tp)]))

    def _finish_zero3(self, gather: simpy.Event | None, led: Ledger) -> Any:
        if gather is not None:
            began = self.env.now
            yield gather
            led.add("dp", self.env.now - began)
