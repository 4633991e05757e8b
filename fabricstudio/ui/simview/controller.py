"""The simulation controller: runs the engine in a worker, paces the display with a QTimer.

One code path for live view and replay: every tick picks a display time (the newest frame when
following live, or a clock advancing at the chosen speed, or where the scrubber put it), reads
the frame covering that time from the MetricStream and hands it to the overlay, which repaints
only when the frame differs.
"""

from __future__ import annotations

import time
from collections import deque

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from fabricstudio.model import Design, FrozenDesign, freeze
from fabricstudio.sim.activity import GpuTimeline
from fabricstudio.sim.metrics import LINK_METRICS, Frame, MetricStream, combine
from fabricstudio.sim.moments import Caption, RunFacts
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.request import RunRequest
from fabricstudio.sim.result import Result
from fabricstudio.ui.model_signals import ModelSignals
from fabricstudio.ui.simview.gpu_rings import GpuRings
from fabricstudio.ui.simview.overlay import SimOverlay
from fabricstudio.ui.simview.process_worker import ProcessRunWorker, picklable
from fabricstudio.ui.simview.source import SourceFactory, engine_source
from fabricstudio.ui.simview.worker import RunWorker

TICK_MS = 33
REPLAY_S = 20.0  # "Live" replays a finished run in this many wall seconds
MAX_SPAN = 64  # at most this many recorded frames are merged into one displayed frame
#: Said when Play, Step or a jump finds no recorded run.
NOTHING_TO_PLAY = ("Nothing to play yet: press Run (Ctrl+R) in the Scenario panel to simulate "
                   "the workload, then Play replays it")


def window_frame(stream: MetricStream, first: int, last: int) -> Frame:
    """Frame ``last``, or the merge of frames first..last by each field's kind (fractions
    averaged, counters summed, peaks the largest, levels as at the last frame)."""
    frame = stream.frame(last)
    if first >= last:
        return frame
    frames = [stream.frame(i) for i in range(first, last)] + [frame]
    links = {f.name: combine(f, [fr.links[f.name] for fr in frames]) for f in LINK_METRICS}
    return Frame(frame.t, links, frame.flows, frame.flow_ids)


class SimController(QObject):
    """Owns the run, the display clock and the overlay of one window's scene."""

    stream_changed = Signal(object)  # MetricStream or None
    frame_shown = Signal(int, float)  # frame index, its time
    state_changed = Signal(str)  # idle / starting / running / finished / stopped / failed
    progress = Signal(float, float, float)  # simulated now, fraction done, sim-s per wall-s
    result_ready = Signal(object)  # Result
    captions_changed = Signal(object)  # list of Caption
    message = Signal(str)
    ticked = Signal()  # after every display tick (charts refresh one at a time on it)

    def __init__(self, scene, design: Design, factory: SourceFactory | None = None,
                 parent: QObject | None = None, use_process: bool | None = None) -> None:
        super().__init__(parent)
        self._design = design
        self.factory = factory or engine_source
        #: Run the engine in a child process (default: whenever the factory can be pickled).
        self.use_process = picklable(self.factory) if use_process is None else use_process
        self._scene = scene
        self._overlay = SimOverlay(scene, design)
        self._rings = GpuRings(scene)
        self.model_signals = ModelSignals(self)
        self.model_signals.connect(design.reset, self._on_design_reset)
        self.stream: MetricStream | None = None
        self.request: RunRequest | None = None
        self.run_design: FrozenDesign | None = None
        self.result: Result | None = None
        #: The shown run's GPU states, captions and facts (None / [] when unknown).
        self.timeline: GpuTimeline | None = None
        self.captions: list[Caption] = []
        self.facts: RunFacts | None = None
        self.state = "idle"
        self.worker: RunWorker | ProcessRunWorker | None = None
        self.speed: float | None = None  # sim seconds per wall second; None = follow live
        self.playing = False
        self.display_time = 0.0
        self.shown_index = -1
        self.frame_gaps: deque[float] = deque(maxlen=100_000)
        self._last_tick = 0.0
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)

    def set_factory(self, factory: SourceFactory, use_process: bool | None = None) -> None:
        """Build later runs with ``factory`` (in a child process when it can be pickled)."""
        self.factory = factory
        self.use_process = picklable(factory) if use_process is None else use_process

    # ------------------------------------------------------------------ running
    @property
    def design(self) -> Design:
        """The edited design (runs take a frozen copy of it)."""
        return self._design

    @design.setter
    def design(self, design: Design) -> None:
        if design is not self._design:
            self.model_signals.disconnect_all()
            self.model_signals.connect(design.reset, self._on_design_reset)
        self._design = design
        self.overlay.set_design(design)

    @property
    def overlay(self) -> SimOverlay:
        """The overlay item; made again (showing the same frame) if the scene dropped it,
        as a scene rebuild clears every item."""
        if not shiboken6.isValid(self._overlay):
            self._overlay = SimOverlay(self._scene, self._design)
            if self.stream is not None:
                self._overlay.bind(self.stream.links, self.stream.fabric)
                if 0 <= self.shown_index < len(self.stream):
                    self._overlay.apply_frame(self.stream.frame(self.shown_index))
        return self._overlay

    @property
    def rings(self) -> GpuRings:
        """The GPU-state rings item (made again after a scene rebuild, like the overlay)."""
        if not shiboken6.isValid(self._rings):
            self._rings = GpuRings(self._scene)
            if self.timeline is not None:
                self._rings.bind(self.timeline)
                if self.shown_index >= 0:
                    self._rings.show_frame(self.shown_index)
        return self._rings

    def _on_design_reset(self) -> None:
        """Another design was loaded: the shown run no longer belongs to the canvas."""
        self.stop()
        self._set_stream(None)
        self._set_state("idle")

    @property
    def running(self) -> bool:
        """True while a worker is simulating."""
        return self.worker is not None

    def start(self, request: RunRequest) -> None:
        """Run ``request`` on a frozen copy of the design (no-op while a run is going)."""
        if self.running:
            return
        self.request = request
        self.run_design = freeze(self.design)
        self.result = None
        self._set_stream(None)
        worker_class = ProcessRunWorker if self.use_process else RunWorker
        worker = worker_class(self.factory, self.run_design, request, self)
        worker.stream_ready.connect(self._on_stream_ready)
        worker.captions_changed.connect(self._set_captions)
        worker.progressed.connect(self._on_progress)
        worker.succeeded.connect(self._on_completed)
        worker.failed.connect(self._on_failed)
        worker.finished.connect(self._on_worker_finished)
        self.worker = worker
        self.playing = True
        self._set_state("starting")
        worker.start()
        self._ensure_timer()

    def stop(self) -> None:
        """End the run at once (keeps the frames recorded so far for replay)."""
        worker = self.worker
        if worker is None:
            self.pause()
            return
        worker.request_stop()
        worker.wait()
        self._on_worker_finished()
        if self.state in ("running", "starting"):
            self._set_state("stopped")
        self.pause()

    def shutdown(self) -> None:
        """Stop everything (window closing)."""
        self.stop()
        self.timer.stop()

    def _on_stream_ready(self, stream: MetricStream) -> None:
        worker = self.worker
        self._set_stream(stream, worker.timeline if worker is not None else None)
        self._set_state("running")

    def _set_captions(self, captions: list[Caption]) -> None:
        self.captions = list(captions)
        self.captions_changed.emit(self.captions)

    def _on_progress(self, now: float, fraction: float, rate: float) -> None:
        self.progress.emit(now, fraction, rate)

    def _on_completed(self, result: Result) -> None:
        self.result = result
        worker = self.worker
        if worker is not None:
            self.facts = worker.facts
        self._set_state("finished")
        self.result_ready.emit(result)

    def _on_failed(self, text: str) -> None:
        self._set_state("failed")
        self.message.emit(f"Simulation failed: {text}")

    def _on_worker_finished(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.wait()
            worker.deleteLater()
            stream = self.stream
            if self.playing and self.speed is None and stream is not None and len(stream):
                self.playing = False  # the live view ends on the last frame
                self.display_time = float(stream.times[-1])
                self._show(len(stream) - 1, span=True)
            self.tick()
        self._ensure_timer()

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    def _set_stream(self, stream: MetricStream | None,
                    timeline: GpuTimeline | None = None) -> None:
        self.stream = stream
        self.timeline = timeline
        self.shown_index = -1
        self.display_time = 0.0
        if stream is not None:
            self.overlay.bind(stream.links, stream.fabric)
        else:
            self.overlay.apply_frame(None)
            self.result = None
            self.facts = None
        self.rings.bind(timeline)
        self._set_captions([])
        self.stream_changed.emit(stream)

    def load_record(self, record: RecordedRun, request: RunRequest | None = None,
                    at: float | None = None) -> None:
        """Replay a recorded run (e.g. a row of the comparison) from ``at`` (default: its
        end), with its GPU states, captions and facts."""
        self.stop()
        self.request = request
        self.run_design = record.design
        self._set_stream(record.stream, record.timeline)
        self.result = record.result
        self.facts = record.facts
        self._set_captions(record.captions)
        self._set_state("finished")
        if record.result is not None:
            self.result_ready.emit(record.result)
        if at is None:
            self.seek_index(len(record.stream) - 1)
        else:
            self.seek_time(at)

    # ------------------------------------------------------------------ display clock
    def play(self) -> bool:
        """Play from the shown time (restarting at the beginning when at the end); False,
        with a message saying why, when there is nothing recorded to play."""
        if self.stream is None or not len(self.stream):
            self.message.emit(NOTHING_TO_PLAY if self.stream is None
                              else "The run has not recorded a frame yet")
            return False
        if not self.running and self.shown_index >= len(self.stream) - 1:
            self.display_time = float(self.stream.times[0])
            self.shown_index = -1
        self.playing = True
        self._ensure_timer()
        return True

    def pause(self) -> None:
        """Freeze the display at the shown frame."""
        self.playing = False
        self._ensure_timer()

    def set_speed(self, speed: float | None) -> None:
        """Replay speed in simulated seconds per wall second; None follows the newest frame."""
        self.speed = speed

    def replay_speed(self) -> float:
        """Simulated seconds per wall second of playback: the chosen speed, or with "Live"
        after the run, whatever replays the whole recording in REPLAY_S seconds."""
        if self.speed is not None:
            return self.speed
        if self.stream is None or not len(self.stream):
            return 0.0
        return float(self.stream.times[-1]) / REPLAY_S

    def step(self, frames: int = 1) -> None:
        """Pause and move ``frames`` frames forward (or back when negative)."""
        self.pause()
        if self.stream is None or not len(self.stream):
            self.message.emit(NOTHING_TO_PLAY)
            return
        self.seek_index(max(0, self.shown_index) + frames)

    def seek_index(self, index: int) -> None:
        """Show frame ``index`` (clamped) and stop following live."""
        if self.stream is None or not len(self.stream):
            return
        index = min(max(index, 0), len(self.stream) - 1)
        self.seek_time(float(self.stream.times[index]))

    def seek_time(self, t: float) -> None:
        """Show the frame covering simulated time ``t``."""
        if self.stream is None:
            return
        self.display_time = t
        self._show(self.stream.index_at(t))

    def jump(self, name: str) -> bool:
        """Jump to one of the stream's MOMENTS (``first_pause``, ``peak_queue``, ...); False
        (with a message) when the run has none."""
        if self.stream is None or not len(self.stream):
            self.message.emit(NOTHING_TO_PLAY)
            return False
        t = self.stream.moment_time(name)
        if t is None:
            self.message.emit(f"No {name.replace('_', ' ').replace('first ', '')} in this run")
            return False
        self.pause()
        self.seek_time(t)
        return True

    def tick(self) -> None:
        """One display frame: advance the clock, apply the frame at the display time."""
        now = time.perf_counter()
        dt = now - self._last_tick if self._last_tick else TICK_MS / 1000
        if self._last_tick:
            self.frame_gaps.append(dt)
        self._last_tick = now
        stream = self.stream
        if stream is not None and len(stream):
            self.overlay.refresh_geometry()
            last = len(stream) - 1
            moving = self.playing
            if self.playing and self.speed is None and self.running:
                self.display_time = float(stream.times[last])
            elif self.playing:
                self.display_time += self.replay_speed() * min(dt, 0.25)
                if self.display_time >= stream.times[last] and not self.running:
                    self.display_time = float(stream.times[last])
                    self.playing = False
            self._show(stream.index_at(self.display_time), span=moving)
        self.overlay.advance_animation(min(dt, 0.25))
        self.ticked.emit()
        self._ensure_timer()

    def _show(self, index: int, span: bool = False) -> None:
        """Show frame ``index``; with ``span`` (playing), what happened since the frame shown
        before: rates averaged and event counts summed over the frames in between, so fast
        playback neither flickers nor hides a PAUSE that fell between two display ticks."""
        if index < 0 or index == self.shown_index:
            return
        first = self.shown_index + 1 if span and 0 <= self.shown_index < index else index
        frame = window_frame(self.stream, max(first, index - MAX_SPAN + 1), index)
        self.shown_index = index
        self.overlay.apply_frame(frame)
        self.rings.show_frame(index)
        self.frame_shown.emit(index, frame.t)

    def _ensure_timer(self) -> None:
        """The timer runs only while a run is going or playback is on."""
        wanted = self.running or self.playing
        if wanted and not self.timer.isActive():
            self._last_tick = 0.0
            self.timer.start()
        elif not wanted and self.timer.isActive():
            self.timer.stop()
