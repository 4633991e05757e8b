"""Record a demo's runs into the run cache before a presentation (``fabricstudio demo
--prepare``), with no window on screen.

It takes the very path presenting takes (the demo opened in a main window, the presenter's
comparison of the fabrics its story shows), so the cache entries are the ones the demo looks
up when it is opened later: it then starts in seconds.  Runs already in the cache are not
simulated again.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings

from fabricstudio.sim.demos import Demo

#: How long one demo's runs may take before preparing gives up (seconds).
PREPARE_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class Prepared:
    """What preparing one demo did: the fabrics replayed from the cache and those simulated
    (and kept), the wall time, and the error that stopped it (None: ready)."""

    cached: tuple[str, ...]
    simulated: tuple[str, ...]
    seconds: float
    error: str | None = None


def prepare_demo(demo: Demo, timeout_s: float = PREPARE_TIMEOUT_S) -> Prepared:
    """Open ``demo`` off screen, let the presenter prepare its runs (kept in the run cache)
    and close it again."""
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.main_window import MainWindow
    from fabricstudio.ui.presenter.menus import present

    app = ensure_app()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fabricstudio-prepare-") as folder:
        # the user's window geometry and layout stay as they are
        settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(demo.design.copy(), None, settings=settings)
        ui = window.simulation
        try:
            present(window, ui, ui.presenter, demo)
            player = ui.presenter.player
            deadline = started + timeout_s

            def wait(until) -> bool:
                while not until():
                    if time.perf_counter() > deadline:
                        return False
                    app.processEvents()
                    time.sleep(0.01)
                return True

            began = wait(lambda: ui.compare.running or player.prepared)
            done = began and wait(lambda: not ui.compare.running)
            app.processEvents()  # the last fabric's record
            compare = ui.compare
            cached = tuple(compare.cached_labels())
            simulated = tuple(label for label in compare.labels
                              if label in compare.records and label not in cached)
            error = None
            if not done:
                error = f"not ready after {timeout_s:.0f} s"
            elif not player.prepared:
                error = compare.status.text() or "the runs could not be prepared"
            return Prepared(cached, simulated, time.perf_counter() - started, error)
        finally:
            ui.presenter.leave()
            ui.shutdown()
            window.close()
            window.deleteLater()
            app.processEvents()
