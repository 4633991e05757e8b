"""A scripted SimulationSource: frames come from a function, not an engine.

Qt-free; the UI tests use it, and so does ``benchmarks/liveview.py --synthetic`` (its
congestion wave is one more script), as benchmarks import test helpers elsewhere
(``benchmarks/cells.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from fabricstudio.model import Design, Technology
from fabricstudio.sim.activity import GpuState, GpuTimeline, gpu_addresses
from fabricstudio.sim.engine.topology import directed_links as engine_links
from fabricstudio.sim.metrics import DirectedLink, Frame, MetricStream, empty_link_arrays
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.request import RunRequest
from fabricstudio.sim.result import (
    CollectiveSummary,
    EngineInfo,
    Result,
    RunInfo,
    Totals,
    TrainingSummary,
)

PERIOD = 1e-6


def directed_links(design: Design) -> tuple[DirectedLink, ...]:
    """Both directions of every cable, in design order, as the engines number them."""
    return tuple(DirectedLink(i, s.link_id, s.src, s.src_port, s.dst, s.dst_port, s.speed_gbps)
                 for i, s in enumerate(engine_links(design)))


def ramp(index: int, links: tuple[DirectedLink, ...]) -> dict[str, np.ndarray]:
    """Default script: utilisation grows with the frame; every other frame pauses link 0."""
    arrays = empty_link_arrays(len(links))
    arrays["utilisation"][:] = min(1.0, 0.1 * (index + 1))
    arrays["queue_bytes"][:] = 1000.0 * index
    if index % 2:
        arrays["paused"][0] = 0.5
        arrays["pauses_sent"][0] = 1
    return arrays


#: A script: the link arrays of frame ``index`` (see :func:`ramp`).
Script = Callable[[int, tuple[DirectedLink, ...]], dict[str, np.ndarray]]


class SyntheticSource:
    """Produces one frame per PERIOD from ``script(frame_index, links)``, ``frames`` of them
    unless the request sets a horizon.  Each frame costs ``wall_per_frame_s`` of wall time,
    slept, or with ``busy`` spent running Python (holding the GIL as an engine would);
    ``gpus`` records GPU states (:func:`gpu_script`)."""

    def __init__(self, design: Design, request: RunRequest, script: Script = ramp,
                 wall_per_frame_s: float = 0.0, *, frames: int = 20, busy: bool = False,
                 gpus: bool = True) -> None:
        self.design_revision = design.revision
        self.request = request
        self.until_s = request.until_s if request.until_s is not None else frames * PERIOD
        self.expected_s = self.until_s
        self.stream = MetricStream(directed_links(design), PERIOD)
        self._script = script
        self._wall = wall_per_frame_s
        self._busy = busy
        self._now = 0.0
        self.timeline: GpuTimeline | None = (GpuTimeline(gpu_addresses(design), PERIOD)
                                             if gpus else None)

    @property
    def now(self) -> float:
        return self._now

    @property
    def finished(self) -> bool:
        return self._now >= self.until_s

    @property
    def progress(self) -> float:
        return min(1.0, self._now / self.until_s)

    def advance(self, until_s: float) -> None:
        while self._now + PERIOD <= min(until_s, self.until_s) + 1e-15:
            i = len(self.stream)
            self._now = (i + 1) * PERIOD
            self.stream.append(Frame(self._now, self._script(i, self.stream.links),
                                     {"rate_gbps": np.array([1.0 * i], dtype=np.float32),
                                      "delivered_bytes": np.array([1e3 * i])}, (0,)))
            if self.timeline is not None:
                states, computing = gpu_script(i, len(self.timeline.gpus))
                self.timeline.append(states, computing)
            self._spend()
        self._now = max(self._now, min(until_s, self.until_s))

    def _spend(self) -> None:
        if self._busy:
            until = time.perf_counter() + self._wall
            while time.perf_counter() < until:
                pass
        elif self._wall:
            time.sleep(self._wall)

    def result(self) -> Result:
        return synthetic_result(self._now, self.request.technology or Technology.ROCE)

    def flow_ends(self) -> dict[int, tuple[str, str]]:
        return {0: ("src", "dst")}

    def captions(self) -> list[Caption]:
        return [caption for caption in CAPTIONS if caption.start_s <= self._now]

    def facts(self) -> RunFacts | None:
        return None


#: The synthetic run's captions: one at the start, one when the GPUs start waiting.
CAPTIONS = (Caption(0.0, "The GPUs compute", "phase"),
            Caption(5 * PERIOD, "Every GPU waits on the network", "pause", ("leaf1",)))


def gpu_script(index: int, gpus: int) -> tuple[np.ndarray, np.ndarray]:
    """GPU states of frame ``index``: computing for 5 frames, then waiting, then from
    frame 10 communicating."""
    state = GpuState.COMPUTING if index < 5 else (GpuState.WAITING if index < 10
                                                  else GpuState.COMMUNICATING)
    return (np.full((1, gpus), state, dtype=np.int8),
            np.array([1.0 if state == GpuState.COMPUTING else 0.0]))


def synthetic_result(now: float, technology: Technology) -> Result:
    """A Result with fixed figures: lossy Ethernet drops 7 packets, GPUs idle more on it."""
    lossy = technology is Technology.ETHERNET
    drops = 7 if lossy else 0
    return Result(
        run=RunInfo(design="synthetic", scenario="synthetic", technology=technology,
                    dcqcn=False, routing="default", cell_bytes=16384, seed=1, until_s=None,
                    measure_from_s=0.0, sample_period_s=PERIOD),
        completion_time_s=now, end_s=now,
        collective=CollectiveSummary(name="all_reduce", ranks=2, size_bytes=2**20,
                                     algorithm="ring", channels=1, time_s=now,
                                     algbw_gbps=10.0, busbw_gbps=15.0),
        training=TrainingSummary(iterations=1, compute_s=now, overlap=0.0, step_time_s=now,
                                 allreduce_time_s=now, exposed_comm_s=0.0,
                                 gpu_utilisation=0.5 if lossy else 0.9),
        totals=Totals(drops=drops, retransmitted_bytes=drops * 4096, pfc_pauses=3,
                      ecn_marks=2),
        engine=EngineInfo(events=0, cell_bytes=16384, cell_hops=0, wall_time_s=None,
                          events_per_s=None))


def factory(script: Callable = ramp, wall_per_frame_s: float = 0.0) -> Callable:
    """A SourceFactory building SyntheticSources."""
    return lambda design, request: SyntheticSource(design, request, script, wall_per_frame_s)


def slow_source(design: Design, request: RunRequest) -> SyntheticSource:
    """A picklable factory (runs in a child process): 2 ms of wall time per frame."""
    return SyntheticSource(design, request, ramp, 0.002)


def fast_source(design: Design, request: RunRequest) -> SyntheticSource:
    """A picklable factory producing its frames at once."""
    return SyntheticSource(design, request)
