"""The main window: canvas, palette / inspector / analysis docks, menus, toolbar, status bar,
files and export.  Every design change goes through ``undo_stack`` (one QUndoStack)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QPointF, QSettings, Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu, QToolBar, QUndoView, QWidget

from fabricstudio.model import Design, DesignError, Plane, Technology
from fabricstudio.model.commands import SetFabric
from fabricstudio.topology.layout import design_layout, needs_layout
from fabricstudio.ui.autosave import Autosave
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.canvas.view import FabricView
from fabricstudio.ui.canvas_tools import CanvasTools
from fabricstudio.ui.editor import Editor
from fabricstudio.ui.icons import action_icon, app_icon
from fabricstudio.ui.panels.inspector import InspectorPanel, design_summary
from fabricstudio.ui.panels.palette import PalettePanel
from fabricstudio.ui.simview import install_simulation_ui
from fabricstudio.ui.theme import THEMES, apply_theme
from fabricstudio.ui.undo import DesignUndoStack
from fabricstudio.ui.window_actions import ActionsAndMenus
from fabricstudio.ui.window_dialogs import DialogActions
from fabricstudio.ui.window_files import FileActions


class MainWindow(ActionsAndMenus, FileActions, DialogActions, QMainWindow):
    """FabricStudio's main window.

    Stable public names for other parts: ``design``, ``scene``, ``view``, ``undo_stack``,
    ``editor``, ``path``, ``simulation_menu`` and :meth:`add_dock`.
    """

    def __init__(self, design: Design | None = None, path: str | None = None,
                 settings: QSettings | None = None, recovery_dir: Path | None = None) -> None:
        super().__init__()
        self.settings = settings or QSettings()
        self.design = design or Design()
        self.path = str(path) if path else None
        #: True once the window has closed and let go of the design.
        self.closed = False
        self._theme_applied = False
        if needs_layout(self.design):
            self.design.move_devices(design_layout(self.design))
        self.setWindowIcon(app_icon())
        self.undo_stack = DesignUndoStack(self.design, self)
        self.scene = FabricScene(self.design, self)
        self.scene.commit = self._commit
        self.editor = Editor(self.design, self.scene, self.undo_stack, self.show_message)
        self.view = FabricView(self.scene, self.editor, self)
        self.setCentralWidget(self.view)
        self.docks: dict[str, QDockWidget] = {}
        self._build_docks()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_status_bar()
        self._connect()
        install_simulation_ui(self)
        self.canvas_tools = CanvasTools(self)
        self.autosave = Autosave(self, recovery_dir)
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
        self.panels_menu.addAction(dock.toggleViewAction())
        self.docks[dock.objectName()] = dock

    def show_message(self, text: str, timeout_ms: int = 6000) -> None:
        """Show a message in the status bar."""
        self.statusBar().showMessage(text, timeout_ms)

    @property
    def modified(self) -> bool:
        """True when the design has changes not saved."""
        return not self.undo_stack.isClean()

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
        self.inspector_dock = self._dock("inspector", "Inspector", self.inspector, right)
        self.analysis_dock = self._dock("analysis", "Analysis", self.analysis, right)
        history = QUndoView(self.undo_stack)
        history.setEmptyLabel("Opened design")
        self.history_dock = self._dock("history", "History", history, right)
        self.tabifyDockWidget(self.analysis_dock, self.history_dock)
        self.analysis_dock.raise_()
        self.palette_dock.setMinimumWidth(220)
        self.inspector_dock.setMinimumWidth(300)
        self.resizeDocks([self.palette_dock], [240], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock], [330], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock, self.analysis_dock], [380, 420],
                         Qt.Orientation.Vertical)

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
        self.design.changed.connect(self._on_design_changed)
        self.design.fabric_changed.connect(self._update_technology)
        self.design.name_changed.connect(lambda _n: self._update_title())
        self.scene.selectionChanged.connect(self._on_selection_changed)
        self.view.zoom_changed.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f} %"))
        self.view.message.connect(self.show_message)
        self.view.link_mode_changed.connect(
            lambda on: (self.act_link_tool if on else self.act_select_tool).setChecked(True))
        self.inspector.fabric_settings_requested.connect(self.open_fabric_settings)
        self.palette.list.itemActivated.connect(self._place_from_palette)
        self.view.context_menu_requested.connect(self._context_menu)
        self.analysis.select_requested.connect(self._select_and_show)
        self.analysis.plane_toggled.connect(self.set_plane_visible)
        self._update_technology()
        self._refresh_recent()

    def detach(self) -> None:
        """Disconnect from the design (window closing)."""
        self.undo_stack.cleanChanged.disconnect(self._update_title)
        self.undo_stack.indexChanged.disconnect(self._update_title)
        self.design.changed.disconnect(self._on_design_changed)
        self.design.fabric_changed.disconnect(self._update_technology)
        self.scene.detach()
        self.inspector.detach()
        self.analysis.shutdown()
        # A closed window's scene is destroyed later; its item removal must not reach
        # selection listeners (ours or a plug-in's) through a half-deleted window.
        self.scene.blockSignals(True)

    # ------------------------------------------------------------ reactions
    def _on_design_changed(self) -> None:
        """Once per burst of changes (a deleted fabric is 100,000 of them): status bar
        counts, legend, empty-canvas hint."""
        if not hasattr(self, "_design_timer"):
            from PySide6.QtCore import QTimer

            self._design_timer = QTimer(self)
            self._design_timer.setSingleShot(True)
            self._design_timer.setInterval(0)
            self._design_timer.timeout.connect(self._after_design_changed)
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
        self.tech_combo.setCurrentIndex(self.tech_combo.findData(tech))
        self.tech_actions[tech].setChecked(True)

    def _update_title(self, *_args) -> None:
        name = Path(self.path).name if self.path else self.design.name
        star = "*" if self.modified else ""
        self.setWindowTitle(f"{name}{star} - FabricStudio")

    def _set_snap(self, on: bool) -> None:
        self.scene.snap_to_grid = on

    def _colour_by(self, mode: str) -> None:
        self.scene.set_colour_mode(mode)
        self.view.refresh_legend()

    def _cut(self) -> None:
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
        action = self.plane_actions.get(plane)
        if action is not None and action.isChecked() != visible:
            action.setChecked(visible)
        if hasattr(self, "analysis"):
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
        for action, name in ((self.act_new, "new"), (self.act_open, "open"),
                             (self.act_save, "save"), (self.act_undo, "undo"),
                             (self.act_redo, "redo"), (self.act_select_tool, "select"),
                             (self.act_link_tool, "connect"), (self.act_wizard, "wizard"),
                             (self.act_fit, "fit"), (self.act_fabric_settings, "settings"),
                             (self.act_export_png, "export")):
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
        (self.act_dark if name == "dark" else self.act_light).setChecked(True)

    # --------------------------------------------------------- window state
    def _restore_state(self) -> None:
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self._fit_to_screen()
        state = self.settings.value("windowState")
        if isinstance(state, QByteArray) and self.settings.value("windowDocks") == \
                self._dock_signature():
            self.restoreState(state)  # only a layout saved with the same set of docks
        theme = self.settings.value("theme", "dark")
        self.set_theme(theme if theme in THEMES else "dark")

    def _fit_to_screen(self) -> None:
        """Shrink to 92 % of a screen smaller than the window."""
        screen = self.screen()
        width, height = self.width(), self.height()
        if screen is not None:
            area = screen.availableGeometry()
            width = min(width, int(area.width() * 0.92))
            height = min(height, int(area.height() * 0.92))
        self.resize(width, height)

    def _dock_signature(self) -> str:
        """The docks and toolbars present, so a layout saved by another set is not applied."""
        names = [w.objectName() for w in self.findChildren(QDockWidget)]
        names += [w.objectName() for w in self.findChildren(QToolBar)]
        return ",".join(sorted(n for n in names if n))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not getattr(self, "_fitted", False):
            self._fitted = True
            self.view.fit()
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, self.autosave.offer_recovery)  # after a crash

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.closed:
            event.accept()
            return
        if not self.maybe_save():
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
        self._replace_design(data, source)
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
        if self.scene.selectedItems():
            menu.addActions([self.act_cut, self.act_copy, self.act_duplicate, self.act_delete])
            menu.addSeparator()
            align = menu.addMenu("Align")
            align.addActions(self.align_actions)
            menu.addAction(self.act_fit_selection)
        else:
            menu.addActions([self.act_paste, self.act_select_all, self.act_fit, self.act_layout])
        self.canvas_tools.extend_context_menu(menu)
        menu.addSeparator()
        menu.addAction(self.act_link_tool)
        menu.popup(global_pos)
