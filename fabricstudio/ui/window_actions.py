"""The main window's actions (each with a shortcut and tooltip), menus and toolbar (a mixin
of MainWindow; the slots live on the window and its editor)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMenu

from fabricstudio.model import Plane, Technology
from fabricstudio.ui.interop_menu import InteropMenu
from fabricstudio.ui.order_menu import OrderMenu
from fabricstudio.ui.undo_actions import undo_redo_actions


class ActionsAndMenus:
    """Builds ``act_*`` actions, the menu bar (with ``simulation_menu`` and ``panels_menu``)
    and the main toolbar of :class:`~fabricstudio.ui.main_window.MainWindow`."""

    def _action(self, text: str, slot, shortcut=None, tip: str = "",
                checkable: bool = False) -> QAction:
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
        self.act_undo, self.act_redo = undo_redo_actions(self, self.undo_stack)
        self.act_copy = self._action("&Copy", e.copy, std.Copy)
        self.act_cut = self._action("Cu&t", self._cut, std.Cut)
        self.act_paste = self._action("&Paste", e.paste, std.Paste)
        self.act_duplicate = self._action("D&uplicate", e.duplicate, "Ctrl+D")
        self.act_delete = self._action("&Delete", e.delete_selection,
                                       [QKeySequence.StandardKey.Delete, "Backspace"])
        self.act_select_all = self._action("Select &All", e.select_all, std.SelectAll)
        self.act_find = self._action("&Find devices…", self.find_devices, std.Find,
                                     "Select devices by id or name")
        self.align_actions = [
            self._action(label, lambda how=how: e.align(how), key)
            for label, how, key in (("Align &left", "left", "Alt+Left"),
                                    ("Align &right", "right", "Alt+Right"),
                                    ("Align &top", "top", "Alt+Up"),
                                    ("Align &bottom", "bottom", "Alt+Down"),
                                    # not Alt+H / Alt+V: the Help and View menus' keys
                                    ("Centre &horizontally", "hcenter", "Alt+C"),
                                    ("Centre &vertically", "vcenter", "Alt+Shift+C"),
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
        self.act_snap = self._action("Snap to &grid", self._set_snap, "Ctrl+Shift+G",
                                     checkable=True)
        self.act_snap.setChecked(True)
        self.act_colour_speed = self._action("Colour links by &speed",
                                             lambda on: on and self._colour_by("speed"),
                                             "Ctrl+Shift+1", checkable=True)
        self.act_colour_plane = self._action("Colour links by &network",
                                             lambda on: on and self._colour_by("plane"),
                                             "Ctrl+Shift+2", checkable=True)
        colour_group = self.colour_group = QActionGroup(self)
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
        self.interop = InteropMenu(self)
        file_menu.addActions([self.act_new, self.act_open])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        file_menu.addAction(self.interop.act_import)
        file_menu.addSeparator()
        file_menu.addActions([self.act_save, self.act_save_as])
        file_menu.addSeparator()
        file_menu.addActions([self.act_export_png, self.act_export_svg])
        file_menu.addMenu(self.interop.export_menu)
        self.order = OrderMenu(self)
        file_menu.addActions([self.order.act_export_cable_plan, self.order.act_export_proposal])
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        edit = self.edit_menu = bar.addMenu("&Edit")
        edit.addActions([self.act_undo, self.act_redo])
        edit.addSeparator()
        edit.addActions([self.act_cut, self.act_copy, self.act_paste, self.act_duplicate,
                         self.act_delete])
        edit.addSeparator()
        edit.addActions([self.act_select_all, self.act_find])
        align = edit.addMenu("A&lign")
        align.addActions(self.align_actions[:6])
        align.addSeparator()
        align.addActions(self.align_actions[6:])
        edit.addSeparator()
        edit.addActions([self.act_select_tool, self.act_link_tool])
        edit.addSeparator()
        edit.addAction(self.order.act_preferences)
        view = self.view_menu = bar.addMenu("&View")
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
        fabric = self.fabric_menu = bar.addMenu("Fa&bric")
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
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.setIconSize(QSize(18, 18))
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
