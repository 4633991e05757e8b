"""Failures in the flow-level engine: flows through a dead element stop, rerouting moves them.

The flow-level counterpart of :mod:`fabricstudio.sim.engine.failures` (same scenario entries,
same convergence delays, same router over the live links):

* **Down.** A flow whose route crosses a dead link stops (its rate is capped at 0; a
  pipelined collective's hops share one rate, so the whole collective stops with it).  The
  bytes it had in flight (rate x one-way path delay) are counted as lost and sent again.
* **Reroute.** After the convergence delay the rates are recomputed on the new routes:
  every unfinished flow takes its route from a
  :class:`~fabricstudio.sim.engine.failures.FailoverRouter`, flows whose route avoids the
  dead links run again.  A flow with no live route waits for the repair.
* **Repair.** Flows whose route no longer crosses a dead link run again at once; routes use
  the repaired links after the repair delay.

Not modelled at flow level (as queues and losses are not): the bandwidth a sender keeps
pushing into a dead link before the reroute (it stops instead) and the transports' timeouts
(a stopped flow resumes as soon as it has a live route).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fabricstudio.model.failures import FailoverSettings, Failure
from fabricstudio.sim.engine.clock import Call
from fabricstudio.sim.engine.failures import (
    FailoverRouter,
    convergence_delay,
    schedule_failures,
)


class FlowFailureInjector:
    """Schedules a scenario's failures on a :class:`~fabricstudio.sim.flow.FlowEngine`."""

    def __init__(self, engine: Any, failures: Sequence[Failure],
                 settings: FailoverSettings | None = None) -> None:
        self.engine = engine
        self.settings = settings or FailoverSettings()
        self.healthy = engine.net.router
        self.routes: dict[int, tuple[Any, ...]] = {}  # slot -> its route (the cached tuple)
        self.stalled: dict[int, float] = {}  # slot -> its rate cap before it stopped
        self.excluded: set[int] = set()
        self._down_count: dict[int, int] = {}
        self.log: list[tuple[float, str, str]] = []
        self.bytes_lost = 0.0
        self.reroutes = self.flows_rerouted = self.unroutable = 0
        engine.failures = self
        links_of: dict[str, list[int]] = {}
        for link in engine.net.directed:
            links_of.setdefault(link.link_id, []).append(link.index)
        schedule_failures(engine, failures, links_of, self._fail, self._repair)

    # ------------------------------------------------------------------ engine hooks
    def track_slot(self, slot: int, route: tuple[Any, ...]) -> None:
        """A new flow slot and the route it got (called by ``FlowEngine._new_slot``)."""
        self.routes[slot] = route

    def admit(self, added: list[int]) -> None:
        """Flows about to start: those routed through a dead link start stopped."""
        for slot in added:
            if self._crosses_dead(slot):
                self._cap(slot)

    # ------------------------------------------------------------------ state
    def _dead(self) -> set[int]:
        return {i for i, n in self._down_count.items() if n > 0}

    def _links(self, slot: int) -> np.ndarray:
        row: np.ndarray = self.engine._slots.links[slot]
        live: np.ndarray = row[row >= 0]
        return live

    def _crosses_dead(self, slot: int, dead: set[int] | None = None) -> bool:
        dead = self._dead() if dead is None else dead
        return bool(dead) and any(int(i) in dead for i in self._links(slot))

    def _cap(self, slot: int) -> None:
        s = self.engine._slots
        if slot not in self.stalled:
            self.stalled[slot] = float(s.cap[slot])
            s.cap[slot] = 0.0
            s.alone[slot] = 0.0

    def _uncap(self, slot: int) -> None:
        cap = self.stalled.pop(slot, None)
        if cap is not None:
            s = self.engine._slots
            s.cap[slot] = cap
            s.alone[slot] = min(cap, self._alone_rate(slot))

    def _alone_rate(self, slot: int) -> float:
        s = self.engine._slots
        links = self._links(slot)
        weights = s.weights[slot][: len(links)]
        return float(np.min(self.engine.capacity[links] / weights)) if len(links) else np.inf

    def _live(self) -> list[int]:
        recs = self.engine._slot_rec
        return [slot for slot in self.routes if slot < len(recs) and recs[slot] is not None]

    def _rework(self, slots: list[int], change: Callable[[int], object]) -> None:
        """Take ``slots`` out of the allocation, apply ``change(slot)``, put them back."""
        engine = self.engine
        active = set(engine._active.tolist())
        inside = [slot for slot in slots if slot in active]
        now = engine.env.now
        if inside:
            engine.alloc.change([], inside, now)
        for slot in slots:
            change(slot)
        if inside:
            engine.alloc.change(inside, [], now)
        engine._request_update()

    # ------------------------------------------------------------------ events
    def _fail(self, event: Call) -> None:
        failure, links = event.arg
        engine = self.engine
        engine._advance_fluid(engine.env.now)
        newly = set()
        for index in links:
            count = self._down_count.get(index, 0)
            self._down_count[index] = count + 1
            if count == 0:
                newly.add(index)
        hit = [slot for slot in self._live() if self._crosses_dead(slot, newly)]
        s = engine._slots
        for slot in hit:
            if slot not in self.stalled:
                tail = engine._slot_tail[slot] + engine.net.nic_latency
                lost = min(float(s.rate[slot]) * tail, float(s.size[slot] - s.remaining[slot]))
                self.bytes_lost += lost
                s.remaining[slot] += lost
        self._rework(hit, self._cap)
        self.log.append((engine.env.now, "fail", failure.label))
        self._schedule(sorted(newly), repair=False, at_once=failure.at_s == 0)

    def _repair(self, event: Call) -> None:
        failure, links = event.arg
        engine = self.engine
        engine._advance_fluid(engine.env.now)
        back = []
        for index in links:
            count = self._down_count[index] - 1
            self._down_count[index] = count
            if count == 0:
                back.append(index)
        dead = self._dead()
        free = [slot for slot in list(self.stalled) if not self._crosses_dead(slot, dead)]
        self._rework(free, self._uncap)
        self.log.append((engine.env.now, "repair", failure.label))
        self._schedule(back, repair=True)

    def _schedule(self, links: list[int], repair: bool, at_once: bool = False) -> None:
        """Routes learn of ``links`` after the delay, or ``at_once`` (down from time 0:
        failed before the run)."""
        if not links:
            return
        engine = self.engine
        delay = 0.0 if at_once else convergence_delay(engine.technology, engine.routing,
                                                      self.settings, repair)
        if delay > 0:
            engine.clock.call(delay, self._reroute, (links, repair))
        else:
            self._converge((links, repair))

    def _reroute(self, event: Call) -> None:
        self._converge(event.arg)

    def _converge(self, change: tuple[list[int], bool]) -> None:
        links, repair = change
        dead = self._dead()
        if repair:
            self.excluded -= {i for i in links if i not in dead}
        else:
            self.excluded |= {i for i in links if i in dead}
        engine = self.engine
        engine._advance_fluid(engine.env.now)
        keys = {id(route): key for key, route in engine._routes.items()}
        router = (FailoverRouter(self.healthy, set(self.excluded)) if self.excluded
                  else self.healthy)
        engine.net.router = router
        engine._routes = {}
        engine._alone = {}
        endpoints = engine.net.endpoints
        moves: dict[int, tuple[Any, ...]] = {}
        for slot in self._live():
            key = keys.get(id(self.routes[slot]))
            if key is None:
                continue
            route = engine._route(endpoints[key[0]], endpoints[key[1]], key[2])
            self.routes[slot] = route
            if not np.array_equal(route[0], self._links(slot)):
                moves[slot] = route
        stalled_free = [slot for slot in self.stalled if slot not in moves
                        and not self._crosses_dead(slot, dead)]

        def move(slot: int) -> None:
            if slot in moves:
                self._write_route(slot, moves[slot])
            if self._crosses_dead(slot, dead):
                self._cap(slot)
            else:
                self._uncap(slot)

        self._rework([*moves, *stalled_free], move)
        self.reroutes += 1
        self.flows_rerouted += len(moves)
        self.unroutable = max(self.unroutable, router.unroutable)
        self.log.append((engine.env.now, "reroute",
                         f"{len(moves)} flows moved, {len(self.excluded)} links down"))

    def _write_route(self, slot: int, route: tuple[Any, ...]) -> None:
        engine = self.engine
        s = engine._slots
        links, weights, delay = route
        n = len(links)
        s.ensure(engine._n_slots, n)
        s.links[slot, :] = -1
        s.weights[slot, :] = 0.0
        s.links[slot, :n] = links
        s.weights[slot, :n] = weights
        s.taken[slot] = None  # the allocation reads the new row
        s.alone[slot] = min(float(s.cap[slot]), self._alone_rate(slot))
        engine._slot_tail[slot] = max(0.0, delay - engine.net.nic_latency)

    # ------------------------------------------------------------------ report
    def report(self) -> dict[str, Any]:
        """The engine part of the Result's ``failures`` object (flow level: no cells; the
        packets lost are the bytes in flight over the MTU)."""
        mtu = self.engine.fabric.mtu_bytes
        lost = int(round(self.bytes_lost))
        return {"events": [{"at_s": t, "event": kind, "what": what}
                           for t, kind, what in self.log],
                "cells_lost": 0, "packets_lost": -(-lost // mtu), "bytes_lost": lost,
                "reroutes": self.reroutes, "flows_rerouted": self.flows_rerouted,
                "unroutable_routes": self.unroutable}
