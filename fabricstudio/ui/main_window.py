"""The main window: canvas, palette / inspector / analysis docks, menus, toolbar, status bar,
files and export.  Every design change goes through ``undo_stack`` (one QUndoStack)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QPointF, QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QMenu,
    QScrollArea,
    QToolBar,
    QUndoView,
    QWidget,
)

from fabricstudio.model import Design, DesignError, Plane, Technology
from fabricstudio.model.bulk import bulk_build, reclaim_frozen
from fabricstudio.model.commands import SetFabric
from fabricstudio.topology.layout import design_layout, needs_layout
from fabricstudio.ui.autosave import Autosave
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.canvas.view import FabricView
from fabricstudio.ui.canvas_tools import CanvasTools
from fabricstudio.ui.editor import Editor
from fabricstudio.ui.failure_menu import FailureUi
from fabricstudio.ui.fit import FittedScrollArea
from fabricstudio.ui.icons import action_icon, app_icon
from fabricstudio.ui.interop_menu import InteropMenu
from fabricstudio.ui.model_signals import ModelSignals
from fabricstudio.ui.order_menu import OrderMenu
from fabricstudio.ui.panels.inspector import InspectorPanel, design_summary
from fabricstudio.ui.panels.palette import PalettePanel
from fabricstudio.ui.simview.install import SimulationUi
from fabricstudio.ui.theme import THEMES, apply_theme
from fabricstudio.ui.undo import DesignUndoStack
from fabricstudio.ui.window_actions import WindowActions
from fabricstudio.ui.window_dialogs import DesignDialogs
from fabricstudio.ui.window_files import DesignFiles

#: Designs with this many devices or more get their canvas items when the window is first
#: shown (about 8,000 GPUs and up); smaller ones at once.
FILL_CANVAS_AT_SHOW_FROM = 1000
#: After another design replaced the open one, its memory is reclaimed this much later (ms).
RECLAIM_AFTER_MS = 300
#: Narrowest Devices and Inspector docks: with the canvas they fit 910 logical pixels (1366 x
#: 768 at 150 %, ui/fit.py); the palette scrolls its longer entries sideways.
PALETTE_MIN_WIDTH = 170
INSPECTOR_MIN_WIDTH = 270


class MainWindow(QMainWindow):
    """FabricStudio's main window.

    Stable public names for other parts: ``design``, ``scene``, ``view``, ``undo_stack``,
    ``editor``, ``path`` and :meth:`add_dock`, and the collaborators ``files``
    (:class:`DesignFiles`: new/open/save/recent), ``dialogs`` (:class:`DesignDialogs`:
    wizard, fabric settings, layout, export, help), ``act`` (:class:`WindowActions`: every
    action, the menus and the toolbar), ``interop`` (File > Import / Export to), ``order``
    (Preferences, cable plan, proposal; ``costs`` is its cost book), ``simulation`` (the
    simulation docks, toolbar and menu), ``canvas_tools`` (groups, colouring, filters,
    focus, minimap, Connect selection) and ``autosave`` (recovery files).
    """

    def __init__(self, design: Design | None = None, path: str | None = None,
                 settings: QSettings | None = None, recovery_dir: Path | None = None) -> None:
        super().__init__()
        with bulk_build(freeze=True):  # a 32k-GPU design makes ~500k objects here
            self._build(design, path, settings, recovery_dir)

    def _build(self, design: Design | None, path: str | None, settings: QSettings | None,
               recovery_dir: Path | None) -> None:
        self.settings = settings or QSettings()
        self.design = design or Design()
        #: True once the window has closed and let go of the design.
        self.closed = False
        self._theme_applied = False
        self._fitted = False
        self._layout_restored = False  # the user's saved dock layout was applied
        if needs_layout(self.design):
            self.design.move_devices(design_layout(self.design))
        self.setWindowIcon(app_icon())
        self.undo_stack = DesignUndoStack(self.design, self)
        # A large design's canvas is filled when the window is first shown, folded for the
        # view's real size (built before, at a guessed scale, it was folded again at once).
        self.scene = FabricScene(self.design, self,
                                 populate=len(self.design.devices) < FILL_CANVAS_AT_SHOW_FROM)
        self.scene.commit = self._commit
        self.editor = Editor(self.design, self.scene, self.undo_stack, self.show_message)
        self.view = FabricView(self.scene, self.editor, self)
        self.setCentralWidget(self.view)
        self.files = DesignFiles(self, self.design, self.undo_stack, self.settings,
                                 self.show_message, self.view.fit, path)
        self.files.fitting = self.view.fitting_after_reset
        self.dialogs = DesignDialogs(self, self.design, self.editor, self.scene, self.view,
                                     self._commit, self.show_message, self.fit_selection,
                                     self.settings)
        self.model_signals = ModelSignals(self)
        self.docks: dict[str, QDockWidget] = {}
        self._build_docks()
        self.interop = InteropMenu(self)
        self.order = OrderMenu(self)
        #: The cost book in use (Edit > Preferences).
        self.costs = self.order.costs
        self.act = WindowActions(self)
        self.act.build()
        self._build_status_bar()
        self._connect()
        #: What-if failures: marks, right-click actions, the canvas layer.
        self.failures = FailureUi(self)
        self.simulation = SimulationUi(self)
        self.canvas_tools = CanvasTools(self)
        self.autosave = Autosave(self, recovery_dir)
        self.failures.install(self.simulation)
        from fabricstudio.ui.panels.sweep_panel import install_sweep_dock

        #: The Sweep dock (What-if > Sweep…).
        self.sweep = install_sweep_dock(self)
        from fabricstudio.ui.panels.design_compare_panel import install_design_compare_dock

        #: Design A/B: the Compare designs dock (What-if > Compare with design…).
        self.design_compare = install_design_compare_dock(self)
        self.resize(1440, 900)
        self._restore_state()
        self._update_title()
        self._update_counts()

    # ------------------------------------------------------------- public API
    def add_dock(self, dock: QDockWidget,
                 area: Qt.DockWidgetArea = Qt.DockWidgetArea.RightDockWidgetArea) -> None:
        """Add a dock (e.g. simulation plots) and list it in View > Panels."""
        if not dock.objectName():
            dock.setObjectName(f"dock-{dock.windowTitle()}")
        self.addDockWidget(area, dock)
        self.act.panels_menu.addAction(dock.toggleViewAction())
        self.docks[dock.objectName()] = dock

    def add_bottom_tab(self, title: str, name: str, widget: QWidget,
                       behind: QDockWidget | None) -> QDockWidget:
        """A hidden bottom dock tabbed behind ``behind`` (when there is one), its widget in a
        frameless scroll area so a short screen scrolls it instead of squeezing the tabs.  It
        is hidden before it joins the tab group: Qt otherwise leaves a stray tab bar."""
        area = QScrollArea()
        area.setWidget(widget)
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(area)
        self.add_dock(dock, Qt.DockWidgetArea.BottomDockWidgetArea)
        dock.hide()
        if behind is not None:
            self.tabifyDockWidget(behind, dock)
        return dock

    def show_message(self, text: str, timeout_ms: int = 6000) -> None:
        """Show a message in the status bar."""
        self.statusBar().showMessage(text, timeout_ms)

    @property
    def modified(self) -> bool:
        """True when the design has changes not saved."""
        return self.files.modified

    @property
    def path(self) -> str | None:
        """The design's file (None: never saved)."""
        return self.files.path

    # ---------------------------------------------------------------- building
    def _commit(self, command) -> None:
        try:
            self.undo_stack.run(command)
        except DesignError as exc:
            self.show_message(f"Refused: {exc}")
            self.scene._rebuild()

    def _dock(self, key: str, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{key}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        self.docks[dock.objectName()] = dock
        return dock

    def _build_docks(self) -> None:
        from fabricstudio.ui.panels.analysis import AnalysisPanel

        self.palette = PalettePanel()
        self.inspector = InspectorPanel(self.design, self.undo_stack)
        self.analysis = AnalysisPanel(self.design, self)
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        right = Qt.DockWidgetArea.RightDockWidgetArea
        self.palette_dock = self._dock("palette", "Devices", self.palette, left)
        # in scroll areas: a short screen (1366 x 768 at 150 %) scrolls them, see ui/fit.py
        self.inspector_dock = self._dock("inspector", "Inspector",
                                         FittedScrollArea(self.inspector), right)
        self.analysis_dock = self._dock("analysis", "Analysis", FittedScrollArea(self.analysis),
                                        right)
        history = QUndoView(self.undo_stack)
        history.setEmptyLabel("Opened design")
        self.history_dock = self._dock("history", "History", history, right)
        self.tabifyDockWidget(self.analysis_dock, self.history_dock)
        self.analysis_dock.raise_()
        self.palette_dock.setMinimumWidth(PALETTE_MIN_WIDTH)
        self.inspector_dock.setMinimumWidth(INSPECTOR_MIN_WIDTH)
        self._default_dock_widths()
        self.resizeDocks([self.inspector_dock, self.analysis_dock], [380, 420],
                         Qt.Orientation.Vertical)

    def _default_dock_widths(self) -> None:
        """Devices 240 and the right column 330 px wide (less on a small screen, down to
        their minimums): set when the docks are built and again at the first show, since
        making the window smaller takes the width from the docks first."""
        self.resizeDocks([self.palette_dock], [240], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock], [330], Qt.Orientation.Horizontal)

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.counts_label = QLabel()
        self.tech_label = QLabel()
        self.zoom_label = QLabel("100 %")
        self.zoom_label.setMinimumWidth(60)
        for label in (self.counts_label, self.tech_label, self.zoom_label):
            status.addPermanentWidget(label)

    def _connect(self) -> None:
        self.undo_stack.cleanChanged.connect(self._update_title)
        self.undo_stack.indexChanged.connect(self._update_title)
        self.files.path_changed.connect(self._update_title)
        self.files.replaced.connect(self._on_replaced)
        #: Coalesces a burst of design changes into one status-bar/legend refresh.
        self._design_timer = QTimer(self)
        self._design_timer.setSingleShot(True)
        self._design_timer.setInterval(0)
        self._design_timer.timeout.connect(self._after_design_changed)
        self.model_signals.connect(self.design.changed, self._on_design_changed)
        self.model_signals.connect(self.design.fabric_changed, self._update_technology)
        self.model_signals.connect(self.design.name_changed, self._update_title)
        self.scene.selectionChanged.connect(self._on_selection_changed)
        self.view.zoom_changed.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f} %"))
        self.view.message.connect(self.show_message)
        self.view.link_mode_changed.connect(
            lambda on: (self.act.link_tool if on else self.act.select_tool).setChecked(True))
        self.inspector.fabric_settings_requested.connect(self.dialogs.open_fabric_settings)
        self.palette.list.itemActivated.connect(self._place_from_palette)
        self.view.context_menu_requested.connect(self._context_menu)
        self.analysis.select_requested.connect(self._select_and_show)
        self.analysis.plane_toggled.connect(self.set_plane_visible)
        self._update_technology()

    def detach(self) -> None:
        """Disconnect from the design (window closing)."""
        self.undo_stack.cleanChanged.disconnect(self._update_title)
        self.undo_stack.indexChanged.disconnect(self._update_title)
        self.model_signals.disconnect_all()
        self.scene.detach()
        self.inspector.detach()
        self.analysis.shutdown()
        self.sweep.shutdown()
        self.design_compare.shutdown()
        # A closed window's scene is destroyed later; its item removal must not reach
        # selection listeners (ours or a plug-in's) through a half-deleted window.
        self.scene.blockSignals(True)

    # ------------------------------------------------------------ reactions
    def _on_replaced(self) -> None:
        """Another design (new, opened, imported) is on the canvas."""
        self._update_title()
        self.inspector.show_selection([], [])
        # the design it replaced was frozen when large: free it once the new one has painted
        QTimer.singleShot(RECLAIM_AFTER_MS, self, reclaim_frozen)

    def _on_design_changed(self) -> None:
        """Once per burst of changes (a deleted fabric is 100,000 of them): status bar
        counts, legend, empty-canvas hint."""
        self._design_timer.start()

    def _after_design_changed(self) -> None:
        if self.closed:
            return
        self._update_counts()
        if len(self.design.devices) <= 1:
            self.view.viewport().update()  # the empty-canvas hint comes or goes
        self.view.refresh_legend()

    def _on_selection_changed(self) -> None:
        try:
            self.inspector.show_selection(self.editor.selected_device_ids(),
                                          self.editor.selected_link_ids(),
                                          self.scene.selected_group_ids())
        except RuntimeError:
            return  # scene being torn down

    def _update_counts(self) -> None:
        self.counts_label.setText(design_summary(self.design))

    def _update_technology(self) -> None:
        tech = self.design.fabric.technology
        self.tech_label.setText(tech.label + (" · lossless" if tech.is_lossless else " · lossy"))
        self.act.tech_combo.setCurrentIndex(self.act.tech_combo.findData(tech))
        self.act.technologies[tech].setChecked(True)

    def _update_title(self, *_args) -> None:
        name = self.files.display_name()
        star = "*" if self.modified else ""
        self.setWindowTitle(f"{name}{star} - FabricStudio")

    def set_snap(self, on: bool) -> None:
        """Snap moved devices to the grid (or not)."""
        self.scene.snap_to_grid = on

    def colour_links_by(self, mode: str) -> None:
        """Colour links by "speed", "plane" (network), "rail" or "tier"."""
        self.scene.set_colour_mode(mode)
        self.view.refresh_legend()

    def cut_selection(self) -> None:
        """Copy the selection, then delete it."""
        if self.editor.copy():
            self.editor.delete_selection()

    def _select_and_show(self, ids: list) -> None:
        self.editor.select_ids(ids)
        items = [i for i in self.scene.selectedItems() if i.isVisible()]
        if items:
            rect = items[0].sceneBoundingRect()
            for item in items[1:]:
                rect = rect.united(item.sceneBoundingRect())
            self.view.centerOn(rect.center())

    def set_plane_visible(self, plane: Plane, visible: bool) -> None:
        """Show or hide one network on the canvas."""
        self.scene.set_plane_visible(plane, visible)
        self.view.refresh_legend()
        action = self.act.planes.get(plane)
        if action is not None and action.isChecked() != visible:
            action.setChecked(visible)
        self.analysis.set_plane_checked(plane, visible)

    def find_devices(self) -> None:
        """Ask for a text, select the matching devices and zoom to them."""
        from PySide6.QtWidgets import QInputDialog

        text, ok = QInputDialog.getText(self, "Find devices", "Id or name contains:")
        if ok and self.editor.find(text):
            self.fit_selection()

    def fit_selection(self) -> None:
        """Zoom to the selected devices and groups."""
        rect = self.scene.content_rect(selection_only=True)
        if rect.isEmpty():
            self.view.fit()
            return
        self.view.fit(rect)

    def set_technology(self, technology: Technology) -> None:
        """Switch InfiniBand / RoCE / lossy Ethernet (one undo step)."""
        technology = Technology(technology)
        if technology is self.design.fabric.technology:
            return
        fabric = self.design.fabric.model_copy(update={"technology": technology})
        command = SetFabric(fabric)
        command.label = f"Technology: {technology.label}"
        self._commit(command)
        self.show_message(f"Fabric technology: {technology.label}")

    def _theme_icons(self, theme) -> None:
        """Toolbar icons in the theme's text colour."""
        a = self.act
        for action, name in ((a.new, "new"), (a.open, "open"), (a.save, "save"),
                             (a.undo, "undo"), (a.redo, "redo"), (a.select_tool, "select"),
                             (a.link_tool, "connect"), (a.wizard, "wizard"), (a.fit, "fit"),
                             (a.fabric_settings, "settings"), (a.export_png, "export")):
            action.setIcon(action_icon(name, theme.text))

    def set_theme(self, name: str) -> None:
        """Switch between the dark and light themes (remembered)."""
        theme = THEMES[name]
        if self.scene.theme is theme and self._theme_applied:
            return
        self._theme_applied = True
        from PySide6.QtWidgets import QApplication

        apply_theme(QApplication.instance(), theme)
        self.scene.set_theme(theme)
        self._theme_icons(theme)
        self.view.viewport().update()
        self.settings.setValue("theme", name)
        (self.act.dark if name == "dark" else self.act.light).setChecked(True)

    # --------------------------------------------------------- window state
    def _restore_state(self) -> None:
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)  # may come from a bigger screen: fitted below
        self._fit_to_screen()
        state = self.settings.value("windowState")
        if isinstance(state, QByteArray) and self.settings.value("windowDocks") == \
                self._dock_signature():
            self.restoreState(state)  # only a layout saved with the same set of docks
            self._layout_restored = True
        theme = self.settings.value("theme", "dark")
        self.set_theme(theme if theme in THEMES else "dark")

    def _fit_to_screen(self) -> None:
        """Shrink to 92 % of a screen smaller than the window, and move it onto that screen
        if a restored position puts it (partly) off."""
        screen = self.screen()
        if screen is None:
            return
        area = screen.availableGeometry()
        if self.width() > area.width() or self.height() > area.height():
            self.resize(min(self.width(), int(area.width() * 0.92)),
                        min(self.height(), int(area.height() * 0.92)))
        frame = self.frameGeometry()
        if not area.contains(frame):
            x = max(area.left(), min(frame.left(), area.right() + 1 - frame.width()))
            y = max(area.top(), min(frame.top(), area.bottom() + 1 - frame.height()))
            self.move(x, y)

    def _dock_signature(self) -> str:
        """The docks and toolbars present, so a layout saved by another set is not applied."""
        names = [w.objectName() for w in self.findChildren(QDockWidget)]
        names += [w.objectName() for w in self.findChildren(QToolBar)]
        return ",".join(sorted(n for n in names if n))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            if not self._layout_restored:
                self._default_dock_widths()
            self.scene.populate(self.view.predicted_fit_zoom())
            self.view.fit()
            # the design analysis (its snapshot is taken on this thread) waits for the first
            # paint: a large design took longer to build than the analysis' debounce
            self.analysis.schedule()
            QTimer.singleShot(0, self.autosave.offer_recovery)  # after a crash

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.closed:
            event.accept()
            return
        if not self.files.maybe_save():
            event.ignore()
            return
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState())
        self.settings.setValue("windowDocks", self._dock_signature())
        self.settings.sync()  # the process may end without destructors (ui.app.leave)
        self.autosave.finish()  # closed on purpose: no recovery needed
        self.detach()
        self.closed = True
        event.accept()

    def restore_recovered(self, data, source: str | None) -> None:
        """Show a design recovered after a crash: unsaved (so closing asks), named after the
        file it came from."""
        self.files.replace(data, source)
        self.undo_stack.resetClean()
        self._update_title()
        self.view.fit()
        self.show_message("Recovered the unsaved changes: save them to keep them", 12000)

    def drop_point(self) -> QPointF:
        """Scene point at the centre of the view (where keyboard-placed devices go)."""
        return self.view.mapToScene(self.view.viewport().rect().center())

    def _place_from_palette(self, item) -> None:
        """Enter or double-click on a palette entry places it at the centre of the view."""
        from fabricstudio.ui.panels.palette import ENTRY_ROLE

        entry = item.data(ENTRY_ROLE)
        self.editor.place_devices(entry["kind"], entry.get("fields", {}), self.drop_point())

    def _context_menu(self, global_pos) -> None:
        menu = QMenu(self)
        a = self.act
        if self.scene.selectedItems():
            menu.addActions([a.cut, a.copy, a.duplicate, a.delete])
            menu.addSeparator()
            align = menu.addMenu("Align")
            align.addActions(a.align)
            menu.addAction(a.fit_selection)
            failure_actions = self.failures.context_actions()
            if failure_actions:
                menu.addSeparator()
                menu.addActions(failure_actions)
        else:
            menu.addActions([a.paste, a.select_all, a.fit, a.layout])
            if self.failures.marks:
                menu.addAction(self.failures.act_clear)
        self.canvas_tools.extend_context_menu(menu)
        menu.addSeparator()
        menu.addAction(a.link_tool)
        #: The last context menu shown (tests trigger its real actions).
        self.context_menu = menu
        menu.popup(global_pos)
