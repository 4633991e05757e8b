"""PNG and SVG export, from the window and from the headless command line."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

from PySide6.QtGui import QImage

from fabricstudio.ui.export import ExportOptions, output_size, save_png, save_svg


def _distinct_colours(image: QImage, step: int = 7) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step)
                for y in range(0, image.height(), step)})


def test_png_export_has_requested_size_and_content(make_window, small_design, tmp_path):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    for scale in (1.0, 2.5):
        options = ExportOptions(scale=scale, background="white")
        path = tmp_path / f"x{scale}.png"
        size = save_png(window.scene, path, options)
        image = QImage(str(path))
        assert image.size() == size == output_size(window.scene, options)
        assert _distinct_colours(image) > 10
    big = QImage(str(tmp_path / "x2.5.png"))
    small = QImage(str(tmp_path / "x1.0.png"))
    assert abs(big.width() / small.width() - 2.5) < 0.01


def test_png_transparent_background(make_window, small_design, tmp_path):
    window = make_window(small_design)
    save_png(window.scene, tmp_path / "t.png", ExportOptions(scale=1, background="transparent",
                                                             legend=False))
    image = QImage(str(tmp_path / "t.png"))
    assert image.pixelColor(1, 1).alpha() == 0
    assert _distinct_colours(image) > 5


def test_selection_export_is_smaller(make_window, small_design, tmp_path):
    window = make_window(small_design)
    window.editor.select_ids(["leaf1"])
    whole = output_size(window.scene, ExportOptions(scale=1, legend=False))
    part = output_size(window.scene, ExportOptions(scale=1, legend=False, selection_only=True))
    assert part.width() < whole.width()
    save_png(window.scene, tmp_path / "s.png", ExportOptions(scale=1, selection_only=True))
    assert window.scene.device_items["leaf1"].isSelected()  # selection restored
    assert all(item.isVisible() for item in window.scene.device_items.values())


def test_svg_export_parses(make_window, small_design, tmp_path):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    path = tmp_path / "d.svg"
    save_svg(window.scene, path)
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    text = path.read_text()
    assert "leaf1" in text and "<image" not in text  # vector, not embedded pixmaps


def test_cli_export_works_without_display(examples_dir, tmp_path):
    png, svg = tmp_path / "out.png", tmp_path / "out.svg"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "fabricstudio", "export",
         str(examples_dir / "two-servers-one-leaf.json"), "--png", str(png), "--svg", str(svg),
         "--scale", "1.5"], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    image = QImage(str(png))
    assert not image.isNull() and f"{image.width()} x {image.height()} px" in result.stdout
    ET.parse(svg)


def test_cli_export_needs_an_output(examples_dir):
    result = subprocess.run([sys.executable, "-m", "fabricstudio", "export",
                             str(examples_dir / "tiny.json")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "--png" in result.stderr and "Traceback" not in result.stderr


def test_export_dialog_writes_the_chosen_file(make_window, small_design, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from fabricstudio.ui.dialogs.export_dialog import ExportDialog

    window = make_window(small_design)
    target = tmp_path / "picture"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    dialog = ExportDialog(window.scene, "png", window, window.show_message, window.settings)
    dialog.scale.setValue(1.5)
    dialog.background.setCurrentIndex(dialog.background.findData("transparent"))
    assert "×" in dialog.size_label.text()
    dialog.accept()
    image = QImage(str(tmp_path / "picture.png"))
    assert image.size() == output_size(window.scene, dialog.options())
    assert image.pixelColor(0, 0).alpha() == 0
    svg_dialog = ExportDialog(window.scene, "svg", window, window.show_message,
                              window.settings)
    svg_dialog.accept()
    ET.parse(tmp_path / "picture.svg")
