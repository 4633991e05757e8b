"""Palette search, inspector editing with validation, fabric settings, the wizard."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog

from fabricstudio.model import Technology
from fabricstudio.ui.dialogs.fabric_settings import FabricSettingsDialog
from fabricstudio.ui.dialogs.wizard import FabricWizard
from fabricstudio.ui.panels.analysis import OBJECTS_ROLE


def test_palette_search_filters_entries(make_window):
    window = make_window()
    window.palette.search.setText("spine")
    assert window.palette.visible_titles() == ["Spine switch", "Core / super-spine"] or \
        all("spine" in t.lower() for t in window.palette.visible_titles())
    window.palette.search.setText("storage 200G")
    assert window.palette.visible_titles() == ["Storage server"]
    window.palette.search.clear()
    assert len(window.palette.visible_titles()) == window.palette.list.count()


def test_inspector_edits_several_devices_at_once(make_window, small_design):
    window = make_window(small_design)
    window.editor.select_ids(["leaf1", "leaf2"])
    inspector = window.inspector
    assert inspector.device_ids == ["leaf1", "leaf2"]
    editor = inspector.editors["radix"]
    editor.widget.setText("32")
    editor.widget.editingFinished.emit()
    assert window.design.device("leaf1").radix == 32 == window.design.device("leaf2").radix
    assert window.undo_stack.count() == 1
    assert "gpus" not in inspector.editors  # not a shared field


def test_inspector_refuses_bad_value_and_keeps_design(make_window, small_design):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    window.editor.select_ids(["leaf1"])
    before = window.design.to_data()
    editor = window.inspector.editors["radix"]
    editor.widget.setText("0")
    editor.widget.editingFinished.emit()
    assert window.design.to_data() == before
    assert not window.inspector.error.isHidden()
    assert "radix" in window.inspector.error.text()
    assert editor.widget.text() == "8"
    editor.widget.setText("many")
    editor.widget.editingFinished.emit()
    assert "not a whole number" in window.inspector.error.text()
    assert window.design.to_data() == before and window.undo_stack.count() == 1


def test_inspector_shows_mixed_values(make_window, small_design):
    window = make_window(small_design)
    window.design.update_device("leaf2", radix=16)
    window.editor.select_ids(["leaf1", "leaf2"])
    widget = window.inspector.editors["radix"].widget
    assert widget.text() == "" and widget.placeholderText() == "mixed"


def test_fabric_settings_dialog_validates(make_window):
    window = make_window()
    dialog = FabricSettingsDialog(window.design.fabric, window)
    dialog.editors[("ecn", "kmin_bytes_at_100g")].widget.setText("5000000")
    dialog.accept()
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert "Kmax" in dialog.error.text()
    dialog.editors[("ecn", "kmin_bytes_at_100g")].widget.setText("100000")
    dialog.editors[("mtu_bytes",)].widget.setText("9000")
    dialog.accept()
    assert dialog.result_settings.mtu_bytes == 9000
    assert dialog.result_settings.ecn.kmin_bytes_at_100g == 100000
    dialog.deleteLater()


def test_technology_switch_in_toolbar(make_window, small_design):
    window = make_window(small_design)
    combo = window.act.tech_combo
    combo.activated.emit(combo.findData(Technology.INFINIBAND))
    assert window.design.fabric.technology is Technology.INFINIBAND
    assert "InfiniBand" in window.tech_label.text()
    window.undo_stack.undo()
    assert window.design.fabric.technology is Technology.ROCE
    assert combo.currentData() == Technology.ROCE


def test_wizard_preview_and_one_step_build(make_window, small_design, monkeypatch):
    window = make_window(small_design)
    before = window.design.to_data()
    seen = {}

    def run(self):
        self.family.setCurrentIndex(self.family.findData("leaf-spine"))
        self.gpus.setValue(512)
        self.storage.setValue(4)
        self.management.setChecked(True)
        seen["preview"] = self.preview.text()
        seen["summary"] = self.build.summary
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(FabricWizard, "exec", run)
    window.act.wizard.trigger()
    summary = seen["summary"]
    assert "512 in 64 servers" in seen["preview"]
    assert summary["gpus"] == 512
    servers = window.design.devices_of_kind("gpu_server")
    assert sum(s.gpus for s in servers) == 512
    assert len(window.design.devices_of_kind("storage_server")) == 4
    assert len(window.design.links) == summary["links"]
    switches = [d for d in window.design.devices.values() if d.is_switch]
    assert len(switches) == summary["switches_total"]
    assert window.undo_stack.count() == 1
    scene = window.scene  # every device drawn: itself, or inside its collapsed group's tile
    shown = set(scene.device_items) | set(scene.group_items)
    assert {scene.folding.rep[d] for d in window.design.devices} == shown
    assert scene.group_items  # zoomed out to fit, semantic zoom folds the racks
    window.undo_stack.undo()
    assert window.design.to_data() == before


def test_wizard_explains_impossible_request(make_window):
    window = make_window()
    wizard = FabricWizard(Technology.INFINIBAND, window)
    wizard.gpus.setValue(100)
    wizard.gpus_per_server.setValue(8)
    assert wizard.build is None
    assert "whole number" in wizard.preview.text()
    assert not wizard.buttons.buttons()[0].isEnabled()
    wizard.deleteLater()


def test_analysis_dock_lists_issues_and_selects_their_objects(make_window, small_design, qtbot):
    window = make_window(small_design)
    panel = window.analysis
    panel.start_analysis()
    panel.wait()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=5000)
    problems = panel.tree.topLevelItem(0)
    issues = [problems.child(i) for i in range(problems.childCount())]
    unconnected = next(i for i in issues if "gpu1" in (i.data(0, OBJECTS_ROLE) or []))
    panel.tree.itemClicked.emit(unconnected, 0)
    selected = {i.device_id for i in window.scene.selectedItems() if hasattr(i, "device_id")}
    assert "gpu1" in selected
    texts = [panel.tree.topLevelItem(i).text(0) for i in range(panel.tree.topLevelItemCount())]
    assert texts[1] == "Key figures" and texts[3] == "Bill of materials"
    assert texts[2].startswith("Cost and power (")


def test_analysis_follows_edits(make_window, small_design, qtbot):
    window = make_window(small_design)
    panel = window.analysis
    panel.start_analysis()
    panel.wait()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=5000)
    links_before = panel.report.counts.links
    window.editor.connect("gpu1", "leaf1")
    assert panel.timer.isActive()  # debounced, not run on the spot
    panel.timer.stop()
    panel.start_analysis()
    panel.wait()
    qtbot.waitUntil(lambda: panel.report.counts.links == links_before + 1, timeout=5000)


def test_inspector_edits_link_ports_and_shows_port_usage(make_window, small_design):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    window.editor.select_ids(["gpu1"])
    assert window.inspector._ports_label.text() == "compute 1/2 · management 0/1"
    window.editor.select_ids(["l1"])
    editor = window.inspector.editors["b_port"]
    editor.widget.setText("5")
    editor.widget.editingFinished.emit()
    assert window.design.link("l1").b_port == 5
    editor.widget.setText("99")
    editor.widget.editingFinished.emit()
    assert window.design.link("l1").b_port == 5
    assert "out of range" in window.inspector.error.text()


def test_find_and_nudge(make_window, small_design, qtbot):
    from PySide6.QtCore import Qt

    window = make_window(small_design)
    assert window.editor.find("LEAF") == ["leaf1", "leaf2"]
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_Right)
    assert window.design.device("leaf1").x == -150 + 15 and window.design.device("leaf2").x == 165
    window.undo_stack.undo()
    assert window.design.device("leaf1").x == -150


def test_wizard_can_add_next_to_the_design(make_window, small_design, monkeypatch):
    window = make_window(small_design)
    before = set(window.design.devices)

    def run(self):
        assert self.add_alongside.isEnabled()
        self.family.setCurrentIndex(self.family.findData("leaf-spine"))
        self.gpus.setValue(64)
        self.add_alongside.setChecked(True)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(FabricWizard, "exec", run)
    window.act.wizard.trigger()
    added = set(window.design.devices) - before
    assert before <= set(window.design.devices)
    assert sum(window.design.device(d).gpus for d in added
               if window.design.device(d).kind == "gpu_server") == 64
    assert min(window.design.device(d).x for d in added) > 300
    racks = [g for g in window.design.groups.values() if g.kind == "rack"]
    assert sorted(m for r in racks for m in r.members) == sorted(added)  # racks came along
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert set(window.design.devices) == before and not window.design.groups
