"""A window's design dialogs: fabric wizard (replace or add alongside), fabric settings, auto
layout, shortcuts, about and picture export.

:class:`DesignDialogs` is a collaborator of the main window with explicit dependencies: the
parent widget, the design, the editor and view, ``commit`` (runs a command on the undo
stack), ``show_message`` and ``fit_selection``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox, QWidget

from fabricstudio.model import Design
from fabricstudio.model.commands import Command, MoveDevices, ReplaceContents, SetFabric
from fabricstudio.topology.builders import FabricBuild
from fabricstudio.topology.layout import design_layout
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.canvas.view import FabricView
from fabricstudio.ui.dialogs.fabric_settings import FabricSettingsDialog
from fabricstudio.ui.editor import Editor
from fabricstudio.ui.panels.inspector import design_summary


class DesignDialogs:
    """Dialog commands of one main window."""

    def __init__(self, parent: QWidget, design: Design, editor: Editor, scene: FabricScene,
                 view: FabricView, commit: Callable[[Command], None],
                 show_message: Callable[[str], None],
                 fit_selection: Callable[[], None], settings: QSettings) -> None:
        self._parent = parent
        self._settings = settings
        self._design = design
        self._editor = editor
        self._scene = scene
        self._view = view
        self._commit = commit
        self._show_message = show_message
        self._fit_selection = fit_selection

    def open_wizard(self) -> None:
        """Generate a fabric; the build replaces the canvas as one undo step."""
        from fabricstudio.ui.dialogs.wizard import FabricWizard

        wizard = FabricWizard(self._design.fabric.technology, self._parent,
                              can_add=bool(self._design.devices))
        if wizard.exec() and wizard.build is not None:
            if wizard.add_alongside.isChecked() and self._design.devices:
                self.add_build_alongside(wizard.build)
            else:
                self.apply_build(wizard.build)

    def apply_build(self, build: FabricBuild) -> None:
        """Put a FabricBuild on the canvas (one undo step) and fit it."""
        data = build.to_data()
        with self._view.fitting_after_reset():
            self._commit(ReplaceContents(data, label=f"Build {build.name}"))
        self._view.fit()
        self._show_message(f"Built {build.name}: {design_summary(self._design)}")

    def add_build_alongside(self, build: FabricBuild) -> list[str]:
        """Add a FabricBuild to the right of the current devices (one undo step)."""
        devices = self._design.devices.values()
        right = max(d.x for d in devices)
        top = min(d.y for d in devices)
        left = min(d.x for d in build.devices)
        build_top = min(d.y for d in build.devices)
        fragment = {"devices": [d.model_dump(mode="json") for d in build.devices],
                    "links": [lk.model_dump(mode="json") for lk in build.links],
                    "groups": [g.model_dump(mode="json") for g in build.groups]}
        offset = QPointF(right + 300 - left, top - build_top)
        ids = self._editor.add_fragment(fragment, offset, f"Add {build.name}",
                                        mark_copies=False)
        if ids:
            self._fit_selection()
            self._show_message(f"Added {build.name}: {design_summary(self._design)}")
        return ids

    def open_fabric_settings(self) -> None:
        """Edit PFC/ECN/DCQCN/credit parameters (one undo step)."""
        dialog = FabricSettingsDialog(self._design.fabric, self._parent)
        if dialog.exec() and dialog.result_settings is not None:
            if dialog.result_settings != self._design.fabric:
                self._commit(SetFabric(dialog.result_settings))

    def auto_layout(self) -> None:
        """Arrange all devices in role-sorted rows (one undo step)."""
        positions = design_layout(self._design)
        if positions:
            command = MoveDevices(positions)
            command.label = "Auto layout"
            self._commit(command)
            self._view.fit()

    def show_shortcuts(self) -> None:
        """List every action with its shortcut."""
        rows = []
        seen = set()
        for action in self._parent.findChildren(QAction):  # the window's and its menus'
            if id(action) in seen or not action.text():
                continue
            seen.add(id(action))
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
                 "<tr><td>Nudge the selection</td><td><b>Arrow keys (one grid step)</b></td></tr>",
                 "<tr><td>Place several</td><td><b>Shift + drop from the palette</b></td></tr>"]
        QMessageBox.information(self._parent, "Keyboard shortcuts",
                                "<table cellspacing='6'>" + "".join(rows) + "</table>")

    def show_about(self) -> None:
        """About box."""
        from fabricstudio import __version__

        QMessageBox.about(self._parent, "About FabricStudio",
                          f"<h3>FabricStudio {__version__}</h3><p>Design, analyse and simulate "
                          "AI data-centre fabrics: InfiniBand, RoCE and lossy Ethernet.</p>")

    def export_picture(self, fmt: str) -> None:
        """Ask for options and a file name, then export PNG or SVG."""
        from fabricstudio.ui.dialogs.export_dialog import ExportDialog

        dialog = ExportDialog(self._scene, fmt, self._parent, self._show_message,
                              self._settings)
        dialog.exec()
