"""A window on a large design fills its canvas when it is first shown, folded for the view's
real size: the same items as a canvas filled at once and then fitted, made once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from fabricstudio.model import GpuServer
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui import main_window
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.main_window import MainWindow


@pytest.fixture
def rail_design():
    return build_fabric(RailOptimizedSpec(gpus=1024)).to_design()


def _drawn(scene) -> tuple[set, set, set]:
    return set(scene.device_items), set(scene.group_items), set(scene.link_items)


def _shown_window(qtbot, design, settings) -> MainWindow:
    window = MainWindow(design, settings=settings)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_a_large_design_is_folded_once_for_the_shown_view(qtbot, tmp_path, monkeypatch,
                                                          rail_design):
    at_once = _shown_window(qtbot, rail_design.copy(),
                            QSettings(str(tmp_path / "a.ini"), QSettings.Format.IniFormat))
    expected = _drawn(at_once.scene)
    assert expected[1], "at fit, the fabric shows folded groups"

    monkeypatch.setattr(main_window, "FILL_CANVAS_AT_SHOW_FROM", 10)
    refolds = []
    original = FabricScene._apply_reps

    def counting(scene, before):
        refolds.append(sum(1 for d, r in scene.folding.rep.items() if before.get(d) != r))
        original(scene, before)

    monkeypatch.setattr(FabricScene, "_apply_reps", counting)
    window = MainWindow(rail_design, settings=QSettings(str(tmp_path / "b.ini"),
                                                        QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    assert not window.scene.populated
    assert not window.scene.device_items and not window.scene.group_items
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    assert window.scene.populated
    assert window.view.zoom() == pytest.approx(at_once.view.zoom(), rel=0.01)
    assert _drawn(window.scene) == expected
    assert not any(refolds), "filled at the scale of the first fit: nothing folds again"
    window.view.set_zoom(1.0)  # and it follows the view from then on
    qtbot.waitUntil(lambda: _drawn(window.scene) != expected)


def test_changes_before_the_first_show_are_on_the_canvas(qtbot, settings, monkeypatch,
                                                        rail_design):
    monkeypatch.setattr(main_window, "FILL_CANVAS_AT_SHOW_FROM", 10)
    window = MainWindow(rail_design, settings=settings)
    qtbot.addWidget(window)
    window.design.add_device(GpuServer(id="late", x=0.0, y=-600.0))
    window.show()
    qtbot.waitExposed(window)
    assert "late" in window.scene.device_items
    window.design.remove_device("late")
    assert "late" not in window.scene.device_items  # followed once filled


def test_a_small_design_is_on_the_canvas_before_the_window_shows(qtbot, settings,
                                                                 rail_design):
    window = MainWindow(rail_design, settings=settings)
    qtbot.addWidget(window)
    assert window.scene.populated and (window.scene.device_items or window.scene.group_items)
