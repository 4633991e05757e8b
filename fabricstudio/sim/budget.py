"""What a run will record and how often its timers fire, bounded before anything is allocated.

The cell-hop estimate (:func:`fabricstudio.sim.run.check_work`) counts the traffic.  Two other
costs do not grow with the traffic and are counted here:

* **samples**: every sample period the engine writes one frame of 9 numbers per directed link
  (36 bytes) and walks every port in Python (~3-6 us per port).  A run may record at most
  :data:`MAX_FRAMES` frames and :data:`MAX_SAMPLE_VALUES` link samples (~140 MB, ~15-25 s of
  sampling); the automatic period is made
  coarser on large fabrics to stay inside, an explicit ``sample_period_s`` that would not is
  refused, and a run without a horizon stops at the frame budget at the latest.
* **timer events**: retransmission timers (lossy Ethernet), DCQCN rate-increase timers (RoCE)
  and IB congestion-control timers fire every period for every active flow, whether or not
  the flow moves.  Their estimate (concurrent flows x horizon / period) is refused above
  :data:`MAX_TIMER_EVENTS` unless the caller lifts the work limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricstudio.model import Design, FabricSettings, Technology
from fabricstudio.sim.engine.config import (
    MAX_FRAMES,
    MAX_SAMPLE_PERIOD_S,
    MIN_SAMPLE_PERIOD_S,
    TARGET_FRAMES,
    nice_period,
)
from fabricstudio.sim.scenario import Scenario, ScenarioError

#: Most per-link samples (frames x directed links) one run may hold: 36 bytes each, ~140 MB.
#: An 8,192-GPU rail fabric (49,152 link directions) gets 81 frames; the 1,024-GPU fat tree
#: example 650; designs up to ~2,000 links the full 1,000.
MAX_SAMPLE_VALUES = 4_000_000
#: Bytes per directed link per frame (nine 4-byte fields).
BYTES_PER_SAMPLE = 36
#: Most timer firings estimated for one run (~ the cell-hop budget's wall time).
MAX_TIMER_EVENTS = 100_000_000
#: The IB congestion-control recovery timer of the engine (sim.engine.params.IbCcParams).
IB_CC_TIMER_S = 20e-6


@dataclass(frozen=True)
class SampleBudget:
    """The sample period a run uses and the latest time its frames may reach."""

    period_s: float
    frame_limit_s: float


def sample_budget(design: Design, scenario: Scenario, horizon_s: float,
                  bytes_per_sample: int = BYTES_PER_SAMPLE) -> SampleBudget:
    """The period (the scenario's, or one giving about 1,000 frames, coarser on fabrics with
    many links) and the time at which the frame budget runs out.  ScenarioError when an
    explicit period would exceed the budget before the horizon.  ``bytes_per_sample``: the
    flow-level engine records utilisation only (4 bytes), so it may keep 9 times as many."""
    directed = max(1, 2 * len(design.links))
    values = MAX_SAMPLE_VALUES * BYTES_PER_SAMPLE // max(1, bytes_per_sample)
    most_frames = min(MAX_FRAMES, values // directed)
    if most_frames < 1:
        raise ScenarioError(f"the design has {len(design.links):,} links; one frame of link "
                            f"samples alone exceeds the sample budget ({MAX_SAMPLE_VALUES:,})")
    period = scenario.sample_period_s
    if period is None:
        wanted = max(horizon_s / TARGET_FRAMES, horizon_s / most_frames)
        period = min(max(nice_period(wanted), MIN_SAMPLE_PERIOD_S), MAX_SAMPLE_PERIOD_S)
    elif scenario.until_s is not None and scenario.until_s / period > most_frames:
        frames = scenario.until_s / period
        raise ScenarioError(
            f"sample_period_s {period:g} s over until_s {scenario.until_s:g} s would record "
            f"{frames:,.0f} frames of {directed:,} link directions ({_mib(frames * directed)}); "
            f"at most {most_frames:,} frames fit the sample budget on this design: use "
            f"sample_period_s >= {scenario.until_s / most_frames:.3g} s or leave it out")
    return SampleBudget(period, most_frames * period)


def _mib(samples: float) -> str:
    return f"{samples * BYTES_PER_SAMPLE / 2**20:,.0f} MiB"


def timer_events(fabric: FabricSettings, technology: Technology, dcqcn: bool,
                 concurrent_flows: int, horizon_s: float) -> list[tuple[str, float]]:
    """(timer, estimated firings) for the timers that run on ``technology``: each fires once
    per period for every concurrently active flow over the horizon (an upper bound)."""
    per_flow = []
    if technology is Technology.ETHERNET:
        per_flow.append(("the retransmission timer (fabric.tcp.min_rto_us "
                         f"{fabric.tcp.min_rto_us:g} us)", fabric.tcp.min_rto_us * 1e-6))
    elif technology is Technology.ROCE and dcqcn:
        d = fabric.dcqcn
        per_flow.append((f"the DCQCN rate-increase timer (fabric.dcqcn.rate_increase_timer_us "
                         f"{d.rate_increase_timer_us:g} us)", d.rate_increase_timer_us * 1e-6))
    elif technology is Technology.INFINIBAND and fabric.infiniband.congestion_control:
        per_flow.append(("the IB congestion-control timer (20 us)", IB_CC_TIMER_S))
    return [(name, concurrent_flows * horizon_s / period) for name, period in per_flow]


def check_timers(fabric: FabricSettings, technology: Technology, dcqcn: bool,
                 concurrent_flows: int, horizon_s: float) -> float:
    """Total estimated timer firings; ScenarioError naming the timer above the budget."""
    total = 0.0
    for name, events in timer_events(fabric, technology, dcqcn, concurrent_flows, horizon_s):
        if events > MAX_TIMER_EVENTS:
            raise ScenarioError(
                f"{name} would fire about {events:,.0f} times ({concurrent_flows:,} concurrent "
                f"flows over {horizon_s:g} s; limit {MAX_TIMER_EVENTS:,}): use a longer timer, "
                "a shorter horizon (until_s) or fewer flows")
        total += events
    return total
