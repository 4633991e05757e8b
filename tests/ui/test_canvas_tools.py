"""The large-fabric tools, through their real actions: group/ungroup, colour by rail and tier,
tier filters, focus on N hops, semantic zoom, minimap and scroll bars."""

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QInputDialog

from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui.legend import legend_entries
from fabricstudio.ui.theme import TIER_COLOURS, rail_colour


@pytest.fixture
def rail_window(make_window):
    design = build_fabric(RailOptimizedSpec(gpus=256, servers_per_su=16)).to_design()
    window = make_window(design)
    window.canvas_tools.act_semantic.setChecked(False)  # every device drawn
    return window


def test_group_and_ungroup_actions(make_window, small_design):
    window = make_window(small_design)
    window.editor.select_ids(["gpu1", "leaf1"])
    window.canvas_tools.act_group.trigger()
    design = window.design
    assert list(design.groups) == ["group1"]
    assert design.group("group1").members == ("gpu1", "leaf1")
    assert window.scene.selected_group_ids() == ["group1"]
    assert window.undo_stack.count() == 1
    window.canvas_tools.act_ungroup.trigger()
    assert not design.groups and window.undo_stack.count() == 2
    window.undo_stack.undo()
    assert list(design.groups) == ["group1"]


def test_grouping_nothing_says_what_to_do(make_window, small_design):
    window = make_window(small_design)
    window.canvas_tools.act_group.trigger()
    assert "Select the devices" in window.statusBar().currentMessage()
    assert not window.design.groups


def test_colour_by_rail_and_tier(rail_window):
    window = rail_window
    window.canvas_tools.act_colour_rail.trigger()
    items = window.scene.link_items
    assert items["server1-nic0"].colour() == rail_colour(0)
    assert items["server3-nic5"].colour() == rail_colour(5)
    uplink = next(lk for lk in window.design.links.values() if lk.a == "leaf2")
    assert items[uplink.id].colour() == rail_colour(1)  # leaf2 is rail 2 of the unit
    legend = dict(legend_entries(window.design, "rail", frozenset(), window.scene.rails()))
    assert [e.text for e in legend["Links"]][:2] == ["Rail 1", "Rail 2"]
    shown = dict(window.view.legend_sections())  # what the canvas's own legend lists
    assert [e.text for e in shown["Links"]][:2] == ["Rail 1", "Rail 2"]
    window.canvas_tools.act_colour_tier.trigger()
    assert items["server1-nic0"].colour() == TIER_COLOURS[(0, 1)]
    assert items[uplink.id].colour() == TIER_COLOURS[(1, 2)]
    assert not window.act.colour_speed.isChecked()


def test_tier_filter_hides_devices_and_their_links(rail_window):
    window = rail_window
    scene = window.scene
    window.canvas_tools.tier_actions[0].setChecked(False)
    assert not scene.device_items["server1"].isVisible()
    assert not scene.link_items["server1-nic0"].isVisible()
    assert scene.device_items["leaf1"].isVisible()
    assert "hidden: Servers" in window.canvas_tools.focus_label.text()
    window.canvas_tools.act_show_all.trigger()
    assert scene.device_items["server1"].isVisible() and not scene.hidden_tiers


def test_focus_on_the_neighbourhood_of_the_selection(rail_window, monkeypatch):
    window = rail_window
    scene = window.scene
    window.editor.select_ids(["server1"])
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (1, True))
    window.canvas_tools.act_focus.trigger()
    leaves = {d for d in window.design.devices if d.startswith("leaf")}
    assert scene.focus == {"server1"} | {lk.b for lk in window.design.links_of("server1")}
    assert scene.focus <= {"server1"} | leaves
    assert not scene.device_items["server2"].isVisible()
    assert "within 1 hop" in window.canvas_tools.focus_label.text()
    window.canvas_tools.act_show_all.trigger()
    assert scene.focus is None and scene.device_items["server2"].isVisible()


def test_semantic_zoom_can_be_switched_off(make_window):
    design = build_fabric(RailOptimizedSpec(gpus=1024)).to_design()
    window = make_window(design)
    assert window.scene.group_items
    window.canvas_tools.act_semantic.setChecked(False)
    assert not window.scene.group_items
    assert len(window.scene.device_items) == len(design.devices)


def test_minimap_moves_the_view_and_scroll_bars_show_where_it_is(rail_window, qtbot):
    window = rail_window
    view = window.view
    view.fit()
    assert view.minimap.rect().isEmpty()  # everything on screen: no minimap
    view.set_zoom(1.5)
    window.view.update_extent()
    box = view.minimap.rect()
    assert not box.isEmpty()
    assert view.horizontalScrollBar().maximum() > 0 and view.horizontalScrollBar().isVisible()
    target = QPointF(box.right() - 8, box.bottom() - 8)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=target.toPoint())
    centre = view.visible_scene_rect().center()
    expected = view.minimap.to_scene(target)
    assert abs(centre.x() - expected.x()) < 200 and abs(centre.y() - expected.y()) < 200
    window.canvas_tools.act_minimap.setChecked(False)
    assert view.minimap.rect().isEmpty()


def _run_modal(qtbot, action, script) -> None:
    """Trigger ``action``; when its modal dialog is up, run ``script(dialog)``."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    done = []

    def drive() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, drive)
            return
        script(dialog)
        done.append(dialog)

    QTimer.singleShot(0, drive)
    action.trigger()
    assert done


def test_connect_selection_previews_and_adds_one_step(make_window, qtbot):
    from fabricstudio.model import Design, GpuServer, Leaf

    design = Design("bulk")
    for i in range(4):
        design.add_device(GpuServer(id=f"gpu{i + 1}", nics=8, x=i * 90.0, y=300))
    for i in range(8):
        design.add_device(Leaf(id=f"leaf{i + 1}", radix=64, x=i * 90.0, y=0))
    window = make_window(design)
    window.act.select_all.trigger()
    seen = {}

    def script(dialog) -> None:
        seen["rail"] = dialog.preview.text()
        dialog.strategy_buttons["round-robin"].click()
        seen["rr"] = dialog.preview.text()
        dialog.connect_button.click()

    _run_modal(qtbot, window.canvas_tools.act_connect, script)
    assert seen["rail"] == "32 links: 4 GPU servers to 8 leaves (rail-wise), compute network"
    assert seen["rr"].startswith("32 links") and "round-robin" in seen["rr"]
    assert len(design.links) == 32 and window.undo_stack.count() == 1
    assert window.undo_stack.undoText() == "Connect 32 links (round-robin)"
    window.undo_stack.undo()
    assert not design.links


def test_connect_selection_with_nothing_to_wire_cannot_be_confirmed(make_window, qtbot):
    from fabricstudio.model import Design, GpuServer

    design = Design("one tier")
    design.add_device(GpuServer(id="a"))
    design.add_device(GpuServer(id="b", x=100))
    window = make_window(design)
    window.act.select_all.trigger()
    seen = {}

    def script(dialog) -> None:
        seen["enabled"] = dialog.connect_button.isEnabled()
        seen["notes"] = dialog.notes.text()
        dialog.reject()

    _run_modal(qtbot, window.canvas_tools.act_connect, script)
    assert seen["enabled"] is False and "two tiers" in seen["notes"]
    assert not design.links and window.undo_stack.count() == 0
