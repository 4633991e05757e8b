"""The main window: canvas, palette / inspector / analysis docks, menus, toolbar, status bar,
files and export.  Every design change goes through ``undo_stack`` (one QUndoStack)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QPointF, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QComboBox, QDockWidget, QFileDialog, QLabel, QMainWindow, QMenu,
                               QMessageBox, QWidget)

from fabricstudio.formats import DesignFileError, load_design, save_design
from fabricstudio.model import Design, DesignData, DesignError, Plane, Technology
from fabricstudio.model.commands import ReplaceContents, SetFabric
from fabricstudio.topology.layout import auto_layout, needs_layout
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.canvas.view import FabricView
from fabricstudio.ui.dialogs.fabric_settings import FabricSettingsDialog
from fabricstudio.ui.editor import Editor
from fabricstudio.ui.icons import app_icon
from fabricstudio.ui.panels.inspector import InspectorPanel, design_summary
from fabricstudio.ui.panels.palette import PalettePanel
from fabricstudio.ui.theme import THEMES, apply_theme
from fabricstudio.ui.simview import install_simulation_ui
from fabricstudio.ui.undo import DesignUndoStack

MAX_RECENT = 8
FILE_FILTER = "FabricStudio designs (*.json);;All files (*)"


class MainWindow(QMainWindow):
    """FabricStudio's main window.

    Stable public names for other parts: ``design``, ``scene``, ``view``, ``undo_stack``,
    ``editor``, ``path``, ``simulation_menu`` and :meth:`add_dock`.
    """

    def __init__(self, design: Design | None = None, path: str | None = None,
                 settings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or QSettings()
        self.design = design or Design()
        self.path = str(path) if path else None
        #: True once the window has closed and let go of the design.
        self.closed = False
        self._theme_applied = False
        if needs_layout(self.design):
            self.design.move_devices(auto_layout(list(self.design.devices.values())))
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
        self.resize(1440, 900)
        self._restore_state()
        self._update_title()
        self._update_counts()

    # ------------------------------------------------------------- public API
    def add_dock(self, dock: QDockWidget, area: Qt.DockWidgetArea = Qt.DockWidgetArea.RightDockWidgetArea) -> None:
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
        self.palette_dock.setMinimumWidth(220)
        self.inspector_dock.setMinimumWidth(300)
        self.resizeDocks([self.palette_dock], [240], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock], [330], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock, self.analysis_dock], [380, 420],
                         Qt.Orientation.Vertical)

    def _action(self, text: str, slot, shortcut=None, tip: str = "", checkable: bool = False) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                action.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        if tip or action.shortcut():
            shown = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip or text.replace('&', '').rstrip('.…')}"
                              + (f"  ({shown})" if shown else ""))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if checkable:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda _=False: slot())
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        std = QKeySequence.StandardKey
        e = self.editor
        self.act_new = self._action("&New", self.file_new, std.New)
        self.act_open = self._action("&Open…", self.file_open, std.Open)
        self.act_save = self._action("&Save", self.file_save, std.Save)
        self.act_save_as = self._action("Save &As…", self.file_save_as, std.SaveAs)
        self.act_export_png = self._action("Export &PNG…", lambda: self.export_dialog("png"),
                                           "Ctrl+E")
        self.act_export_svg = self._action("Export S&VG…", lambda: self.export_dialog("svg"),
                                           "Ctrl+Shift+E")
        self.act_quit = self._action("&Quit", self.close, std.Quit)
        self.act_undo = self.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcut(QKeySequence(std.Undo))
        self.act_redo = self.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence(std.Redo)])
        self.act_copy = self._action("&Copy", e.copy, std.Copy)
        self.act_cut = self._action("Cu&t", self._cut, std.Cut)
        self.act_paste = self._action("&Paste", e.paste, std.Paste)
        self.act_duplicate = self._action("D&uplicate", e.duplicate, "Ctrl+D")
        self.act_delete = self._action("&Delete", e.delete_selection,
                                       [QKeySequence.StandardKey.Delete, "Backspace"])
        self.act_select_all = self._action("Select &All", e.select_all, std.SelectAll)
        self.align_actions = [
            self._action(label, lambda how=how: e.align(how), key)
            for label, how, key in (("Align &left", "left", "Alt+Left"),
                                    ("Align &right", "right", "Alt+Right"),
                                    ("Align &top", "top", "Alt+Up"),
                                    ("Align &bottom", "bottom", "Alt+Down"),
                                    ("Centre &horizontally", "hcenter", "Alt+H"),
                                    ("Centre &vertically", "vcenter", "Alt+V"),
                                    ("Distribute h&orizontally", "hspread", "Alt+Shift+H"),
                                    ("Distribute v&ertically", "vspread", "Alt+Shift+V"))]
        self.act_select_tool = self._action("Select", lambda on: None, "V",
                                            "Select and move devices", checkable=True)
        self.act_link_tool = self._action("Connect", self.view.set_link_mode, "C",
                                          "Draw links: drag from a device to another",
                                          checkable=True)
        tools = QActionGroup(self)
        tools.addAction(self.act_select_tool)
        tools.addAction(self.act_link_tool)
        self.act_select_tool.setChecked(True)
        self.act_fit = self._action("&Fit to view", self.view.fit, ["F", "Ctrl+0"])
        self.act_fit_selection = self._action("Fit &selection", self.fit_selection, "Shift+F")
        self.act_zoom_in = self._action("Zoom &in", lambda: self.view.zoom_by(1.25),
                                        [std.ZoomIn, "Ctrl+="])
        self.act_zoom_out = self._action("Zoom &out", lambda: self.view.zoom_by(0.8), std.ZoomOut)
        self.act_zoom_100 = self._action("&Actual size", lambda: self.view.set_zoom(1.0), "Ctrl+1")
        self.act_legend = self._action("&Legend", self.view.set_legend_visible, "Ctrl+L",
                                       checkable=True)
        self.act_legend.setChecked(True)
        self.act_snap = self._action("Snap to &grid", self._set_snap, "Ctrl+G", checkable=True)
        self.act_snap.setChecked(True)
        self.act_colour_speed = self._action("Colour links by &speed",
                                             lambda on: on and self._colour_by("speed"),
                                             "Ctrl+Shift+1", checkable=True)
        self.act_colour_plane = self._action("Colour links by &network",
                                             lambda on: on and self._colour_by("plane"),
                                             "Ctrl+Shift+2", checkable=True)
        colour_group = QActionGroup(self)
        colour_group.addAction(self.act_colour_speed)
        colour_group.addAction(self.act_colour_plane)
        self.act_colour_speed.setChecked(True)
        self.plane_actions = {}
        for i, plane in enumerate(Plane, start=1):
            act = self._action(f"{plane.value.capitalize()} network",
                               lambda on, p=plane: self.set_plane_visible(p, on), f"Alt+{i}",
                               checkable=True)
            self.plane_actions[plane] = act
            act.setChecked(True)
        self.act_dark = self._action("&Dark theme", lambda on: on and self.set_theme("dark"),
                                     checkable=True)
        self.act_light = self._action("L&ight theme", lambda on: on and self.set_theme("light"),
                                      checkable=True)
        theme_group = QActionGroup(self)
        theme_group.addAction(self.act_dark)
        theme_group.addAction(self.act_light)
        self.act_wizard = self._action("Fabric &wizard…", self.open_wizard, "Ctrl+Shift+N",
                                       "Generate a leaf-spine, fat-tree or rail-optimised fabric")
        self.act_fabric_settings = self._action("Fabric &settings…", self.open_fabric_settings,
                                                "Ctrl+,", "PFC, ECN, DCQCN and credit parameters")
        self.act_layout = self._action("&Auto layout", self.auto_layout, "Ctrl+Shift+L",
                                       "Arrange devices in role-sorted rows")
        self.act_shortcuts = self._action("&Keyboard shortcuts", self.show_shortcuts, "F1")
        self.act_about = self._action("&About FabricStudio", self.show_about)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.act_new, self.act_open])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        file_menu.addSeparator()
        file_menu.addActions([self.act_save, self.act_save_as])
        file_menu.addSeparator()
        file_menu.addActions([self.act_export_png, self.act_export_svg])
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        edit = bar.addMenu("&Edit")
        edit.addActions([self.act_undo, self.act_redo])
        edit.addSeparator()
        edit.addActions([self.act_cut, self.act_copy, self.act_paste, self.act_duplicate,
                         self.act_delete])
        edit.addSeparator()
        edit.addAction(self.act_select_all)
        align = edit.addMenu("A&lign")
        align.addActions(self.align_actions[:6])
        align.addSeparator()
        align.addActions(self.align_actions[6:])
        edit.addSeparator()
        edit.addActions([self.act_select_tool, self.act_link_tool])
        view = bar.addMenu("&View")
        view.addActions([self.act_fit, self.act_fit_selection, self.act_zoom_in,
                         self.act_zoom_out, self.act_zoom_100])
        view.addSeparator()
        networks = view.addMenu("&Networks")
        networks.addActions(list(self.plane_actions.values()))
        view.addActions([self.act_colour_speed, self.act_colour_plane])
        view.addSeparator()
        view.addActions([self.act_legend, self.act_snap])
        view.addSeparator()
        view.addActions([self.act_dark, self.act_light])
        view.addSeparator()
        self.panels_menu = view.addMenu("&Panels")
        for dock in self.docks.values():
            self.panels_menu.addAction(dock.toggleViewAction())
        fabric = bar.addMenu("Fa&bric")
        fabric.addActions([self.act_wizard, self.act_fabric_settings, self.act_layout])
        tech = fabric.addMenu("&Technology")
        self.tech_actions = {}
        group = QActionGroup(self)
        for t in Technology:
            act = QAction(t.label, self, checkable=True)
            act.triggered.connect(lambda _=False, tt=t: self.set_technology(tt))
            group.addAction(act)
            tech.addAction(act)
            self.tech_actions[t] = act
        self.simulation_menu: QMenu = bar.addMenu("&Simulation")
        help_menu = bar.addMenu("&Help")
        help_menu.addActions([self.act_shortcuts, self.act_about])

    def _build_toolbar(self) -> None:
        bar = self.addToolBar("Main")
        bar.setObjectName("toolbar-main")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        bar.addActions([self.act_new, self.act_open, self.act_save])
        bar.addSeparator()
        bar.addActions([self.act_undo, self.act_redo])
        bar.addSeparator()
        bar.addActions([self.act_select_tool, self.act_link_tool])
        bar.addSeparator()
        bar.addActions([self.act_wizard, self.act_fit])
        bar.addSeparator()
        bar.addWidget(QLabel(" Technology "))
        self.tech_combo = QComboBox()
        for t in Technology:
            self.tech_combo.addItem(t.label, t)
        self.tech_combo.setToolTip("Fabric technology (Fabric > Technology)")
        self.tech_combo.activated.connect(
            lambda i: self.set_technology(self.tech_combo.itemData(i)))
        bar.addWidget(self.tech_combo)
        bar.addAction(self.act_fabric_settings)
        bar.addSeparator()
        bar.addActions([self.act_export_png])
        self.toolbar = bar

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.counts_label = QLabel()
        self.tech_label = QLabel()
        self.zoom_label = QLabel("100 %")
        self.zoom_label.setMinimumWidth(60)
        for label in (self.counts_label, self.tech_label, self.zoom_label):
            status.addPermanentWidget(label)

    def _connect(self) -> None:
        self.undo_stack.cleanChanged.connect(lambda _clean: self._update_title())
        self.undo_stack.indexChanged.connect(lambda _i: self._update_title())
        self.design.changed.connect(self._on_design_changed)
        self.design.fabric_changed.connect(self._update_technology)
        self.design.name_changed.connect(lambda _n: self._update_title())
        self.scene.selectionChanged.connect(self._on_selection_changed)
        self.view.zoom_changed.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f} %"))
        self.view.message.connect(self.show_message)
        self.view.link_mode_changed.connect(
            lambda on: (self.act_link_tool if on else self.act_select_tool).setChecked(True))
        self.inspector.fabric_settings_requested.connect(self.open_fabric_settings)
        self.analysis.select_requested.connect(self._select_and_show)
        self.analysis.plane_toggled.connect(self.set_plane_visible)
        self._update_technology()
        self._refresh_recent()

    def detach(self) -> None:
        """Disconnect from the design (window closing)."""
        self.design.changed.disconnect(self._on_design_changed)
        self.design.fabric_changed.disconnect(self._update_technology)
        self.scene.detach()
        self.inspector.detach()
        self.analysis.shutdown()

    # ------------------------------------------------------------ reactions
    def _on_design_changed(self) -> None:
        self._update_counts()
        self.view.legend.refresh()

    def _on_selection_changed(self) -> None:
        try:
            self.inspector.show_selection(self.editor.selected_device_ids(),
                                          self.editor.selected_link_ids())
        except RuntimeError:
            return  # scene being torn down

    def _update_counts(self) -> None:
        self.counts_label.setText(design_summary(self.design))

    def _update_technology(self) -> None:
        tech = self.design.fabric.technology
        self.tech_label.setText(tech.label + (" · lossless" if tech.is_lossless else " · lossy"))
        self.tech_combo.setCurrentIndex(self.tech_combo.findData(tech))
        self.tech_actions[tech].setChecked(True)

    def _update_title(self) -> None:
        name = Path(self.path).name if self.path else self.design.name
        star = "*" if self.modified else ""
        self.setWindowTitle(f"{name}{star} - FabricStudio")

    def _set_snap(self, on: bool) -> None:
        self.scene.snap_to_grid = on

    def _colour_by(self, mode: str) -> None:
        self.scene.set_colour_mode(mode)
        self.view.legend.refresh()

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
        action = self.plane_actions.get(plane)
        if action is not None and action.isChecked() != visible:
            action.setChecked(visible)
        if hasattr(self, "analysis"):
            self.analysis.set_plane_checked(plane, visible)

    def fit_selection(self) -> None:
        """Zoom to the selected devices."""
        items = [i for i in self.scene.selectedItems() if hasattr(i, "device_id")]
        if not items:
            self.view.fit()
            return
        rect = items[0].sceneBoundingRect()
        for item in items[1:]:
            rect = rect.united(item.sceneBoundingRect())
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

    def set_theme(self, name: str) -> None:
        """Switch between the dark and light themes (remembered)."""
        theme = THEMES[name]
        if self.scene.theme is theme and self._theme_applied:
            return
        self._theme_applied = True
        from PySide6.QtWidgets import QApplication

        apply_theme(QApplication.instance(), theme)
        self.scene.set_theme(theme)
        self.view.legend.update()
        self.settings.setValue("theme", name)
        (self.act_dark if name == "dark" else self.act_light).setChecked(True)

    # ------------------------------------------------------------- dialogs
    def open_wizard(self) -> None:
        """Generate a fabric; the build replaces the canvas as one undo step."""
        from fabricstudio.ui.dialogs.wizard import FabricWizard

        wizard = FabricWizard(self.design.fabric.technology, self)
        if wizard.exec() and wizard.build is not None:
            self.apply_build(wizard.build)

    def apply_build(self, build) -> None:
        """Put a FabricBuild on the canvas (one undo step) and fit it."""
        data = build.to_data()
        self._commit(ReplaceContents(data, label=f"Build {build.name}"))
        self.view.fit()
        self.show_message(f"Built {build.name}: {design_summary(self.design)}")

    def open_fabric_settings(self) -> None:
        """Edit PFC/ECN/DCQCN/credit parameters (one undo step)."""
        dialog = FabricSettingsDialog(self.design.fabric, self)
        if dialog.exec() and dialog.result_settings is not None:
            if dialog.result_settings != self.design.fabric:
                self._commit(SetFabric(dialog.result_settings))

    def auto_layout(self) -> None:
        """Arrange all devices in role-sorted rows (one undo step)."""
        from fabricstudio.model.commands import MoveDevices

        positions = auto_layout(list(self.design.devices.values()))
        if positions:
            command = MoveDevices(positions)
            command.label = "Auto layout"
            self._commit(command)
            self.view.fit()

    def show_shortcuts(self) -> None:
        """List every action with its shortcut."""
        rows = []
        for action in self.actions():
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText)
                             for k in action.shortcuts())
            if keys:
                rows.append(f"<tr><td>{action.text().replace('&', '')}</td>"
                            f"<td><b>{keys}</b></td></tr>")
        rows += ["<tr><td>Zoom</td><td><b>Mouse wheel (under the cursor)</b></td></tr>",
                 "<tr><td>Pan</td><td><b>Middle drag, or Space + drag</b></td></tr>",
                 "<tr><td>Draw a link</td><td><b>Drag from a device's blue handle, or Connect "
                 "tool</b></td></tr>",
                 "<tr><td>Cancel</td><td><b>Esc</b></td></tr>",
                 "<tr><td>Place several</td><td><b>Shift + drop from the palette</b></td></tr>"]
        QMessageBox.information(self, "Keyboard shortcuts",
                                "<table cellspacing='6'>" + "".join(rows) + "</table>")

    def show_about(self) -> None:
        """About box."""
        from fabricstudio import __version__

        QMessageBox.about(self, "About FabricStudio",
                          f"<h3>FabricStudio {__version__}</h3><p>Design, analyse and simulate "
                          "AI data-centre fabrics: InfiniBand, RoCE and lossy Ethernet.</p>")

    def export_dialog(self, fmt: str) -> None:
        """Ask for options and a file name, then export PNG or SVG."""
        from fabricstudio.ui.dialogs.export_dialog import ExportDialog

        dialog = ExportDialog(self.scene, fmt, self)
        dialog.exec()

    # ---------------------------------------------------------------- files
    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        if not self.modified:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes",
            f"Save the changes to “{self._display_name()}” before continuing?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.file_save()
        return answer == QMessageBox.StandardButton.Discard

    def _display_name(self) -> str:
        return Path(self.path).name if self.path else self.design.name

    def file_new(self) -> None:
        """Start an empty design (asks about unsaved changes first)."""
        if not self.maybe_save():
            return
        self._replace_design(DesignData(fabric=self.design.fabric.model_copy()), None)

    def file_open(self, path: str | None = None) -> bool:
        """Open a design; a file that fails to load keeps the current design."""
        if not self.maybe_save():
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open design", self._folder(), FILE_FILTER)
            if not path:
                return False
        try:
            loaded = load_design(path)
        except DesignFileError as exc:
            QMessageBox.critical(self, "Cannot open design", str(exc))
            self.show_message(f"Not opened: {exc}")
            return False
        if needs_layout(loaded):
            loaded.move_devices(auto_layout(list(loaded.devices.values())))
        self._replace_design(loaded.to_data(), path)
        self._add_recent(path)
        self.view.fit()
        return True

    def _replace_design(self, data: DesignData, path: str | None) -> None:
        self.design.load_data(data)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.path = str(path) if path else None
        self._update_title()
        self.inspector.show_selection([], [])

    def file_save(self) -> bool:
        """Save to the current file (asks for one if there is none)."""
        if not self.path:
            return self.file_save_as()
        return self._save_to(self.path)

    def file_save_as(self) -> bool:
        """Save under a new name."""
        suggestion = self.path or str(Path(self._folder()) / f"{self.design.name}.json")
        path, _ = QFileDialog.getSaveFileName(self, "Save design", suggestion, FILE_FILTER)
        if not path:
            return False
        if not Path(path).suffix:
            path += ".json"
        return self._save_to(path)

    def _save_to(self, path: str) -> bool:
        try:
            save_design(self.design, path)
        except (DesignFileError, OSError) as exc:
            QMessageBox.critical(self, "Cannot save design", str(exc))
            return False
        self.path = str(path)
        self.undo_stack.setClean()
        self._add_recent(path)
        self._update_title()
        self.show_message(f"Saved {path}")
        return True

    def _folder(self) -> str:
        return str(Path(self.path).parent) if self.path else str(Path.home())

    def recent_files(self) -> list[str]:
        """Recently opened or saved files, newest first."""
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: str) -> None:
        path = str(Path(path).resolve())
        files = [path] + [f for f in self.recent_files() if f != path]
        self.settings.setValue("recentFiles", files[:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, path in enumerate(files, start=1):
            act = self.recent_menu.addAction(f"&{i} {Path(path).name}")
            act.setToolTip(path)
            act.triggered.connect(lambda _=False, p=path: self.file_open(p))
        self.recent_menu.setEnabled(bool(files))

    # --------------------------------------------------------- window state
    def _restore_state(self) -> None:
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("windowState")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        theme = self.settings.value("theme", "dark")
        self.set_theme(theme if theme in THEMES else "dark")

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not getattr(self, "_fitted", False):
            self._fitted = True
            self.view.fit()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.closed:
            event.accept()
            return
        if not self.maybe_save():
            event.ignore()
            return
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("windowState", self.saveState())
        self.detach()
        self.closed = True
        event.accept()

    def drop_point(self) -> QPointF:
        """Scene point at the centre of the view (where keyboard-placed devices go)."""
        return self.view.mapToScene(self.view.viewport().rect().center())
