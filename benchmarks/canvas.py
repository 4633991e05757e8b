"""Canvas performance at 2,048, 8,192 and 32,768 GPUs (rail-optimised fabrics from the builders,
as the wizard makes them), on the offscreen platform, viewport 1280x800.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/canvas.py [GPUS ...]
[--repeat N] [--baseline CHECKOUT]``.  Prints figures; no pass/fail.

Each measurement runs in a fresh child process (so "quit" is the real time from closing the
window to the process being gone).  With ``--baseline CHECKOUT`` (a checkout of an older
commit, e.g. ``git worktree add /tmp/fs-base main``) the same children run against that code,
alternating with the current code, and both are printed: the machine is shared, so only
figures measured side by side in one run compare.  Medians of ``--repeat`` runs.

What is measured (targets from issue 14 in brackets):

- open: parse the design file text and open the window until the fitted view has painted
  [8,192 GPUs < 2 s; 32,768 GPUs < 5 s]; "open CPU" is the CPU time it took (the wall time
  grows with the machine's load, the CPU time much less); "load" is the 1-minute load
  average when the child started (other processes on the machine);
- repaint at fit: one full repaint of the viewport at "fit to view" [< 33 ms];
- zoom step: one wheel notch in or out at fit (a real wheel event, 120 units), repaint
  included [< 100 ms]; a canvas slower to draw than two frames shows the last sharp frame
  scaled while the wheel turns (ui/canvas/zoom_preview.py);
- zoom sharp: the work of the sharp frame once the wheel pauses (the scene folds for the new
  zoom and redraws; shown 150 ms after the last notch; "-" when every notch draws sharply);
- pan: one 12-px scroll at fit and at 100 % with its repaint [< 16 ms];
- select all: Edit > Select All until the window has caught up (inspector included) [< 0.5 s];
- quit: from closing the window (after Select All) to the process having exited [< 1 s];
- stall: the longest the event loop was blocked during the 2 s after opening (what "stays
  interactive" means: background work must not freeze the window);
- memory (a separate child): the process's resident memory with the design open, and 2 s
  after File > New replaced it ("after New"), with the Python objects the collector still
  tracks or keeps frozen then (the design's objects that were not given back).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = (2048, 8192, 32768)
PAN_FRAMES = 30
VIEW_W, VIEW_H = 1280, 800
TARGETS = {"open_s": 2.0, "repaint_fit_ms": 33, "zoom_fit_ms": 100, "pan_fit_ms": 16,
           "pan_100_ms": 16, "select_all_s": 0.5, "quit_s": 1.0}
COLUMNS = [("open_s", "open s", "{:.2f}"), ("open_cpu_s", "open CPU s", "{:.2f}"),
           ("load", "load", "{:.1f}"), ("repaint_fit_ms", "repaint fit", "{:.1f} ms"),
           ("zoom_fit_ms", "zoom fit", "{:.1f} ms"), ("zoom_sharp_ms", "zoom sharp", "{:.0f} ms"),
           ("pan_fit_ms", "pan fit", "{:.1f} ms"),
           ("repaint_100_ms", "repaint 100%", "{:.1f} ms"), ("pan_100_ms", "pan 100%", "{:.1f} ms"),
           ("select_all_s", "select all", "{:.2f} s"), ("quit_s", "quit", "{:.2f} s"),
           ("stall_ms", "stall", "{:.0f} ms"), ("rss_open_mb", "RSS open", "{:.0f} MB"),
           ("rss_new_mb", "RSS after New", "{:.0f} MB"),
           ("objects_new_k", "objects after New", "{:.0f}k")]


# --------------------------------------------------------------------------- child side
def _emit(key: str, value) -> None:
    print(json.dumps({key: value}), flush=True)


def child(gpus: int) -> None:
    """Measure one size in this process, printing one JSON object per figure."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QElapsedTimer, QPoint, QPointF, QSettings, Qt, QTimer
    from PySide6.QtGui import QWheelEvent

    from fabricstudio.formats import dump_design, parse_design
    from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.main_window import MainWindow

    app = ensure_app()
    # Throw-away settings in a temporary folder: QSettings saves an INI file by writing a new
    # file and renaming it over the old one, so pointed at /dev/null (as root) it would
    # replace the device with a regular file for every process on the machine.
    scratch = tempfile.mkdtemp(prefix="fabricstudio-bench-")
    settings = QSettings(os.path.join(scratch, "settings.ini"), QSettings.Format.IniFormat)
    build = build_fabric(RailOptimizedSpec(gpus=gpus))
    text = dump_design(build.to_design())
    _emit("load", os.getloadavg()[0])
    _emit("devices", len(build.devices))
    _emit("links", len(build.links))

    start, cpu = time.perf_counter(), time.process_time()
    design = parse_design(text)
    parsed = time.perf_counter() - start
    window = MainWindow(design, settings=settings)
    window.resize(VIEW_W + 600, VIEW_H + 150)
    window.show()
    app.processEvents()
    window.view.fit()
    window.view.viewport().repaint()
    app.processEvents()
    _emit("parse_s", parsed)
    _emit("open_s", time.perf_counter() - start)
    _emit("open_cpu_s", time.process_time() - cpu)
    _emit("stall_ms", _stall(app, QElapsedTimer, QTimer) * 1e3)

    def paint() -> float:
        """One full repaint of the viewport, as the screen gets it (item caches used)."""
        app.processEvents()
        t0 = time.perf_counter()
        window.view.viewport().repaint()
        return time.perf_counter() - t0

    def pan() -> list[float]:
        bar = window.view.horizontalScrollBar()
        times = []
        app.processEvents()
        for i in range(PAN_FRAMES):
            t0 = time.perf_counter()
            bar.setValue(bar.value() + (12 if i < PAN_FRAMES // 2 else -12))
            app.processEvents()
            times.append(time.perf_counter() - t0)
        return times

    def notch(inwards: bool) -> None:
        viewport = window.view.viewport()
        at = QPointF(viewport.width() / 2, viewport.height() / 2)
        event = QWheelEvent(at, viewport.mapToGlobal(at), QPoint(), QPoint(0, 120 if inwards
                                                                          else -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                            Qt.ScrollPhase.NoScrollPhase, False)
        app.sendEvent(viewport, event)

    def zoom() -> list[float]:
        times = []
        app.processEvents()
        for i in range(6):
            t0 = time.perf_counter()
            notch(i % 2 == 0)
            app.processEvents()
            times.append(time.perf_counter() - t0)
        return times

    def sharpen() -> float | None:
        """The sharp frame's work once the gesture pauses (None: no preview was shown)."""
        preview = getattr(window.view, "zoom_preview", None)
        if preview is None or not preview.active:
            return None
        t0 = time.perf_counter()
        preview.end()
        app.processEvents()
        return time.perf_counter() - t0

    paint()  # warm the item caches
    _emit("repaint_fit_ms", statistics.median(paint() for _ in range(3)) * 1e3)
    _emit("pan_fit_ms", statistics.median(pan()) * 1e3)
    _emit("zoom_fit_ms", statistics.median(zoom()) * 1e3)
    sharp = sharpen()
    if sharp is not None:
        _emit("zoom_sharp_ms", sharp * 1e3)
    window.view.fit()
    window.view.set_zoom(1.0)
    window.view.centerOn(window.view.mapToScene(window.view.viewport().rect().center()))
    app.processEvents()
    paint()
    _emit("repaint_100_ms", statistics.median(paint() for _ in range(3)) * 1e3)
    _emit("pan_100_ms", statistics.median(pan()) * 1e3)
    window.view.fit()
    app.processEvents()
    t0 = time.perf_counter()
    actions = getattr(window, "act", None)  # older code: window.act_select_all
    (actions.select_all if actions is not None else window.act_select_all).trigger()
    window.view.viewport().repaint()
    app.processEvents()
    _emit("select_all_s", time.perf_counter() - t0)
    window.undo_stack.setClean()
    _emit("quit_start", time.time())
    window.close()
    app.quit()
    app.processEvents()
    from fabricstudio.ui import app as app_module

    leave = getattr(app_module, "leave", None)  # how the app ends (older code: plain exit)
    if leave is not None:
        leave(0)


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def memory_child(gpus: int) -> None:
    """Open a design, then File > New: the memory and objects kept afterwards."""
    import gc

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from fabricstudio.formats import dump_design, parse_design
    from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.main_window import MainWindow

    app = ensure_app()
    scratch = tempfile.mkdtemp(prefix="fabricstudio-bench-")
    settings = QSettings(os.path.join(scratch, "settings.ini"), QSettings.Format.IniFormat)
    text = dump_design(build_fabric(RailOptimizedSpec(gpus=gpus)).to_design())
    window = MainWindow(parse_design(text), settings=settings)
    del text
    window.resize(VIEW_W + 600, VIEW_H + 150)
    window.show()
    app.processEvents()
    _emit("rss_open_mb", _rss_mb())
    window.undo_stack.setClean()
    window.files.new()
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    _emit("rss_new_mb", _rss_mb())
    _emit("objects_new_k", (len(gc.get_objects()) + gc.get_freeze_count()) / 1e3)
    os._exit(0)


def _stall(app, elapsed_timer_cls, timer_cls, seconds: float = 2.0) -> float:
    """Longest gap between 5 ms timer ticks over ``seconds`` (seconds)."""
    clock = elapsed_timer_cls()
    clock.start()
    gaps = [0.0]
    last = [0.0]

    def tick() -> None:
        now = clock.nsecsElapsed() / 1e9
        gaps.append(now - last[0])
        last[0] = now

    timer = timer_cls()
    timer.timeout.connect(tick)
    timer.start(5)
    while clock.nsecsElapsed() / 1e9 < seconds:
        app.processEvents()
        time.sleep(0.001)
    timer.stop()
    return max(gaps)


# -------------------------------------------------------------------------- parent side
def run_child(gpus: int, code: str | None, timeout: float, mode: str = "--child") -> dict:
    """One child run; figures it could not reach within ``timeout`` are missing."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    script = os.path.abspath(__file__)
    proc = subprocess.Popen([sys.executable, script, mode, str(gpus)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=code or os.getcwd())
    out: dict = {}
    deadline = time.monotonic() + timeout
    try:
        stdout, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        ended = time.time()
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, _ = proc.communicate()
        ended = None
        out["timed_out"] = True
    for line in stdout.splitlines():
        try:
            out.update(json.loads(line))
        except ValueError:
            continue
    if ended is not None and "quit_start" in out:
        out["quit_s"] = ended - out.pop("quit_start")
    return out


def summarise(runs: list[dict]) -> dict:
    """Median of each figure over the runs that reached it."""
    keys = {k for r in runs for k in r}
    out = {}
    for key in keys:
        values = [r[key] for r in runs if isinstance(r.get(key), (int, float))
                  and not isinstance(r.get(key), bool)]
        if values:
            out[key] = statistics.median(values)
    out["timed_out"] = any(r.get("timed_out") for r in runs)
    return out


def row(label: str, gpus: int, r: dict) -> str:
    cells = [f"{label:<9}", f"{gpus:>7,}", f"{int(r.get('devices', 0)):>8,}",
             f"{int(r.get('links', 0)):>8,}"]
    for key, _title, fmt in COLUMNS:
        value = r.get(key)
        text = fmt.format(value) if value is not None else ("timeout" if r.get("timed_out")
                                                            else "-")
        cells.append(f"{text:>12}")
    return " ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gpus", nargs="*", type=int, help=f"sizes (default {SIZES})")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (median)")
    parser.add_argument("--baseline", metavar="CHECKOUT", help="also run this older checkout")
    parser.add_argument("--timeout", type=float, default=180.0,
                        help="seconds a child may take before it is stopped")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    if args.memory_child:
        memory_child(args.memory_child)
        return 0
    sizes = args.gpus or list(SIZES)
    print(f"canvas benchmark, viewport {VIEW_W}x{VIEW_H}, offscreen, {os.cpu_count()} CPUs, "
          f"median of {args.repeat} run(s) per size, each in a fresh process")
    print("targets: " + ", ".join(f"{k} < {v}" for k, v in TARGETS.items()))
    header = " ".join([f"{'code':<9}", f"{'GPUs':>7}", f"{'devices':>8}", f"{'links':>8}"]
                      + [f"{title:>12}" for _k, title, _f in COLUMNS])
    print(header)
    for gpus in sizes:
        current, baseline = [], []
        for _ in range(args.repeat):
            current.append(run_child(gpus, None, args.timeout))
            if args.baseline:
                baseline.append(run_child(gpus, os.path.abspath(args.baseline), args.timeout))
        current[0].update(run_child(gpus, None, args.timeout, "--memory-child"))
        if args.baseline:
            baseline[0].update(run_child(gpus, os.path.abspath(args.baseline), args.timeout,
                                         "--memory-child"))
        print(row("current", gpus, summarise(current)), flush=True)
        if args.baseline:
            print(row("baseline", gpus, summarise(baseline)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
