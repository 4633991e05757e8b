"""Canvas performance: open time, full repaint and per-frame pan time at 256, 2,048 and 8,192
GPUs (rail-optimised fabrics from the builders), on the offscreen platform.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/canvas.py``.  Prints figures; no
pass/fail.  Repaint and pan are measured at the "fit" zoom (whole fabric on screen, the level
of detail at work) and at 100 % (labels, badges and icons drawn).  A frame budget of 16.7 ms
(60 Hz) is printed for comparison.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QImage, QPainter  # noqa: E402

from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric  # noqa: E402
from fabricstudio.ui.app import ensure_app  # noqa: E402
from fabricstudio.ui.main_window import MainWindow  # noqa: E402

SIZES = (256, 2048, 8192)
PAN_FRAMES = 30
VIEW_W, VIEW_H = 1280, 800


def _paint(window) -> float:
    """Time one full repaint of the viewport into an image (what a screen update costs)."""
    view = window.view
    image = QImage(view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)
    painter = QPainter(image)
    start = time.perf_counter()
    view.render(painter)
    painter.end()
    return time.perf_counter() - start


def _pan(window, app) -> list[float]:
    """Scroll by 12 px per frame as a mouse pan does and let Qt repaint what the scroll exposed;
    per-frame times."""
    bar = window.view.horizontalScrollBar()
    times = []
    app.processEvents()
    for i in range(PAN_FRAMES):
        start = time.perf_counter()
        bar.setValue(bar.value() + (12 if i < PAN_FRAMES // 2 else -12))
        app.processEvents()
        times.append(time.perf_counter() - start)
    return times


def _zoom(window, app) -> list[float]:
    """One wheel notch in and out per frame (a full repaint each)."""
    times = []
    app.processEvents()
    for i in range(6):
        start = time.perf_counter()
        window.view.zoom_by(1.1 if i % 2 == 0 else 1 / 1.1)
        app.processEvents()
        times.append(time.perf_counter() - start)
    return times


def measure(gpus: int, app, settings) -> dict:
    build = build_fabric(RailOptimizedSpec(gpus=gpus))
    start = time.perf_counter()
    window = MainWindow(build.to_design(), settings=settings)
    window.resize(VIEW_W + 600, VIEW_H + 150)
    window.show()
    app.processEvents()
    window.view.fit()
    window.view.viewport().repaint()
    app.processEvents()
    opened = time.perf_counter() - start
    results = {"gpus": gpus, "devices": len(build.devices), "links": len(build.links),
               "open_s": opened}
    _paint(window)  # warm the item caches
    results["repaint_fit_ms"] = statistics.median(_paint(window) for _ in range(3)) * 1e3
    results["pan_fit_ms"] = statistics.median(_pan(window, app)) * 1e3
    results["zoom_fit_ms"] = statistics.median(_zoom(window, app)) * 1e3
    window.view.set_zoom(1.0)
    window.view.centerOn(window.scene.device_items[build.devices[-1].id])
    _paint(window)
    results["repaint_100_ms"] = statistics.median(_paint(window) for _ in range(3)) * 1e3
    results["pan_100_ms"] = statistics.median(_pan(window, app)) * 1e3
    window.undo_stack.setClean()
    window.close()
    window.deleteLater()
    app.processEvents()
    return results


def main() -> int:
    app = ensure_app()
    # Throw-away settings in a temporary folder: QSettings saves an INI file by writing a new
    # file and renaming it over the old one, so pointed at /dev/null (as root) it replaced the
    # device with a regular file for every process on the machine.
    scratch = tempfile.mkdtemp(prefix="fabricstudio-bench-")
    settings = QSettings(os.path.join(scratch, "settings.ini"), QSettings.Format.IniFormat)
    sizes = [int(a) for a in sys.argv[1:]] or SIZES
    print(f"canvas benchmark, viewport {VIEW_W}x{VIEW_H}, Qt platform "
          f"{app.platformName()}; frame budget 16.7 ms")
    header = (f"{'GPUs':>6} {'devices':>8} {'links':>7} {'open s':>7} {'repaint fit':>12} "
              f"{'pan fit':>8} {'zoom fit':>9} {'repaint 100%':>13} {'pan 100%':>9}")
    print(header)
    for gpus in sizes:
        r = measure(gpus, app, settings)
        print(f"{r['gpus']:>6,} {r['devices']:>8,} {r['links']:>7,} {r['open_s']:>7.2f} "
              f"{r['repaint_fit_ms']:>9.1f} ms {r['pan_fit_ms']:>5.1f} ms "
              f"{r['zoom_fit_ms']:>6.1f} ms "
              f"{r['repaint_100_ms']:>10.1f} ms {r['pan_100_ms']:>6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
