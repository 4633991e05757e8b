"""Simulation > Record video…: the story being presented, or the shown run, as MP4 or GIF."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog

from fabricstudio.formats.output import OutputError
from fabricstudio.ui.recorder import (
    FrameRenderer,
    RecordingError,
    run_shots,
    story_shots,
    write_video,
)

FILTERS = "MP4 video (*.mp4);;GIF animation (*.gif)"
WIDTH = {"mp4": 1280, "gif": 960}
FPS = {"mp4": 30.0, "gif": 10.0}
#: Length of a video of the shown run (wall seconds; it sweeps the whole run).
RUN_SECONDS = 20.0


class _Cancelled(Exception):
    pass


def record_video(ui) -> bool:
    """Ask for a file and record; True when a file was written."""
    window = ui.window
    player = ui.presenter.player
    story = player.story if player.story is not None and player.prepared else None
    record = ui.shown_record()
    if story is None and record is None:
        QMessageBox.information(window, "Nothing to record",
                                "Run a simulation (or open a demo) first: the video shows "
                                "the run, or the story being presented.")
        return False
    path, chosen = QFileDialog.getSaveFileName(window, "Record video",
                                               "fabric.mp4", FILTERS)
    if not path:
        return False
    kind = "gif" if path.lower().endswith(".gif") or "GIF" in chosen else "mp4"
    fps = FPS[kind]
    width = WIDTH[kind]
    renderer = FrameRenderer(width, round(width * 9 / 16 / 2) * 2, window.scene.theme)
    try:
        if story is not None:
            shots = list(story_shots(story, ui.compare.records, fps))
        else:
            shots = list(run_shots(record, 0.0, record.end_s, RUN_SECONDS, fps))
    except RecordingError as exc:
        QMessageBox.critical(window, "Cannot record", str(exc))
        return False
    dialog = QProgressDialog("Rendering the video…", "Cancel", 0, len(shots), window)
    dialog.setWindowTitle("Record video")
    dialog.setMinimumDuration(0)

    def progress(done: int, total: int) -> None:
        dialog.setValue(done)
        if dialog.wasCanceled():
            raise _Cancelled

    try:
        stats = write_video(path, kind, renderer, shots, fps, progress=progress)
    except _Cancelled:
        window.statusBar().showMessage("Recording cancelled", 5000)
        return False
    except (RecordingError, OutputError, OSError) as exc:
        QMessageBox.critical(window, "Cannot record", str(exc))
        return False
    finally:
        dialog.close()
    window.statusBar().showMessage(
        f"Wrote {path}: {stats.frames} frames, {stats.bytes / 1e6:.1f} MB in "
        f"{stats.wall_s:.0f} s", 8000)
    return True
