"""Max-min fair rates of the active flows, kept exact while only a few flows change.

A 8,192-GPU training iteration starts and ends some 100,000 flows; re-solving every flow at
each of those instants would cost seconds per simulated iteration step.  A change can only
move the rates of flows connected to it through full links, so :meth:`Allocation.change`
re-solves a growing set A of flows with the others' loads held fixed:

1. A = the new flows and every flow sharing a link with a new or a finished one (whole groups);
2. solve max-min for A on the capacity the other flows leave on A's links;
3. check the flows outside A on A's links that are full now or lost load: a flow is added to
   A when it exceeds the fair level of a link that is full now, or when the link that froze
   it (its bottleneck) lost load or now carries a faster flow of A; repeat from 2 until none
   is added.

When the loop stops every flow has a bottleneck - a full link on which no flow is faster - or
sits at its cap: the definition of the max-min fair allocation, so the result is the one a
full re-solve gives (``exact=True`` does that every time; the tests compare the two).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from fabricstudio.sim.flow.maxmin import (
    Incidence,
    compress,
    max_min_small,
    max_min_with_bottlenecks,
)

#: Relative slack for "full" and "faster" comparisons.
TOL = 1e-9
#: Re-solves of at most this many flows run in plain Python (no array set-up).
SMALL = 48
#: Checks of this many flows or more on one link run as array operations.
VECTOR_FROM = 64

if TYPE_CHECKING:
    from fabricstudio.sim.flow.core import _Slots


class Allocation:
    """Rates (``slots.rate``), per-link load and offered load of the active flows, and the
    per-link integrals the reports need (bytes carried, time overloaded), kept lazily: a
    link's integral is brought up to date only when its load changes."""

    def __init__(self, slots: _Slots, capacity: np.ndarray, exact: bool = False) -> None:
        self.s = slots
        self.capacity = capacity
        self.exact = exact
        n = len(capacity)
        self.load = np.zeros(n)
        self.offered = np.zeros(n)
        self._bytes = np.zeros(n)  # carried up to _since
        self._since = np.zeros(n)
        self._hot = np.zeros(n)  # seconds overloaded up to _hot_since
        self._hot_since = np.zeros(n)
        self.peak_offered = np.zeros(n)  #: largest offered load / capacity seen
        self.link_flows: list[set[int]] = [set() for _ in range(n)]
        self.active: set[int] = set()
        self.groups: dict[int, set[int]] = {}
        #: Scratch for compressing big re-solves onto the links they touch.
        self._seen = np.zeros(n, dtype=bool)
        self._local = np.zeros(n, dtype=np.int64)
        #: Per active flow: its links and weights as arrays and as (link, weight) pairs, and
        #: its group (grouped flows only), read once when it is added.
        self._arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._pairs: dict[int, list[tuple[int, float]]] = {}
        self._group_of: dict[int, int] = {}
        self.solved = 0  #: flows re-solved so far (work done)
        #: Rate history ``[(time, rate, bottleneck link), ...]`` of the flows being watched
        #: (focused runs; bottleneck -1: the flow's cap or group).
        self.history: dict[int, list[tuple[float, float, int]]] = {}

    # ------------------------------------------------------------------ integrals
    def _settle(self, links: np.ndarray, now: float) -> None:
        self._bytes[links] += self.load[links] * (now - self._since[links])
        self._since[links] = now

    def _settle_hot(self, links: np.ndarray, now: float) -> None:
        hot = self.offered[links] > self.capacity[links] * (1 + TOL)
        self._hot[links] += np.where(hot, now - self._hot_since[links], 0.0)
        self._hot_since[links] = now

    def carried(self, now: float) -> np.ndarray:
        """Bytes every link has carried up to ``now``."""
        return self._bytes + self.load * (now - self._since)

    def overloaded(self, now: float) -> np.ndarray:
        """Seconds every link's offered load has exceeded its capacity up to ``now``."""
        hot = self.offered > self.capacity * (1 + TOL)
        return self._hot + np.where(hot, now - self._hot_since, 0.0)

    def _entries(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        """Links and weights of an active flow."""
        return self._arrays[slot]

    def _take_in(self, slot: int) -> None:
        """Read a flow's links, weights and group (it is being added)."""
        links = self.s.links[slot]
        keep = links >= 0
        arrays = links[keep], self.s.weights[slot][keep]
        self._arrays[slot] = arrays
        self._pairs[slot] = list(zip(arrays[0].tolist(), arrays[1].tolist(), strict=True))
        group = int(self.s.group[slot])
        if group >= 0:
            self._group_of[slot] = group

    # ------------------------------------------------------------------ changes
    def change(self, added: list[int], removed: list[int], now: float) -> None:
        """Apply flows starting (``added``) and ending (``removed``) at time ``now``."""
        s = self.s
        for slot in added:
            self._take_in(slot)
        near: set[int] = set()
        for slot in itertools.chain(removed, added):
            near.update(link for link, _w in self._pairs[slot])
        touched = np.fromiter(near, np.int64, len(near))
        if near:  # integrals up to now, before any load changes
            self._settle(touched, now)
            self._settle_hot(touched, now)
        for slot in removed:
            links, weights = self._arrays.pop(slot)
            pairs = self._pairs.pop(slot)
            if slot in self.history:
                self.history[slot].append((now, 0.0, -1))
            self.load[links] -= weights * s.rate[slot]
            self.offered[links] -= weights * s.alone[slot]
            for link, _w in pairs:
                self.link_flows[link].discard(slot)
            s.rate[slot] = 0.0
            self.active.discard(slot)
            s.neck[slot] = -1
            group = self._group_of.pop(slot, -1)
            if group >= 0:
                members = self.groups.get(group)
                if members is not None:
                    members.discard(slot)
                    if not members:
                        del self.groups[group]
        for slot in added:
            links, weights = self._arrays[slot]
            self.offered[links] += weights * s.alone[slot]
            for link, _w in self._pairs[slot]:
                self.link_flows[link].add(slot)
            s.rate[slot] = 0.0
            self.active.add(slot)
            group = self._group_of.get(slot, -1)
            if group >= 0:
                self.groups.setdefault(group, set()).add(slot)
        if near:
            self.peak_offered[touched] = np.maximum(self.peak_offered[touched],
                                                    self.offered[touched]
                                                    / self.capacity[touched])
        if self.exact:
            todo = set(self.active)
        else:
            todo = set(added)
            for link in near:
                todo.update(self.link_flows[link])
        if todo:
            self._solve(todo, now)

    def _with_groups(self, flows: set[int]) -> set[int]:
        group_of = self._group_of
        present = {group_of[f] for f in flows if f in group_of}
        if not present:
            return flows
        out = set(flows)
        for group in present:
            out.update(self.groups.get(group, ()))
        return out

    def _solve(self, todo: set[int], now: float) -> None:
        s = self.s
        members = self._with_groups(todo)
        while len(members) <= SMALL:
            grow = self._solve_small(members, now)
            if not grow:
                return
            members = members | self._with_groups(grow)  # members hold whole groups
        while True:
            a = np.fromiter(sorted(members), np.int64, len(members))
            rows = s.links[a]
            mask = rows >= 0
            flows = np.broadcast_to(np.arange(len(a))[:, None], rows.shape)[mask]
            inc, touched = self._compress(rows[mask], flows, s.weights[a][mask], len(a))
            before = inc.load(s.rate[a])
            others = self.load[touched] - before
            residual = np.maximum(self.capacity[touched] - others, 0.0)
            groups = s.group[a]
            rates, neck = max_min_with_bottlenecks(inc, residual, s.cap[a],
                                                   groups if (groups >= 0).any() else None)
            after = inc.load(rates)
            load = others + after
            grow = set() if self.exact else self._violations(
                a, members, inc, touched, rates, load, self.load[touched])
            if not grow:
                break
            members = members | self._with_groups(grow)
        self.solved += len(a)
        s.rate[a] = rates
        self._settle(touched, now)
        self.load[touched] = load
        s.neck[a] = np.where(neck >= 0, touched[np.maximum(neck, 0)], -1)
        self._record(a.tolist(), now)

    def _compress(self, links: np.ndarray, flows: np.ndarray, weights: np.ndarray,
                  n_flows: int) -> tuple[Any, np.ndarray]:
        """:func:`compress`, through a dense mark over all links when the entries are many
        (a sort of the entries costs more than one pass over the links then)."""
        if len(links) * 16 < len(self._seen):
            return compress(links, flows, weights, n_flows)
        seen, local = self._seen, self._local
        seen[links] = True
        touched = np.flatnonzero(seen)
        seen[touched] = False
        local[touched] = np.arange(len(touched))
        return Incidence(local[links], flows, weights, len(touched), n_flows), touched

    def _solve_small(self, members: set[int], now: float) -> set[int]:
        """Re-solve a few flows in plain Python; commit and return an empty set, or return
        the flows that must join them (nothing committed)."""
        s = self.s
        order = sorted(members)
        entries = [self._pairs[slot] for slot in order]
        slots = np.fromiter(order, np.int64, len(order))
        before: dict[int, float] = {}
        for pairs, r in zip(entries, s.rate[slots].tolist(), strict=True):
            for link, w in pairs:
                before[link] = before.get(link, 0.0) + w * r
        keys = list(before)
        index = np.fromiter(keys, np.int64, len(keys))
        old_load = dict(zip(keys, self.load[index].tolist(), strict=True))
        capacity = dict(zip(keys, self.capacity[index].tolist(), strict=True))
        others = {link: old_load[link] - b for link, b in before.items()}
        residual = {link: max(capacity[link] - o, 0.0) for link, o in others.items()}
        groups = [self._group_of.get(slot, -1) for slot in order]
        rates, neck = max_min_small(entries, residual, s.cap[slots].tolist(), groups)
        after: dict[int, float] = dict.fromkeys(others, 0.0)
        fastest: dict[int, float] = dict.fromkeys(others, 0.0)
        inside: dict[int, int] = dict.fromkeys(others, 0)
        for pairs, r in zip(entries, rates, strict=True):
            for link, w in pairs:
                after[link] += w * r
                if r > fastest[link]:
                    fastest[link] = r
                inside[link] += 1
        load = {link: others[link] + after[link] for link in others}
        if not self.exact:
            grow = set()
            rate = s.rate
            for link, new in load.items():
                full = new >= capacity[link] * (1 - 1e-7)
                lost = new < old_load[link] * (1 - TOL) - 1e-6
                flows = self.link_flows[link]
                if not (full or lost) or len(flows) <= inside[link]:
                    continue
                level = fastest[link]
                for g in flows:
                    if g in members:
                        continue
                    rg = rate[g]
                    if full and rg > level * (1 + TOL) + 1e-9:
                        grow.add(g)
                    elif s.neck[g] == link and (lost or level > rg * (1 + TOL)):
                        grow.add(g)
            if grow:
                return grow
        self.solved += len(order)
        self._settle(index, now)
        self.load[index] = np.fromiter((load[link] for link in keys), np.float64, len(keys))
        s.rate[slots] = rates
        s.neck[slots] = neck
        self._record(order, now)
        return set()

    def _record(self, slots: Iterable[Any], now: float) -> None:
        history = self.history
        if not history:
            return
        rate = self.s.rate
        for slot in slots:
            log = history.get(int(slot))
            if log is None:
                continue
            neck = int(self.s.neck[slot])
            if not log or log[-1][1] != rate[slot] or log[-1][2] != neck:
                log.append((now, float(rate[slot]), neck))

    def _violations(self, a: np.ndarray, members: set[int], inc: Any, touched: np.ndarray,
                    rates: np.ndarray, load: np.ndarray, old_load: np.ndarray) -> set[int]:
        """Flows outside the re-solved set whose bottleneck the new rates break."""
        cap = self.capacity[touched]
        full = load >= cap * (1 - 1e-7)
        lost = load < old_load * (1 - TOL) - 1e-6
        fastest = np.zeros(len(touched))
        np.maximum.at(fastest, inc.link, rates[inc.flow])
        rate, necks = self.s.rate, self.s.neck
        grow: set[int] = set()
        inside = np.bincount(inc.link, minlength=len(touched))  # re-solved flows per link
        for j in np.flatnonzero(full | lost).tolist():
            link = int(touched[j])
            flows = self.link_flows[link]
            if len(flows) <= inside[j]:
                continue  # every flow on it was re-solved
            outside = flows - members
            if not outside:
                continue
            level, is_full, is_lost = fastest[j], full[j], lost[j]
            if len(outside) < VECTOR_FROM:
                for g in outside:
                    rg = rate[g]
                    if is_full and rg > level * (1 + TOL) + 1e-9:
                        grow.add(g)  # faster than the fair level of a link that is full now
                    elif necks[g] == link and (is_lost or level > rg * (1 + TOL)):
                        grow.add(g)  # its bottleneck moved
                continue
            out = np.fromiter(outside, np.int64, len(outside))
            rg = rate[out]
            moved = necks[out] == link
            if not is_lost:
                moved &= level > rg * (1 + TOL)
            if is_full:
                moved |= rg > level * (1 + TOL) + 1e-9
            grow.update(out[moved].tolist())
        return grow
