"""Zoom gestures on a canvas slower to draw than two frames: each wheel notch shows the last
sharp frame scaled, and the scene folds and draws sharply once the wheel pauses.  A canvas
that draws fast zooms sharply at every notch."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QWheelEvent
from PySide6.QtWidgets import QApplication

from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui.canvas import zoom_preview

from .conftest import menu_action

NOTCH = 2 ** (120 / 480)  # one wheel notch


def _wheel(view, inwards: bool = True, at: QPointF | None = None) -> None:
    viewport = view.viewport()
    at = at or QPointF(viewport.width() / 2, viewport.height() / 2)
    event = QWheelEvent(at, viewport.mapToGlobal(at), QPoint(), QPoint(0, 120 if inwards else -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, event)


def _slow(view) -> None:
    """As if the last full repaint took longer than two frames."""
    view.zoom_preview.full_paint_s = 1.0


def _pixels(view) -> np.ndarray:
    image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    width, height = image.width(), image.height()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    rows = data.reshape(height, image.bytesPerLine())[:, :width * 3]
    return rows.reshape(height, width, 3).copy()  # the image's memory goes with it


@pytest.fixture
def rail_design():
    return build_fabric(RailOptimizedSpec(gpus=1024)).to_design()


def test_a_slow_canvas_previews_a_wheel_gesture_and_folds_once_it_pauses(qtbot, make_window,
                                                                        rail_design):
    window = make_window(rail_design)
    view, scene = window.view, window.scene
    view.fit()
    QApplication.processEvents()
    zoom, folded = view.zoom(), set(scene.folding.collapsed)
    _slow(view)
    for _ in range(10):
        _wheel(view)
        QApplication.processEvents()
    assert view.zoom_preview.active
    assert view.zoom() == pytest.approx(zoom * NOTCH ** 10)
    assert scene.view_scale == pytest.approx(zoom)  # nothing refolded during the gesture
    assert set(scene.folding.collapsed) == folded
    qtbot.waitUntil(lambda: not view.zoom_preview.active, timeout=5000)
    assert scene.view_scale == pytest.approx(view.zoom())  # folded for the new zoom
    assert set(scene.folding.collapsed) != folded


def test_a_fast_canvas_zooms_sharply_at_every_notch(qtbot, make_window, rail_design):
    window = make_window(rail_design)
    view = window.view
    view.viewport().update()
    qtbot.waitUntil(lambda: view.zoom_preview.full_paint_s is not None)  # each repaint timed
    view.zoom_preview.full_paint_s = 0.001
    _wheel(view)
    assert not view.zoom_preview.active
    assert window.scene.view_scale == pytest.approx(view.zoom())


def _share_differing(a: np.ndarray, b: np.ndarray) -> float:
    return float((np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 80).mean())


def test_the_preview_looks_like_the_sharp_frame(qtbot, make_window, small_design):
    window = make_window(small_design)
    view = window.view
    view.fit()
    QApplication.processEvents()
    before = _pixels(view)
    _slow(view)
    _wheel(view, at=QPointF(view.viewport().width() * 0.3, view.viewport().height() * 0.4))
    assert view.zoom_preview.active
    preview = _pixels(view)
    qtbot.waitUntil(lambda: not view.zoom_preview.active, timeout=5000)
    sharp = _pixels(view)
    moved = _share_differing(before, sharp)  # what one notch changes on screen
    assert moved > 0.005
    assert _share_differing(preview, sharp) < moved / 10


def test_a_click_fit_or_absolute_zoom_ends_the_preview(qtbot, make_window, rail_design):
    window = make_window(rail_design)
    view = window.view
    _slow(view)
    _wheel(view)
    assert view.zoom_preview.active
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert not view.zoom_preview.active
    assert window.scene.view_scale == pytest.approx(view.zoom())
    _slow(view)  # (the sharp frame measured this small canvas fast again)
    _wheel(view)
    assert view.zoom_preview.active
    menu_action(window, "View", "Fit to view").trigger()
    assert not view.zoom_preview.active
    assert window.scene.view_scale == pytest.approx(view.zoom())
    _slow(view)
    _wheel(view, inwards=False)
    assert view.zoom_preview.active
    view.set_zoom(0.5)
    assert not view.zoom_preview.active
    assert window.scene.view_scale == pytest.approx(0.5)


def test_view_zoom_in_steps_like_a_wheel_notch(qtbot, make_window, rail_design):
    window = make_window(rail_design)
    view = window.view
    zoom = view.zoom()
    _slow(view)
    menu_action(window, "View", "Zoom in").trigger()
    assert view.zoom() == pytest.approx(zoom * 1.25)
    assert view.zoom_preview.active
    qtbot.wait(zoom_preview.SETTLE_MS // 3)
    menu_action(window, "View", "Zoom out").trigger()
    assert view.zoom() == pytest.approx(zoom)
    qtbot.waitUntil(lambda: not view.zoom_preview.active, timeout=5000)
    assert window.scene.view_scale == pytest.approx(zoom)
