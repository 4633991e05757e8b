"""Real gestures on the canvas, asserted on the Design: drops, links, moves, pan and zoom."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QInputDialog

from fabricstudio.model import DeviceKind
from fabricstudio.ui.canvas.scene import GRID
from fabricstudio.ui.panels.palette import catalogue, entry_mime

from .conftest import drag, viewport_point


def _drop(window, mime: QMimeData, scene_pos: QPointF, modifiers=Qt.KeyboardModifier.NoModifier):
    viewport = window.view.viewport()
    pos = QPointF(viewport_point(window, scene_pos))
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, modifiers)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, modifiers)
    QApplication.sendEvent(viewport, drop)


def _entry(kind: str) -> dict:
    return next(e for e in catalogue() if e["kind"] == kind)


def test_palette_drop_creates_device_at_drop_point(make_window):
    window = make_window()
    point = QPointF(212.0, -97.0)
    _drop(window, entry_mime(_entry("leaf")), point)
    (device,) = window.design.devices.values()
    assert device.kind == DeviceKind.LEAF and device.radix == 64
    assert abs(device.x - point.x()) <= GRID / 2 + 1 and abs(device.y - point.y()) <= GRID / 2 + 1
    assert window.scene.device_items[device.id].pos() == QPointF(device.x, device.y)
    assert window.undo_stack.count() == 1


def test_shift_drop_places_n_in_a_row_as_one_step(make_window, monkeypatch):
    window = make_window()
    asked = []
    monkeypatch.setattr(QInputDialog, "getInt",
                        lambda *args, **kwargs: (asked.append(args) or (6, True)))
    _drop(window, entry_mime(_entry("gpu_server")), QPointF(0, 0),
          Qt.KeyboardModifier.ShiftModifier)
    assert asked, "Shift+drop should ask how many"
    servers = window.design.devices_of_kind("gpu_server")
    assert len(servers) == 6
    assert len({s.y for s in servers}) == 1 and len({s.x for s in servers}) == 6
    window.undo_stack.undo()
    assert not window.design.devices


def test_dragging_from_handle_draws_a_link(make_window, small_design, qtbot):
    window = make_window(small_design)
    handle = window.scene.device_items["gpu1"].handle_pos()
    drag(qtbot, window, handle, QPointF(-150, 0))
    (link,) = window.design.links.values()
    assert {link.a, link.b} == {"gpu1", "leaf1"}
    assert link.speed_gbps == 400 and link.plane.value == "compute"
    assert window.undo_stack.count() == 1


def test_connect_tool_links_device_to_device(make_window, small_design, qtbot):
    window = make_window(small_design)
    window.act.link_tool.trigger()
    assert window.view.link_mode
    drag(qtbot, window, QPointF(0, 300), QPointF(150, 0))
    (link,) = window.design.links.values()
    assert {link.a, link.b} == {"gpu1", "leaf2"}


def test_invalid_link_is_refused_with_reason(make_window, small_design, qtbot):
    window = make_window(small_design)
    window.act.link_tool.trigger()
    messages = []
    window.view.message.connect(messages.append)
    drag(qtbot, window, QPointF(0, 300), QPointF(300, 300))  # GPU server -> management switch
    assert not window.design.links
    assert window.undo_stack.count() == 0
    assert any("different networks" in m for m in messages)


def test_full_switch_refuses_another_link(make_window, small_design, qtbot):
    window = make_window(small_design)
    window.design.update_device("leaf1", radix=1)
    window.act.link_tool.trigger()
    drag(qtbot, window, QPointF(0, 300), QPointF(-150, 0))
    assert len(window.design.links) == 1
    drag(qtbot, window, QPointF(150, 0), QPointF(-150, 0))
    assert len(window.design.links) == 1


def test_escape_cancels_link_drawing(make_window, small_design, qtbot):
    window = make_window(small_design)
    window.act.link_tool.trigger()
    viewport = window.view.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton,
                     pos=viewport_point(window, QPointF(0, 300)))
    qtbot.mouseMove(viewport, viewport_point(window, QPointF(-150, 0)))
    assert window.view.interaction is not None
    qtbot.keyClick(window.view, Qt.Key.Key_Escape)
    assert window.view.interaction is None
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton,
                       pos=viewport_point(window, QPointF(-150, 0)))
    assert not window.design.links
    assert not [i for i in window.scene.items() if i.zValue() == 50]  # rubber line gone


def test_drag_moves_selection_as_one_undo_step_with_snap(make_window, small_design, qtbot):
    window = make_window(small_design)
    window.editor.select_ids(["leaf1", "leaf2"])
    drag(qtbot, window, QPointF(-150, 0), QPointF(-150 + 47, 62), steps=6)
    leaf1, leaf2 = window.design.device("leaf1"), window.design.device("leaf2")
    assert (leaf1.x, leaf1.y) != (-150, 0)
    assert leaf2.x - leaf1.x == 300 and leaf1.y == leaf2.y
    assert leaf1.x % GRID == 0 and leaf1.y % GRID == 0
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert (window.design.device("leaf1").x, window.design.device("leaf2").x) == (-150, 150)
    assert window.scene.device_items["leaf1"].pos() == QPointF(-150, 0)


def test_wheel_zoom_keeps_point_under_mouse(make_window, small_design, qtbot):
    window = make_window(small_design)
    view = window.view
    anchor = QPoint(200, 150)
    zoom = view.zoom()
    before = view.mapToScene(anchor)
    view.zoom_by(1.6, QPointF(anchor))
    after = view.mapToScene(anchor)
    assert abs(view.zoom() / zoom - 1.6) < 1e-6
    assert abs(before.x() - after.x()) < 2 and abs(before.y() - after.y()) < 2


def test_middle_button_pans(make_window, small_design, qtbot):
    window = make_window(small_design)
    viewport = window.view.viewport()
    before = window.view.mapToScene(QPoint(100, 100))
    qtbot.mousePress(viewport, Qt.MouseButton.MiddleButton, pos=QPoint(100, 100))
    qtbot.mouseMove(viewport, QPoint(160, 130))
    qtbot.mouseRelease(viewport, Qt.MouseButton.MiddleButton, pos=QPoint(160, 130))
    after = window.view.mapToScene(QPoint(100, 100))
    assert after.x() < before.x() and after.y() < before.y()
    assert window.undo_stack.count() == 0


def test_space_drag_pans(make_window, small_design, qtbot):
    window = make_window(small_design)
    view = window.view
    view.setFocus()
    before = view.mapToScene(QPoint(100, 100))
    qtbot.keyPress(view, Qt.Key.Key_Space)
    drag(qtbot, window, view.mapToScene(QPoint(300, 300)), view.mapToScene(QPoint(250, 260)))
    qtbot.keyRelease(view, Qt.Key.Key_Space)
    after = view.mapToScene(QPoint(100, 100))
    assert after.x() > before.x() and after.y() > before.y()
    assert window.undo_stack.count() == 0 and not window.scene.selectedItems()


def test_palette_activation_places_at_view_centre(make_window):
    window = make_window()
    item = window.palette.list.item(0)
    window.palette.list.itemActivated.emit(item)
    (device,) = window.design.devices.values()
    centre = window.drop_point()
    assert abs(device.x - centre.x()) <= GRID and abs(device.y - centre.y()) <= GRID


def test_add_dock_and_simulation_menu_for_other_parts(make_window):
    from PySide6.QtWidgets import QDockWidget, QLabel

    window = make_window()
    dock = QDockWidget("Plots")
    dock.setWidget(QLabel("plots"))
    window.add_dock(dock, Qt.DockWidgetArea.BottomDockWidgetArea)
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert dock.toggleViewAction() in window.act.panels_menu.actions()
    assert window.act.simulation_menu.title() == "&Simulation"


def _unit(key: str) -> dict:
    return next(e for e in catalogue() if e["key"] == key)


def test_dropping_a_scalable_unit_adds_it_wired_and_grouped_in_one_step(make_window):
    window = make_window()
    _drop(window, entry_mime(_unit("unit-su-32")), QPointF(0, 0))
    design = window.design
    assert len(design.devices_of_kind("gpu_server")) == 32
    assert len(design.devices_of_kind("leaf")) == 8 and len(design.links) == 256
    assert design.group("su1").kind == "scalable_unit"
    assert window.scene.selected_group_ids() == ["su1"]
    assert window.undo_stack.count() == 1
    assert window.undo_stack.undoText() == "Add scalable unit su1"
    window.undo_stack.undo()
    assert not design.devices and not design.groups


def test_shift_dropping_racks_places_several_side_by_side(make_window, monkeypatch):
    window = make_window()
    monkeypatch.setattr(QInputDialog, "getInt", lambda *args, **kwargs: (3, True))
    _drop(window, entry_mime(_unit("unit-rack-tor")), QPointF(0, 0),
          Qt.KeyboardModifier.ShiftModifier)
    racks = [g for g in window.design.groups.values() if g.kind == "rack"]
    assert len(racks) == 3 and all(len(r.members) == 6 for r in racks)
    xs = [min(window.design.device(m).x for m in r.members) for r in racks]
    assert xs == sorted(xs) and len(set(xs)) == 3
    assert window.undo_stack.count() == 1


def test_palette_lists_the_units_with_their_pictures(make_window):
    window = make_window()
    titles = window.palette.visible_titles()
    assert {"Scalable unit", "Rack (top-of-rack leaf)", "Rack (for rails)"} <= set(titles)
    window.palette.search.setText("rack")
    assert window.palette.visible_titles() == ["Rack (top-of-rack leaf)", "Rack (for rails)"]
