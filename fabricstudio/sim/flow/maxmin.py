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
from operator import truediv

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
                  caps: list[float], groups: list[int],
                  integral: bool = False, on: dict[int, list[int]] | None = None
                  ) -> tuple[list[float], list[int]]:
    """:func:`max_min_with_bottlenecks` for a handful of flows in plain Python (no array
    set-up: a few flows changing at once is the common case).  ``flow_links[f]`` lists
    ``(link, weight)``; ``capacity`` maps every link to its capacity; ``groups[f]`` -1 or a
    group number.  Returns (rates, bottleneck link or -1), bit for bit those of
    :func:`_fill_recomputing` with the entries in flow order (tests/sim/test_flow_solver.py).

    ``integral``: every weight is a whole number (single-path routes, and groups of them): a
    link's unfrozen load is then a whole number, kept exactly by taking off the flows that
    freeze instead of summing the unfrozen ones again at every level.  ``on``: the flows on
    each link in flow order, when the caller has them."""
    n = len(flow_links)
    rates = [0.0] * n
    neck = [-1] * n
    remaining = dict(capacity)
    #: No link's tolerance is larger: a link with more left is not full (cheap first test).
    bound = REL_TOL * max(max(capacity.values(), default=1.0), 1.0)
    inf = np.inf
    capped = [f for f in range(n) if caps[f] != inf]
    if on is None:  # flows per link
        on = {}
        for f, pairs in enumerate(flow_links):
            for link, _w in pairs:
                on.setdefault(link, []).append(f)
    is_active = [True] * n
    active = list(range(n))
    load = _summed(flow_links, active)
    level = 0.0
    while active:
        try:  # every load is positive (weights are)
            step = min(map(truediv, map(remaining.__getitem__, load), load.values()),
                       default=inf)
        except ZeroDivisionError:
            step = min((remaining[link] / w for link, w in load.items() if w > 0), default=inf)
        lowest = min((caps[f] for f in capped if is_active[f]), default=inf)
        step = max(0.0, min(step, lowest - level))
        if step == inf:
            for f in active:
                rates[f] = inf
            break
        level += step
        full = set()
        for link, w in load.items():
            left = remaining[link] - step * w
            remaining[link] = left
            if left <= bound and w > 0:
                c = capacity[link]
                if left <= REL_TOL * (1.0 if c < 1.0 else c):  # max(c, 1.0)
                    full.add(link)
        freeze: set[int] = set()
        if full:
            for f in {f for link in full for f in on[link] if is_active[f]}:
                freeze.add(f)
                for link, _w in reversed(flow_links[f]):  # its last full link names it
                    if link in full:
                        neck[f] = link
                        break
        for f in capped:
            if is_active[f] and f not in freeze and caps[f] <= level * (1 + REL_TOL):
                freeze.add(f)
        frozen_groups = {groups[f] for f in freeze if groups[f] >= 0}
        if frozen_groups:
            freeze.update(f for f in active if groups[f] in frozen_groups)
        if not freeze:  # numerical safety: freeze the flows on the tightest link
            summed = _summed(flow_links, active)  # the order the tie-break has always used
            tight = min(summed, key=lambda link: remaining[link] / summed[link]
                        if summed[link] > 0 else np.inf)
            freeze = {f for f in active if any(link == tight for link, _ in flow_links[f])}
        for f in freeze:
            rates[f] = level
            is_active[f] = False
        active = [f for f in active if is_active[f]]
        if not active:
            break
        if not integral:
            load = _summed(flow_links, active)
            continue
        for f in freeze:
            for link, w in flow_links[f]:
                left = load[link] - w
                if left:
                    load[link] = left
                else:
                    del load[link]
    return rates, neck


def _summed(flow_links: list[list[tuple[int, float]]], flows: list[int]) -> dict[int, float]:
    """Load per link of ``flows`` at rate 1 (in flow order, as :class:`Incidence` sums)."""
    load: dict[int, float] = {}
    get = load.get
    for f in flows:
        for link, w in flow_links[f]:
            load[link] = get(link, 0.0) + w
    return load
