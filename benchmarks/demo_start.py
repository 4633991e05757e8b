"""How long a bundled demo takes from launch to its first step on screen, cold (its four runs
simulated, as on a first start) and warm (replayed from the run cache), each in a fresh
process as ``fabricstudio demo NAME`` (offscreen Qt; the machine's load is printed with it).

Run::

    python benchmarks/demo_start.py [--demo NAME,...] [--repeat N]

Each repeat uses a new, empty cache folder for its cold start, then starts again on it.
Prints one line per start; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, time
started = time.perf_counter()
from fabricstudio.ui.app import ensure_app
from fabricstudio.sim.demos import load_demo
app = ensure_app()
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.presenter.menus import present
demo = load_demo(sys.argv[1])
window = MainWindow(demo.design.copy(), None)
window.resize(1366, 768)
window.show()
ui = window.simulation
player = ui.presenter.player
present(window, ui, ui.presenter, demo)
opened = time.perf_counter()
while not (player.prepared and player.index >= 0 and not ui.compare.running):
    app.processEvents()
    time.sleep(0.005)
    if time.perf_counter() - started > 1800:
        break
shown = time.perf_counter()
print(json.dumps({"open_s": opened - started, "first_step_s": shown - started,
                  "cached": ui.compare.cached_labels(), "badge": ui.presenter.badge.text()}))
sys.stdout.flush()
import os
os._exit(0)
"""


def start(name: str, cache: str) -> dict:
    """One start of demo ``name`` with the cache in ``cache``."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CACHE_HOME": cache,
           "FABRICSTUDIO_RUN_CACHE": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, name], env=env, capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", default="moe-dispatch,training-incast")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    for name in args.demo.split(","):
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="fabricstudio-demo-start-") as cache:
                for kind in ("cold", "warm"):
                    load = os.getloadavg()[0]
                    wall = time.perf_counter()
                    found = start(name, cache)
                    wall = time.perf_counter() - wall
                    print(f"{name:<16} {kind}: first step at {found['first_step_s']:6.1f} s "
                          f"(window {found['open_s']:.1f} s, process {wall:.1f} s), "
                          f"{len(found['cached'])}/4 from cache, load {load:.1f}; "
                          f"badge {found['badge']!r}")


if __name__ == "__main__":
    main()
