"""The main window's file handling: New / Open / Save / Save As / recent files, the
unsaved-changes prompt, and load errors that keep the current design (a mixin of MainWindow)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from fabricstudio.formats import DesignFileError, load_design, save_design
from fabricstudio.model import DesignData
from fabricstudio.topology.layout import design_layout, needs_layout

MAX_RECENT = 8
FILE_FILTER = "FabricStudio designs (*.json);;All files (*)"


class FileActions:
    """File commands of :class:`~fabricstudio.ui.main_window.MainWindow`; needs its
    ``design``, ``path``, ``undo_stack``, ``settings``, ``recent_menu``, ``view``,
    ``inspector``, ``show_message`` and ``_update_title``."""

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
            loaded.move_devices(design_layout(loaded))
        self._replace_design(loaded.to_data(), path)
        self._add_recent(path)
        self.view.fit()
        return True

    def _replace_design(self, data: DesignData, path: str | None) -> None:
        self.design.load_data(data)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.autosave.discard()  # the changes it held were saved or let go
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
        self.autosave.discard()
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
