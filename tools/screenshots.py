"""Write the README's designer screenshots from the real application.

Run: ``.venv/bin/python tools/screenshots.py [OUTPUT_DIR]`` (default docs/screenshots).  Uses
Qt's offscreen platform unless QT_QPA_PLATFORM says otherwise (e.g. ``xcb`` under Xvfb), and a
throw-away settings file, so the pictures never depend on the user's saved layout.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication, QTabBar, QWidget  # noqa: E402

from fabricstudio.formats import load_design  # noqa: E402
from fabricstudio.model import Design, GpuServer, Leaf, Link, Plane, Spine  # noqa: E402
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric  # noqa: E402
from fabricstudio.ui.app import ensure_app  # noqa: E402
from fabricstudio.ui.canvas.interactions import NewLinkInteraction  # noqa: E402
from fabricstudio.ui.dialogs.wizard import FabricWizard  # noqa: E402
from fabricstudio.ui.main_window import MainWindow  # noqa: E402

SIZE = (1600, 980)
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _settle(app: QApplication, window: MainWindow | None = None) -> None:
    for _ in range(5):
        app.processEvents()
    if window is not None:
        window.analysis.timer.stop()
        window.analysis.start_analysis()
        window.analysis.wait()
        for _ in range(5):
            app.processEvents()


def _save(widget: QWidget, path: Path) -> None:
    if not widget.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    print(f"wrote {path}")


def _window(design: Design, settings: QSettings, theme: str) -> MainWindow:
    """A designer window: the simulation's charts, results and compare docks are closed (the
    simulation pictures come from tools/screenshots_simulation.py), the inspector in front."""
    # a settings file of its own: a window must not restore the previous one's dock layout
    fresh = QSettings(str(Path(settings.fileName()).with_name(f"window-{id(design)}.ini")),
                      QSettings.Format.IniFormat)
    window = MainWindow(design, settings=fresh)
    window.set_theme(theme)
    window.resize(*SIZE)
    window.show()
    QApplication.processEvents()
    simulation = getattr(window, "simulation", None)
    if simulation is not None:
        hidden = {"charts", "compare", "results"}
        titles = {simulation.docks[key].windowTitle() for key in hidden}
        for key in hidden:
            simulation.docks[key].close()
        # Qt leaves the tab bar of a tab group whose docks are all closed on screen
        for bar in window.findChildren(QTabBar):
            if bar.count() and {bar.tabText(i) for i in range(bar.count())} <= titles:
                bar.hide()
    window.inspector_dock.raise_()
    window.analysis_dock.raise_()
    return window


def _close(window: MainWindow, app: QApplication) -> None:
    window.undo_stack.setClean()
    window.close()
    window.deleteLater()
    app.processEvents()


def rail_fabric(app, settings, out: Path) -> None:
    """A 256-GPU rail-optimised RoCE fabric with storage and management networks, whole."""
    build = build_fabric(RailOptimizedSpec(gpus=256, storage_servers=4, management=True))
    window = _window(build.to_design(), settings, "dark")
    _settle(app, window)
    rails = [d.id for d in window.design.devices.values()
             if d.kind == "leaf" and d.planes == (Plane.COMPUTE,)]
    window.editor.select_ids(rails[:3])
    window.view.fit()
    _settle(app)
    _save(window, out / "designer-fabric-dark.png")
    _close(window, app)


def pod_networks(app, settings, out: Path) -> None:
    """The 64-GPU leaf-spine example in the light theme, links coloured by network: servers in
    their leaf's rack, storage under the servers it serves, management below."""
    window = _window(load_design(EXAMPLES / "leaf-spine-storage-management.json"), settings,
                     "light")
    _settle(app, window)
    window.act.colour_plane.setChecked(True)
    window.view.fit()
    _settle(app)
    _save(window, out / "designer-fabric-light.png")
    _close(window, app)


def sketch_design() -> Design:
    """A small hand-drawn pod: 2 spines, 2 leaves, 4 servers, bundled uplinks."""
    design = Design("Pod sketch")
    for i, x in enumerate((-120, 120), start=1):
        design.add_device(Spine(id=f"spine{i}", radix=32, port_speed_gbps=400, x=x, y=-240))
        design.add_device(Leaf(id=f"leaf{i}", radix=32, port_speed_gbps=400, x=x, y=-60))
    for i, x in enumerate((-270, -90, 90, 270), start=1):
        design.add_device(GpuServer(id=f"gpu{i}", nics=2, nic_speed_gbps=400, x=x, y=120))
    n = 1
    for leaf in ("leaf1", "leaf2"):
        for spine in ("spine1", "spine2"):
            for _ in range(8):
                design.add_link(Link(id=f"u{n}", a=leaf, b=spine, speed_gbps=400, length_m=20))
                n += 1
    for i in (1, 2, 3):
        design.add_link(Link(id=f"h{i}a", a=f"gpu{i}", b="leaf1", speed_gbps=400))
        design.add_link(Link(id=f"h{i}b", a=f"gpu{i}", b="leaf2", speed_gbps=400))
    return design


def link_drawing(app, settings, out: Path) -> None:
    """Drawing a link: valid ends glow green, the rubber line snaps to the target."""
    window = _window(sketch_design(), settings, "dark")
    _settle(app, window)
    window.view.fit()
    window.view.set_zoom(1.25)
    window.view.centerOn(QPointF(0, -40))
    window.editor.select_ids(["gpu4"])
    _settle(app)
    source = window.scene.device_items["gpu4"]
    gesture = NewLinkInteraction(window.view, source, source.pos())
    gesture.move(window.scene.device_items["leaf2"].pos())
    _settle(app)
    _save(window, out / "designer-link-drawing.png")
    gesture.cancel()
    _close(window, app)


def wizard(app, settings, out: Path) -> None:
    """The fabric wizard with its preview of counts."""
    window = _window(Design(), settings, "dark")
    dialog = FabricWizard(parent=window)
    dialog.gpus.setValue(2048)
    dialog.storage.setValue(16)
    dialog.management.setChecked(True)
    dialog.show()
    _settle(app)
    _save(dialog, out / "designer-wizard.png")
    dialog.close()
    _close(window, app)


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / \
        "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    app = ensure_app()
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        rail_fabric(app, settings, out)
        pod_networks(app, settings, out)
        link_drawing(app, settings, out)
        wizard(app, settings, out)
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
