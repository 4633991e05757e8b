"""PNG export sizing: at most 8,192 px on the longest side by default (scale picked from the
design's size, groups folded where names would be illegible), larger only on request; the
dialog shows the pixel size and an estimate of the file size before writing."""

import subprocess
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QImageReader
from PySide6.QtWidgets import QApplication, QFileDialog

from fabricstudio.formats import load_design, save_design
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.export import (
    DEFAULT_LONGEST_SIDE,
    ExportOptions,
    estimate_png_bytes,
    output_size,
    png_bytes,
    render_image,
)


def test_default_size_of_the_1024_gpu_example_fits_8192_px(qapp, examples_dir):
    design = load_design(examples_dir / "fat-tree-1024-gpu.json")
    scene = FabricScene(design)
    size = output_size(scene, ExportOptions())
    assert max(size.width(), size.height()) == DEFAULT_LONGEST_SIDE
    assert size.width() * size.height() * 4 < 256 * 1024 * 1024  # Qt's reader opens it
    bigger = output_size(scene, ExportOptions(scale=2.0))
    assert bigger.width() > 12_000  # larger only when asked for
    assert output_size(scene, ExportOptions(width=3000)).width() == 3000


def test_small_designs_keep_two_pixels_per_unit(qapp, examples_dir):
    design = load_design(examples_dir / "leaf-spine-16-gpu-roce.json")
    scene = FabricScene(design)
    assert output_size(scene, ExportOptions()) == output_size(scene, ExportOptions(scale=2.0))


def test_a_large_design_is_drawn_folded_so_names_stay_legible(qapp):
    design = build_fabric(RailOptimizedSpec(gpus=2048)).to_design()
    scene = FabricScene(design, scale=1.0)
    scene.set_semantic_zoom(True)
    seen = {}
    original = scene.folded_for

    def spy(scale, member_px=None):
        manager = original(scale, member_px)

        class Watch:
            def __enter__(self):
                manager.__enter__()
                seen["tiles"] = len(scene.group_items)
                seen["devices"] = len(scene.device_items)

            def __exit__(self, *exc):
                return manager.__exit__(*exc)

        return Watch()

    scene.folded_for = spy
    image = render_image(scene, ExportOptions(longest_side=1200, background="white"))
    assert max(image.width(), image.height()) == 1200
    assert seen["tiles"] > 0 and seen["devices"] < len(design.devices)


def test_the_estimate_is_close_to_the_real_size(qapp, examples_dir):
    design = load_design(examples_dir / "leaf-spine-storage-management.json")
    scene = FabricScene(design)
    options = ExportOptions(background="white", longest_side=1600)
    estimate = estimate_png_bytes(scene, options)
    real = len(png_bytes(render_image(scene, options)))
    assert 0.6 < real / estimate < 1.6


def test_cli_default_width_and_scale(tmp_path):
    design = tmp_path / "d.json"
    save_design(build_fabric(RailOptimizedSpec(gpus=128)).to_design(), design)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "fabricstudio", "export", str(design),
                               *args], capture_output=True, text=True)

    out = run("--png", str(tmp_path / "a.png"), "--width", "900")
    assert out.returncode == 0, out.stderr
    assert QImageReader(str(tmp_path / "a.png")).size().width() == 900
    out = run("--png", str(tmp_path / "b.png"), "--scale", "0.1", "--width", "900")
    assert out.returncode == 2 and "not both" in out.stderr
    out = run("--png", str(tmp_path / "c.png"), "--scale", "0.05")
    assert out.returncode == 0 and "sized to" not in out.stdout
    out = run("--png", str(tmp_path / "d.png"))
    assert out.returncode == 0 and "sized to at most 8,192 px" in out.stdout


def test_export_dialog_shows_size_and_estimate_before_writing(make_window, qtbot, tmp_path,
                                                              monkeypatch, examples_dir):
    window = make_window(load_design(examples_dir / "leaf-spine-storage-management.json"))
    target = tmp_path / "out.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    seen = {}

    def drive() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, drive)
            return
        seen["pixels"] = dialog.size_label.text()
        qtbot.waitUntil(lambda: dialog.file_label.text().startswith("about"), timeout=20000)
        seen["file"] = dialog.file_label.text()
        assert not target.exists()  # nothing written yet
        dialog.auto.setChecked(False)
        seen["manual"] = dialog.scale.isEnabled()
        dialog.scale.setValue(0.5)
        seen["half"] = dialog.size_label.text()
        dialog.accept()

    QTimer.singleShot(0, drive)
    window.act.export_png.trigger()  # the real File > Export PNG action
    assert seen["pixels"].endswith(" px") and "×" in seen["pixels"]
    assert seen["file"].endswith("(PNG)") and seen["manual"]
    reader = QImageReader(str(target))
    width, height = (int(v.replace(",", "")) for v in seen["half"][:-3].split(" × "))
    assert (reader.size().width(), reader.size().height()) == (width, height)


@pytest.fixture
def qapp():
    from fabricstudio.ui.app import ensure_app

    return ensure_app()
