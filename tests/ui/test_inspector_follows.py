"""The inspector follows every change (undo, redo, a generated fabric) and shows a selected
group: its name, kind, collapsed state and contents, edited as one undo step each."""

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric


def _settle() -> None:
    QApplication.processEvents()


def test_design_summary_follows_undo_redo_and_the_wizard(make_window, small_design):
    window = make_window(small_design)
    summary = window.inspector._summary
    assert "0 links" in summary.text()
    window.editor.connect("gpu1", "leaf1")
    window.scene.clearSelection()
    _settle()
    assert "1 links" in summary.text() or "1 link" in summary.text()
    window.act.undo.trigger()
    _settle()
    assert "0 links" in summary.text()
    window.act.redo.trigger()
    _settle()
    assert "0 links" not in summary.text()
    window.dialogs.apply_build(build_fabric(RailOptimizedSpec(gpus=64)))
    _settle()
    assert window.inspector._summary.text().startswith("64 GPUs in 8 servers")


def test_a_selection_removed_by_undo_leaves_the_inspector(make_window, small_design):
    window = make_window(small_design)
    ids = window.editor.place_devices("leaf", {}, QPointF(600, 0))
    assert window.inspector.device_ids == ids
    window.act.undo.trigger()
    _settle()
    assert window.inspector.device_ids == []
    assert window.inspector.title.text() == small_design.name


def test_a_selected_group_is_shown_and_edited(make_window):
    design = build_fabric(RailOptimizedSpec(gpus=256)).to_design()
    window = make_window(design)
    window.editor.select_ids(["su1"])
    inspector = window.inspector
    assert inspector.group_id == "su1"
    assert inspector.title.text() == "SU 1"
    assert "32 GPU servers (256 GPUs)" in inspector._group_summary.text()
    name = inspector.editors["name"].widget
    name.setText("Hall A unit")
    name.editingFinished.emit()
    assert design.group("su1").name == "Hall A unit"
    assert window.undo_stack.undoText() == "Rename SU 1"
    window.act.undo.trigger()
    _settle()
    assert inspector.title.text() == "SU 1" and name.text() == "SU 1"
    collapsed = inspector.editors["collapsed"].widget
    collapsed.click()
    assert design.group("su1").collapsed and window.scene.is_collapsed("su1")
    assert window.undo_stack.undoText() == "Collapse SU 1"


def test_a_rack_shows_its_height(make_window):
    design = build_fabric(RailOptimizedSpec(gpus=256)).to_design()
    window = make_window(design)
    window.editor.select_ids(["rack1"])
    assert window.inspector.group_id == "rack1"
    height = window.inspector.editors["height_u"].widget
    assert height.text() == "42"
    height.setText("0")
    height.editingFinished.emit()
    assert "Refused" in window.inspector.error.text() and design.group("rack1").height_u == 42
