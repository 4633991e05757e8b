"""What the user touches: the real toolbar buttons, menu items and keys (not the slots behind
them).  A lambda wired to ``clicked(bool)`` once passed every test that called ``jump()``
directly and crashed every click; two actions sharing a key made both keys dead."""

from __future__ import annotations

from collections import defaultdict

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from fabricstudio.model import GpuServer
from fabricstudio.model.commands import AddDevice
from fabricstudio.ui.main_window import MainWindow
from fabricstudio.ui.simview import install_simulation_ui
from tests.ui.conftest import menu_action, run_synthetic
from tests.ui.simview.synthetic import factory


@pytest.fixture
def window(sim_window):
    return sim_window


def test_jump_buttons_on_the_toolbar_jump_when_clicked(qtbot, window):
    sim = run_synthetic(qtbot, window)
    stream = sim.controller.stream
    button = sim.controls.jump_buttons["first_pause"]
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # raised KeyError: False before
    assert sim.controller.shown_index == 1  # the synthetic run pauses on odd frames
    assert sim.controls.scrubber.value() == 1
    qtbot.mouseClick(sim.controls.jump_buttons["peak_queue"], Qt.MouseButton.LeftButton)
    assert sim.controller.shown_index == len(stream) - 1  # the queue grows every frame
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    qtbot.mouseClick(sim.controls.jump_buttons["first_drop"], Qt.MouseButton.LeftButton)
    assert any("No drop in this run" in m for m in messages)


def test_step_buttons_and_play_button_work_when_clicked(qtbot, window):
    sim = run_synthetic(qtbot, window)
    sim.controller.seek_index(3)
    qtbot.mouseClick(sim.controls.step_button, Qt.MouseButton.LeftButton)
    assert sim.controller.shown_index == 4
    qtbot.mouseClick(sim.controls.step_back, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(sim.controls.step_back, Qt.MouseButton.LeftButton)
    assert sim.controller.shown_index == 2
    qtbot.mouseClick(sim.controls.play_button, Qt.MouseButton.LeftButton)
    assert sim.controller.playing
    assert sim.controls.play_button.text() == "Pause"
    qtbot.mouseClick(sim.controls.play_button, Qt.MouseButton.LeftButton)
    assert not sim.controller.playing


def test_play_before_any_run_says_why_nothing_plays(qtbot, window):
    sim = install_simulation_ui(window, factory())
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    qtbot.mouseClick(sim.controls.play_button, Qt.MouseButton.LeftButton)
    assert not sim.controller.playing
    assert any("Nothing to play yet" in m and "Run" in m for m in messages)
    messages.clear()
    window.statusBar().clearMessage()
    qtbot.mouseClick(sim.controls.jump_buttons["first_pause"], Qt.MouseButton.LeftButton)
    assert any("Nothing to play yet" in m for m in messages)
    messages.clear()
    window.statusBar().clearMessage()
    menu_action(window, "Simulation", "Play / pause").trigger()
    assert any("Nothing to play yet" in m for m in messages)


def test_simulation_menu_items_work_when_triggered(qtbot, window):
    sim = install_simulation_ui(window, factory())
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(12.0)
    menu_action(window, "Simulation", "Run").trigger()
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    qtbot.waitUntil(lambda: not sim.controller.timer.isActive(), timeout=5_000)
    menu_action(window, "Simulation", "Jump to first PAUSE").trigger()
    assert sim.controller.shown_index == 1
    menu_action(window, "Simulation", "Step forward").trigger()
    assert sim.controller.shown_index == 2
    menu_action(window, "Simulation", "Step back").trigger()
    assert sim.controller.shown_index == 1
    menu_action(window, "Simulation", "Jump to peak queue").trigger()
    assert sim.controller.shown_index == len(sim.controller.stream) - 1


def test_jump_keys_reach_the_jump(qtbot, window):
    sim = run_synthetic(qtbot, window)
    window.activateWindow()
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_F6)
    assert sim.controller.shown_index == 1
    qtbot.keyClick(window.view, Qt.Key.Key_Right, Qt.KeyboardModifier.ControlModifier)
    assert sim.controller.shown_index == 2


@pytest.mark.parametrize("keys", [(Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                                   | Qt.KeyboardModifier.ShiftModifier),
                                  (Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)])
def test_redo_keys_redo(qtbot, window, keys):
    install_simulation_ui(window, factory())
    window.undo_stack.run(AddDevice(GpuServer(id="extra", x=500, y=500)))
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert "extra" not in window.design.devices
    qtbot.keyClick(window.view, *keys)
    assert "extra" in window.design.devices


def test_actual_size_key_zooms_to_100_percent(qtbot, window):
    window.view.zoom_by(0.5)
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.view.transform().m11() == pytest.approx(1.0)


def _bindings(window: MainWindow) -> dict[str, list[str]]:
    """Key sequence -> what it triggers: every enabled action of the window (menus, toolbars,
    the window itself) and the menu bar's Alt+letter keys."""
    owners: dict[str, list[str]] = defaultdict(list)
    seen = set()
    actions = window.findChildren(QAction)
    for menu in window.findChildren(QMenu):
        actions += menu.actions()
    for action in actions:
        if id(action) in seen or not action.isEnabled():
            continue
        seen.add(id(action))
        for key in action.shortcuts():
            if not key.isEmpty():
                owners[key.toString()].append(action.text().replace("&", ""))
    for top in window.menuBar().actions():
        mnemonic = QKeySequence.mnemonic(top.text())
        if not mnemonic.isEmpty():
            owners[mnemonic.toString()].append(f"menu {top.text().replace('&', '')}")
    return owners


def test_no_two_enabled_actions_share_a_key(qtbot, window):
    install_simulation_ui(window, factory())
    window.undo_stack.run(AddDevice(GpuServer(id="extra", x=500, y=500)))
    window.undo_stack.undo()  # Undo and Redo both enabled
    owners = _bindings(window)
    assert owners  # the check sees the shortcuts at all
    assert "Ctrl+Y" in owners and "Ctrl+Shift+Z" in owners
    shared = {key: names for key, names in owners.items() if len(names) > 1}
    assert not shared, f"keys bound twice: {shared}"
