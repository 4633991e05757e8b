"""Files: save -> open round trip, title asterisk, unsaved-changes prompt, bad files."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QFileDialog, QMessageBox

from fabricstudio.formats import load_design
from fabricstudio.model import Link


def test_save_then_open_round_trips(make_window, small_design, tmp_path, monkeypatch):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    window.editor.place_devices("core", {}, QPointF(0, -400))
    target = tmp_path / "fabric"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert window.windowTitle().startswith("small*")
    assert window.files.save()
    saved = tmp_path / "fabric.json"
    assert saved.exists() and window.windowTitle() == "fabric.json - FabricStudio"
    assert not window.modified
    assert load_design(saved).to_data() == window.design.to_data()
    other = make_window()
    assert other.files.open(str(saved))
    assert other.design.to_data() == window.design.to_data()
    assert set(other.scene.device_items) == set(window.design.devices)
    assert other.files.recent_files()[0] == str(saved.resolve())
    assert other.undo_stack.count() == 0 and not other.modified


def test_unsaved_prompt_on_close_and_open(make_window, small_design, monkeypatch, tmp_path):
    window = make_window(small_design)
    window.editor.connect("gpu1", "leaf1")
    asked = []

    def answer(button):
        return lambda *a, **k: (asked.append(a[1]) or button)

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Cancel))
    window.close()
    assert asked == ["Unsaved changes"] and window.isVisible() and not window.closed
    assert not window.files.open(str(tmp_path / "whatever.json"))
    assert len(asked) == 2 and "l1" in window.design.links
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Discard))
    window.close()
    assert window.closed and not window.isVisible()


def test_clean_window_closes_without_asking(make_window, small_design, monkeypatch):
    window = make_window(small_design)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: (_ for _ in ()).throw(AssertionError("asked")))
    window.close()
    assert window.closed


def test_bad_file_shows_reason_and_keeps_design(make_window, small_design, tmp_path, monkeypatch):
    window = make_window(small_design)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "fabricstudio-design", "version": 1, "nodes": [{"id": "x"}]}')
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    before = window.design.to_data()
    assert not window.files.open(str(bad))
    assert shown and "bad.json" in shown[0]
    assert window.design.to_data() == before
    assert window.path is None


def test_new_clears_design_and_history(make_window, small_design, monkeypatch):
    window = make_window(small_design)
    window.design.add_link(Link(id="l9", a="gpu1", b="leaf2"))
    window.editor.connect("gpu1", "leaf1")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.files.new()
    assert not window.design.devices and not window.scene.device_items
    assert window.undo_stack.count() == 0 and not window.modified


def test_window_state_and_theme_are_remembered(make_window, settings):
    window = make_window()
    window.set_theme("light")
    window.removeDockWidget(window.analysis_dock)
    window.close()
    assert settings.value("theme") == "light" and settings.value("windowState") is not None
    again = make_window()
    assert again.scene.theme.name == "light" and again.act.light.isChecked()


def test_layout_saved_with_other_docks_is_not_restored(make_window, settings):
    from PySide6.QtWidgets import QDockWidget

    window = make_window()
    window.history_dock.close()
    window.close()
    settings.setValue("windowDocks", "some,other,docks")
    again = make_window()
    assert not again.history_dock.isHidden()  # default layout, not the stale one
    again.close()
    assert settings.value("windowDocks") == again._dock_signature()
    assert "dock-history" in again._dock_signature()
    assert all(d.objectName() for d in again.findChildren(QDockWidget))
