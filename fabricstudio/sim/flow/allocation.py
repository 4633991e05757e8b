"""Max-min fair rates of the active flows, kept exact while only a few flows change.

A 8,192-GPU training iteration starts and ends some 100,000 flows; re-solving every flow at
each of those instants would cost seconds per simulated iteration step.  A change can only
move the rates of flows connected to it through full links, so :meth:`Allocation.change`
re-solves a growing set A of *units* with the others' loads held fixed:

1. A = the new flows and every unit sharing a link with a new or a finished flow;
2. solve max-min for A on the capacity the other units leave on A's links;
3. check the units outside A on A's links that are full now or lost load: a unit is added to
   A when it exceeds the fair level of a link that is full now, or when the link that froze
   it (its bottleneck) lost load or now carries a faster unit of A; repeat from 2 until none
   is added.

A unit is a flow, or a whole group of flows that advance at one rate (the hops of a
pipelined ring or tree): in max-min terms a group is one flow that loads every link of its
members (with the sum of their weights there) and freezes when any of them fills, so it is
solved as one column of the links x units matrix.  A data-parallel ring of 1,024 hops is one
unit instead of 1,024 flows that are pulled in, sorted and checked together.

When the loop stops every unit has a bottleneck - a full link on which no unit is faster - or
sits at its cap: the definition of the max-min fair allocation, so the result is the one a
full re-solve gives (``exact=True`` does that every time; the tests compare the two).
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Iterable
from operator import truediv
from typing import TYPE_CHECKING, Any

import numpy as np

from fabricstudio.sim.flow.maxmin import (
    REL_TOL,
    Incidence,
    compress,
    max_min_small,
    max_min_with_bottlenecks,
)
from fabricstudio.sim.flow.shared import doubles, grown, ints

#: Relative slack for "full" and "faster" comparisons.
TOL = 1e-9
#: Changes of at most this many (flow, link) entries update the loads element by element.
SMALL_CHANGE = 64
#: Re-solves of at most this many units run in plain Python (no array set-up).
SMALL = 48
#: ... and load at most this many (unit, link) entries (a long ring is one unit of thousands).
SMALL_ENTRIES = 400

if TYPE_CHECKING:
    from fabricstudio.sim.flow.core import _Slots


class _Unit:
    """What the allocation solves as one column: a flow, or a group's active members."""

    __slots__ = ("members", "slots", "slot", "links", "weights", "pairs", "cap", "group",
                 "integral")

    def __init__(self, group: int) -> None:
        self.group = group  #: -1 for a single flow
        self.members: set[int] = set()  #: its active flows
        self.slots: np.ndarray = np.zeros(0, dtype=np.int64)  #: its flows (slots)
        self.slot = -1  #: its only flow, -1 when it has several
        self.links: np.ndarray = np.zeros(0, dtype=np.int64)  #: distinct links it loads
        self.weights: np.ndarray = np.zeros(0)  #: its flows' summed weight on each
        self.pairs: list[tuple[int, float]] = []  #: (link, weight) as Python numbers
        self.cap = np.inf
        self.integral = True  #: every weight a whole number (see :func:`max_min_small`)


class Allocation:
    """Rates (``slots.rate``), per-link load and offered load of the active flows, and the
    per-link integrals the reports need (bytes carried, time overloaded), kept lazily: a
    link's integral is brought up to date only when its load changes."""

    def __init__(self, slots: _Slots, capacity: np.ndarray, exact: bool = False) -> None:
        self.s = slots
        self.capacity = capacity
        self._capacity: list[float] = capacity.tolist()  # for element-wise reads
        self.exact = exact
        n = len(capacity)
        # per link, each with an element face (``..._at``: see :mod:`.shared`)
        self.load_at, self.load = doubles(n)
        self.offered_at, self.offered = doubles(n)
        self._bytes_at, self._bytes = doubles(n)  # carried up to _since
        self._since_at, self._since = doubles(n)
        self._hot_at, self._hot = doubles(n)  # seconds overloaded up to _hot_since
        self._hot_since_at, self._hot_since = doubles(n)
        #: largest offered load / capacity seen
        self.peak_offered_at, self.peak_offered = doubles(n)
        #: Units loading each link.
        self.link_flows: list[set[int]] = [set() for _ in range(n)]
        self.active: set[int] = set()  #: active flows (slots)
        #: Scratch for compressing big re-solves onto the links they touch.
        self._seen = np.zeros(n, dtype=bool)
        self._local = np.zeros(n, dtype=np.int64)
        #: Per active flow: its links and weights as arrays and as (link, weight) pairs, read
        #: once when it is added, and its unit.
        self._arrays: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._pairs: dict[int, list[tuple[int, float]]] = {}
        self._unit_of: dict[int, int] = {}
        #: Units by id; per unit id its rate and bottleneck link (-1: its cap).
        self._units: dict[int, _Unit] = {}
        self._group_unit: dict[int, int] = {}
        self._n_units = 0
        self.u_rate_at, self.u_rate = doubles(64)
        self.u_neck_at, self.u_neck = ints(64, -1)
        self._in_set = np.zeros(64, dtype=bool)  # scratch: units of the set being solved
        self.solved = 0  #: units re-solved so far (work done)
        #: Rate history ``[(time, rate, bottleneck link), ...]`` of the flows being watched
        #: (focused runs; bottleneck -1: the flow's cap, or a link of another group member).
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

    # ------------------------------------------------------------------ units
    def _new_unit(self, group: int) -> int:
        uid = self._n_units
        self._n_units += 1
        if uid >= len(self.u_rate):
            grow = len(self.u_rate)
            self.u_rate_at, self.u_rate = grown(self.u_rate_at, 2 * grow, 0.0)
            self.u_neck_at, self.u_neck = grown(self.u_neck_at, 2 * grow, -1)
            self._in_set = np.concatenate([self._in_set, np.zeros(grow, dtype=bool)])
        self._units[uid] = _Unit(group)
        return uid

    def _take_in(self, slot: int) -> int:
        """Read a flow's links and weights (it is being added); returns its unit (a flow
        alone is its own unit at once; a group's unit is rebuilt once the change is in)."""
        s = self.s
        taken = s.taken[slot]
        if taken is None:
            links = s.links[slot]
            keep = links >= 0
            arrays = links[keep], s.weights[slot][keep]
            pairs = list(zip(arrays[0].tolist(), arrays[1].tolist(), strict=True))
            integral = all(w.is_integer() for _link, w in pairs)
        else:
            arrays, pairs, integral = taken[:2], taken[2], taken[3]
        self._arrays[slot] = arrays
        self._pairs[slot] = pairs
        group = s.group_at[slot]
        uid = self._group_unit.get(group, -1) if group >= 0 else -1
        if uid < 0:
            uid = self._new_unit(group)
            if group >= 0:
                self._group_unit[group] = uid
            else:
                unit = self._units[uid]
                unit.slots = np.array([slot], dtype=np.int64)
                unit.slot = slot
                unit.links, unit.weights = arrays
                unit.pairs = pairs
                unit.integral = integral
                unit.cap = s.cap_at[slot]
                for link, _w in pairs:
                    self.link_flows[link].add(uid)
        self._unit_of[slot] = uid
        self._units[uid].members.add(slot)
        return uid

    def _drop(self, uid: int) -> None:
        """Forget a unit whose flows have all ended."""
        unit = self._units.pop(uid)
        for link, _w in unit.pairs:
            self.link_flows[link].discard(uid)
        if unit.group >= 0:
            del self._group_unit[unit.group]
        self.u_rate_at[uid] = 0.0
        self.u_neck_at[uid] = -1

    def _rebuild(self, uid: int) -> None:
        """A group unit's links, weights and cap from its flows now (it goes when none is
        left)."""
        unit = self._units[uid]
        slots = sorted(unit.members)
        if not slots:
            self._drop(uid)
            return
        for link, _w in unit.pairs:
            self.link_flows[link].discard(uid)
        unit.slots = np.asarray(slots, dtype=np.int64)
        if len(slots) == 1:
            unit.links, unit.weights = self._arrays[slots[0]]
            unit.pairs = self._pairs[slots[0]]
        else:  # a link several members cross carries their summed weight
            links = np.concatenate([self._arrays[slot][0] for slot in slots])
            weights = np.concatenate([self._arrays[slot][1] for slot in slots])
            unit.links, where = np.unique(links, return_inverse=True)
            unit.weights = np.bincount(where, weights=weights, minlength=len(unit.links))
            unit.pairs = list(zip(unit.links.tolist(), unit.weights.tolist(), strict=True))
        unit.slot = slots[0] if len(slots) == 1 else -1
        unit.integral = all(w.is_integer() for _link, w in unit.pairs)
        unit.cap = float(self.s.cap[unit.slots].min())
        for link in unit.links.tolist():
            self.link_flows[link].add(uid)

    # ------------------------------------------------------------------ changes
    def change(self, added: list[int], removed: list[int], now: float) -> None:
        """Apply flows starting (``added``) and ending (``removed``) at time ``now``."""
        s = self.s
        grouped: dict[int, None] = {}  # group units whose flows changed, in order
        fresh: list[int] = []  # units of flows alone that start
        for slot in added:
            uid = self._take_in(slot)
            if s.group_at[slot] >= 0:
                grouped[uid] = None
            else:
                fresh.append(uid)
        pairs = self._pairs
        if sum(len(pairs[slot]) for slot in itertools.chain(added, removed)) <= SMALL_CHANGE:
            freed = self._loads_small(added, removed, now)
        else:
            freed = self._loads_arrays(added, removed, now)
        for slot in removed:
            del pairs[slot]
            if slot in self.history:
                self.history[slot].append((now, 0.0, -1))
            self.active.discard(slot)
            uid = self._unit_of.pop(slot)
            unit = self._units[uid]
            unit.members.discard(slot)
            if unit.group >= 0:
                grouped[uid] = None
            else:
                self._drop(uid)
        self.active.update(added)
        for uid in grouped:
            self._rebuild(uid)
        if self.exact:
            todo = set(self._units)
        else:  # what changed, and whatever a finished flow held back
            units = self._units
            todo = {uid for uid in itertools.chain(fresh, grouped) if uid in units}
            neck = self.u_neck_at
            link_flows = self.link_flows
            for link in freed:
                todo.update(uid for uid in link_flows[link] if neck[uid] == link)
        if todo:
            self._solve(todo, now)

    def _loads_arrays(self, added: list[int], removed: list[int], now: float) -> list[int]:
        """Links' integrals up to now, then their load and offered load without the ended
        flows and with the new ones (at their unit's rate), and their peak offered load;
        returns the links the ended flows freed (each once)."""
        s = self.s
        gone = [self._arrays.pop(slot) for slot in removed]
        came = [self._arrays[slot] for slot in added]
        freed = np.concatenate([links for links, _w in gone]) if gone else np.zeros(0, int)
        entering = np.concatenate([links for links, _w in came]) if came else np.zeros(0, int)
        touched = np.unique(np.concatenate([freed, entering]))
        if len(touched):  # integrals up to now, before any load changes
            self._settle(touched, now)
            self._settle_hot(touched, now)
        if gone:
            rem = np.asarray(removed, dtype=np.int64)
            weights = np.concatenate([w for _links, w in gone])
            per = np.repeat(np.arange(len(rem)), [len(links) for links, _w in gone])
            np.subtract.at(self.load, freed, weights * s.rate[rem][per])
            np.subtract.at(self.offered, freed, weights * s.alone[rem][per])
            s.rate[rem] = 0.0
            s.neck[rem] = -1
        if came:
            add = np.asarray(added, dtype=np.int64)
            weights = np.concatenate([w for _links, w in came])
            per = np.repeat(np.arange(len(add)), [len(links) for links, _w in came])
            np.add.at(self.offered, entering, weights * s.alone[add][per])
            # a flow joining a moving group moves at its rate until the group is re-solved
            rates = self.u_rate[[self._unit_of[slot] for slot in added]]
            s.rate[add] = rates
            if rates.any():
                np.add.at(self.load, entering, weights * rates[per])
        if len(touched):
            self.peak_offered[touched] = np.maximum(self.peak_offered[touched],
                                                    self.offered[touched]
                                                    / self.capacity[touched])
        freed_links: list[int] = np.unique(freed).tolist()
        return freed_links

    def _loads_small(self, added: list[int], removed: list[int], now: float) -> list[int]:
        """:meth:`_loads_arrays` element by element, the same operations in the same order
        (a change of a few flows: array calls cost more than they do)."""
        s = self.s
        pairs = self._pairs
        touched = {link for slot in itertools.chain(removed, added) for link, _w in pairs[slot]}
        load, offered, capacity = self.load_at, self.offered_at, self._capacity
        carried, since = self._bytes_at, self._since_at
        hot, hot_since = self._hot_at, self._hot_since_at
        for link in touched:  # integrals up to now, before any load changes
            carried[link] += load[link] * (now - since[link])
            since[link] = now
            if offered[link] > capacity[link] * (1 + TOL):
                hot[link] += now - hot_since[link]
            hot_since[link] = now
        arrays = self._arrays
        rate, alone, neck = s.rate_at, s.alone_at, s.neck_at
        freed: dict[int, None] = {}
        for slot in removed:
            del arrays[slot]
            r, a = rate[slot], alone[slot]
            for link, w in pairs[slot]:
                load[link] -= w * r
                offered[link] -= w * a
                freed[link] = None
            rate[slot] = 0.0
            neck[slot] = -1
        if added:
            u_rate, unit_of = self.u_rate_at, self._unit_of
            for slot in added:
                a = alone[slot]
                for link, w in pairs[slot]:
                    offered[link] += w * a
            # a flow joining a moving group moves at its rate until the group is re-solved
            rates = [u_rate[unit_of[slot]] for slot in added]
            moving = any(rates)
            for slot, r in zip(added, rates, strict=True):
                rate[slot] = r
                if moving:
                    for link, w in pairs[slot]:
                        load[link] += w * r
        peak = self.peak_offered_at
        for link in touched:
            share = offered[link] / capacity[link]
            if share > peak[link]:
                peak[link] = share
        return list(freed)

    # ------------------------------------------------------------------ solving
    def _solve(self, todo: set[int], now: float) -> None:
        members = todo
        units = self._units
        while len(members) <= SMALL and sum(len(units[u].pairs) for u in members) <= SMALL_ENTRIES:
            if len(members) == 1:
                grow = self._solve_one(next(iter(members)), now)
            else:
                grow = self._solve_small(members, now)
            if not grow:
                return
            members = members | grow
        while True:
            a = np.fromiter(sorted(members), np.int64, len(members))
            chosen = [units[uid] for uid in a.tolist()]
            counts = np.fromiter((len(u.links) for u in chosen), np.int64, len(chosen))
            links = np.concatenate([u.links for u in chosen])
            weights = np.concatenate([u.weights for u in chosen])
            flows = np.repeat(np.arange(len(a)), counts)
            inc, touched = self._compress(links, flows, weights, len(a))
            before = inc.load(self.u_rate[a])
            others = self.load[touched] - before
            residual = np.maximum(self.capacity[touched] - others, 0.0)
            caps = np.fromiter((u.cap for u in chosen), np.float64, len(chosen))
            rates, neck = max_min_with_bottlenecks(inc, residual, caps)
            after = inc.load(rates)
            load = others + after
            grow = set() if self.exact else self._violations(
                a, inc, touched, rates, load, self.load[touched])
            if not grow:
                break
            members = members | grow
        self.solved += len(a)
        self._settle(touched, now)
        self.load[touched] = load
        self._commit(a, chosen, rates, np.where(neck >= 0, touched[np.maximum(neck, 0)], -1),
                     now)

    def _commit(self, a: np.ndarray, chosen: list[_Unit], rates: np.ndarray,
                necks: np.ndarray, now: float) -> None:
        """Store the units' new rates and bottlenecks, and their flows' rates."""
        s = self.s
        self.u_rate[a] = rates
        self.u_neck[a] = necks
        single = np.fromiter((len(u.slots) == 1 for u in chosen), bool, len(chosen))
        if single.all():
            slots = np.fromiter((u.slots[0] for u in chosen), np.int64, len(chosen))
            s.rate[slots] = rates
            s.neck[slots] = necks
        else:
            for unit, rate, neck in zip(chosen, rates.tolist(), necks.tolist(), strict=True):
                s.rate[unit.slots] = rate
                s.neck[unit.slots] = neck
        if self.history:
            self._record(chosen, now)

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
        """Re-solve a few units in plain Python; commit and return an empty set, or return
        the units that must join them (nothing committed).  The same sums in the same order
        as :meth:`_solve` (units by id, each unit's links in order)."""
        order = sorted(members)
        units = self._units
        chosen = [units[uid] for uid in order]
        entries = [unit.pairs for unit in chosen]
        before: dict[int, float] = {}
        on: dict[int, list[int]] = {}  # the units (positions in ``order``) on each link
        get = before.get
        for i, (pairs, r) in enumerate(zip(entries, self.u_rate[order].tolist(), strict=True)):
            for link, w in pairs:
                before[link] = get(link, 0.0) + w * r
                if link in on:
                    on[link].append(i)
                else:
                    on[link] = [i]
        keys = list(before)
        index = np.fromiter(keys, np.int64, len(keys))
        old_load = self.load[index].tolist()
        capacity = self._capacity
        others: dict[int, float] = {}  # load of the units outside the set
        residual: dict[int, float] = {}  # capacity they leave
        for link, old in zip(keys, old_load, strict=True):
            o = others[link] = old - before[link]
            left = capacity[link] - o
            residual[link] = 0.0 if left < 0.0 else left
        rates, neck = max_min_small(entries, residual, [u.cap for u in chosen],
                                    [-1] * len(order), all(u.integral for u in chosen), on)
        after = dict.fromkeys(keys, 0.0)
        for pairs, r in zip(entries, rates, strict=True):
            for link, w in pairs:
                after[link] += w * r
        load = [others[link] + after[link] for link in keys]
        if not self.exact:
            grow: set[int] = set()
            link_flows = self.link_flows
            for link, new, old in zip(keys, load, old_load, strict=True):
                flows = link_flows[link]
                inside = on[link]
                if len(flows) <= len(inside):
                    continue  # no unit outside the set on this link
                full = new >= capacity[link] * (1 - 1e-7)
                lost = new < old * (1 - TOL) - 1e-6
                if not (full or lost):
                    continue
                level = max(0.0, max(rates[i] for i in inside))
                self._add_outgrown(grow, flows, members, link, full, lost, level)
            if grow:
                return grow
        self.solved += len(order)
        self._settle(index, now)
        self.load[index] = load
        self._commit_small(order, chosen, rates, neck, now)
        return set()

    def _add_outgrown(self, grow: set[int], flows: Iterable[int], members: Container[int],
                      link: int, full: bool, lost: bool, level: float) -> None:
        """Add to ``grow`` the units on ``link`` outside ``members`` that the re-solved set
        outgrew: above its ``level`` on a now ``full`` link, or bottlenecked here when the
        link ``lost`` load or the set rose above them (they must be re-solved with it)."""
        u_rate, u_neck = self.u_rate_at, self.u_neck_at
        for g in flows:
            if g in members:
                continue
            rg = u_rate[g]
            if full and rg > level * (1 + TOL) + 1e-9:
                grow.add(g)
            elif u_neck[g] == link and (lost or level > rg * (1 + TOL)):
                grow.add(g)

    def _solve_one(self, uid: int, now: float) -> set[int]:
        """:meth:`_solve_small` for a single unit (the commonest re-solve), the same floats:
        it fills in one level to the least room any of its links leaves per unit of weight
        (or its cap); its last link that fills is its bottleneck."""
        unit = self._units[uid]
        pairs = unit.pairs
        old_rate = self.u_rate_at[uid]
        load_at, capacity = self.load_at, self._capacity
        others: list[float] = []  # per link: the load of the other units
        room: list[float] = []  # the capacity they leave
        for link, w in pairs:
            o = load_at[link] - (0.0 + w * old_rate)
            others.append(o)
            left = capacity[link] - o
            room.append(0.0 if left < 0.0 else left)
        # max_min_small for one flow, one level (``room`` is its capacity)
        bound = REL_TOL * max(max(room, default=1.0), 1.0)
        try:
            step = min(map(truediv, room, [0.0 + w for _link, w in pairs]), default=np.inf)
        except ZeroDivisionError:
            step = min((r / (0.0 + w) for r, (_link, w) in zip(room, pairs, strict=True)
                        if 0.0 + w > 0), default=np.inf)
        cap = unit.cap
        step = max(0.0, min(step, cap - 0.0))
        neck = -1
        if step == np.inf:
            rate = np.inf
        else:
            rate = 0.0 + step
            for (link, w), r in zip(pairs, room, strict=True):
                left = r - step * (0.0 + w)
                if left <= bound and 0.0 + w > 0 and left <= REL_TOL * (1.0 if r < 1.0 else r):
                    neck = link  # the last full link names it
        load = [o + (0.0 + w * rate) for o, (_link, w) in zip(others, pairs, strict=True)]
        if not self.exact:
            grow: set[int] = set()
            link_flows = self.link_flows
            level = max(0.0, rate)
            for (link, _w), new in zip(pairs, load, strict=True):
                flows = link_flows[link]
                if len(flows) <= 1:
                    continue  # no other unit on this link
                full = new >= capacity[link] * (1 - 1e-7)
                lost = new < load_at[link] * (1 - TOL) - 1e-6
                if not (full or lost):
                    continue
                self._add_outgrown(grow, flows, (uid,), link, full, lost, level)
            if grow:
                return grow
        self.solved += 1
        carried, since = self._bytes_at, self._since_at
        for (link, _w), new in zip(pairs, load, strict=True):
            carried[link] += load_at[link] * (now - since[link])
            since[link] = now
            load_at[link] = new
        self._commit_small([uid], [unit], [rate], [neck], now)
        return set()

    def _commit_small(self, order: list[int], chosen: list[_Unit], rates: list[float],
                      necks: list[int], now: float) -> None:
        """:meth:`_commit` for a few units, element by element."""
        s = self.s
        u_rate, u_neck, s_rate, s_neck = self.u_rate_at, self.u_neck_at, s.rate_at, s.neck_at
        for uid, unit, rate, neck in zip(order, chosen, rates, necks, strict=True):
            u_rate[uid] = rate
            u_neck[uid] = neck
            if unit.slot >= 0:
                s_rate[unit.slot] = rate
                s_neck[unit.slot] = neck
            else:
                s.rate[unit.slots] = rate
                s.neck[unit.slots] = neck
        if self.history:
            self._record(chosen, now)

    def _record(self, units: Iterable[_Unit], now: float) -> None:
        history = self.history
        s = self.s
        for unit in units:
            for slot in unit.slots.tolist():
                log = history.get(slot)
                if log is None:
                    continue
                neck = int(s.neck[slot])
                if neck >= 0 and len(unit.slots) > 1 and neck not in self._arrays[slot][0]:
                    neck = -1  # another member's link holds the group back
                rate = float(s.rate[slot])
                if not log or log[-1][1] != rate or log[-1][2] != neck:
                    log.append((now, rate, neck))

    def _violations(self, a: np.ndarray, inc: Any, touched: np.ndarray, rates: np.ndarray,
                    load: np.ndarray, old_load: np.ndarray) -> set[int]:
        """Units outside the re-solved set whose bottleneck the new rates break, checked as
        arrays: every (link, unit outside) pair on the links that are full now or lost load."""
        cap = self.capacity[touched]
        full = load >= cap * (1 - 1e-7)
        lost = load < old_load * (1 - TOL) - 1e-6
        candidates = np.flatnonzero(full | lost)
        if not len(candidates):
            return set()
        inside = np.bincount(inc.link, minlength=len(touched))  # re-solved units per link
        link_flows = self.link_flows
        sizes = np.fromiter((len(link_flows[link]) for link in touched[candidates].tolist()),
                            np.int64, len(candidates))
        keep = sizes > inside[candidates]  # links that also carry units not re-solved
        candidates, sizes = candidates[keep], sizes[keep]
        if not len(candidates):
            return set()
        units = np.fromiter(itertools.chain.from_iterable(
            link_flows[link] for link in touched[candidates].tolist()), np.int64,
            int(sizes.sum()))
        where = np.repeat(candidates, sizes)
        in_set = self._in_set
        in_set[a] = True
        outside = ~in_set[units]
        in_set[a] = False
        units, where = units[outside], where[outside]
        fastest = np.zeros(len(touched))
        np.maximum.at(fastest, inc.link, rates[inc.flow])
        level = fastest[where]
        rg = self.u_rate[units]
        moved = (self.u_neck[units] == touched[where]) & (lost[where] | (level > rg * (1 + TOL)))
        moved |= full[where] & (rg > level * (1 + TOL) + 1e-9)
        return set(units[moved].tolist())
