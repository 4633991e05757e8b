"""Start the Qt application and the main window."""

from __future__ import annotations

import atexit
import os
import sys

from PySide6.QtWidgets import QApplication

from fabricstudio.model import Design
from fabricstudio.sim.demos import Demo


def ensure_app() -> QApplication:
    """The QApplication, created once with FabricStudio's names."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("FabricStudio")
        app.setOrganizationName("FabricStudio")
    return app  # type: ignore[return-value]


def apply_ui_scale() -> None:
    """Preferences > Interface scale, before Qt starts (an explicit QT_SCALE_FACTOR in the
    environment wins)."""
    if QApplication.instance() is not None or "QT_SCALE_FACTOR" in os.environ:
        return
    from PySide6.QtCore import QSettings

    from fabricstudio.ui import preferences as prefs

    scale = prefs.get(QSettings("FabricStudio", "FabricStudio"), "uiScale")
    if scale:
        os.environ["QT_SCALE_FACTOR"] = f"{scale / 100:g}"


def run_demo(demo: Demo, kiosk: bool = False) -> int:
    """Open a window straight into presenter mode on ``demo`` (a bundled demo or a story
    file) and run the event loop."""
    app = ensure_app()
    from fabricstudio.ui.main_window import MainWindow
    from fabricstudio.ui.presenter.menus import present

    window = MainWindow(demo.design.copy(), None)
    window.show()
    ui = window.simulation
    present(window, ui, ui.presenter, demo)
    if kiosk:
        ui.presenter.player.start_kiosk()
    return app.exec()


def run_gui(design: Design | None = None, path: str | None = None) -> int:
    """Open the main window on ``design`` (from ``path``) and run the event loop."""
    apply_ui_scale()
    app = ensure_app()
    from fabricstudio.ui.main_window import MainWindow

    window = MainWindow(design, path)
    window.show()
    code = app.exec()
    leave(code)
    return code  # pragma: no cover - leave() does not return


#: How long quitting waits for background work still running (a stopped analysis child's
#: worker, an autosave write) before it ends the process anyway (seconds).
QUIT_WAIT_S = 0.5


def leave(code: int) -> None:
    """End the process now: run the atexit hooks and flush the output, then skip Python's
    teardown of every object one by one (seconds for a 32,768-GPU design; the window has
    already saved its settings and closed its files).

    Background work still running gets QUIT_WAIT_S to end; if some still runs then, the
    atexit hooks are skipped: PySide's hook deletes every QObject Python owns, and a QThread
    deleted while it runs aborts the process."""
    from fabricstudio.ui.background import wait_for_background_work

    if wait_for_background_work(QUIT_WAIT_S):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)
