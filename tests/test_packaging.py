"""The package works from an installed wheel, not only from this checkout: its resources
(icons, device catalogue) are package data found through importlib.resources."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
import fabricstudio, sys
from pathlib import Path
where = Path(fabricstudio.__file__).resolve()
assert where.is_relative_to(Path(sys.argv[1]).resolve()), fabricstudio.__file__
from fabricstudio.model import DeviceKind
from fabricstudio.ui.app import ensure_app
from fabricstudio.ui.icons import svg_renderer
from fabricstudio.ui.panels.palette import catalogue
app = ensure_app()
assert all(svg_renderer(kind.value).isValid() for kind in DeviceKind)
assert len(catalogue()) >= len(DeviceKind)
from fabricstudio.sim.demos import demo_names, load_demo
assert demo_names(), "no bundled demos"
for name in demo_names():
    demo = load_demo(name)
    assert demo.story.steps and demo.design.devices and demo.scenario is not None
print("ok", fabricstudio.__file__)
"""


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{build.stderr[-2000:]}")
    wheels = list(out.glob("fabricstudio-*.whl"))
    assert len(wheels) == 1
    target = out / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target),
         str(wheels[0])], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    return target


def test_wheel_contains_resources(installed_wheel):
    icons = list((installed_wheel / "fabricstudio" / "resources" / "icons").glob("*.svg"))
    assert len(icons) >= 6
    assert (installed_wheel / "fabricstudio" / "resources" / "catalogue.json").is_file()
    assert not (installed_wheel / "tests").exists()


def test_installed_package_loads_its_resources_away_from_the_checkout(installed_wheel, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(installed_wheel), "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run([sys.executable, "-c", CHECK, str(installed_wheel)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("ok")


def test_make_run_says_what_it_installs(tmp_path):
    """The first `make run` prints what it installs and pip's progress (no silent minutes)."""
    import shutil

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(["make", "-n", "-C", str(root), f"VENV={tmp_path / 'venv'}", "run"],
                         capture_output=True, text=True, check=True).stdout
    assert "Installing Qt (PySide6" in out and "is ready" in out
    install = next(line for line in out.splitlines() if "-e '.[test]'" in line)
    assert "--quiet" not in install and "--progress-bar on" in install
