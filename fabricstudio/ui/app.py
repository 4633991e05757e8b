"""Start the Qt application and the main window."""

from __future__ import annotations

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
    app = ensure_app()
    from fabricstudio.ui.main_window import MainWindow

    window = MainWindow(design, path)
    window.show()
    return app.exec()
