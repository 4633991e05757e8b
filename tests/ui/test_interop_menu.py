"""File > Export to and File > Import…: the real menu actions, dialogs answered in tests."""

from __future__ import annotations

import yaml
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QFileDialog, QMessageBox

from fabricstudio.formats import load_design
from fabricstudio.interop import export_formats
from fabricstudio.ui.interop_menu import ExportOptionsDialog


def _file_menu(window):
    return next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")


def _submenu(menu, text):
    return next(a.menu() for a in menu.actions() if a.menu() and a.text() == text)


def test_export_menu_lists_every_format(make_window):
    window = make_window()
    export_menu = _submenu(_file_menu(window), "Export &to")
    export_menu.popup(window.mapToGlobal(window.rect().center()))  # fills on first show
    assert len(export_menu.actions()) == len(export_formats())
    export_menu.close()
    assert all(a.toolTip() for a in export_menu.actions())


def _press_ok_when_shown(choose=None):
    def press():
        dialog = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, ExportOptionsDialog) and w.isVisible())
        if choose:
            choose(dialog)
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    QTimer.singleShot(50, press)


def test_export_containerlab_rail_from_the_menu(make_window, examples_dir, tmp_path,
                                                monkeypatch):
    design = load_design(examples_dir / "rail-optimized-256-gpu-infiniband.json")
    window = make_window(design)
    target = tmp_path / "lab"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))

    def choose(dialog):
        dialog.part.setCurrentIndex(dialog.part.findData("rail"))
        dialog.number.setValue(2)
        dialog.switch_kind.setCurrentText("arista_ceos")

    _press_ok_when_shown(choose)
    window.interop.export_actions["containerlab"].trigger()
    doc = yaml.safe_load((tmp_path / "lab.clab.yml").read_text())
    nodes = doc["topology"]["nodes"]
    assert {n["kind"] for n in nodes.values()} == {"arista_ceos", "linux"}
    assert len(nodes) == 37 and "Exported" in window.statusBar().currentMessage()


def test_export_netbox_zip_from_the_menu(make_window, small_design, tmp_path, monkeypatch):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "set"), "Zip archive (*.zip)"))
    _press_ok_when_shown()
    window.interop.export_actions["netbox"].trigger()
    assert (tmp_path / "set.zip").stat().st_size > 0


def test_cancelled_export_writes_nothing(make_window, small_design, tmp_path, monkeypatch):
    window = make_window(small_design)
    monkeypatch.setattr(ExportOptionsDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    assert not window.interop.export("graphml", str(tmp_path / "x.graphml"))
    assert not (tmp_path / "x.graphml").exists()


def test_import_replaces_the_design_and_shows_guesses(make_window, small_design, tmp_path,
                                                      monkeypatch):
    window = make_window(small_design)
    clab = tmp_path / "lab.clab.yml"
    clab.write_text('name: t\ntopology:\n  nodes:\n    leaf1: {kind: srl}\n'
                    '    gpu1: {kind: linux}\n  links:\n'
                    '    - endpoints: ["leaf1:e1-1", "gpu1:eth1"]\n')
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(clab), ""))
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown.append(self.informativeText()))
    window.interop.act_import.trigger()
    assert set(window.design.devices) == {"leaf1", "gpu1"}
    assert set(window.scene.device_items) == {"leaf1", "gpu1"}
    assert shown and "Guessed" in shown[0] and window.undo_stack.count() == 0


def test_bad_import_keeps_the_design(make_window, small_design, tmp_path, monkeypatch):
    window = make_window(small_design)
    bad = tmp_path / "bad.dot"
    bad.write_text("graph { a -- ")
    errors = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: errors.append(a[2]))
    assert not window.interop.import_file(str(bad))
    assert errors and "DOT syntax error" in errors[0]
    assert set(window.design.devices) == {"gpu1", "leaf1", "leaf2", "mgmt1"}
