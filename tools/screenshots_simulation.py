"""Screenshots of the live simulation view for the README and the user guide.

    python tools/screenshots_simulation.py [--out docs/screenshots]

Writes, from real engine runs (no canned data):
  sim-run-in-progress.png  the demo's 64-GPU rail-optimised RoCE fabric during a ring all-reduce
  sim-pfc-pause.png        7:1 incast on RoCE without DCQCN, after the first PFC PAUSE
  sim-compare.png          the same incast on InfiniBand / RoCE + DCQCN / RoCE PFC / Ethernet
  sim-moment.png           the headless moment export of the incast (as the CLI writes it)
  sim-demo-compare.png     the demo moment: examples/scenarios/demo-moe-dispatch (an MoE
                           training step whose token dispatch overloads four experts) opened in
                           the scenario panel and compared on the four fabrics (GPU
                           utilisation), at 1366 x 768 (sim-demo-compare-150.png: at 150 %)
  presenter-*.png          the bundled demo in presenter mode (fabricstudio demo, moe-dispatch)
                           at 1366x768 and 1920x1080, UI scale 100 % and 150 %
                           (QT_SCALE_FACTOR=1.5, in a child process per scale): the first
                           step while the runs are prepared, lossy Ethernet's stall, the
                           four fabrics side by side and the Ethernet / InfiniBand replay

    python tools/screenshots_simulation.py --presenter-only   # just the presenter shots
    python tools/screenshots_simulation.py --demo-only        # sim-demo-compare + presenter
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _wait(app, until, timeout_s: float) -> bool:
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        app.processEvents()
        if until():
            return True
        time.sleep(0.01)
    return False


from PySide6.QtCore import Qt  # noqa: E402

_SETTINGS_DIR = tempfile.TemporaryDirectory()


def _window(design, size=(1600, 1000)):
    """A window with a throw-away settings file: the pictures never depend on the user's
    saved dock layout (or on the previous picture's)."""
    from PySide6.QtCore import QSettings

    from fabricstudio.ui.main_window import MainWindow

    settings = QSettings(str(Path(_SETTINGS_DIR.name) / f"settings-{time.monotonic_ns()}.ini"),
                         QSettings.Format.IniFormat)
    window = MainWindow(design, settings=settings)
    window.resize(*size)
    window.show()
    return window


SCENARIOS = ROOT / "examples" / "scenarios"


def _demo_design():
    """The demo's 64-GPU rail-optimised RoCE fabric (8 servers in a row under 8 rail leaves)."""
    from fabricstudio.formats import load_design

    return load_design(SCENARIOS / "demo-rail64.design.json")


def _tall_charts(app, window) -> None:
    """Give the charts dock room for its four charts (it scrolls when short) and fit the
    fabric above it."""
    window.resizeDocks([window.simulation.docks["charts"]], [340], Qt.Orientation.Vertical)
    _wait(app, lambda: False, 0.3)
    window.view.fit()


def run_in_progress(app, out: Path) -> None:
    """A big all-reduce caught while it runs (progress bar part-way, links busy)."""
    window = _window(_demo_design())
    sim = window.simulation
    _wait(app, lambda: False, 1.0)
    _tall_charts(app, window)
    sim.scenario.size_mib.setValue(256)
    sim.scenario.run_button.click()
    ok = _wait(app, lambda: sim.controls.progress_bar.value() >= 300
               or sim.controller.state == "finished", 300)
    _wait(app, lambda: sim.controller.state == "finished", 0.4)  # the charts catch up
    window.grab().save(str(out / "sim-run-in-progress.png"))
    state = sim.controller.state
    sim.shutdown()
    window.close()
    print(f"sim-run-in-progress.png ({'captured at ' + state if ok else 'timed out'})")


def incast_pause(app, out: Path) -> None:
    """Incast on RoCE with PFC only: jump to the first PAUSE and a little later."""
    window = _window(_demo_design())
    sim = window.simulation
    _wait(app, lambda: False, 1.0)
    _tall_charts(app, window)
    sim.scenario.workload.setCurrentIndex(sim.scenario.workload.findData("incast"))
    sim.scenario.dcqcn.setChecked(False)
    sim.scenario.size_mib.setValue(32)  # 7 x 32 MiB: more than the leaf's 64 MB buffer
    sim.scenario.run_button.click()
    _wait(app, lambda: sim.controller.state in ("finished", "failed"), 300)
    if sim.controller.jump("first_pause"):
        sim.controller.step(12)
    _wait(app, lambda: False, 0.5)
    window.grab().save(str(out / "sim-pfc-pause.png"))
    sim.docks["compare"].raise_()
    sim.scenario.compare_button.click()
    _wait(app, lambda: not sim.compare.running, 600)
    window.resizeDocks([sim.docks["compare"]], [360], Qt.Orientation.Vertical)
    _wait(app, lambda: False, 0.3)
    window.view.fit()  # the whole fabric above the taller dock
    _wait(app, lambda: False, 0.3)
    window.grab().save(str(out / "sim-compare.png"))
    sim.shutdown()
    window.close()
    print("sim-pfc-pause.png, sim-compare.png")


def demo_compare(app, out: Path, factor: float = 1.0) -> None:
    """The demo moment: the MoE training step compared on four fabrics, at 1366 x 768 (the
    projector size a sales engineer presents on), at QT_SCALE_FACTOR ``factor``."""
    window = _window(_demo_design(), size=(round(1366 / factor), round(768 / factor)))
    sim = window.simulation
    _wait(app, lambda: False, 1.0)
    if not sim.scenario.load_scenario_file(SCENARIOS / "demo-moe-dispatch.scenario.json"):
        raise SystemExit(sim.scenario.error.text())
    sim.docks["compare"].raise_()
    sim.scenario.compare_button.click()
    done = _wait(app, lambda: not sim.compare.running, 1200)
    window.view.fit()  # the whole fabric above the dock (as tall as Compare fabrics makes it)
    _wait(app, lambda: False, 0.3)
    name = "sim-demo-compare.png" if factor == 1 else \
        f"sim-demo-compare-{round(factor * 100)}.png"
    window.grab().save(str(out / name))
    utilisation = {label: values.get("gpu_utilisation")
                   for label, values in sim.compare.results.items()}
    sim.shutdown()
    window.close()
    state = f"GPU utilisation {utilisation}" if done else "timed out"
    print(f"{name} ({state})")


def moment(out: Path) -> None:
    """The headless moment export, exactly as ``fabricstudio export`` writes it."""
    from fabricstudio.cli import main as cli

    cli(["export", str(SCENARIOS / "incast.design.json"), "--scenario",
         str(SCENARIOS / "v2-incast-roce-pfc.scenario.json"), "--at", "200e-6",
         "--png", str(out / "sim-moment.png")])


#: Presenter screenshots: (width, height) in physical pixels, and the story steps shot.
PRESENTER_SIZES = ((1366, 768), (1920, 1080))
PRESENTER_STEPS = {4: "stall", 9: "four-fabrics", 10: "side-by-side"}
#: Steps shot at a later moment than they open at (the side-by-side replay mid-dispatch, where
#: InfiniBand's credit stalls show).
PRESENTER_SEEK = {10: 1.3e-3}


def presenter(app, out: Path, factor: float) -> None:
    """The bundled demo in presenter mode at each size, at QT_SCALE_FACTOR ``factor`` (set by
    the parent for this process): the window gets the logical size that fills the screen."""
    from PySide6.QtCore import Qt

    from fabricstudio.sim.demos import load_demo
    from fabricstudio.ui.presenter.menus import present

    demo = load_demo("moe-dispatch")
    window = _window(demo.design.copy())
    sim = window.simulation
    cache = sim.compare.cache_source
    sim.compare.cache_source = lambda: None  # the first step's caption while runs are prepared
    present(window, sim, sim.presenter, demo)
    player = sim.presenter.player
    for width, height in PRESENTER_SIZES:
        window.setGeometry(0, 0, round(width / factor), round(height / factor))
        _wait(app, lambda: False, 1.0)
        name = f"presenter-{width}x{height}-{round(factor * 100)}-preparing.png"
        window.grab().save(str(out / name))
        print(name)
    sim.compare.stop()
    sim.compare.cache_source = cache  # the runs from the cache when they are there
    player.first()
    if not _wait(app, lambda: player.prepared and not sim.compare.running, 1800):
        raise SystemExit("the demo's runs did not finish")
    for width, height in PRESENTER_SIZES:
        window.setGeometry(0, 0, round(width / factor), round(height / factor))
        player.first()
        for step in range(1, max(PRESENTER_STEPS) + 1):
            if step > 1:
                sim.presenter.handle_key(Qt.Key.Key_Right)
            if step in PRESENTER_STEPS:
                sim.controller.pause()
                sim.stage.side_by_side.pause()
                if step in PRESENTER_SEEK:
                    sim.stage.side_by_side.seek_time(PRESENTER_SEEK[step])
                _wait(app, lambda: False, 0.6)
                name = f"presenter-{width}x{height}-{round(factor * 100)}-" \
                       f"{PRESENTER_STEPS[step]}.png"
                window.grab().save(str(out / name))
                print(name)
    sim.presenter.leave()
    sim.shutdown()
    window.close()


def _presenter_children(out: Path) -> None:
    """One child process per UI scale (Qt reads QT_SCALE_FACTOR once, at start), on the same
    platform as this one (xcb under xvfb-run, else offscreen)."""
    import subprocess

    platform = os.environ.get("QT_QPA_PLATFORM", "offscreen")

    for factor in (1.0, 1.5):
        env = {**os.environ, "QT_SCALE_FACTOR": f"{factor:g}", "QT_QPA_PLATFORM": platform}
        subprocess.run([sys.executable, __file__, "--out", str(out), "--presenter-scale",
                        f"{factor:g}"], env=env, check=True)
    env = {**os.environ, "QT_SCALE_FACTOR": "1.5", "QT_QPA_PLATFORM": platform}
    subprocess.run([sys.executable, __file__, "--out", str(out), "--compare-scale", "1.5"],
                   env=env, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--presenter-only", action="store_true",
                        help="only the presenter-mode screenshots")
    parser.add_argument("--demo-only", action="store_true",
                        help="only sim-demo-compare.png and the presenter shots")
    parser.add_argument("--presenter-scale", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--compare-scale", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.presenter_scale is None and args.presenter_only:
        _presenter_children(out)
        return 0
    from fabricstudio.ui.app import ensure_app

    app = ensure_app()
    if args.presenter_scale is not None:
        presenter(app, out, args.presenter_scale)
        return 0
    if args.compare_scale is not None:
        demo_compare(app, out, args.compare_scale)
        return 0
    if not args.demo_only:
        run_in_progress(app, out)
        incast_pause(app, out)
    demo_compare(app, out)
    if not args.demo_only:
        moment(out)
    _presenter_children(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
