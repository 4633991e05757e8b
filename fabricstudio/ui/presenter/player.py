"""Stepping through a storyboard (or, without one, through the shown run's moments).

A story's steps name fabrics; their runs come from the comparison (the same design and
scenario on the four fabrics, run in parallel child processes).  :meth:`StoryPlayer.prepare`
starts that comparison when its runs are missing or stale; steps show once it is done.  Each
step puts one run on the canvas (or 2 / 4 side by side), moves the camera, seeks to its time
or event, plays at its speed and shows its caption (or the run's own caption of the moment).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRectF, QTimer, Signal

from fabricstudio.formats.story import ObjectsCamera, RectangleCamera, Story, StoryStep
from fabricstudio.sim.recorded import RecordedRun, story_moment
from fabricstudio.ui.simview.source import FABRIC_VARIANTS

#: Story fabric names -> the comparison's row labels.
FABRIC_LABELS = {fabric: variant[0] for fabric, variant in FABRIC_VARIANTS.items()}
#: ... and back, with the technology and DCQCN of each.
FABRIC_OF_LABEL = {label: fabric for fabric, label in FABRIC_LABELS.items()}


class StoryPlayer(QObject):
    """Steps one window's simulation view through a Story."""

    #: (step index, step count) after a step is shown; (-1, n) while preparing.
    step_changed = Signal(int, int)
    #: A line for the presenter's status badge ("Preparing the demo… 40%").
    notice = Signal(str)

    def __init__(self, simulation_ui) -> None:
        super().__init__(simulation_ui)
        self.ui = simulation_ui
        self.story: Story | None = None
        self.index = -1
        self.fabrics: tuple[str, ...] = ("roce",)
        self.kiosk = QTimer(self)
        self.kiosk.setSingleShot(True)
        self.kiosk.timeout.connect(self._kiosk_next)
        self._kiosk_on = False
        self._waiting = False
        self._prepared_key: tuple | None = None
        simulation_ui.when_compare_built(self._follow_compare)  # built at its first use

    def _follow_compare(self, compare) -> None:
        compare.finished.connect(self._on_compare_finished)
        compare.progress_changed.connect(self._on_compare_progress)

    # ------------------------------------------------------------------ loading
    def load(self, story: Story | None) -> None:
        """Use ``story`` (None: step through the shown run's moments)."""
        self.stop_kiosk()
        self.story = story
        self.index = -1
        self.fabrics = ("roce",)

    @property
    def count(self) -> int:
        """Number of steps (0 without a story)."""
        return len(self.story.steps) if self.story is not None else 0

    def needed_labels(self) -> list[str]:
        """Comparison rows the story's steps show."""
        if self.story is None:
            return []
        fabrics = {fabric for step in self.story.steps for fabric in step.fabrics} or {"roce"}
        return [FABRIC_LABELS[f] for f in FABRIC_LABELS if f in fabrics]

    def _current_key(self) -> tuple:
        design = self.ui.window.design
        return (id(design), design.revision, self.ui.scenario.request_key())

    @property
    def prepared(self) -> bool:
        """True when the comparison holds fresh runs of every fabric the story shows."""
        records = self.ui.compare.records
        return (self._prepared_key == self._current_key()
                and all(label in records for label in self.needed_labels()))

    def cache_note(self) -> str:
        """"cached runs" when the runs the story shows came from the run cache (the
        presenter's badge says so, short: the Compare panel says when they were recorded);
        empty when they were simulated now."""
        if self.story is None or not self.prepared:
            return ""
        records = self.ui.compare.records
        cached = any(records[label].cached_at is not None for label in self.needed_labels())
        return "cached runs" if cached else ""

    def prepare(self) -> bool:
        """Make sure the runs exist; starts the comparison when they do not.  True when the
        steps can be shown now."""
        if self.story is None or self.prepared:
            return True
        if not self._waiting:
            if self.ui.compare.running or self.ui.controller.running:
                self.ui.stop()
            self._waiting = True
            self.notice.emit("Preparing the demo…")
            # the presenter can start talking: the step's own words over the bare fabric
            step = self.story.steps[max(0, self.index)]
            self.ui.overlays.set_story_caption(step.caption or None)
            self.ui.refresh_caption()
            self._camera(step)  # framed above the caption, which may be taller than two lines
            self.step_changed.emit(-1, self.count)
            self._prepared_key = self._current_key()
            self.ui.scenario.compare_button.click()
            if not self.ui.compare.running:  # the request was refused (message in the panel)
                self._waiting = False
                self.notice.emit(self.ui.scenario.error.text() or "Cannot run the story")
        return False

    def _on_compare_progress(self, fractions: dict) -> None:
        if self._waiting and fractions:
            done = sum(fractions.values()) / max(1, len(fractions))
            self.notice.emit(f"Preparing the demo… {100 * done:.0f}%")

    def _on_compare_finished(self) -> None:
        if not self._waiting:
            return
        self._waiting = False
        if self.prepared:
            self.notice.emit("")
            self.show(max(0, self.index))
        else:
            self.notice.emit(self.ui.compare.status.text())

    # ------------------------------------------------------------------ stepping
    def next(self) -> None:
        """The next step (the run's next moment without a story)."""
        if self.story is None:
            self._next_moment(+1)
        elif self.index + 1 < self.count:
            self.show(self.index + 1)
        elif self.story.loop:
            self.show(0)

    def previous(self) -> None:
        """The previous step (the previous moment without a story)."""
        if self.story is None:
            self._next_moment(-1)
        elif self.index > 0:
            self.show(self.index - 1)

    def first(self) -> None:
        """The first step."""
        if self.story is not None:
            self.show(0)
        else:
            self.ui.controller.seek_index(0)

    def last(self) -> None:
        """The last step."""
        if self.story is not None:
            self.show(self.count - 1)
        else:
            self.ui.controller.seek_index(len(self.ui.controller.stream or ()) - 1)

    def show(self, index: int) -> None:
        """Show step ``index`` (waits for the runs first when they are missing).  Nothing
        while the runs are being prepared: an impatient clicker would otherwise skip the
        first steps once they are ready."""
        if self.story is None or not self.count or self._waiting:
            return
        self.index = min(max(index, 0), self.count - 1)
        if not self.prepare():
            return
        step = self.story.steps[self.index]
        if step.fabrics:
            self.fabrics = step.fabrics
        records = [self.ui.compare.records[FABRIC_LABELS[f]] for f in self.fabrics]
        if len(records) == 1:
            self._show_one(step, records[0])
        else:
            self._show_side_by_side(step, records)
        self.step_changed.emit(self.index, self.count)
        if self.kiosk_on:
            self.kiosk.start(int(step.hold_s * 1000))

    def _show_one(self, step: StoryStep, record: RecordedRun) -> None:
        ui = self.ui
        at = story_moment(step, [record])
        if at is None:
            at = ui.controller.display_time
        if ui.controller.stream is not record.stream:
            ui.replay(record, at)
        else:
            ui.stage.show_canvas()
            ui.controller.seek_time(at)
        ui.overlays.set_story_caption(step.caption or None)
        ui.refresh_caption()
        self._camera(step)
        if step.play_speed > 0:
            ui.controller.set_speed(step.play_speed)
            ui.controller.play()
        else:
            ui.controller.pause()

    def _show_side_by_side(self, step: StoryStep, records: list[RecordedRun]) -> None:
        ui = self.ui
        side = ui.stage.side_by_side
        if [p.record for p in side.panes] != records or not ui.stage.showing_side_by_side:
            ui.side_by_side(records)
        at = story_moment(step, records)
        if at is not None:
            side.seek_time(at)
        side.set_banner(step.caption)
        if step.play_speed > 0:
            side.set_speed(step.play_speed)
            side.play()
        else:
            side.pause()

    def _camera(self, step: StoryStep) -> None:
        view = self.ui.window.view
        camera = step.camera
        if isinstance(camera, ObjectsCamera):
            rect = QRectF()
            items = self.ui.window.scene.device_items
            for device_id in camera.objects:
                item = items.get(device_id)
                if item is not None:
                    rect = rect.united(item.sceneBoundingRect())
            view.fit(rect if not rect.isEmpty() else None)
        elif isinstance(camera, RectangleCamera):
            view.fit(QRectF(*camera.rectangle))
        else:
            view.fit()

    def _next_moment(self, direction: int) -> None:
        """Without a story: jump to the next (or previous) caption of the shown run."""
        controller = self.ui.controller
        if controller.stream is None or not controller.captions:
            controller.message.emit("No run with captions to step through: press Run, or open "
                                    "a demo (Help > Demos)")
            return
        now = controller.overlay.frame_time or 0.0
        times = sorted({c.start_s for c in controller.captions})
        if direction > 0:
            later = [t for t in times if t > now + 1e-9]
            target = later[0] if later else None
        else:
            earlier = [t for t in times if t < now - 1e-9]
            target = earlier[-1] if earlier else 0.0
        if target is not None:
            controller.pause()
            controller.seek_time(target + 1e-12)

    # ------------------------------------------------------------------ kiosk
    @property
    def kiosk_on(self) -> bool:
        """True while the kiosk loop runs."""
        return self._kiosk_on

    def start_kiosk(self) -> None:
        """Advance by itself (each step for its ``hold_s``), forever."""
        self._kiosk_on = True
        if self.story is None:
            return
        if self.index < 0:
            self.show(0)
        elif self.index < self.count:
            self.kiosk.start(int(self.story.steps[self.index].hold_s * 1000))

    def stop_kiosk(self) -> None:
        """Stop advancing by itself."""
        self._kiosk_on = False
        self.kiosk.stop()

    def _kiosk_next(self) -> None:
        if self.story is None or not self.kiosk_on:
            return
        if self._waiting:
            self.kiosk.start(1000)
            return
        self.show(self.index + 1 if self.index + 1 < self.count else 0)

    # ------------------------------------------------------------------ capture
    def current_step(self) -> StoryStep:
        """The view as it is now, as a story step: fabric(s), camera, time and caption."""
        ui = self.ui
        if ui.stage.showing_side_by_side:
            side = ui.stage.side_by_side
            fabrics = [FABRIC_OF_LABEL.get(p.record.label, "roce") for p in side.panes]
            return StoryStep(caption=side.banner_text(), fabric=fabrics,
                             time_s=round(side.display_time, 9))
        view = ui.window.view
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        request = ui.controller.request
        fabric = None
        if request is not None and request.technology is not None:
            fabric = {"infiniband": "infiniband", "ethernet": "ethernet"}.get(
                request.technology.value, "roce" if request.dcqcn else "roce-pfc")
        caption = ui.overlays.story_caption or ui.overlays.caption.text
        return StoryStep(caption=caption[:400], fabric=fabric,
                         camera=RectangleCamera(rectangle=(visible.x(), visible.y(),
                                                           visible.width(), visible.height())),
                         time_s=round(ui.controller.display_time, 9))
