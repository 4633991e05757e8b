"""Wire the simulation view into a MainWindow: docks, toolbar, menu, status bar."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMenu, QScrollArea

from fabricstudio.model.units import format_time
from fabricstudio.sim.moments import caption_at
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.result import Result
from fabricstudio.ui.canvas.items.link_item import LinkItem
from fabricstudio.ui.fit import FittedScrollArea
from fabricstudio.ui.panels.compare_panel import ComparePanel
from fabricstudio.ui.panels.results_panel import ResultsPanel, export_metrics_dialog
from fabricstudio.ui.panels.scenario_panel import ScenarioPanel
from fabricstudio.ui.plots.metrics_plots import MetricsPlots
from fabricstudio.ui.simview.canvas_overlays import CanvasOverlays
from fabricstudio.ui.simview.controller import SimController
from fabricstudio.ui.simview.controls import SimControls
from fabricstudio.ui.simview.moment import moment_caption, render_scene_image, save_png
from fabricstudio.ui.simview.painters import gauge_data
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, SourceFactory, engine_source
from fabricstudio.ui.simview.stage import Stage

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.ui.main_window import MainWindow

#: Height the Compare dock takes when a comparison starts (fits a 1366 x 768 window).
COMPARE_HEIGHT = 290
PLOT_REFRESH_S = 0.06  # at most one chart every other tick: each chart at ~4 Hz


class SimulationUi(QObject):
    """Everything the simulation view adds to one main window."""

    def __init__(self, window: MainWindow, factory: SourceFactory | None = None) -> None:
        super().__init__(window)
        self.window = window
        #: Builds every simulation (:meth:`set_factory` changes it).
        self.factory = factory or engine_source
        self.controller = SimController(window.scene, window.design, self.factory, self)
        self.scenario = ScenarioPanel(window.design, self._selected_device_ids)
        self.results = ResultsPanel()
        # The charts and the comparison are built when first needed (their dock shows, a run
        # starts, someone asks for them): pyqtgraph charts cost a noticeable part of opening
        # a window, and most sessions never run a simulation.
        self._plots: MetricsPlots | None = None
        self._compare: ComparePanel | None = None
        self._compare_hooks: list[Callable[[ComparePanel], None]] = []
        window.costs.changed.connect(self._on_cost_book)  # GPU-idle money at the GPU-hour price
        self.controls = SimControls(self.controller, window)
        self.overlays = CanvasOverlays(window.view)
        self.legend = self.overlays.legend
        self.stage = Stage(window)
        self.docks = {
            "scenario": self._dock("Scenario", self.scenario,
                                   Qt.DockWidgetArea.RightDockWidgetArea),
            "results": self._dock("Results", self.results, Qt.DockWidgetArea.RightDockWidgetArea),
            "charts": self._dock("Charts", None, Qt.DockWidgetArea.BottomDockWidgetArea),
            "compare": self._dock("Compare fabrics", None, Qt.DockWidgetArea.BottomDockWidgetArea),
        }
        for key in ("charts", "compare"):  # the canvas gets the room until there is a run
            self.docks[key].hide()
        self.docks["charts"].visibilityChanged.connect(self._on_charts_visible)
        self.docks["compare"].visibilityChanged.connect(self._on_compare_visible)
        window.tabifyDockWidget(self.docks["charts"], self.docks["compare"])
        self._share_right_column()
        window.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.controls)
        window.resizeDocks([self.docks["charts"]], [230], Qt.Orientation.Vertical)
        self.menu = self._build_menu()
        self._last_plot_refresh = 0.0
        self._connect()
        self._install_presenter()
        window.installEventFilter(self)

    # ------------------------------------------------------------- lazy panels
    @property
    def plots(self) -> MetricsPlots:
        """The Charts dock's charts (built at the first use)."""
        if self._plots is None:
            self._plots = MetricsPlots()
            self._fill("charts", self._plots)
            theme = self.window.scene.theme
            self._plots.set_colours(theme.canvas, theme.text)
            self._on_selection()
        return self._plots

    @property
    def compare(self) -> ComparePanel:
        """The Compare fabrics dock's panel (built at the first use)."""
        if self._compare is None:
            panel = self._compare = ComparePanel(self.factory)
            costs = self.window.costs
            panel.cost_book_source = lambda: costs.book
            panel.finished.connect(self._on_compare_finished)
            panel.replay_requested.connect(self.replay)
            panel.side_by_side_requested.connect(self.side_by_side)
            self._fill("compare", panel)
            theme = self.window.scene.theme
            panel.set_colours(theme.canvas, theme.text)
            for hook in self._compare_hooks:
                hook(panel)
        return self._compare

    @property
    def panels_built(self) -> tuple[bool, bool]:
        """Whether the charts and the comparison panel exist yet."""
        return self._plots is not None, self._compare is not None

    def when_compare_built(self, hook: Callable[[ComparePanel], None]) -> None:
        """Call ``hook`` with the comparison panel once it exists (now, if it does)."""
        self._compare_hooks.append(hook)
        if self._compare is not None:
            hook(self._compare)

    def _fill(self, key: str, widget) -> None:
        area = self.docks[key].widget()
        assert isinstance(area, QScrollArea)
        area.setWidget(widget)  # a FittedScrollArea: its width follows the widget's

    def _on_charts_visible(self, visible: bool) -> None:
        if visible:
            _ = self.plots

    def _on_compare_visible(self, visible: bool) -> None:
        if visible:
            _ = self.compare

    def _on_cost_book(self, _book) -> None:
        if self._compare is not None:
            self._compare.update_money()

    def _on_compare_finished(self) -> None:
        self.scenario.set_running(self.controller.running)

    def _comparing(self) -> bool:
        return self._compare is not None and self._compare.running

    def _install_presenter(self) -> None:
        """Presenter mode (F5), its menu entries and Help > Demos."""
        from fabricstudio.ui.presenter.menus import build_presenter_menus
        from fabricstudio.ui.presenter.mode import PresenterMode

        self.presenter = PresenterMode(self.window, self, self.window.settings)
        self.presenter.menu_actions = build_presenter_menus(self.window, self, self.presenter)

    def open_demo(self, name: str | None = None) -> bool:
        """Open a bundled demo in presenter mode (Help > Demos; ``fabricstudio demo``)."""
        from fabricstudio.ui.presenter.menus import open_demo

        return open_demo(self.window, self, self.presenter, name)

    # ------------------------------------------------------------------ building
    def _dock(self, title: str, widget, area) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(f"sim{title.replace(' ', '')}Dock")
        dock.setWidget(_scrollable(widget) if widget is not None else _scrollable_area())
        self.window.add_dock(dock, area)
        return dock

    def _share_right_column(self) -> None:
        """Tab Scenario behind the Inspector and Results behind Analysis, so the right column
        stays readable on a laptop or projector."""
        for host, key in ((self.window.inspector_dock, "scenario"),
                          (self.window.analysis_dock, "results")):
            self.window.tabifyDockWidget(host, self.docks[key])
        self.docks["scenario"].raise_()

    def _build_menu(self) -> QMenu:
        menu = self.window.act.simulation_menu
        c = self.controller
        entries = (
            ("&Open scenario…", None, self.scenario.open_scenario_dialog),
            (None, None, None),
            ("&Run", "Ctrl+R", self.scenario.run_button.click),
            ("&Stop", "Ctrl+Shift+R", c.stop),
            ("&Play / pause", "Ctrl+Space", self.controls.play_button.click),
            ("Step &forward", "Ctrl+Right", lambda: c.step(1)),
            ("Step &back", "Ctrl+Left", lambda: c.step(-1)),
            (None, None, None),
            ("Jump to first &PAUSE", "F6", lambda: c.jump("first_pause")),
            ("Jump to peak &queue", "F7", lambda: c.jump("peak_queue")),
            ("Jump to first &drop", "F8", lambda: c.jump("first_drop")),
            (None, None, None),
            ("&Compare fabrics", "Ctrl+Shift+C", self.scenario.compare_button.click),
            ("Export &moment as PNG…", "Ctrl+Shift+M", self.export_moment_dialog),
            ("Export metrics &CSV…", None, self.export_csv_dialog),
            ("Record &video…", None, self.record_video_dialog),
        )
        self.actions: dict[str, QAction] = {}
        for text, key, slot in entries:
            if text is None:
                menu.addSeparator()
                continue
            action = QAction(text, self.window)
            if key:
                action.setShortcut(QKeySequence(key))
                action.setToolTip(f"{text.replace('&', '').rstrip('…')}  ({key})")
            action.triggered.connect(lambda _checked=False, slot=slot: slot())
            menu.addAction(action)
            self.actions[text.replace("&", "").rstrip("…")] = action
        return menu

    def _connect(self) -> None:
        c = self.controller
        self.scenario.run_requested.connect(self.run)
        self.scenario.stop_requested.connect(self.stop)
        self.scenario.compare_requested.connect(self.run_compare)
        self.scenario.scenario_shown.connect(
            lambda: QTimer.singleShot(0, self, self.fit_scenario_top))  # once laid out
        c.state_changed.connect(self._on_state)
        c.stream_changed.connect(self._on_stream)
        c.frame_shown.connect(self._on_frame)
        c.ticked.connect(self._on_tick)
        c.progress.connect(self._on_progress)
        c.result_ready.connect(self._on_result)
        c.captions_changed.connect(lambda _captions: self.refresh_caption())
        self.window.scene.theme_changed.connect(self._on_theme)
        c.message.connect(lambda text: self.window.statusBar().showMessage(text, 8000))
        self.window.scene.selectionChanged.connect(self._on_selection)

    # ------------------------------------------------------------------ actions
    def run(self, request) -> None:
        """Start a run of ``request`` on a frozen copy of the window's current design."""
        if self._comparing():
            return
        request = self.window.failures.with_marks(request)  # elements marked failed
        self.controller.design = self.window.design
        self.controls.speed.setCurrentIndex(0)
        self.controller.set_speed(None)
        self._bring_forward("charts")  # the run's charts, not a previous comparison
        self.results.show_run(f"Running: {request.label}…", None, None)
        self.controller.start(request)

    def _bring_forward(self, key: str) -> None:
        """Show a bottom dock (hidden until the first run) and put it in front (not while
        presenting: the canvas has the whole screen then)."""
        if self.presenting:
            return
        self.docks[key].show()
        self.docks[key].raise_()

    @property
    def presenting(self) -> bool:
        """True while presenter mode is on."""
        return self.presenter.active

    def stop(self) -> None:
        """Stop the run and any comparison at once."""
        self.controller.stop()
        if self._compare is not None:
            self._compare.stop()

    def run_compare(self, request) -> None:
        """Run the four-fabric comparison (shown in the Compare dock)."""
        if self.controller.running:
            return
        request = self.window.failures.with_marks(request)
        self.scenario.set_running(True)
        self.scenario.stop_button.setEnabled(True)
        self._bring_forward("compare")
        if not self.presenting:  # tall enough for table, explanation and charts: no scrolling
            self.window.resizeDocks([self.docks["compare"]], [COMPARE_HEIGHT],
                                    Qt.Orientation.Vertical)
        self.compare.start(self.window.design, request)
        QTimer.singleShot(0, self, self.fit_scenario_top)  # once the Compare dock took its room

    def fit_scenario_top(self) -> None:
        """Give the Scenario dock the height that shows its buttons and the opened scenario's
        title whole: on a 768-pixel screen, with Compare fabrics open below, its scroll area
        cut the title line through the middle.  The dock keeps its small minimum (it still
        scrolls on a shorter window); the Results dock under it gives up the room (both are
        named: resizing the Scenario dock alone did not move the split)."""
        dock = self.docks["scenario"]
        area = dock.widget()
        if self.presenting or not dock.isVisible() or area.widget() is None:
            return
        self.scenario.layout().activate()
        missing = self.scenario.top_height() - area.viewport().height()
        if missing > 0:
            below = self.docks["results"]
            self.window.resizeDocks([dock, below], [dock.height() + missing,
                                                    max(1, below.height() - missing)],
                                    Qt.Orientation.Vertical)

    def replay(self, record: RecordedRun, at: float | None = None) -> None:
        """Show a recorded run (a row of the comparison) on the canvas, from ``at`` (default:
        its end)."""
        if self.controller.running:
            return
        self.stage.show_canvas()
        request = None
        base = self.compare.request
        for label, technology, dcqcn in COMPARE_VARIANTS:
            if label == record.label and base is not None:
                request = base.with_changes(technology=technology, dcqcn=dcqcn)
        self.controller.load_record(record, request, at)
        self._bring_forward("charts")
        self.window.statusBar().showMessage(f"Replaying {record.label}: press Play", 6000)

    def side_by_side(self, records: list[RecordedRun]) -> None:
        """Put 2 or 4 recorded runs side by side on one timeline in place of the canvas."""
        self.controller.pause()
        self.stage.show_side_by_side(records, self.window.scene.theme)

    def moment_image(self):
        """The canvas at the shown simulated time, with legend and caption."""
        c = self.controller
        t = c.overlay.frame_time
        label = c.request.label if c.request is not None else ""
        caption = moment_caption(t, label) if t is not None else label
        return render_scene_image(self.window.scene, caption, legend=c.stream is not None,
                                  flow=c.stream is not None and c.stream.engine == "flow")

    def export_moment_dialog(self) -> None:
        """Ask for a file name and save the shown moment as PNG."""
        path, _ = QFileDialog.getSaveFileName(self.window, "Export moment", "moment.png",
                                              "PNG images (*.png)")
        if path:
            try:
                save_png(self.moment_image(), path)
            except OSError as exc:
                self.window.statusBar().showMessage(f"Could not write {path}: {exc}", 8000)
                return
            self.window.statusBar().showMessage(f"Saved {path}", 5000)

    def shown_record(self) -> RecordedRun | None:
        """The shown run as a recording (None before any run)."""
        c = self.controller
        if c.stream is None or not len(c.stream) or c.running:
            return None
        label = c.request.label if c.request is not None else "Run"
        return RecordedRun(label.split(",")[0], c.run_design or self.window.design, c.stream,
                           c.result, c.timeline, list(c.captions), c.facts)

    def record_video_dialog(self) -> None:
        """Record the presenter's story (when one is loaded and its runs exist) or the shown
        run as MP4 or GIF, with a progress dialog that can cancel."""
        from fabricstudio.ui.recording_dialog import record_video

        record_video(self)

    def export_csv_dialog(self) -> None:
        """Ask for a file name and write the shown run's metrics as CSV."""
        stream = self.controller.stream
        if stream is None or not len(stream):
            self.window.statusBar().showMessage("No run to export yet", 5000)
            return
        status = export_metrics_dialog(self.window, stream)
        if status:
            self.window.statusBar().showMessage(status, 8000)

    # ------------------------------------------------------------------ reactions
    def _selected_device_ids(self) -> list[str]:
        return self.window.editor.selected_device_ids()

    def _on_selection(self) -> None:
        if self._plots is None:  # the charts pick the selection up when they are built
            return
        links = [item.link.id for item in self.window.scene.selectedItems()
                 if isinstance(item, LinkItem)]
        self._plots.set_selected_links(links)

    def _on_state(self, state: str) -> None:
        running = state in ("starting", "running")
        self.scenario.set_running(running or self._comparing())
        if state in ("stopped", "failed"):
            request = self.controller.request
            self.results.show_run(f"{state.capitalize()}: {request.label if request else ''}",
                                  None, self.controller.stream)
            self.plots.refresh(force=True)

    def _on_theme(self, theme) -> None:
        """Charts, their legends, the comparison and the canvas overlays follow the theme."""
        if self._plots is not None:
            self._plots.set_colours(theme.canvas, theme.text)
        if self._compare is not None:
            self._compare.set_colours(theme.canvas, theme.text)
        self.stage.side_by_side.set_theme(theme)
        for widget in self.overlays.widgets():
            widget.update()

    def _on_stream(self, stream) -> None:
        self._on_theme(self.window.scene.theme)
        if stream is not None or self._plots is not None:
            self.plots.set_stream(stream)
        was_active = self.overlays.active
        self.overlays.set_active(stream is not None,
                                 gpus=self.controller.timeline is not None,
                                 flow=stream is not None and stream.engine == "flow")
        self.scenario.show_engine(stream)
        if stream is not None and not was_active and self._overlays_hide_fabric():
            self.window.view.fit()  # the floating gauge, legend or caption would cover it

    def _overlays_hide_fabric(self) -> bool:
        view = self.window.view
        covers = self.overlays.covered()
        for item in self.window.scene.device_items.values():
            if not item.isVisible():
                continue
            box = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
            if any(cover.intersects(box.toRectF()) for cover in covers):
                return True
        return False

    def _on_frame(self, index: int, t: float) -> None:
        c = self.controller
        self.legend.set_caption(moment_caption(t, c.request.label if c.request else ""))
        self._show_gauge(index)
        self.refresh_caption()
        if not (c.running and c.playing):
            self.plots.refresh()
            self.plots.set_cursor(t)

    def _show_gauge(self, index: int) -> None:
        c = self.controller
        if c.timeline is not None and len(c.timeline):
            self.overlays.gauge.set_data(gauge_data(c.timeline, index, c.result))

    def refresh_caption(self) -> None:
        """Show the story step's caption, or the run's caption of the shown moment."""
        c = self.controller
        t = c.overlay.frame_time
        story = self.overlays.story_caption
        if story:
            self.overlays.set_caption(story, "story")
            return
        caption = caption_at(c.captions, t) if t is not None else None
        self.overlays.set_caption(caption.text if caption else "",
                                  caption.kind if caption else "")

    def _on_tick(self) -> None:
        """While a run plays live: at most one chart per PLOT_REFRESH_S, the next one that has
        not shown the newest frame, so no tick pays for all four."""
        c = self.controller
        now = time.perf_counter()
        if c.running and c.playing and now - self._last_plot_refresh > PLOT_REFRESH_S:
            if self.plots.refresh_next():
                self._last_plot_refresh = now
                self.plots.set_cursor(c.display_time)

    def _on_progress(self, now: float, fraction: float, rate: float) -> None:
        self.window.statusBar().showMessage(
            f"Simulating: t = {format_time(now)} ({100 * fraction:.0f}%) · "
            f"{rate * 1e6:.1f} simulated µs per wall second")

    def _on_result(self, result: Result) -> None:
        c = self.controller
        self.docks["results"].raise_()
        label = c.request.label if c.request else ""
        deadlock = result.totals.deadlock
        if deadlock.detected:
            cycle = deadlock.cycle or []
            text = (f"Deadlock at {format_time(deadlock.at_s or 0.0)}: "
                    f"{' → '.join(deadlock.path or [])} froze (links {', '.join(cycle)}, "
                    "selected on the canvas)")
            self.results.show_run(f"{text} · {label}", result, c.stream)
            self.select_links(cycle)
            self.window.statusBar().showMessage(text, 30000)
        else:
            self.results.show_run(f"Finished: {label}", result, c.stream)
            self.window.statusBar().showMessage(
                f"Finished: {label} · {len(c.stream) if c.stream else 0} frames recorded", 8000)
        self.plots.refresh(force=True)

    def select_links(self, link_ids: list[str]) -> None:
        """Select these links on the canvas (and nothing else) and scroll them into view."""
        scene = self.window.scene
        items = [scene.link_items[i] for i in link_ids if i in scene.link_items]
        scene.clearSelection()
        for item in items:
            item.setSelected(True)
        if items:
            rect = items[0].sceneBoundingRect()
            for item in items[1:]:
                rect = rect.united(item.sceneBoundingRect())
            self.window.view.ensureVisible(rect)

    def set_factory(self, factory: SourceFactory) -> None:
        """Build simulations with ``factory`` from now on (tests, benchmarks, other engines)."""
        self.factory = factory
        self.controller.set_factory(factory)
        if self._compare is not None:
            self._compare.factory = factory

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.window and event.type() == QEvent.Type.Close:
            # the window may still refuse to close (unsaved changes): decide once it has
            QTimer.singleShot(0, self, self._shutdown_if_closed)
        return False

    def _shutdown_if_closed(self) -> None:
        if not self.window.isVisible():
            self.shutdown()

    def shutdown(self) -> None:
        """Stop every thread and timer (the window is closing)."""
        if self._compare is not None:
            self._compare.stop()
        self.controller.shutdown()


def install_simulation_ui(window: MainWindow, factory: SourceFactory | None = None
                          ) -> SimulationUi:
    """The window's simulation view (``window.simulation``, made by MainWindow), building
    later runs with ``factory`` when one is given (tests, benchmarks, other engines)."""
    ui = window.simulation
    if factory is not None:
        ui.set_factory(factory)
    return ui


def _scrollable(widget) -> QScrollArea:
    """``widget`` in a frameless scroll area, so a dock never forces the window taller than
    a laptop or projector screen (1366 x 768); it scrolls instead, and widens when the
    widget's minimum width grows (see :class:`~fabricstudio.ui.fit.FittedScrollArea`)."""
    return FittedScrollArea(widget)


def _scrollable_area() -> QScrollArea:
    """An empty frameless scroll area (a dock's content goes in later)."""
    return FittedScrollArea()
