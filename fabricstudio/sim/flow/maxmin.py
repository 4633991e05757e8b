"""Max-min fair rates by progressive filling (water-filling), vectorised over a sparse matrix.

The links x flows incidence matrix is kept in coordinate form (one entry per flow and link it
loads, with the share of the flow's rate that goes there): its products with a flow vector
(load per link) and with a link vector (flows touching full links) are ``numpy.bincount``
and fancy indexing, so one water-filling level costs O(entries) with no per-call setup, and
only the links the active flows touch are looked at.

Every unfrozen flow's rate rises at the same pace; the first link to fill (its remaining
capacity shared by the unfrozen flows crossing it) or the first flow to reach its own cap
sets the step; flows on full links and flows at their cap freeze; repeat until every flow is
frozen.  The result is the max-min fair allocation (Bertsekas and Gallager, *Data Networks*,
section 6.5.2): no flow can get more without taking from a flow that has less.

Two extensions the collectives need:

* **weights** - a flow may load a link with a fraction of its rate (adaptive routing spreads a
  flow over several paths);
* **groups** - flows that must run at one common rate (the hops of a pipelined ring or tree
  collective, which advance together): when one member freezes, the whole group freezes at
  the current level, and the capacity it leaves unused elsewhere goes to the other flows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Relative tolerance: a link is full when less than this share of its capacity is left.
REL_TOL = 1e-9
#: Entries from which the incremental filling is used (measured: equal at ~1,000 entries,
#: 2x faster at 10,000; the recomputing one is 1.5x faster at 100).
INCREMENTAL_FROM = 1000


@dataclass
class Incidence:
    """A links x flows matrix in coordinate form over ``n_links`` local links."""

    link: np.ndarray  #: local link index of each entry
    flow: np.ndarray  #: flow (column) of each entry
    weight: np.ndarray  #: share of the flow's rate on that link
    n_links: int
    n_flows: int

    def load(self, rates: np.ndarray) -> np.ndarray:
        """Bytes/s per link for the flows' ``rates`` (matrix x vector)."""
        return np.bincount(self.link, weights=self.weight * rates[self.flow],
                           minlength=self.n_links)

    def touching(self, links: np.ndarray) -> np.ndarray:
        """Flows with an entry on a link where ``links`` (bool per link) is True."""
        hit = np.zeros(self.n_flows, dtype=bool)
        hit[self.flow[links[self.link]]] = True
        return hit


def incidence(n_links: int, n_flows: int, link_idx: np.ndarray, flow_idx: np.ndarray,
              weight: np.ndarray) -> Incidence:
    """The incidence of flows ``flow_idx`` on links ``link_idx`` (entries, any order)."""
    return Incidence(np.asarray(link_idx, dtype=np.int64), np.asarray(flow_idx, dtype=np.int64),
                     np.asarray(weight, dtype=np.float64), n_links, n_flows)


def compress(links: np.ndarray, flows: np.ndarray, weights: np.ndarray,
             n_flows: int) -> tuple[Incidence, np.ndarray]:
    """(incidence over only the links that appear, their global indices)."""
    touched, local = np.unique(links, return_inverse=True)
    return Incidence(local.astype(np.int64), flows, weights, len(touched), n_flows), touched


def max_min_rates(inc: Incidence, capacity: np.ndarray, caps: np.ndarray | None = None,
                  groups: np.ndarray | None = None) -> np.ndarray:
    """Max-min fair rate of every flow.

    ``capacity``: per link of ``inc``; ``caps``: per flow upper bound (inf = none);
    ``groups``: per flow group number (-1 = alone; members of a group get one common rate).
    Flows that load no link and have no cap get ``inf``.
    """
    return max_min_with_bottlenecks(inc, capacity, caps, groups)[0]


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start, start + count)`` for every pair (no Python loop)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - np.cumsum(counts) + counts, counts)
    return shift + np.arange(total, dtype=np.int64)


def max_min_with_bottlenecks(inc: Incidence, capacity: np.ndarray,
                             caps: np.ndarray | None = None,
                             groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rates, bottleneck): :func:`max_min_rates` and, per flow, the (local) link that froze
    it, -1 for a flow frozen by its cap or its group.  Both fillings give the same result;
    the incremental one pays its set-up back from about a thousand entries."""
    if len(inc.link) < INCREMENTAL_FROM:
        return _fill_recomputing(inc, capacity, caps, groups)
    return _fill_incremental(inc, capacity, caps, groups)


class _Groups:
    """Flows that share one rate (``groups``: group number per flow, -1 = alone): when one
    member freezes, the whole group freezes with it."""

    def __init__(self, groups: np.ndarray | None) -> None:
        self.grouped = groups is not None and bool((groups >= 0).any())
        self.members = np.zeros(0, dtype=bool)
        self.group_of = np.zeros(0, dtype=np.int64)
        self.n_groups = 0
        if groups is not None and self.grouped:
            self.members = groups >= 0
            self.group_of = np.maximum(groups, 0)
            self.n_groups = int(groups.max()) + 1

    def widen(self, freeze: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``freeze`` plus the active members of every group one of its flows belongs to."""
        if not self.grouped:
            return freeze
        hit = np.zeros(self.n_groups, dtype=bool)
        hit[self.group_of[freeze & self.members]] = True
        return freeze | (active & self.members & hit[self.group_of])


def _start(inc: Incidence, capacity: np.ndarray, caps: np.ndarray | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What both fillings start from: (rates 0, bottleneck -1, caps with inf for none, the
    links' remaining capacity (a copy), the tolerance under which a link counts as full)."""
    n_flows = inc.n_flows
    rates = np.zeros(n_flows)
    bottleneck = np.full(n_flows, -1, dtype=np.int64)
    caps = np.full(n_flows, np.inf) if caps is None else np.asarray(caps, dtype=np.float64)
    remaining = np.asarray(capacity, dtype=np.float64).copy()
    tol = REL_TOL * np.maximum(remaining, 1.0)
    return rates, bottleneck, caps, remaining, tol


def _fill_recomputing(inc: Incidence, capacity: np.ndarray, caps: np.ndarray | None,
                      groups: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Progressive filling that recomputes the unfrozen load from every entry at each level:
    the least set-up, the fastest for small problems."""
    n_flows = inc.n_flows
    rates, bottleneck, caps, remaining, tol = _start(inc, capacity, caps)
    if n_flows == 0:
        return rates, bottleneck
    frozen = np.zeros(n_flows, dtype=bool)
    together = _Groups(groups)
    level = 0.0
    for _ in range(n_flows + inc.n_links + 1):
        active = ~frozen
        load = inc.load(active.astype(np.float64))
        loaded = load > 0
        step = np.inf
        if loaded.any():
            step = float(np.min(remaining[loaded] / load[loaded]))
        step = max(0.0, min(step, float(np.min(caps[active])) - level))
        if not np.isfinite(step):  # flows that load nothing and have no cap
            rates[active] = np.inf
            break
        level += step
        rates[active] = level
        remaining -= step * load
        full = loaded & (remaining <= tol)
        at_full = full[inc.link] & active[inc.flow]
        bottleneck[inc.flow[at_full]] = inc.link[at_full]
        freeze = active & inc.touching(full)
        freeze |= active & (caps <= level * (1 + REL_TOL))
        freeze = together.widen(freeze, active)
        if not freeze.any():  # numerical safety: freeze the tightest link's flows
            ratio = np.where(loaded, remaining / np.where(loaded, load, 1.0), np.inf)
            tightest = np.zeros(inc.n_links, dtype=bool)
            tightest[int(np.argmin(ratio))] = True
            freeze = active & inc.touching(tightest)
        frozen |= freeze
        if frozen.all():
            break
    return rates, bottleneck


def _fill_incremental(inc: Incidence, capacity: np.ndarray, caps: np.ndarray | None,
                      groups: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Progressive filling where each level costs the links still loaded plus the entries
    of the flows that freeze: the unfrozen load per link is kept by subtracting the entries
    of the flows that freeze (found through the entries sorted by flow), the flows on a link
    that fills are found through the entries sorted by link, and links without unfrozen
    flows leave the working set."""
    n_flows, n_links = inc.n_flows, inc.n_links
    rates, bottleneck, caps, remaining, tol = _start(inc, capacity, caps)
    if n_flows == 0:
        return rates, bottleneck
    link, flow, weight = inc.link, inc.flow, inc.weight
    by_link = np.argsort(link, kind="stable")
    link_start = np.searchsorted(link[by_link], np.arange(n_links))
    link_count = np.bincount(link, minlength=n_links)
    by_flow = np.argsort(flow, kind="stable")
    flow_start = np.searchsorted(flow[by_flow], np.arange(n_flows))
    flow_count = np.bincount(flow, minlength=n_flows)
    load = np.bincount(link, weights=weight, minlength=n_links)  # unfrozen flows' weights
    unfrozen = link_count.copy()  # unfrozen entries per link
    live = np.flatnonzero(unfrozen > 0)  # links that still carry unfrozen flows
    active = np.ones(n_flows, dtype=bool)
    together = _Groups(groups)
    finite_caps = bool(np.isfinite(caps).any())
    level = 0.0
    left = n_flows
    for _ in range(n_flows + n_links + 1):
        step = np.inf
        if len(live):
            step = float(np.min(remaining[live] / load[live]))
        if finite_caps:
            step = min(step, float(np.min(caps[active])) - level)
        step = max(0.0, step)
        if not np.isfinite(step):  # flows that load nothing and have no cap
            rates[active] = np.inf
            break
        level += step
        remaining[live] -= step * load[live]
        full = live[remaining[live] <= tol[live]]
        entries = by_link[_ranges(link_start[full], link_count[full])] if len(full) else full
        if len(entries):
            entries = np.sort(entries)  # entry order: a flow's last full link names it
            entries = entries[active[flow[entries]]]
            bottleneck[flow[entries]] = link[entries]
        freeze = np.zeros(n_flows, dtype=bool)
        freeze[flow[entries]] = True
        if finite_caps:
            freeze |= active & (caps <= level * (1 + REL_TOL))
        freeze = together.widen(freeze, active)
        if not freeze.any():  # numerical safety: freeze the tightest link's flows
            tight = live[int(np.argmin(remaining[live] / load[live]))]
            on = by_link[link_start[tight]:link_start[tight] + link_count[tight]]
            freeze[flow[on]] = True
            freeze &= active
        frozen_now = np.flatnonzero(freeze)
        rates[frozen_now] = level
        active[frozen_now] = False
        left -= len(frozen_now)
        if not left:
            break
        gone = by_flow[_ranges(flow_start[frozen_now], flow_count[frozen_now])]
        gone_links = link[gone]
        np.subtract.at(load, gone_links, weight[gone])
        np.subtract.at(unfrozen, gone_links, 1)
        live = live[unfrozen[live] > 0]
    return rates, bottleneck


def max_min_small(flow_links: list[list[tuple[int, float]]], capacity: dict[int, float],
                  caps: list[float], groups: list[int]) -> tuple[list[float], list[int]]:
    """:func:`max_min_with_bottlenecks` for a handful of flows in plain Python (no array
    set-up: a few flows changing at once is the common case).  ``flow_links[f]`` lists
    ``(link, weight)``; ``capacity`` maps every link to its capacity; ``groups[f]`` -1 or a
    group number.  Returns (rates, bottleneck link or -1)."""
    n = len(flow_links)
    rates = [0.0] * n
    neck = [-1] * n
    remaining = dict(capacity)
    tol = {link: REL_TOL * max(c, 1.0) for link, c in capacity.items()}
    active = set(range(n))
    level = 0.0
    while active:
        load: dict[int, float] = {}
        for f in active:
            for link, w in flow_links[f]:
                load[link] = load.get(link, 0.0) + w
        step = min((remaining[link] / w for link, w in load.items() if w > 0), default=np.inf)
        step = max(0.0, min(step, min(caps[f] for f in active) - level))
        if step == np.inf:
            for f in active:
                rates[f] = np.inf
            break
        level += step
        for link, w in load.items():
            remaining[link] -= step * w
        full = {link for link, w in load.items() if w > 0 and remaining[link] <= tol[link]}
        freeze = set()
        for f in active:
            rates[f] = level
            hit = [link for link, _ in flow_links[f] if link in full]
            if hit:
                freeze.add(f)
                neck[f] = hit[-1]
            elif caps[f] <= level * (1 + REL_TOL):
                freeze.add(f)
        frozen_groups = {groups[f] for f in freeze if groups[f] >= 0}
        if frozen_groups:
            freeze.update(f for f in active if groups[f] in frozen_groups)
        if not freeze:  # numerical safety: freeze the flows on the tightest link
            tight = min(load, key=lambda link: remaining[link] / load[link] if load[link] > 0
                        else np.inf)
            freeze = {f for f in active if any(link == tight for link, _ in flow_links[f])}
        active -= freeze
    return rates, neck
