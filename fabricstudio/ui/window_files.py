"""A window's design files: New / Open / Save / Save As / recent files, the unsaved-changes
prompt, and load errors that keep the current design.

:class:`DesignFiles` is a collaborator of the main window with explicit dependencies (the
design, its undo stack, the settings holding the recent files, a status-line callback and
one that fits the view); it tells the window what changed through its signals.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from fabricstudio.formats import DesignFileError, load_design, save_design
from fabricstudio.model import Design, DesignData
from fabricstudio.model.bulk import bulk_build
from fabricstudio.topology.layout import design_layout, needs_layout
from fabricstudio.ui.undo import DesignUndoStack

MAX_RECENT = 8
FILE_FILTER = "FabricStudio designs (*.json);;All files (*)"


class DesignFiles(QObject):
    """File commands for one window's design; ``path`` is the file it was last opened from or
    saved to (None: never saved)."""

    #: The file name changed (the window title shows it).
    path_changed = Signal()
    #: Another design (new, opened, imported) replaced the edited one.
    replaced = Signal()

    def __init__(self, parent: QWidget, design: Design, undo_stack: DesignUndoStack,
                 settings: QSettings, show_message: Callable[[str], None],
                 fit_view: Callable[[], None], path: str | None = None) -> None:
        super().__init__(parent)
        self._parent = parent
        self._design = design
        self._undo_stack = undo_stack
        self._settings = settings
        self._show_message = show_message
        self._fit_view = fit_view
        #: Wraps replacing the design by an opened file that is then fitted (the window sets
        #: FabricView.fitting_after_reset: the canvas folds once, for the fitted zoom).
        self.fitting: Callable[[], AbstractContextManager[None]] = nullcontext
        self.path = str(path) if path else None
        #: File > Open Recent (the window puts it in its File menu).
        self.recent_menu = QMenu("Open &Recent", parent)
        self._refresh_recent()

    @property
    def modified(self) -> bool:
        """True when the design has changes not saved."""
        return not self._undo_stack.isClean()

    def display_name(self) -> str:
        """The file name, or the design's name when it has no file."""
        return Path(self.path).name if self.path else self._design.name

    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        if not self.modified:
            return True
        answer = QMessageBox.question(
            self._parent, "Unsaved changes",
            f"Save the changes to “{self.display_name()}” before continuing?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new(self) -> None:
        """Start an empty design (asks about unsaved changes first)."""
        if not self.maybe_save():
            return
        self.replace(DesignData(fabric=self._design.fabric.model_copy()), None)

    def open(self, path: str | None = None) -> bool:
        """Open a design; a file that fails to load keeps the current design."""
        if not self.maybe_save():
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self._parent, "Open design", self.folder(),
                                                  FILE_FILTER)
            if not path:
                return False
        try:
            with bulk_build(freeze=True):  # no garbage-collector passes while it is built
                loaded = load_design(path)
                if needs_layout(loaded):
                    loaded.move_devices(design_layout(loaded))
                with self.fitting():
                    self.replace(loaded, path)  # validated once, by load_design
        except DesignFileError as exc:
            QMessageBox.critical(self._parent, "Cannot open design", str(exc))
            self._show_message(f"Not opened: {exc}")
            return False
        self._add_recent(path)
        self._fit_view()
        return True

    def replace(self, data: DesignData | Design, path: str | None) -> None:
        """Put ``data`` (or the contents of a design nobody else uses) in place of the edited
        design (history cleared, saved state)."""
        self._design.load_data(data)
        self._undo_stack.clear()
        self._undo_stack.setClean()
        self._set_path(path)
        self.replaced.emit()

    def save(self) -> bool:
        """Save to the current file (asks for one if there is none)."""
        if not self.path:
            return self.save_as()
        return self._save_to(self.path)

    def save_as(self) -> bool:
        """Save under a new name."""
        suggestion = self.path or str(Path(self.folder()) / f"{self._design.name}.json")
        path, _ = QFileDialog.getSaveFileName(self._parent, "Save design", suggestion,
                                              FILE_FILTER)
        if not path:
            return False
        if not Path(path).suffix:
            path += ".json"
        return self._save_to(path)

    def _save_to(self, path: str) -> bool:
        try:
            save_design(self._design, path)
        except (DesignFileError, OSError) as exc:
            QMessageBox.critical(self._parent, "Cannot save design", str(exc))
            return False
        self._undo_stack.setClean()
        self._add_recent(path)
        self._set_path(path)
        self._show_message(f"Saved {path}")
        return True

    def _set_path(self, path: str | None) -> None:
        self.path = str(path) if path else None
        self.path_changed.emit()

    def folder(self) -> str:
        """Where file dialogs start: the design's folder, or the home folder."""
        return str(Path(self.path).parent) if self.path else str(Path.home())

    def recent_files(self) -> list[str]:
        """Recently opened or saved files, newest first."""
        value = self._settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: str) -> None:
        path = str(Path(path).resolve())
        files = [path] + [f for f in self.recent_files() if f != path]
        self._settings.setValue("recentFiles", files[:MAX_RECENT])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, path in enumerate(files, start=1):
            act = self.recent_menu.addAction(f"&{i} {Path(path).name}")
            act.setToolTip(path)
            act.triggered.connect(lambda _=False, p=path: self.open(p))
        self.recent_menu.setEnabled(bool(files))
