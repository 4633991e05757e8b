"""Flow-engine rate updates of an LLM iteration's pipeline sends, counted from the pipeline's
structure and the fabric's routes before the run.

A rate update is an instant at which flows start or end.  A pipeline send is one flow per
tensor-parallel GPU pair, each on its own rail; every data-parallel (and context-parallel)
replica sends the same micro-batch at the same point of its 1F1B schedule.  What decides
how many instants those sends take is whether the flows of one stage boundary, started
together, get the same rate:

- **no contention** (every flow of the boundary at the same max-min rate: e.g. stages under
  one rail leaf): the replicas stay in lockstep, and each of the boundary's ``m`` sends
  (micro-batches) per direction is one start and one end for all of them: 2 instants;
- **contention** (ECMP collisions above the leaves give some flows a fraction of the line):
  the replicas finish at different times and drift apart, so every replica's send starts
  at an instant of its own, and its flows end at as many instants as they have distinct
  rates: ``1 + distinct rates`` per replica and send.

The rates are those of one max-min solve (:func:`~fabricstudio.sim.flow.maxmin.
max_min_rates`) of the boundary's flows over the routes the flow engine will use (its own
cached routes).  Measured against the flow engine's count (Llama-3-70B, TP 8, PP 4,
``benchmarks/scale.py --cases llm``): see docs/engine.md, "Flow-level engine".  Replicas that
drift apart may meet again (a late transfer the receiver was not waiting for costs it
nothing), so at mid sizes this count is high; it is never tuned per case.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fabricstudio.sim.flow.maxmin import incidence, max_min_rates
from fabricstudio.sim.llm.plan import LlmPlan
from fabricstudio.sim.workloads.addresses import server_of

#: (links, weights) of the route between two addresses.
Route = Callable[[str, str], tuple[np.ndarray, np.ndarray]]
#: Rates closer than this (relative) are one rate.
SAME_RATE = 1e-9


def pipeline_send_updates(plan: LlmPlan, route: Route, capacity: np.ndarray) -> int:
    """Rate updates of one iteration's pipeline sends (both directions of every stage
    boundary, ``micro_batches`` sends each)."""
    total = 0
    for p in range(plan.pp - 1):
        for a, b in ((p, p + 1), (p + 1, p)):
            total += plan.micro_batches * boundary_instants(plan, a, b, route, capacity)
    return total


def boundary_instants(plan: LlmPlan, a: int, b: int, route: Route,
                      capacity: np.ndarray) -> int:
    """Instants one send from stage ``a`` to stage ``b`` takes, all replicas together (see
    the module docstring); 0 when every pair is on one server (NVLink)."""
    owner: list[int] = []  # replica of each fabric flow
    links: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    replica = 0
    for d in range(plan.dp):
        for c in range(plan.cp):
            for t in range(plan.tp):
                src, dst = plan.address(a, d, c, t), plan.address(b, d, c, t)
                if server_of(src) == server_of(dst):
                    continue
                hop_links, hop_weights = route(src, dst)
                owner.append(replica)
                links.append(np.asarray(hop_links, dtype=np.int64))
                weights.append(np.asarray(hop_weights, dtype=np.float64))
            replica += 1
    if not owner:
        return 0
    rates = _rates(links, weights, capacity)
    levels = _levels(rates)
    if len(np.unique(levels)) == 1:
        return 2  # lockstep: one start, one end
    by_replica = np.asarray(owner, dtype=np.int64)
    distinct = {(int(r), int(level)) for r, level in zip(by_replica, levels, strict=True)}
    return len(np.unique(by_replica)) + len(distinct)


def _rates(links: list[np.ndarray], weights: list[np.ndarray],
           capacity: np.ndarray) -> np.ndarray:
    """Max-min rates of flows started together on these routes."""
    link_idx = np.concatenate(links)
    flow_idx = np.repeat(np.arange(len(links)), [len(x) for x in links])
    touched, local = np.unique(link_idx, return_inverse=True)
    inc = incidence(len(touched), len(links), local, flow_idx, np.concatenate(weights))
    return max_min_rates(inc, capacity[touched])


def _levels(rates: np.ndarray) -> np.ndarray:
    """Each rate's level number (rates within :data:`SAME_RATE` of each other share one)."""
    order = np.argsort(rates)
    ranked = rates[order]
    steps = np.diff(ranked) > SAME_RATE * np.maximum(ranked[1:], 1.0)
    levels = np.empty(len(rates), dtype=np.int64)
    levels[order] = np.concatenate([[0], np.cumsum(steps)])
    return levels
