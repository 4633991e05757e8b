"""DCQCN reaction point (sender) state of one queue pair.

Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, with the
knobs of deployed NICs (NVIDIA ConnectX firmware, as modelled by the HPCC simulator's
``rdma-hw.cc``).  The state lives with the connection (source NIC, destination NIC, queue
pair), not with one message: like an NCCL connection reused by every step of a collective, a
new flow on a throttled queue pair starts at the queue pair's current rate.

* On CNP (at most one cut per rate-decrease period; a CNP inside the period is folded into a
  cut at its end): ``Rt = Rc`` (always with ``clamp_target_rate``, else only when a timer
  increase happened since the previous cut, so a burst of cuts keeps the pre-congestion
  target), ``Rc = max(Rc (1 - alpha/2), min rate)`` (never more than halving: alpha <= 1),
  ``alpha = (1-g) alpha + g``; the increase timer and byte counter restart.
* Alpha decays lazily: ``alpha *= (1-g)^k`` for the ``k`` whole alpha periods since its last
  update, applied when alpha is next read - no event per period.
* Increase events from the timer (real events, only while below line rate) and the byte
  counter: fast recovery ``Rc = (Rt + Rc)/2`` for the first F, then additive ``Rt += R_AI``,
  hyper ``Rt += i R_HAI`` once both counters pass F (R_AI, R_HAI optionally scaled with the
  line rate).
* The notification point (receiver) sends at most one CNP per queue pair per CNP interval.
"""

from __future__ import annotations

from typing import Protocol

from fabricstudio.sim.engine.clock import Call, Clock
from fabricstudio.sim.engine.params import DcqcnParams


class Paced(Protocol):
    """A flow paced at its queue pair's rate."""

    def repace(self, now: float, factor: float) -> None:
        """Stretch (``factor`` > 1) or shrink the pacing gap that runs at ``now``."""


INF = float("inf")


class DcqcnRp:
    """Rate state of one queue pair (rates in wire bytes per second)."""

    __slots__ = ("clock", "p", "line", "rai", "rhai", "rc", "rt", "alpha", "alpha_ref",
                 "t_count", "bc_count", "byte_ctr", "timer_deadline", "timer_pending",
                 "last_cnp", "next_cut", "cut_pending", "flows")

    def __init__(self, clock: Clock, params: DcqcnParams, line_rate: float) -> None:
        self.clock = clock
        self.p = params
        self.line = line_rate
        self.rai, self.rhai = params.increase_steps(line_rate)
        self.rc = line_rate
        self.rt = line_rate
        self.alpha = 1.0
        self.alpha_ref = 0.0
        self.t_count = 0
        self.bc_count = 0
        self.byte_ctr = 0
        self.timer_deadline = INF
        self.timer_pending = False
        self.last_cnp = -INF  # at the notification point (receiver) of this queue pair
        self.next_cut = -INF  # earliest time of the next rate cut (rate-decrease period)
        self.cut_pending = False
        #: the queue pair's unfinished flows: re-paced when the rate changes (see ``set_rate``)
        self.flows: list[Paced] = []

    def set_rate(self, rate: float) -> None:
        """Make ``rate`` the current rate Rc.  The rate limiter of a NIC paces every packet at
        the rate of the moment, so a change applies to the gap still running as well (the
        HPCC simulator's ``RdmaHw::ChangeRate`` moves the queue pair's next send time): each
        flow's remaining pacing gap is rescaled by old / new - a cell stands for packets
        spread over that gap, so its size must not delay the reaction."""
        old = self.rc
        self.rc = rate
        if rate != old and self.flows:
            factor = old / rate
            now = self.clock.env.t
            for flow in self.flows:
                flow.repace(now, factor)

    def sent(self, payload: int) -> None:
        """Byte counter: ``payload`` bytes left at a rate below line rate."""
        p = self.p
        if p.byte_counter:
            self.byte_ctr += payload
            if self.byte_ctr >= p.byte_counter:
                self.byte_ctr -= p.byte_counter
                self.bc_count += 1
                self._increase()

    def _decay(self, now: float) -> None:
        p = self.p
        k = int((now - self.alpha_ref) / p.alpha_period)
        if k > 0:
            self.alpha *= p.one_minus_g ** k
            self.alpha_ref += k * p.alpha_period

    def alpha_at(self, now: float) -> float:
        """Current alpha (lazy decay applied)."""
        self._decay(now)
        return self.alpha

    def on_cnp(self, _event: Call) -> None:
        """A CNP arrived: cut now, or at the end of the current rate-decrease period."""
        now = self.clock.env.t
        if now < self.next_cut:
            if not self.cut_pending:
                self.cut_pending = True
                self.clock.call(self.next_cut - now, self._deferred_cut)
            return
        self._cut(now)

    def _deferred_cut(self, _event: Call) -> None:
        self.cut_pending = False
        self._cut(self.clock.env.t)

    def _cut(self, now: float) -> None:
        """Cut the rate, raise alpha, restart the increase machinery."""
        p = self.p
        self._decay(now)
        if p.clamp_target or self.t_count > 0:
            self.rt = self.rc
        self.set_rate(max(self.rc * (1.0 - self.alpha / 2.0), p.min_rate))
        self.alpha = p.one_minus_g * self.alpha + p.g
        self.alpha_ref = now
        self.next_cut = now + p.decrease_period
        self.t_count = self.bc_count = 0
        self.byte_ctr = 0
        self.timer_deadline = now + p.timer
        if not self.timer_pending:
            self.timer_pending = True
            self.clock.call(p.timer, self._on_timer)

    def _on_timer(self, _event: Call) -> None:
        now = self.clock.env.t
        if self.rc >= self.line:
            self.timer_pending = False
            return
        if now < self.timer_deadline - 1e-15:  # restarted by a CNP: sleep until the new expiry
            self.clock.call(self.timer_deadline - now, self._on_timer)
            return
        self.t_count += 1
        self._increase()
        self.timer_deadline = now + self.p.timer
        self.clock.call(self.p.timer, self._on_timer)

    def _increase(self) -> None:
        p = self.p
        t, bc = self.t_count, self.bc_count
        if max(t, bc) > p.fast_recovery:  # past fast recovery (F events)
            if min(t, bc) > p.fast_recovery:
                self.rt += (min(t, bc) - p.fast_recovery) * self.rhai
            else:
                self.rt += self.rai
        if self.rt > self.line:
            self.rt = self.line
        rc = (self.rt + self.rc) / 2.0
        self.set_rate(self.line if self.line - rc < 1e-6 * self.line else rc)
