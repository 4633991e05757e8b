"""A window on a large design fills its canvas when it is first shown, folded for the view's
real size: the same items as a canvas filled at once and then fitted, made once; and gives
its memory back when another design replaces it."""

from __future__ import annotations

import weakref

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from fabricstudio.model import GpuServer, bulk
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui import main_window
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.main_window import MainWindow

from .conftest import menu_action


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


def _count_refolds(monkeypatch) -> list[int]:
    """A list that gets, for every fold the scene applies, how many devices it re-homed."""
    refolds: list[int] = []
    original = FabricScene._apply_reps

    def counting(scene, before):
        refolds.append(sum(1 for d, r in scene.folding.rep.items() if before.get(d) != r))
        original(scene, before)

    monkeypatch.setattr(FabricScene, "_apply_reps", counting)
    return refolds


def test_a_large_design_is_folded_once_for_the_shown_view(qtbot, tmp_path, monkeypatch,
                                                          rail_design):
    at_once = _shown_window(qtbot, rail_design.copy(),
                            QSettings(str(tmp_path / "a.ini"), QSettings.Format.IniFormat))
    expected = _drawn(at_once.scene)
    assert expected[1], "at fit, the fabric shows folded groups"

    monkeypatch.setattr(main_window, "FILL_CANVAS_AT_SHOW_FROM", 10)
    refolds = _count_refolds(monkeypatch)
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


class _Node:
    me: _Node


def test_file_new_gives_back_what_a_frozen_large_design_held(qtbot, make_window, monkeypatch,
                                                             rail_design):
    window = make_window(rail_design)
    monkeypatch.setattr(bulk, "FREEZE_AFTER", 0)  # as a large design is
    with bulk.bulk_build(freeze=True):
        held = _Node()
        held.me = held
    gone = weakref.ref(held)
    del held
    menu_action(window, "File", "New").trigger()
    assert not window.design.devices
    qtbot.waitUntil(lambda: gone() is None, timeout=5000)


def test_file_open_checks_the_file_once(make_window, tmp_path, monkeypatch, rail_design):
    from fabricstudio.formats import save_design
    from fabricstudio.model import Design

    path = tmp_path / "rail.json"
    save_design(rail_design, path)
    window = make_window()
    checks = []
    original = Design.from_data.__func__

    def counting(cls, data):
        checks.append(len(data.links))
        return original(cls, data)

    monkeypatch.setattr(Design, "from_data", classmethod(counting))
    assert window.files.open(str(path))
    assert checks == [len(rail_design.links)]
    assert set(window.design.links) == set(rail_design.links)
    assert set(window.scene.device_items) | set(window.scene.group_items)


@pytest.mark.parametrize("how", ["File > Open", "Fabric wizard"])
def test_a_design_replacing_the_canvas_is_folded_once_for_its_fit(make_window, tmp_path,
                                                                  monkeypatch, rail_design, how):
    from fabricstudio.formats import save_design

    window = make_window()
    window.view.set_zoom(1.0)
    refolds = _count_refolds(monkeypatch)
    if how == "File > Open":
        path = tmp_path / "rail.json"
        save_design(rail_design, path)
        assert window.files.open(str(path))
    else:
        window.dialogs.apply_build(build_fabric(RailOptimizedSpec(gpus=1024)))
    assert window.scene.group_items, "fitted, the fabric shows folded groups"
    assert not any(refolds)
    if how == "Fabric wizard":  # one undo step back to the empty canvas
        window.undo_stack.undo()
        assert not window.scene.device_items and not window.scene.group_items


def test_nothing_failed_means_no_walk_over_the_cables():
    from fabricstudio.model.failures import FailedElements

    assert FailedElements().down_links(object()) == []  # the design is not even looked at


def test_the_design_analysis_starts_after_the_first_show(qtbot, settings, rail_design):
    window = MainWindow(rail_design, settings=settings)
    qtbot.addWidget(window)
    window.analysis.timer.stop()  # as if its debounce had run out while the window was built
    window.show()
    qtbot.waitExposed(window)
    assert window.analysis.timer.isActive() or window.analysis.running


def test_the_legend_is_read_again_only_when_what_it_shows_changed(make_window, monkeypatch,
                                                                  rail_design):
    from fabricstudio.ui.canvas import view as view_module

    window = make_window(rail_design)
    readings = []
    original = view_module.legend_entries

    def counting(*args):
        readings.append(args[1])
        return original(*args)

    monkeypatch.setattr(view_module, "legend_entries", counting)
    window.view.refresh_legend()
    window.view.legend_sections()
    window.view.refresh_legend()
    window.view.legend_sections()
    assert readings == []
    menu_action(window, "View", "Colour links by network").trigger()
    window.view.legend_sections()
    assert readings == ["plane"]


def test_a_scroll_that_changes_no_fold_leaves_the_canvas_alone(qtbot, make_window, monkeypatch,
                                                               rail_design):
    window = make_window(rail_design)
    window.view.fit()
    QApplication.processEvents()
    folded = set(window.scene.folding.collapsed)
    copies = []
    monkeypatch.setattr(FabricScene, "_apply_reps", lambda scene, before: copies.append(1))
    bar = window.view.horizontalScrollBar()
    for step in (12, -12, 12):
        bar.setValue(bar.value() + step)
        QApplication.processEvents()
    assert window.scene.folding.collapsed == folded and not copies
