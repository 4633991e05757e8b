"""Presenter mode keeps its words readable: the story's caption while the runs are prepared
sits below the fabric (a four-line caption used to cover the server names), and the badge in
the lower right corner never covers the caption or the side-by-side banner."""

from __future__ import annotations

import json

from PySide6.QtCore import QRect

from fabricstudio.formats.story import parse_story
from fabricstudio.ui.simview import install_simulation_ui
from tests.ui.simview.synthetic import factory

LONG = ("64 GPUs on 8 servers train a mixture-of-experts model: each step computes for 2 ms, "
        "waits for one MoE layer's tokens halfway, then all-reduces 64 MiB of gradients over "
        "8 rails. The ring around each server shows what its 8 GPUs do; step with the keys.")
STORY = {"format": "fabricstudio-story", "version": 1, "name": "t", "steps": [
    {"caption": LONG, "fabric": "roce", "event": "start"},
    {"caption": "Both fabrics, one timeline, and a banner long enough to reach the badge "
                "in the lower right corner of the stage", "fabric": ["infiniband", "ethernet"],
     "event": "end"}]}


def _in_window(widget, rect: QRect | None = None) -> QRect:
    rect = widget.rect() if rect is None else rect
    return QRect(widget.mapTo(widget.window(), rect.topLeft()), rect.size())


def _start(qtbot, window, wall_per_frame_s: float):
    sim = install_simulation_ui(window, factory(wall_per_frame_s=wall_per_frame_s))
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(12.0)
    player = sim.presenter.player
    player.load(parse_story(json.dumps(STORY)))
    sim.presenter.enter()
    return sim, player


def test_the_caption_shown_while_the_runs_are_prepared_leaves_the_fabric_clear(qtbot,
                                                                              sim_window):
    window = sim_window
    sim, _player = _start(qtbot, window, 0.02)
    qtbot.waitUntil(lambda: sim.compare.running and sim.overlays.caption.isVisible(),
                    timeout=10_000)
    caption = sim.overlays.caption
    qtbot.waitUntil(lambda: caption.height() > 60, timeout=3000)  # several lines
    view = window.view
    qtbot.wait(50)
    band = _in_window(caption)
    for item in window.scene.device_items.values():
        shown = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
        assert not _in_window(view.viewport(), shown).intersects(band), item.device.id
    sim.stop()


def test_the_badge_never_covers_the_caption_or_the_banner(qtbot, sim_window):
    window = sim_window
    sim, player = _start(qtbot, window, 0.0)
    qtbot.waitUntil(lambda: player.prepared and not sim.compare.running, timeout=30_000)
    qtbot.waitUntil(lambda: player.index == 0, timeout=10_000)
    badge = sim.presenter.badge
    player.notice.emit("Preparing the demo… 40%  ·  a long notice for a narrow screen")
    player.notice.emit("")
    player.start_kiosk()  # "1 / 2  ·  kiosk"
    sim.presenter._on_notice("a notice longer than the badge may take on a small screen, elided")
    assert badge.isVisible()
    caption = sim.overlays.caption
    assert caption.isVisible()
    assert not _in_window(caption).intersects(_in_window(badge))
    player.stop_kiosk()
    sim.presenter._on_notice("")
    player.next()
    assert sim.stage.showing_side_by_side
    sim.presenter._on_notice("a notice longer than the badge may take on a small screen, elided")
    banner = sim.stage.side_by_side.banner
    qtbot.waitUntil(lambda: banner.isVisible(), timeout=3000)
    assert not _in_window(banner, banner.contentsRect()).intersects(_in_window(badge))
