"""Groups on the canvas: semantic zoom folds them, a tile expands in place, moves as one and
is one undo step; Select All is one selection change."""

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from fabricstudio.model import Design, GpuServer, Group, Leaf, Link
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.ui.canvas.items.link_item import BundleItem

from .conftest import drag, viewport_point


@pytest.fixture
def rail_design() -> Design:
    return build_fabric(RailOptimizedSpec(gpus=1024)).to_design()


def _shown(scene, device_id: str) -> str:
    """What draws a device now: itself or the id of its collapsed group."""
    return scene.folding.rep[device_id]


def _racks_folded(window, design: Design) -> str:
    """Zoom so that racks fold but scalable units do not, around server1; its rack's id."""
    server = design.device("server1")
    window.view.set_zoom(0.2)
    window.view.centerOn(QPointF(server.x, server.y))
    QApplication.processEvents()  # the scene follows a scroll once the event is handled
    rack = window.scene.folding.rep["server1"]
    assert design.group(rack).kind == "rack"
    return rack


def test_zoomed_out_racks_fold_and_zooming_in_unfolds_what_is_in_view(make_window, rail_design):
    window = make_window(rail_design)
    scene = window.scene
    window.view.fit()
    assert scene.group_items, "at fit, a 1,024-GPU fabric shows folded groups"
    assert _shown(scene, "server1") != "server1" and "server1" not in scene.device_items
    shown = set(scene.device_items) | set(scene.group_items)
    assert {scene.folding.rep[d] for d in rail_design.devices} == shown  # nothing missing
    # every link is drawn once: by its own item, a bundle, or hidden inside a folded group
    for link in rail_design.links.values():
        a, b = _shown(scene, link.a), _shown(scene, link.b)
        assert (link.id in scene.link_items) == (a != b)
    server = rail_design.device("server1")
    window.view.set_zoom(1.0)
    window.view.centerOn(QPointF(server.x, server.y))
    QApplication.processEvents()
    assert "server1" in scene.device_items  # in view and large: drawn device by device
    far = max(rail_design.devices.values(), key=lambda d: abs(d.x - server.x))
    assert _shown(scene, far.id) != far.id  # far off screen: still folded, no items made
    window.view.fit()
    assert "server1" not in scene.device_items


def test_a_tile_bundles_its_uplinks_with_their_count(make_window, rail_design):
    window = make_window(rail_design)
    scene = window.scene
    rack = _racks_folded(window, rail_design)
    assert rack in scene.group_items
    link = rail_design.links["server1-nic0"]
    item = scene.link_items[link.id]
    assert isinstance(item, BundleItem) and item.bundle_size >= 4
    assert set(item.members) >= {"server1-nic0"}
    tile = scene.group_items[rack]
    assert "4 servers" in tile._body and "32 GPUs" in tile._body


def test_double_click_expands_in_place_and_collapse_is_one_undo_step(make_window, rail_design,
                                                                      qtbot):
    window = make_window(rail_design)
    scene = window.scene
    rack = _racks_folded(window, rail_design)
    tile = scene.group_items[rack]
    point = viewport_point(window, tile.pos())
    qtbot.mouseDClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert rack not in scene.group_items and "server1" in scene.device_items
    assert rack in scene.frame_items
    assert window.undo_stack.count() == 0  # opening a zoom-folded group changes no design
    scene.collapse_group(rack)
    assert rail_design.group(rack).collapsed and rack in scene.group_items
    assert window.undo_stack.count() == 1
    assert window.undo_stack.undoText() == f"Collapse {rail_design.group(rack).label}"
    window.undo_stack.undo()
    assert not rail_design.group(rack).collapsed


def test_dragging_a_tile_moves_every_device_of_the_group_in_one_step(make_window, rail_design,
                                                                      qtbot):
    window = make_window(rail_design)
    scene = window.scene
    rack = _racks_folded(window, rail_design)
    members = scene.folding.tree.devices(rack)
    before = {d: (rail_design.device(d).x, rail_design.device(d).y) for d in members}
    others = {d: (v.x, v.y) for d, v in rail_design.devices.items() if d not in before}
    tile = scene.group_items[rack]
    start = tile.pos()
    step = 60 / window.view.zoom()  # 60 screen px
    drag(qtbot, window, start, start + QPointF(step, step / 2))
    moved = {d: (rail_design.device(d).x, rail_design.device(d).y) for d in members}
    dx = moved["server1"][0] - before["server1"][0]
    dy = moved["server1"][1] - before["server1"][1]
    assert dx > 0 and dy > 0 and dx % 15 == 0 and dy % 15 == 0  # whole grid steps
    assert all(moved[d] == (x + dx, y + dy) for d, (x, y) in before.items())
    assert {d: (v.x, v.y) for d, v in rail_design.devices.items() if d not in before} == others
    assert window.undo_stack.count() == 1
    assert window.undo_stack.undoText() == f"Move {rail_design.group(rack).label}"
    assert scene.group_items[rack].pos() == scene.group_rect(rack).center()
    window.undo_stack.undo()
    assert {d: (rail_design.device(d).x, rail_design.device(d).y) for d in members} == before


def test_select_all_is_one_selection_change_and_deletes_in_one_step(make_window, rail_design):
    window = make_window(rail_design)
    changes = []
    window.scene.selectionChanged.connect(lambda: changes.append(1))
    window.act.select_all.trigger()
    assert len(changes) == 1
    assert window.editor.selected_device_ids() == list(rail_design.devices)
    assert window.inspector.device_ids == list(rail_design.devices)
    before = rail_design.to_data()
    window.act.delete.trigger()
    assert not rail_design.devices and not rail_design.groups
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert rail_design.to_data() == before


def test_selecting_a_folded_device_opens_its_group(make_window, rail_design):
    window = make_window(rail_design)
    scene = window.scene
    assert "server5" not in scene.device_items
    window.editor.select_ids(["server5"])
    assert scene.device_items["server5"].isSelected()
    assert window.editor.selected_device_ids() == ["server5"]


def test_frame_header_selects_the_group_so_it_drags_as_one(make_window, qtbot):
    design = Design("g")
    design.add_device(GpuServer(id="s1", nics=1, x=0, y=200))
    design.add_device(GpuServer(id="s2", nics=1, x=120, y=200))
    design.add_device(Leaf(id="leaf1", radix=8, x=60, y=0))
    design.add_link(Link(id="l1", a="s1", b="leaf1"))
    design.set_groups([Group(id="rack1", kind="rack", name="Rack one",
                             members=("s1", "s2", "leaf1"))])
    window = make_window(design)
    window.view.set_zoom(1.0)
    window.view.centerOn(QPointF(60, 100))
    QApplication.processEvents()
    frame = window.scene.frame_items["rack1"]
    header = frame.mapToScene(frame.shape().boundingRect().center())
    drag(qtbot, window, header, header + QPointF(90, 0))
    assert [design.device(d).x for d in ("s1", "s2", "leaf1")] == [90, 210, 150]
    assert window.undo_stack.count() == 1


def test_a_frame_name_tab_never_covers_the_group_above_it(make_window):
    """Zoomed out, the room between two stacked groups is less than a tab's height on
    screen: the lower group's tab goes inside its own outline instead of over the upper
    group (the pods of a generated fabric at fit); zoomed in, it sits above the outline."""
    design = Design("stacked")
    for i, y in enumerate((0, 200)):
        design.add_device(GpuServer(id=f"s{i}a", nics=1, x=0, y=y))
        design.add_device(GpuServer(id=f"s{i}b", nics=1, x=120, y=y))
    design.set_groups([Group(id="upper", kind="pod", name="Upper", members=("s0a", "s0b")),
                       Group(id="lower", kind="pod", name="Lower", members=("s1a", "s1b"))])
    window = make_window(design)
    scene = window.scene
    scene.set_semantic_zoom(False)
    upper = scene.group_rect("upper")
    for zoom, inside in ((1.0, False), (0.15, True)):
        window.view.set_zoom(zoom)
        QApplication.processEvents()
        frame = scene.frame_items["lower"]
        tab = frame.mapToScene(frame.shape().boundingRect()).boundingRect()
        assert frame.tab_inside() == inside, zoom
        assert not tab.intersects(upper), zoom
        assert tab.top() >= scene.group_rect("lower").top() if inside else \
            tab.bottom() <= scene.group_rect("lower").top()
    design.move_devices({"s0a": (0, -400), "s0b": (120, -400)})  # room again: outside
    QApplication.processEvents()
    assert not scene.frame_items["lower"].tab_inside()


def test_a_tile_says_whole_counts_and_keeps_its_text_on_screen(make_window, rail_design):
    from PySide6.QtGui import QFont, QFontMetricsF
    from PySide6.QtWidgets import QGraphicsItem

    from fabricstudio.ui.canvas.items.group_item import fitting_counts

    font = QFont()
    font.setPixelSize(12)
    metrics = QFontMetricsF(font)
    parts = ["256 GPUs", "32 servers", "8 switches"]
    wide = metrics.horizontalAdvance("256 GPUs · 32 servers") + 4
    assert fitting_counts(parts, metrics, wide) == "256 GPUs · 32 servers"  # no "· …"
    assert fitting_counts(parts, metrics, 10_000) == "256 GPUs · 32 servers · 8 switches"
    assert fitting_counts(parts, metrics, 20).endswith("…")
    window = make_window(rail_design)
    window.view.set_zoom(0.03)
    QApplication.processEvents()
    tiles = window.scene.group_items
    assert tiles and all(t.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
                         for t in tiles.values())  # small tiles keep their cached picture
    unit = next(g for g in tiles if rail_design.group(g).kind == "scalable_unit")
    window.view.set_zoom(0.15)
    window.view.centerOn(tiles[unit].sceneBoundingRect().topLeft())
    QApplication.processEvents()
    big = window.scene.group_items.get(unit)
    assert big is not None and big.cacheMode() == QGraphicsItem.CacheMode.NoCache


def test_an_outline_larger_than_the_view_is_cut_to_what_the_view_shows(qapp):
    """Zoomed in, a pod's outline is drawn only around the view (the corners the cut makes
    stay off screen); one inside the view is drawn whole."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter, QTransform
    from PySide6.QtWidgets import QWidget

    from fabricstudio.ui.canvas.items.group_item import on_screen_part

    widget = QWidget()
    widget.resize(400, 300)
    image = QImage(400, 300, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    painter.setTransform(QTransform.fromScale(2.0, 2.0))  # the view shows (0, 0, 200, 150)
    try:
        small = QRectF(10, 10, 50, 50)
        assert on_screen_part(painter, small, widget, 14.0) == small
        huge = QRectF(-50_000, -40_000, 100_000, 80_000)
        cut = on_screen_part(painter, huge, widget, 14.0)
        assert cut.contains(QRectF(0, 0, 200, 150))
        assert cut.width() < 300 and cut.height() < 250  # view plus a margin, not 100,000
        assert huge.contains(cut)
    finally:
        painter.end()
