"""Presenter mode, story stepping, demos, the side-by-side view and the canvas overlays,
driven through the window's keys, menus and buttons."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QDockWidget

from fabricstudio.formats.story import Story, parse_story
from fabricstudio.model.footprint import TILE
from fabricstudio.sim.activity import GpuState
from fabricstudio.ui.presenter.mode import VIEW_SETTLE_S
from fabricstudio.ui.simview import install_simulation_ui
from tests.ui.conftest import menu_action, run_synthetic
from tests.ui.simview.synthetic import factory


@pytest.fixture
def window(sim_window):
    return sim_window


def test_f5_enters_presenter_mode_without_chrome_and_esc_restores_it(qtbot, window):
    sim = run_synthetic(qtbot, window)
    docks_before = [d for d in window.findChildren(QDockWidget) if d.isVisible()]
    assert docks_before
    window.view.setFocus()
    zoom_before = window.view.zoom()
    qtbot.keyClick(window.view, Qt.Key.Key_F5)
    presenter = sim.presenter
    assert presenter.active
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert not any(d.isVisible() for d in window.findChildren(QDockWidget))
    assert not window.act.toolbar.isVisible() and not sim.controls.isVisible()
    assert not window.act.delete.isEnabled() and not window.act.undo.isEnabled()
    assert not window.view.isInteractive()
    assert sim.overlays.scale == presenter.scale >= 1.0
    item = next(iter(window.scene.device_items.values()))
    assert _badge_pixels(window, item) == 0  # port badges are editing chrome
    window.view.zoom_by(8.0)  # zoomed in: the scroll bars would show; not while presenting
    qtbot.wait(20)
    assert not window.view.horizontalScrollBar().isVisible()
    assert not window.view.verticalScrollBar().isVisible()
    qtbot.keyClick(window.view, Qt.Key.Key_Escape)
    assert not presenter.active
    assert window.menuBar().isVisible() and window.act.toolbar.isVisible()
    assert all(d.isVisible() for d in docks_before)
    assert window.act.delete.isEnabled() and window.view.isInteractive()
    assert sim.overlays.scale == 1.0
    assert _badge_pixels(window, item) > 20
    # the canvas comes back as it was: zoom (and centre), scroll bars as needed
    qtbot.waitUntil(lambda: window.view.zoom() == pytest.approx(zoom_before), timeout=2000)
    assert window.view.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAsNeeded


def test_leaving_a_demo_shows_its_whole_fabric(qtbot, window):
    sim = run_synthetic(qtbot, window)
    presenter = sim.presenter
    presenter.enter()
    presenter.fit_on_leave = True  # as present() sets it for a demo
    window.view.zoom_by(8.0)
    zoomed = window.view.zoom()
    presenter.leave()
    qtbot.wait(round(VIEW_SETTLE_S * 1000) + 200)  # the window settles back to its size
    fitted = window.view.zoom()
    assert fitted != zoomed
    window.view.fit()
    assert window.view.zoom() == pytest.approx(fitted)
    assert not presenter.fit_on_leave


def _badge_pixels(window, item) -> int:
    """Pixels of the device's badge corner (upper right of its tile) that differ from the
    canvas, with the links and the GPU rings hidden."""
    scene = window.scene
    hidden = [i for i in scene.items() if i is not item and i.isVisible()]
    for other in hidden:
        other.hide()
    source = item.mapRectToScene(QRectF(TILE / 2 - 16, -TILE / 2 - 7, 24, 6))  # above the tile
    image = QImage(48, 12, QImage.Format.Format_RGB32)
    image.fill(scene.theme.canvas)
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, 48, 12), source)
    painter.end()
    for other in hidden:
        other.show()
    canvas = scene.theme.canvas.rgb()
    return sum(image.pixel(x, y) != canvas for x in range(48) for y in range(12))


def test_edits_are_locked_while_presenting(qtbot, window):
    sim = run_synthetic(qtbot, window)
    sim.presenter.enter()
    before = window.design.to_data()
    window.editor.select_ids(list(window.design.devices)[:1])
    for key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
        qtbot.keyClick(window.view, key)
    qtbot.keyClick(window.view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window.view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert window.design.to_data() == before


def test_without_a_story_the_clicker_keys_step_through_the_runs_captions(qtbot, window):
    sim = run_synthetic(qtbot, window)
    sim.presenter.enter()
    sim.controller.seek_index(0)
    assert sim.overlays.caption.text == "The GPUs compute"
    sim.presenter.handle_key(Qt.Key.Key_PageDown)
    assert sim.controller.overlay.frame_time == pytest.approx(5e-6)
    assert sim.overlays.caption.text == "Every GPU waits on the network"
    assert sim.overlays.caption.isVisible()
    sim.presenter.handle_key(Qt.Key.Key_PageUp)
    assert sim.overlays.caption.text == "The GPUs compute"


STORY = {"format": "fabricstudio-story", "version": 1, "name": "t", "steps": [
    {"caption": "First", "fabric": "roce", "event": "start"},
    {"caption": "", "fabric": "ethernet", "time_s": 8e-6},
    {"caption": "Both", "fabric": ["infiniband", "ethernet"], "event": "end"}]}


def test_a_story_steps_with_arrow_keys_through_runs_and_side_by_side(qtbot, window):
    import json

    sim = install_simulation_ui(window, factory())
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(12.0)
    player = sim.presenter.player
    player.load(parse_story(json.dumps(STORY)))
    sim.presenter.enter()
    qtbot.waitUntil(lambda: player.prepared and not sim.compare.running, timeout=30_000)
    qtbot.waitUntil(lambda: player.index == 0 and sim.controller.stream is not None,
                    timeout=10_000)
    assert sim.overlays.caption.text == "First"
    assert sim.controller.request.dcqcn and sim.controller.display_time == 0.0
    sim.presenter.handle_key(Qt.Key.Key_Right)
    assert player.index == 1
    assert sim.controller.request.technology.value == "ethernet"
    assert sim.controller.overlay.frame_time == pytest.approx(8e-6)
    assert sim.overlays.caption.text == "Every GPU waits on the network"  # the run's own
    sim.presenter.handle_key(Qt.Key.Key_PageDown)
    assert sim.stage.showing_side_by_side
    side = sim.stage.side_by_side
    assert [p.record.label for p in side.panes] == ["InfiniBand", "Lossy Ethernet"]
    assert side.banner_text() == "Both"
    assert side.display_time == pytest.approx(side.end_s)
    for pane in side.panes:  # the runs are over at the end, the longest too
        assert (pane.rings.states == GpuState.IDLE).all(), pane.record.label
    sim.presenter.handle_key(Qt.Key.Key_Left)
    assert not sim.stage.showing_side_by_side and player.index == 1
    step = player.current_step()
    assert step.fabric == "ethernet" and step.time_s == pytest.approx(8e-6)


def test_add_view_as_step_builds_a_story_that_saves_with_its_design(qtbot, window, tmp_path):
    from fabricstudio.sim.demos import load_story_file
    from fabricstudio.ui.presenter.menus import save_story

    sim = run_synthetic(qtbot, window)
    sim.controller.seek_index(6)
    menu_action(window, "View", "Presenter", "Add this view as a story step").trigger()
    sim.controller.seek_index(2)
    menu_action(window, "View", "Presenter", "Add this view as a story step").trigger()
    story = sim.presenter.player.story
    assert isinstance(story, Story) and len(story.steps) == 2
    assert story.steps[0].time_s == pytest.approx(7e-6)
    assert save_story(window, sim, story, tmp_path / "mine.story.json")
    loaded = load_story_file(tmp_path / "mine.story.json")
    assert loaded.story.steps == story.steps
    assert set(loaded.design.devices) == set(window.design.devices)


def test_gpu_rings_and_gauge_follow_the_shown_frame(qtbot, window):
    sim = run_synthetic(qtbot, window)
    rings = sim.controller.rings
    sim.controller.seek_index(1)
    assert rings.isVisible() and (rings.states == GpuState.COMPUTING).all()
    assert sim.overlays.gauge.isVisible()
    assert sim.overlays.gauge.data.utilisation == pytest.approx(1.0)
    sim.controller.seek_index(7)
    assert (rings.states == GpuState.WAITING).all()
    assert sim.overlays.gauge.data.counts[GpuState.WAITING] == len(rings.states)
    assert sim.overlays.gauge.data.utilisation == pytest.approx(5 / 8)


def test_the_legend_folds_with_a_click_and_fit_keeps_the_fabric_clear_of_overlays(qtbot,
                                                                                window):
    sim = run_synthetic(qtbot, window)
    legend = sim.overlays.legend
    folded = legend.collapsed
    qtbot.mouseClick(legend, Qt.MouseButton.LeftButton)
    assert legend.collapsed is not folded
    window.view.fit()
    covers = sim.overlays.covered()
    assert covers
    view = window.view
    for item in window.scene.device_items.values():
        box = view.mapFromScene(item.sceneBoundingRect()).boundingRect().toRectF()
        assert not any(cover.intersects(box) for cover in covers), item.device_id


def test_light_theme_reaches_the_charts_and_the_comparison(qtbot, window):
    sim = run_synthetic(qtbot, window)
    window.set_theme("light")
    background = sim.compare.charts.background.name()
    assert background == window.scene.theme.canvas.name()
    assert sim.plots._colours[0] == window.scene.theme.canvas.name()


def test_help_demos_lists_the_bundled_demos(window):
    for title in ("Where the GPUs' time goes when an MoE dispatch loses its tail",
                  "One burst, four fabrics: where the GPUs' time goes"):
        assert menu_action(window, "Help", "Demos", title).isEnabled()


def test_presenter_scale_is_automatic_by_screen_height_until_chosen(qtbot, window):
    from fabricstudio.ui.presenter.mode import auto_scale

    presenter = window.simulation.presenter
    window.resize(1366, 768)
    assert auto_scale(window) == 1.0
    window.resize(1920, 1080)
    assert auto_scale(window) == 1.5
    presenter.set_scale(None)
    assert presenter.scale == 1.5
    presenter.set_scale(1.25)
    assert presenter.scale == 1.25 and presenter.settings.value("presenter/ui_scale") == 1.25


def test_preferences_set_the_presenter_scale_and_contrast_like_the_view_menu(qtbot, window):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from fabricstudio.ui.presenter.preferences import HighContrastField, UiScaleField

    presenter = window.simulation.presenter
    seen = {}

    def fill():
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, fill)
            return
        scale = dialog.findChild(UiScaleField)
        contrast = dialog.findChild(HighContrastField)
        seen["shown"] = (scale.currentText(), contrast.isChecked())
        scale.setCurrentIndex(scale.findText("175 %"))
        contrast.setChecked(True)
        dialog.accept()

    QTimer.singleShot(20, fill)
    menu_action(window, "Edit", "Preferences").trigger()  # the real Edit > Preferences
    assert seen["shown"] == ("Automatic (by screen size)", False)
    assert presenter.chosen_scale == 1.75 and presenter.high_contrast
    assert presenter.settings.value("presenter/ui_scale") == 1.75
    assert menu_action(window, "View", "Presenter", "UI scale", "175 %").isChecked()
    assert menu_action(window, "View", "Presenter", "High contrast").isChecked()
    menu_action(window, "View", "Presenter", "Presenter mode").trigger()
    assert presenter.active and window.scene.theme.name == "contrast"
    assert window.simulation.overlays.scale == 1.75


def test_while_the_story_prepares_its_caption_shows_and_clicks_skip_no_step(qtbot, window):
    import json

    sim = install_simulation_ui(window, factory(wall_per_frame_s=0.01))
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(12.0)
    player = sim.presenter.player
    player.load(parse_story(json.dumps(STORY)))
    sim.presenter.enter()
    qtbot.waitUntil(lambda: sim.compare.running, timeout=10_000)
    assert sim.overlays.caption.text == "First"  # the presenter can start talking
    for _ in range(2):
        sim.presenter.handle_key(Qt.Key.Key_Right)
    sim.presenter.handle_key(Qt.Key.Key_End)
    qtbot.waitUntil(lambda: player.prepared and not sim.compare.running, timeout=30_000)
    qtbot.waitUntil(lambda: sim.controller.stream is not None, timeout=10_000)
    assert player.index == 0
    sim.presenter.handle_key(Qt.Key.Key_Right)
    assert player.index == 1
