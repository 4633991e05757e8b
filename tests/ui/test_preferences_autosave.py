"""THE Preferences dialog (registry, QSettings, through the real Edit > Preferences action)
and autosave with crash recovery (offered at the next start; accepting restores)."""

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from fabricstudio.formats import dump_design, load_design
from fabricstudio.model import Design, GpuServer
from fabricstudio.ui import preferences as prefs
from fabricstudio.ui.autosave import find_recoveries, recovery_folder
from fabricstudio.ui.dialogs.preferences import PreferencesDialog


def _press(text: str, seen: dict | None = None):
    """A script for :func:`_answer`: note the box's informative text in ``seen``, then click
    its button ``text``."""
    def script(box) -> None:
        if seen is not None:
            seen["text"] = box.informativeText()
        next(b for b in box.buttons() if b.text() == text).click()

    return script


def _answer(qtbot, script) -> list:
    """Run ``script(dialog)`` on the next modal dialog."""
    done: list = []

    def poke() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, poke)
            return
        script(dialog)
        done.append(dialog)

    QTimer.singleShot(0, poke)
    return done


def _click_menu_item(qtbot, window, menu_title: str, item_text: str) -> None:
    """Open ``menu_title`` in the window's menu bar and click ``item_text`` with the mouse."""
    bar = window.menuBar()
    entry = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    menu = entry.menu()
    action = next(a for a in menu.actions() if a.text().replace("&", "").startswith(item_text))
    menu.popup(bar.mapToGlobal(bar.actionGeometry(entry).bottomLeft()))
    qtbot.waitExposed(menu)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def test_preferences_dialog_stores_and_applies_settings(make_window, qtbot, settings):
    window = make_window()
    pages = {}

    def fill(dialog) -> None:
        assert isinstance(dialog, PreferencesDialog)
        for i in range(dialog.tabs.count()):
            pages[dialog.tabs.tabText(i)] = i
        dialog.fields["theme"].setCurrentIndex(dialog.fields["theme"].findData("light"))
        dialog.fields["autosaveSeconds"].setValue(5)
        dialog.fields["uiScale"].setCurrentIndex(dialog.fields["uiScale"].findData(150))
        dialog.fields["exportLongestSide"].setValue(4096)
        dialog.accept()

    done = _answer(qtbot, fill)
    _click_menu_item(qtbot, window, "Edit", "Preferences")
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done and list(pages) == ["General", "Canvas", "Files", "Export", "Presenter"]
    assert window.scene.theme.name == "light"
    assert window.autosave.timer.interval() == 5000 and window.autosave.timer.isActive()
    assert prefs.get(settings, "uiScale") == 150
    assert prefs.get(settings, "exportLongestSide") == 4096
    assert settings.value("autosaveSeconds") in (5, "5")


def test_restore_defaults_and_cancel_change_nothing(make_window, qtbot, settings):
    from PySide6.QtWidgets import QDialogButtonBox

    window = make_window()

    def fill(dialog) -> None:
        dialog.fields["autosaveSeconds"].setValue(10)
        buttons = dialog.findChild(QDialogButtonBox)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).click()
        assert dialog.value("autosaveSeconds") == 60
        dialog.fields["minimap"].setChecked(False)
        buttons.button(QDialogButtonBox.StandardButton.Cancel).click()

    _answer(qtbot, fill)
    window.order.act_preferences.trigger()
    assert window.canvas_tools.act_minimap.isChecked()
    assert settings.value("minimap") is None


def test_a_refused_cost_book_keeps_the_dialog_open_with_the_reason(make_window, qtbot,
                                                                  tmp_path):
    from PySide6.QtWidgets import QDialogButtonBox

    bad = tmp_path / "prices.json"
    bad.write_text("{not json")
    window = make_window()
    seen = {}

    def fill(dialog) -> None:
        assert dialog.cost_book is dialog.fields["costBookPath"]
        dialog.fields["theme"].setCurrentIndex(dialog.fields["theme"].findData("light"))
        dialog.cost_book.edit.setText(str(bad))
        ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
        ok.click()
        seen["open"] = dialog.isVisible()
        seen["error"] = dialog.error.text()
        dialog.reject()

    done = _answer(qtbot, fill)
    _click_menu_item(qtbot, window, "Edit", "Preferences")
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert seen["open"] and seen["error"].startswith("Refused: ") and "prices.json" in seen["error"]
    assert "\n" not in seen["error"]
    assert window.scene.theme.name == "dark"  # nothing was applied
    assert window.costs.path == ""


def test_a_registered_setting_appears_with_its_default_and_range(make_window, qtbot):
    applied = []
    prefs.register(prefs.Setting("testWidth", "Test width", default=3, kind="int",
                                 page="Presenter", minimum=1, maximum=9,
                                 apply=lambda window, value: applied.append(value)))
    try:
        window = make_window()
        seen = {}

        def fill(dialog) -> None:
            seen["tabs"] = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
            spin = dialog.fields["testWidth"]
            seen["range"] = (spin.minimum(), spin.maximum(), spin.value())
            spin.setValue(7)
            dialog.accept()

        _answer(qtbot, fill)
        window.order.act_preferences.trigger()
        assert seen["tabs"][-1] == "Presenter" and seen["range"] == (1, 9, 3)
        assert applied == [7] and prefs.get(window.settings, "testWidth") == 7
        window.settings.setValue("testWidth", "garbage")
        assert prefs.get(window.settings, "testWidth") == 3  # unusable value: the default
    finally:
        del prefs.REGISTRY["testWidth"]


@pytest.fixture
def modified_window(make_window, settings):
    settings.setValue("autosaveSeconds", 0)  # the test saves by hand
    window = make_window()
    window.editor.place_devices("gpu_server", {}, QPointF(0, 0), count=3)
    return window


@pytest.mark.parametrize("in_child", [False, True], ids=["thread", "child process"])
def test_autosave_writes_a_recovery_file_off_the_ui_thread(modified_window, monkeypatch,
                                                           in_child):
    from fabricstudio.ui import autosave
    from fabricstudio.ui.background import ChildCall

    if in_child:  # as for a large design: written by a child process
        monkeypatch.setattr(autosave, "CHILD_PROCESS_FROM", 1)
    window = modified_window
    assert window.autosave.save_now()
    assert isinstance(window.autosave._worker, ChildCall) == in_child
    window.autosave.wait(60)
    QApplication.processEvents()
    recovered = load_design(window.autosave.path)
    assert recovered.to_data() == window.design.to_data()
    meta = json.loads(window.autosave.meta_path.read_text())
    assert meta["name"] == window.design.name and meta["saved_at"] <= time.time()
    assert not window.autosave.save_now()  # nothing new to write
    assert find_recoveries(window.autosave.folder) == []  # ours: locked, not offered


def test_save_and_clean_close_remove_the_recovery_file(modified_window, tmp_path):
    window = modified_window
    window.autosave.save_now()
    window.autosave.wait()
    assert window.autosave.path.exists()
    assert window.files._save_to(str(tmp_path / "saved.json"))
    assert not window.autosave.path.exists()


def _crashed_session(folder, design: Design, source: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "4242-1.json").write_text(dump_design(design))
    (folder / "4242-1.meta.json").write_text(json.dumps(
        {"source": source, "name": design.name, "saved_at": time.time() - 60, "pid": 4242}))


def test_after_a_crash_the_next_start_offers_the_recovery(make_window, settings, qtbot,
                                                          tmp_path):
    lost = Design("lost work")
    lost.add_device(GpuServer(id="gpu7", x=10, y=20))
    _crashed_session(tmp_path / "recovery", lost, str(tmp_path / "plan.json"))
    seen: dict = {}
    done = _answer(qtbot, _press("Restore", seen))
    window = make_window()
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert "“plan.json”" in seen["text"]
    assert list(window.design.devices) == ["gpu7"]
    assert window.modified and window.path == str(tmp_path / "plan.json")
    assert window.windowTitle().startswith("plan.json*")
    assert not (tmp_path / "recovery" / "4242-1.json").exists()


def test_discarding_the_recovery_removes_it(make_window, qtbot, tmp_path, monkeypatch):
    _crashed_session(tmp_path / "recovery", Design("old"))
    done = _answer(qtbot, _press("Discard"))
    window = make_window()
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert not window.design.devices and not window.modified
    assert not list((tmp_path / "recovery").glob("4242-1*"))
    monkeypatch.setattr(QMessageBox, "exec", lambda *a: pytest.fail("asked twice"))
    assert not window.autosave.offer_recovery()


_CRASHING_SESSION = textwrap.dedent("""
    import os, sys
    from PySide6.QtCore import QPointF, QSettings
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.main_window import MainWindow

    app = ensure_app()
    settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.editor.place_devices("gpu_server", {}, QPointF(0, 0), count=2)
    window.editor.place_devices("leaf", {}, QPointF(0, -300), count=1)
    assert window.autosave.save_now()
    window.autosave.wait()
    print(",".join(sorted(window.design.devices)), flush=True)
    os._exit(3)  # a crash: no close, no cleanup, the lock file stays behind
""")


def test_a_real_crash_is_recovered_at_the_next_start(make_window, settings, qtbot):
    """A child FabricStudio autosaves and dies; the next window offers its work back."""
    settings.setValue("autosaveSeconds", 0)
    settings.sync()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    child = subprocess.run([sys.executable, "-c", _CRASHING_SESSION, settings.fileName()],
                           capture_output=True, text=True, env=env, timeout=120)
    assert child.returncode == 3, child.stderr[-2000:]
    lost = child.stdout.strip().splitlines()[-1].split(",")
    folder = recovery_folder(settings)
    assert len(list(folder.glob("*.lock"))) == 1  # the dead session's lock stayed behind
    seen: dict = {}
    done = _answer(qtbot, _press("Restore", seen))
    window = make_window()
    qtbot.waitUntil(lambda: bool(done), timeout=10000)
    assert "unsaved changes from" in seen["text"]
    assert sorted(window.design.devices) == lost and len(lost) == 3
    assert window.modified
    assert not list(folder.glob("*.json"))  # the recovery was taken: nothing is offered again
