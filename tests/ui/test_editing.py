"""Every editing command is one undo step that restores both the design and the items."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from fabricstudio.model import Link, Technology
from fabricstudio.model.commands import SetFabric


def _state(window):
    data = window.design.to_data()
    items = (sorted(window.scene.device_items), sorted(window.scene.link_items),
             {i: (it.pos().x(), it.pos().y()) for i, it in window.scene.device_items.items()})
    return data, items


def _assert_items_match_design(window):
    assert set(window.scene.device_items) == set(window.design.devices)
    assert set(window.scene.link_items) == set(window.design.links)
    for device_id, item in window.scene.device_items.items():
        device = window.design.device(device_id)
        assert (item.pos().x(), item.pos().y()) == (device.x, device.y)
        assert item.device == device


def _connected(window):
    window.design.add_link(Link(id="l1", a="gpu1", b="leaf1", speed_gbps=400))
    window.undo_stack.clear()
    window.undo_stack.setClean()


EDITS = {
    "place": lambda w: w.editor.place_devices("spine", {"radix": 32}, QPointF(40, -200), 3),
    "connect": lambda w: w.editor.connect("gpu1", "leaf2"),
    "delete": lambda w: (w.editor.select_ids(["leaf1"]), w.editor.delete_selection()),
    "delete_link": lambda w: (w.editor.select_ids(["l1"]), w.editor.delete_selection()),
    "duplicate": lambda w: (w.editor.select_ids(["gpu1", "leaf1"]), w.editor.duplicate()),
    "paste": lambda w: (w.editor.select_ids(["gpu1", "leaf1"]), w.editor.copy(),
                        w.editor.paste()),
    "align": lambda w: (w.editor.select_ids(["gpu1", "mgmt1"]), w.editor.align("left")),
    "technology": lambda w: w.set_technology(Technology.INFINIBAND),
    "fabric": lambda w: w._commit(SetFabric(w.design.fabric.model_copy(
        update={"mtu_bytes": 9000}))),
    "layout": lambda w: w.dialogs.auto_layout(),
    "properties": lambda w: _inspector_set(w, ["leaf1", "leaf2"], "radix", "16"),
    "link_properties": lambda w: _inspector_set(w, ["l1"], "length_m", "12"),
    "rename": lambda w: _inspector_set(w, [], "name", "Pod A"),
    "move": lambda w: (w.scene.device_items["leaf1"].setPos(QPointF(-300, 45)),
                       w.scene.commit_moves()),
}


def _inspector_set(window, ids, field, text):
    window.editor.select_ids(ids)
    editor = window.inspector.editors[field]
    editor.widget.setText(text)
    editor.widget.editingFinished.emit()


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_each_edit_undoes_and_redoes(make_window, small_design, edit):
    window = make_window(small_design)
    _connected(window)
    before = _state(window)
    EDITS[edit](window)
    after = _state(window)
    assert after[0] != before[0], f"{edit} changed nothing"
    assert window.undo_stack.count() == 1, f"{edit} should be one undo step"
    assert window.modified and "*" in window.windowTitle()
    _assert_items_match_design(window)
    window.undo_stack.undo()
    assert _state(window) == before
    assert not window.modified and "*" not in window.windowTitle()
    window.undo_stack.redo()
    assert _state(window)[0] == after[0]
    _assert_items_match_design(window)


def test_paste_keeps_links_between_copied_devices(make_window, small_design):
    window = make_window(small_design)
    _connected(window)
    window.editor.select_ids(["gpu1", "leaf1", "leaf2"])
    window.editor.copy()
    new_ids = window.editor.paste()
    assert len(new_ids) == 3 and not set(new_ids) & {"gpu1", "leaf1", "leaf2"}
    new_links = [lk for lk in window.design.links.values() if lk.a in new_ids]
    assert len(new_links) == 1 and {new_links[0].a, new_links[0].b} <= set(new_ids)
    assert {i.device_id for i in window.scene.selectedItems() if hasattr(i, "device_id")} \
        == set(new_ids)


def test_paste_keeps_whole_groups(make_window, small_design):
    from fabricstudio.model import Group

    small_design.set_groups([Group(id="rack1", kind="rack", members=("gpu1", "leaf1"),
                                   u_positions={"gpu1": 1}),
                             Group(id="g", members=("rack1", "leaf2"))])
    window = make_window(small_design)
    window.editor.select_ids(["gpu1", "leaf1", "mgmt1"])
    window.editor.copy()
    new_ids = window.editor.paste()
    copies = [g for g in window.design.groups.values() if g.id not in ("rack1", "g")]
    assert len(copies) == 1 and set(copies[0].members) <= set(new_ids)  # only rack1 was whole
    assert copies[0].kind == "rack" and len(copies[0].u_positions) == 1


def test_delete_removes_devices_with_their_links(make_window, small_design, qtbot):
    window = make_window(small_design)
    _connected(window)
    window.editor.select_ids(["leaf1"])
    window.act.delete.trigger()
    assert "leaf1" not in window.design.devices and not window.design.links
    window.undo_stack.undo()
    assert "l1" in window.design.links and "l1" in window.scene.link_items


def test_bundles_draw_many_parallel_links_as_one(make_window, small_design):
    window = make_window(small_design)
    window.design.update_device("gpu1", nics=8)
    for _ in range(6):
        window.editor.connect("gpu1", "leaf1")
    items = {window.scene.link_items[lk] for lk in window.design.links}  # one item draws all
    visible = [it for it in items if it.isVisible()]
    assert len(visible) == 1 and visible[0].bundle_size == 6
    assert visible[0].bundle_label() == "6 x 400G"
    assert sorted(visible[0].members) == sorted(window.design.links)
    window.undo_stack.undo()
    window.undo_stack.undo()
    items = [window.scene.link_items[lk] for lk in window.design.links]
    assert len(items) == 4 and all(it.isVisible() and it.bundle_size == 1 for it in items)
    assert len({it.offset for it in items}) == 4  # fanned apart


def test_hiding_a_network_hides_its_links_and_devices(make_window, small_design):
    from fabricstudio.model import Plane

    window = make_window(small_design)
    _connected(window)
    window.analysis.plane_boxes[Plane.COMPUTE].setChecked(False)
    assert not window.scene.link_items["l1"].isVisible()
    assert not window.scene.device_items["leaf1"].isVisible()
    assert window.scene.device_items["mgmt1"].isVisible()
    assert not window.act.planes[Plane.COMPUTE].isChecked()
    from fabricstudio.ui.legend import legend_entries

    legend = dict(legend_entries(window.design, "plane", frozenset(window.scene.hidden_planes)))
    assert "Links" not in legend  # the only link is on the hidden compute network
    assert [e.text for e in legend["Devices"]] == ["Management switch"]
    window.act.planes[Plane.COMPUTE].setChecked(True)
    assert window.scene.link_items["l1"].isVisible()
    assert window.analysis.plane_boxes[Plane.COMPUTE].isChecked()


def test_zoomed_out_links_are_batched_and_stay_selectable(make_window, small_design, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QGraphicsItem

    from .conftest import viewport_point

    no_contents = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
    window = make_window(small_design)
    _connected(window)
    item = window.scene.link_items["l1"]
    window.view.set_zoom(0.3)
    assert window.scene.batching and item.flags() & no_contents
    middle = item.line().pointAt(0.5)
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=viewport_point(window, middle))
    assert item.isSelected() and not item.flags() & no_contents
    assert window.inspector.link_ids == ["l1"]
    window.view.set_zoom(1.0)
    assert not window.scene.batching and not item.flags() & no_contents


def test_history_dock_lists_steps_and_jumps_back(make_window, small_design):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    window.editor.connect("gpu1", "leaf2")
    view = window.history_dock.widget()
    assert view.stack() is window.undo_stack and window.undo_stack.count() == 2
    assert window.undo_stack.text(0).startswith("Connect gpu1")
    window.undo_stack.setIndex(0)  # what clicking "Opened design" in the list does
    assert not window.design.links


def test_undo_and_redo_buttons_keep_their_labels_and_name_the_step(make_window, small_design,
                                                                  monkeypatch):
    from PySide6.QtCore import QPointF

    window = make_window(small_design)
    button = window.act.toolbar.widgetForAction(window.act.undo)
    width = button.sizeHint().width()
    assert window.act.undo.text() == "&Undo" and not window.act.undo.isEnabled()
    assert window.act.undo.toolTip().startswith("Nothing to undo")
    window.editor.place_devices("gpu_server", {}, QPointF(600, 0), count=8)
    assert window.act.undo.text() == "&Undo" and window.act.undo.isEnabled()
    assert window.act.undo.toolTip().startswith("Undo: Add 8 GPU servers")
    assert button.sizeHint().width() == width  # the toolbar does not shift
    inspector = window.inspector
    field = inspector.editors["nic_speed_gbps"].widget
    field.setText("200")
    field.editingFinished.emit()
    assert window.act.undo.toolTip().startswith("Undo: Set NIC speed (Gb/s) of 8 devices")
    assert "gpu_server" not in window.act.undo.toolTip()
    window.act.undo.trigger()
    assert window.act.redo.toolTip().startswith("Redo: Set NIC speed (Gb/s) of 8 devices")
    assert window.act.redo.text() == "&Redo"


def test_consecutive_edits_of_one_field_are_one_undo_step(make_window, small_design):
    """Through the real QUndoStack: gpus 8 -> 4 -> 2 on one server is one step; another
    field, or a move, is a step of its own."""
    from fabricstudio.model.commands import MoveDevices, SetDeviceProperties

    window = make_window(small_design)
    stack = window.undo_stack
    server = next(d for d in small_design.devices.values() if d.kind == "gpu_server")
    before = server.gpus
    stack.run(SetDeviceProperties([server.id], {"gpus": 4}))
    stack.run(SetDeviceProperties([server.id], {"gpus": 2}))
    assert stack.count() == 1 and small_design.device(server.id).gpus == 2
    stack.run(SetDeviceProperties([server.id], {"nics": 1}))
    stack.run(MoveDevices({server.id: (5.0, 5.0)}))
    stack.run(MoveDevices({server.id: (9.0, 9.0)}))
    assert stack.count() == 4
    for _ in range(3):
        stack.undo()
    assert small_design.device(server.id).gpus == 2
    stack.undo()
    assert small_design.device(server.id).gpus == before
    stack.redo()
    assert small_design.device(server.id).gpus == 2
    stack.setClean()
