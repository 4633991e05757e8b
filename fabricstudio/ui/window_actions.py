"""The main window's actions (each with a shortcut and tooltip), menus and toolbar.

:class:`WindowActions` builds them for a :class:`~fabricstudio.ui.main_window.MainWindow`
(``window.act``): ``window.act.save``, ``window.act.link_tool``, ``window.act.planes[plane]``,
``window.act.technologies[tech]``, ``window.act.simulation_menu`` ...  The slots are the
window's collaborators' methods (``window.files``, ``window.dialogs``, ``window.editor``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMenu, QToolBar

from fabricstudio.model import Plane, Technology
from fabricstudio.ui.undo_actions import undo_redo_actions

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.ui.main_window import MainWindow


class WindowActions:
    """The actions, menus and main toolbar of one main window."""

    def __init__(self, window: MainWindow) -> None:
        self._w = window
        self.planes: dict[Plane, QAction] = {}
        self.technologies: dict[Technology, QAction] = {}

    def build(self) -> None:
        """Make the actions, the menu bar and the toolbar (once ``window.act`` is this object:
        checking an action at build time already runs its slot)."""
        self._build_actions(self._w)
        self._build_menus(self._w)
        self._build_toolbar(self._w)

    def _action(self, text: str, slot: Callable[..., Any], shortcut: Any = None, tip: str = "",
                checkable: bool = False) -> QAction:
        action = QAction(text, self._w)
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
        self._w.addAction(action)
        return action

    def _build_actions(self, w: MainWindow) -> None:
        std = QKeySequence.StandardKey
        e = w.editor
        self.new = self._action("&New", w.files.new, std.New)
        self.open = self._action("&Open…", w.files.open, std.Open)
        self.save = self._action("&Save", w.files.save, std.Save)
        self.save_as = self._action("Save &As…", w.files.save_as, std.SaveAs)
        self.export_png = self._action("Export &PNG…", lambda: w.dialogs.export_picture("png"),
                                           "Ctrl+E")
        self.export_svg = self._action("Export S&VG…", lambda: w.dialogs.export_picture("svg"),
                                           "Ctrl+Shift+E")
        self.quit = self._action("&Quit", w.close, std.Quit)
        # Fixed labels (the toolbar never shifts); the step's name is in the tooltip.
        self.undo, self.redo = undo_redo_actions(w, w.undo_stack)
        self.copy = self._action("&Copy", e.copy, std.Copy)
        self.cut = self._action("Cu&t", w.cut_selection, std.Cut)
        self.paste = self._action("&Paste", e.paste, std.Paste)
        self.duplicate = self._action("D&uplicate", e.duplicate, "Ctrl+D")
        self.delete = self._action("&Delete", e.delete_selection,
                                       [QKeySequence.StandardKey.Delete, "Backspace"])
        self.select_all = self._action("Select &All", e.select_all, std.SelectAll)
        self.find = self._action("&Find devices…", w.find_devices, std.Find,
                                     "Select devices by id or name")
        self.align = [
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
        self.select_tool = self._action("Select", lambda on: None, "V",
                                            "Select and move devices", checkable=True)
        self.link_tool = self._action("Connect", w.view.set_link_mode, "C",
                                          "Draw links: drag from a device to another",
                                          checkable=True)
        tools = QActionGroup(w)
        tools.addAction(self.select_tool)
        tools.addAction(self.link_tool)
        self.select_tool.setChecked(True)
        self.fit = self._action("&Fit to view", w.view.fit, ["F", "Ctrl+0"])
        self.fit_selection = self._action("Fit &selection", w.fit_selection, "Shift+F")
        self.zoom_in = self._action("Zoom &in", lambda: w.view.zoom_step(1.25),
                                        [std.ZoomIn, "Ctrl+="])
        self.zoom_out = self._action("Zoom &out", lambda: w.view.zoom_step(0.8), std.ZoomOut)
        self.zoom_100 = self._action("&Actual size", lambda: w.view.set_zoom(1.0), "Ctrl+1")
        self.legend = self._action("&Legend", w.view.set_legend_visible, "Ctrl+L",
                                       checkable=True)
        self.legend.setChecked(True)
        self.snap = self._action("Snap to &grid", w.set_snap, "Ctrl+Shift+G", checkable=True)
        self.snap.setChecked(True)
        self.colour_speed = self._action("Colour links by &speed",
                                             lambda on: on and w.colour_links_by("speed"),
                                             "Ctrl+Shift+1", checkable=True)
        self.colour_plane = self._action("Colour links by &network",
                                             lambda on: on and w.colour_links_by("plane"),
                                             "Ctrl+Shift+2", checkable=True)
        colour_group = self.colour_group = QActionGroup(w)
        colour_group.addAction(self.colour_speed)
        colour_group.addAction(self.colour_plane)
        self.colour_speed.setChecked(True)
        for i, plane in enumerate(Plane, start=1):
            act = self._action(f"{plane.value.capitalize()} network",
                               lambda on, p=plane: w.set_plane_visible(p, on), f"Alt+{i}",
                               checkable=True)
            self.planes[plane] = act
            act.setChecked(True)
        self.dark = self._action("&Dark theme", lambda on: on and w.set_theme("dark"),
                                     checkable=True)
        self.light = self._action("L&ight theme", lambda on: on and w.set_theme("light"),
                                      checkable=True)
        theme_group = QActionGroup(w)
        theme_group.addAction(self.dark)
        theme_group.addAction(self.light)
        self.wizard = self._action("Fabric &wizard…", w.dialogs.open_wizard, "Ctrl+Shift+N",
                                       "Generate a leaf-spine, fat-tree or rail-optimised fabric")
        self.fabric_settings = self._action("Fabric &settings…", w.dialogs.open_fabric_settings,
                                                "Ctrl+,", "PFC, ECN, DCQCN and credit parameters")
        self.layout = self._action("&Auto layout", w.dialogs.auto_layout, "Ctrl+Shift+L",
                                       "Arrange devices in role-sorted rows")
        self._build_whatif_actions(w)
        self.shortcuts = self._action("&Keyboard shortcuts", w.dialogs.show_shortcuts, "F1")
        self.about = self._action("&About FabricStudio", w.dialogs.show_about)

    def _build_whatif_actions(self, w: MainWindow) -> None:
        """What-if (docs/failures.md, docs/compare.md, docs/sweeps.md).  Their collaborators
        (``w.failures``, ``w.design_compare``, ``w.sweep``) are made after the actions: the
        slots look them up when triggered."""
        self.mark_failed = self._action(
            "Mark &failed (what-if)", lambda: w.failures.mark_selection(),
            tip="Analyse and run the fabric without the selected links or devices "
                "(not saved with the design)")
        self.mark_repaired = self._action("Mark &repaired", lambda: w.failures.repair_selection(),
                                          tip="The selected links or devices work again")
        self.clear_failures = self._action("&Clear all failures",
                                           lambda: w.failures.marks.clear(),
                                           tip="Every element works again")
        self.compare_designs = self._action(
            "Compare with &design…", lambda: w.design_compare.choose_and_run(),
            tip="Run the Scenario panel's scenario on this design (A) and on another design "
                "file (B): a table of B - A deltas and a side-by-side replay")
        self.show_sweep = self._action(
            "S&weep…", lambda: w.sweep.show_dock(),
            tip="Run a parameter sweep and see its Pareto front (docs/sweeps.md)")

    def _build_menus(self, w: MainWindow) -> None:
        bar = w.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.new, self.open])
        file_menu.addMenu(w.files.recent_menu)
        file_menu.addAction(w.interop.act_import)
        file_menu.addSeparator()
        file_menu.addActions([self.save, self.save_as])
        file_menu.addSeparator()
        file_menu.addActions([self.export_png, self.export_svg])
        file_menu.addMenu(w.interop.export_menu)
        file_menu.addActions([w.order.act_export_cable_plan, w.order.act_export_proposal])
        file_menu.addSeparator()
        file_menu.addAction(self.quit)
        edit = self.edit_menu = bar.addMenu("&Edit")
        edit.addActions([self.undo, self.redo])
        edit.addSeparator()
        edit.addActions([self.cut, self.copy, self.paste, self.duplicate,
                         self.delete])
        edit.addSeparator()
        edit.addActions([self.select_all, self.find])
        align = edit.addMenu("A&lign")
        align.addActions(self.align[:6])
        align.addSeparator()
        align.addActions(self.align[6:])
        edit.addSeparator()
        edit.addActions([self.select_tool, self.link_tool])
        edit.addSeparator()
        edit.addAction(w.order.act_preferences)
        view = self.view_menu = bar.addMenu("&View")
        view.addActions([self.fit, self.fit_selection, self.zoom_in,
                         self.zoom_out, self.zoom_100])
        view.addSeparator()
        networks = view.addMenu("&Networks")
        networks.addActions(list(self.planes.values()))
        view.addActions([self.colour_speed, self.colour_plane])
        view.addSeparator()
        view.addActions([self.legend, self.snap])
        view.addSeparator()
        view.addActions([self.dark, self.light])
        view.addSeparator()
        self.panels_menu = view.addMenu("&Panels")
        for dock in w.docks.values():
            self.panels_menu.addAction(dock.toggleViewAction())
        fabric = bar.addMenu("Fa&bric")
        fabric.addActions([self.wizard, self.fabric_settings, self.layout])
        tech = fabric.addMenu("&Technology")
        group = QActionGroup(w)
        for t in Technology:
            act = QAction(t.label, w, checkable=True)
            act.triggered.connect(lambda _=False, tt=t: w.set_technology(tt))
            group.addAction(act)
            tech.addAction(act)
            self.technologies[t] = act
        self.simulation_menu: QMenu = bar.addMenu("&Simulation")
        whatif = self.whatif_menu = bar.addMenu("What-&if")
        whatif.addActions([self.mark_failed, self.mark_repaired, self.clear_failures])
        whatif.addSeparator()
        whatif.addActions([self.compare_designs, self.show_sweep])
        help_menu = bar.addMenu("&Help")
        help_menu.addActions([self.shortcuts, self.about])

    def _build_toolbar(self, w: MainWindow) -> None:
        bar = w.addToolBar("Main")
        bar.setObjectName("toolbar-main")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        bar.setIconSize(QSize(18, 18))
        bar.addActions([self.new, self.open, self.save])
        bar.addSeparator()
        bar.addActions([self.undo, self.redo])
        bar.addSeparator()
        bar.addActions([self.select_tool, self.link_tool])
        bar.addSeparator()
        bar.addActions([self.wizard, self.fit])
        bar.addSeparator()
        bar.addWidget(QLabel(" Technology "))
        self.tech_combo = QComboBox()
        for t in Technology:
            self.tech_combo.addItem(t.label, t)
        self.tech_combo.setToolTip("Fabric technology (Fabric > Technology)")
        self.tech_combo.activated.connect(
            lambda i: w.set_technology(self.tech_combo.itemData(i)))
        bar.addWidget(self.tech_combo)
        bar.addAction(self.fabric_settings)
        bar.addSeparator()
        bar.addActions([self.export_png])
        self.toolbar: QToolBar = bar
