"""The overlay colours exactly the links a frame says are busy and pauses where it says."""

import numpy as np
import pytest

from fabricstudio.formats import load_design
from fabricstudio.model.commands import SetFabric
from fabricstudio.sim.metrics import Frame, empty_link_arrays
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.simview import install_simulation_ui, style
from fabricstudio.ui.simview.overlay import SimOverlay, queue_reference
from fabricstudio.ui.simview.source import engine_source
from tests.ui.simview.synthetic import directed_links


def _window(qtbot, examples_dir):
    design = load_design(examples_dir / "two-servers-one-leaf.json")
    window = MainWindow(design)
    qtbot.addWidget(window)
    return window, design


def test_frame_colours_only_busy_links_and_pauses_where_told(qtbot, examples_dir):
    window, design = _window(qtbot, examples_dir)
    overlay = SimOverlay(window.scene, design)
    links = directed_links(design)
    overlay.bind(links, design.fabric)
    arrays = empty_link_arrays(len(links))
    arrays["utilisation"][1] = 0.93
    arrays["utilisation"][2] = 0.12
    arrays["paused"][2] = 0.4
    assert overlay.apply_frame(Frame(1e-6, arrays))
    assert overlay.busy_links() == [links[1], links[2]]
    assert overlay.colour_of(1) == style.RAMP[18]
    assert overlay.colour_of(2) == style.RAMP[2]
    assert all(overlay.colour_of(i) is None for i in range(len(links)) if i not in (1, 2))
    assert overlay.paused_ends() == [(links[2].src, links[2].src_port)]
    assert not overlay.apply_frame(Frame(2e-6, {k: v.copy() for k, v in arrays.items()}))


def test_busy_link_pixels_change_and_tooltip_gives_numbers(qtbot, examples_dir):
    window, design = _window(qtbot, examples_dir)
    overlay = SimOverlay(window.scene, design)
    links = directed_links(design)
    overlay.bind(links, design.fabric)
    arrays = empty_link_arrays(len(links))
    arrays["utilisation"][0] = 1.0
    overlay.apply_frame(Frame(1e-6, arrays))
    line = window.scene.link_items[links[0].link_id].line()
    mid = (line.p1() + line.p2()) / 2
    index = overlay.nearest_link(mid, tolerance=10)
    assert index in (0, 1)
    assert "utilisation" in overlay.describe(0) and "100.0%" in overlay.describe(0)
    assert np.isfinite(overlay.boundingRect().width())


def test_playback_merges_frames_between_ticks_so_no_pause_is_missed(qtbot, examples_dir):
    from fabricstudio.sim.metrics import MetricStream
    from fabricstudio.ui.simview.controller import window_frame

    design = load_design(examples_dir / "two-servers-one-leaf.json")
    links = directed_links(design)
    stream = MetricStream(links, 1e-6)
    for i in range(4):
        arrays = empty_link_arrays(len(links))
        arrays["utilisation"][0] = 1.0 if i % 2 else 0.0
        arrays["pauses_sent"][1] = 1 if i == 1 else 0
        stream.append(Frame((i + 1) * 1e-6, arrays))
    merged = window_frame(stream, 1, 3)
    assert merged.t == stream.times[3]
    assert merged.links["utilisation"][0] == pytest.approx(2 / 3)
    assert merged.links["pauses_sent"][1] == 1
    exact = window_frame(stream, 2, 2)
    assert exact.links["utilisation"][0] == 0.0 and exact.links["pauses_sent"][1] == 0


def test_a_later_settings_edit_does_not_rescale_a_recorded_run(qtbot, examples_dir):
    """Queue bars scale by the settings the run used (carried by its stream), not by the
    window's design: editing ECN thresholds afterwards leaves the recording as it was."""
    window, design = _window(qtbot, examples_dir)
    sim = install_simulation_ui(window, engine_source)
    try:
        sim.controller.use_process = False
        sim.scenario.run_button.click()
        qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=60_000)
        stream = sim.controller.stream
        assert stream.fabric.ecn == design.fabric.ecn
        before = sim.controller.overlay.queue_scale()
        ecn = design.fabric.ecn.model_copy(update={"kmin_bytes_at_100g": 4_000_000,
                                                  "kmax_bytes_at_100g": 16_000_000})
        window.undo_stack.run(SetFabric(design.fabric.model_copy(update={"ecn": ecn})))
        window.undo_stack.setClean()  # no unsaved-changes question when the test closes it
        window.scene._rebuild()  # what a refused edit does: every item, the overlay too, anew
        after = sim.controller.overlay.queue_scale()
        assert np.array_equal(before, after)
        speed = stream.links[0].speed_gbps
        assert after[0] == queue_reference(stream.fabric, speed)
        assert after[0] != queue_reference(design.fabric, speed)
    finally:
        sim.shutdown()


def test_queue_bars_leave_the_name_under_a_device_readable(qtbot, examples_dir):
    """A leaf's queues towards the servers below it were drawn over its name ("su1-rail1",
    which the demo's captions quote): downwards, queue bars and markers start under the
    name box."""
    from PySide6.QtCore import QRectF

    from fabricstudio.model import footprint

    window, design = _window(qtbot, examples_dir)
    overlay = SimOverlay(window.scene, design)
    links = directed_links(design)
    overlay.bind(links, design.fabric)
    arrays = empty_link_arrays(len(links))
    arrays["queue_bytes"][:] = 1e9
    overlay.apply_frame(Frame(1e-6, arrays))
    assert len(overlay._queue_frames) == len(links)
    names = {}
    for device_id, item in window.scene.device_items.items():
        at = item.pos()
        names[device_id] = QRectF(at.x() - footprint.LABEL_WIDTH / 2,
                                  at.y() + footprint.TILE_HALF + footprint.LABEL_GAP,
                                  footprint.LABEL_WIDTH, footprint.LABEL_HEIGHT)
    for frame in overlay._queue_frames:
        for device_id, name in names.items():
            assert not frame.intersects(name), device_id


def test_stalled_links_in_a_crowd_show_one_marker_per_spot(qtbot, examples_dir):
    """An InfiniBand incast stalls every link toward the hot port: sixty rings on top of each
    other hid the devices.  Markers that would overlap give way to the most stalled one."""
    design = load_design(examples_dir / "scenarios" / "demo-rail64.design.json")
    window = MainWindow(design)
    qtbot.addWidget(window)
    overlay = SimOverlay(window.scene, design)
    links = directed_links(design)
    overlay.bind(links, design.fabric)
    arrays = empty_link_arrays(len(links))
    arrays["credit_stall"][:] = np.linspace(0.2, 0.9, len(links))
    overlay.apply_frame(Frame(1e-6, arrays))
    shown = overlay.marker_count("stall")
    assert 0 < shown < len(links) / 4
    path = overlay._paths["stall"]
    centres = [poly.boundingRect().center() for poly in path.toSubpathPolygons()]
    for i, a in enumerate(centres):
        for b in centres[i + 1:]:
            same = (a - b).manhattanLength() < 1e-6  # a square and its ring
            assert same or (a - b).manhattanLength() >= 9.0, (a, b)
    # a lone stalled link keeps its marker
    arrays["credit_stall"][:] = 0
    arrays["credit_stall"][5] = 0.5
    overlay.apply_frame(Frame(2e-6, arrays))
    assert overlay.marker_count("stall") == 1
