"""What-if failures in the main window: the right-click and What-if menu entries' slots, the
analysis without the marked elements, the next run with them down, and the live view of a
run's failures (``window.failures``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from fabricstudio.sim.failure_timeline import (
    FailureState,
    FailureWindow,
    failure_timeline,
    state_at,
)
from fabricstudio.sim.request import RunRequest
from fabricstudio.ui.failure_marks import FailureLayer, FailureMarks, layer_of

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.ui.main_window import MainWindow


class FailureUi(QObject):
    """Marks, actions and the canvas layer of one window's what-if failures."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.marks = FailureMarks(window.design, self)
        self._layers: dict[str, FailureLayer | None] = {"links": None, "devices": None}
        #: The shown run's failures (empty: the canvas shows the marks).
        self.timeline: list[FailureWindow] = []
        #: The shown run's display time (None: no run shown).
        self.shown_time: float | None = None
        # the What-if menu's actions (window.act), offered again on a right click
        self.act_mark = window.act.mark_failed
        self.act_repair = window.act.mark_repaired
        self.act_clear = window.act.clear_failures
        self.marks.changed.connect(self._on_marks_changed)
        window.model_signals.connect(window.design.changed, self._refresh_layer)
        self._on_marks_changed()

    def layer(self, part: str) -> FailureLayer:
        """The canvas layer of failed ``links`` or ``devices`` (made again when the scene
        was rebuilt)."""
        layer = layer_of(self.window.scene, self._layers[part], part)
        self._layers[part] = layer
        return layer

    @property
    def shown(self) -> FailureState:
        """What the canvas draws as failed now."""
        return self.layer("links").state

    # ------------------------------------------------------------------ actions
    def _selection(self) -> tuple[list[str], list[str]]:
        editor = self.window.editor
        return editor.selected_link_ids(), editor.selected_device_ids()

    def mark_selection(self) -> int:
        """Mark the selected links and devices failed; returns how many were new."""
        links, devices = self._selection()
        if not links and not devices:
            self.window.show_message("Select links or devices to mark failed")
            return 0
        added = self.marks.mark(links, devices)
        self.window.show_message(
            f"Marked failed: {self.marks.describe()}: the Analysis shows the fabric without "
            f"them, the next run starts with them down")
        return added

    def repair_selection(self) -> int:
        """Unmark the selected links and devices; returns how many were marked."""
        links, devices = self._selection()
        back = self.marks.repair(links, devices)
        self.window.show_message(f"Marked repaired: {back} element(s)" if back else
                                 "None of the selection was marked failed")
        return back

    def context_actions(self) -> list[QAction]:
        """The failure actions for a right click on the current selection."""
        links, devices = self._selection()
        chosen = set(links) | set(devices)
        marked = set(self.marks.links) | set(self.marks.devices)
        actions = []
        if chosen - marked:
            actions.append(self.act_mark)
        if chosen & marked:
            actions.append(self.act_repair)
        if self.marks:
            actions.append(self.act_clear)
        return actions

    def with_marks(self, request: RunRequest) -> RunRequest:
        """``request`` with the marked elements down from the start of the run."""
        if not self.marks:
            return request
        return request.with_changes(failures=(*request.failures, *self.marks.failures()))

    # ------------------------------------------------------------------ reactions
    def _on_marks_changed(self) -> None:
        self.act_clear.setEnabled(bool(self.marks))
        self.window.analysis.set_failures(self.marks.failures())
        self._draw()

    def _refresh_layer(self) -> None:
        for part in self._layers:
            self.layer(part).refresh()

    def install(self, simulation) -> None:
        """Follow the runs of ``simulation``."""
        self.follow_run(simulation.controller)

    def follow_run(self, controller) -> None:
        """Show the failures of ``controller``'s runs at the shown time."""
        controller.stream_changed.connect(lambda stream: self._on_stream(controller, stream))
        controller.frame_shown.connect(lambda _index, t: self.show_time(t))

    def _on_stream(self, controller, stream) -> None:
        self.timeline = []
        self.shown_time = None if stream is None else 0.0
        if stream is not None and controller.request is not None:
            self.timeline = run_timeline(controller.run_design, controller.request)
        self._draw()

    def show_time(self, t: float) -> None:
        """Draw the run's failures as they are at simulated time ``t``."""
        if self.shown_time is not None:
            self.shown_time = t
            self._draw()

    def _draw(self) -> None:
        """The marks, and while a run is shown its failures at the shown time (a mark the
        run also has is drawn as the run has it: down, or routed around)."""
        state = self.marks.state()
        if self.shown_time is not None and self.timeline:
            run = state_at(self.timeline, self.shown_time)
            state = FailureState({**state.links, **run.links}, {**state.devices, **run.devices},
                                 tuple(dict.fromkeys(state.labels + run.labels)))
        for part in self._layers:
            self.layer(part).show_state(state)


def run_timeline(design, request: RunRequest) -> list[FailureWindow]:
    """The failure windows of ``request`` run on ``design`` (empty when it has none or
    cannot run)."""
    from fabricstudio.sim.request import scenario_for
    from fabricstudio.sim.scenario import ScenarioError

    if design is None or (not request.failures and
                          (request.scenario is None or not request.scenario.failures)):
        return []
    try:
        scenario = scenario_for(design, request)
    except ScenarioError:
        return []
    technology = scenario.technology or design.fabric.technology
    return failure_timeline(design, scenario.failures, technology, scenario.routing,
                            scenario.failover)
