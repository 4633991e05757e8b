"""Autosave and crash recovery.

Every N seconds (Preferences > Files > Autosave), a window with unsaved changes writes its
design to a recovery file in the recovery folder: the design is snapshotted on the UI thread
(cheap: the model's values are immutable) and turned into JSON and written by a background
worker (``fabricstudio.ui.background``), atomically (the safe output writer); a large design
(CHILD_PROCESS_FROM devices and links) in a child process: the JSON encoder holds the GIL
for its whole run, and at 32k GPUs (1.1 s of CPU) it froze the window for half a second.
Each window's files are named after a session id and guarded by a lock file held while the
window lives; a clean close or a save removes them.  At start, recovery files whose lock is
free belong to a session that did not close (a crash, a kill, a power cut): the window
offers to restore the newest one.

Files (``<session>``: pid and time): ``<session>.json`` is a design file (it opens like any
other), ``<session>.meta.json`` says where it came from, ``<session>.lock`` is the QLockFile.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLockFile, QObject, QSettings, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QMessageBox

from fabricstudio.formats import DesignFileError, parse_design
from fabricstudio.formats.design_file import dump_design_data, write_design_text
from fabricstudio.formats.output import TEMP_SUFFIX, OutputError, write_output
from fabricstudio.model import freeze
from fabricstudio.ui import preferences as prefs
from fabricstudio.ui.background import Call, ChildCall, Worker
from fabricstudio.ui.child_entry import ByName

META_SUFFIX = ".meta.json"
#: Designs with at least this many devices and links are written by a child process.
CHILD_PROCESS_FROM = 8_000


def recovery_folder(settings: QSettings) -> Path:
    """Where recovery files go: next to an INI settings file (tests and benchmarks get a
    throw-away folder with their throw-away settings), else the user's application data."""
    if settings.format() == QSettings.Format.IniFormat or os.name != "nt":
        return Path(settings.fileName()).resolve().parent / "recovery"
    base = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base) / "recovery"


@dataclass(frozen=True)
class Recovery:
    """A recovery file left by a session that did not close."""

    design: Path
    meta: dict[str, Any]
    lock: Path

    @property
    def saved_at(self) -> float:
        return float(self.meta.get("saved_at", self.design.stat().st_mtime))

    def describe(self) -> str:
        """'“rail.json” (unsaved changes from 14:32, 1 Dec)'."""
        source = self.meta.get("source") or ""
        name = Path(source).name if source else self.meta.get("name", "an unsaved design")
        when = time.strftime("%H:%M, %d %b", time.localtime(self.saved_at))
        return f"“{name}” (unsaved changes from {when})"

    def remove(self) -> None:
        """Delete its files."""
        for path in (self.design, self.design.with_name(self.design.stem + META_SUFFIX),
                     self.lock):
            path.unlink(missing_ok=True)


def find_recoveries(folder: Path) -> list[Recovery]:
    """Recovery files of sessions no longer running, newest first."""
    out = []
    if not folder.is_dir():
        return out
    for meta_path in folder.glob(f"*{META_SUFFIX}"):
        stem = meta_path.name[: -len(META_SUFFIX)]
        design = folder / f"{stem}.json"
        lock_path = folder / f"{stem}.lock"
        if not design.is_file():
            continue
        lock = QLockFile(str(lock_path))
        lock.setStaleLockTime(0)  # only a dead owner makes it stale, never its age
        if not lock.tryLock(0):
            continue  # a running FabricStudio owns it
        lock.unlock()
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        out.append(Recovery(design, meta if isinstance(meta, dict) else {}, lock_path))
    return sorted(out, key=lambda r: r.saved_at, reverse=True)


class Autosave(QObject):
    """The autosave of one main window (``window``): ``design``, ``path``, ``settings``,
    ``undo_stack``, ``modified``, ``show_message`` and ``restore_recovered(data, source)``."""

    #: Emitted (on the UI thread) after a recovery file was written, with its path.
    saved = Signal(str)

    def __init__(self, window: Any, folder: Path | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.folder = folder or recovery_folder(window.settings)
        self.session = f"{os.getpid()}-{int(time.time() * 1000)}-{id(self) % 10000}"
        self.path = self.folder / f"{self.session}.json"
        self.meta_path = self.folder / f"{self.session}{META_SUFFIX}"
        self._lock: QLockFile | None = None
        self._saved_revision: int | None = None
        self._worker: Worker | None = None
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.save_now)
        # Saved, opened, or undone back to the saved state: nothing left to recover.
        window.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self.set_interval(prefs.get(window.settings, "autosaveSeconds"))

    def _on_clean_changed(self, clean: bool) -> None:
        if clean:
            self.discard()

    def set_interval(self, seconds: int) -> None:
        """Autosave every ``seconds`` (0: never)."""
        self.timer.stop()
        if seconds > 0:
            self.timer.start(int(seconds) * 1000)

    # ----------------------------------------------------------------- saving
    def save_now(self) -> bool:
        """Write the design now if it has unsaved changes not written yet (returns False
        when there was nothing to write or a write is still running)."""
        window = self.window
        design = window.design
        if not window.modified or design.revision == self._saved_revision:
            return False
        if self._worker is not None and self._worker.isRunning():
            return False
        if not self._take_lock():
            return False
        meta = {"source": window.path or "", "name": design.name, "saved_at": time.time(),
                "pid": os.getpid()}
        self._saved_revision = design.revision
        path, meta_path = self.path, self.meta_path
        worker: Worker
        if len(design.devices) + len(design.links) >= CHILD_PROCESS_FROM:
            worker = ChildCall(ByName("fabricstudio.ui.autosave", "write_snapshot"),
                               freeze(design), path, meta_path, meta)
        else:
            data = design.to_data()  # immutable values: safe to serialise on another thread
            worker = Call(lambda: _write_recovery(path, meta_path, data, meta))
        worker.succeeded.connect(self._on_written)
        worker.failed.connect(self._on_written)
        self._worker = worker
        worker.start()
        return True

    def _take_lock(self) -> bool:
        if self._lock is not None:
            return True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.window.show_message(f"Autosave off: cannot create {self.folder} "
                                     f"({exc.strerror or exc})")
            self.timer.stop()
            return False
        lock = QLockFile(str(self.folder / f"{self.session}.lock"))
        lock.setStaleLockTime(0)
        if not lock.tryLock(0):
            return False
        self._lock = lock
        return True

    def _on_written(self, problem: str) -> None:
        if problem:
            self._saved_revision = None
            self.window.show_message(f"Autosave failed: {problem}")
        else:
            self.saved.emit(str(self.path))

    def wait(self, timeout: float = 10.0) -> None:
        """Block until a running write is done (tests, closing)."""
        if self._worker is not None:
            self._worker.wait(int(timeout * 1000))

    def discard(self) -> None:
        """The design was saved or closed on purpose: its recovery file goes (a write in a
        child process is ended, not waited for)."""
        if isinstance(self._worker, ChildCall):
            self._worker.request_stop()
        self.wait()
        self._saved_revision = None
        for path in (self.path, self.meta_path):
            path.unlink(missing_ok=True)
            for temporary in path.parent.glob(f".{path.name}.*{TEMP_SUFFIX}"):
                temporary.unlink(missing_ok=True)  # what a killed write left

    def finish(self) -> None:
        """The window closes: stop, remove the files, release the lock."""
        self.timer.stop()
        self.discard()
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None

    # -------------------------------------------------------------- recovery
    def offer_recovery(self) -> bool:
        """Ask whether to restore the newest recovery file of a session that did not close;
        True when a design was restored."""
        found = find_recoveries(self.folder)
        if not found:
            return False
        newest = found[0]
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Recover unsaved work")
        box.setText("FabricStudio did not close normally last time.")
        box.setInformativeText(f"Restore {newest.describe()}?"
                               + (f" ({len(found) - 1} older recovery file"
                                  f"{'s' * (len(found) > 2)} will be removed.)"
                                  if len(found) > 1 else ""))
        restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        later = box.addButton("Not now", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(restore)
        box.exec()
        clicked = box.clickedButton()
        if clicked is later:
            return False
        restored = False
        if clicked is restore:
            try:
                design = parse_design(newest.design.read_bytes(), source=newest.design)
            except (DesignFileError, OSError) as exc:
                QMessageBox.warning(self.window, "Cannot recover",
                                    f"The recovery file cannot be read: {exc}")
                return False
            self.window.restore_recovered(design.to_data(), newest.meta.get("source") or None)
            restored = True
        for recovery in found:
            recovery.remove()
        return restored


def write_snapshot(design: Any, path: Path, meta_path: Path, meta: dict[str, Any]) -> str:
    """In a child process: write the recovery files of a design snapshot; returns '' or
    what went wrong."""
    return _write_recovery(path, meta_path, design.to_data(), meta)


def _write_recovery(path: Path, meta_path: Path, data: Any, meta: dict[str, Any]) -> str:
    """Background work: serialise and write the recovery files atomically; returns '' or
    what went wrong."""
    try:
        write_design_text(path, dump_design_data(data), force=True)
        write_output(meta_path, json.dumps(meta).encode("utf-8"), force=True)
    except (DesignFileError, OutputError, OSError) as exc:
        return str(exc)
    return ""
