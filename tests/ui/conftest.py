"""Fixtures for the designer tests: a main window with private settings, gesture helpers."""

from __future__ import annotations

import gc

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from fabricstudio.formats import load_design
from fabricstudio.model import Design, GpuServer, Leaf, MgmtSwitch
from fabricstudio.ui.main_window import MainWindow


@pytest.fixture(autouse=True)
def background_work_ends_with_the_test(qapp):
    """After each test (its windows closed, their workers abandoned or stopped): wait for
    every background worker, delete what was scheduled for deletion and collect the garbage
    on this (the GUI) thread, so that no Qt object of this test is destroyed later from a
    thread of the next one."""
    yield
    from fabricstudio.ui.background import running_workers, wait_for_background_work

    assert wait_for_background_work(60), f"still running: {running_workers()}"
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture
def settings(tmp_path):
    """QSettings in a temporary ini file (never the user's)."""
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make_window(qtbot, settings, monkeypatch):
    """Factory: a shown MainWindow on a design; closed without prompts at teardown."""
    windows = []

    def make(design: Design | None = None, path=None) -> MainWindow:
        window = MainWindow(design, path, settings=settings)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)
    for window in windows:
        window.close()
        assert window.closed
        assert not window.analysis.timer.isActive()
        window.analysis.wait()  # closing abandons a slow analysis; it must still end
        assert not window.analysis.running
        window.deleteLater()


@pytest.fixture
def sim_window(qtbot, examples_dir, settings, monkeypatch):
    """A shown window on two-servers-one-leaf.json (closing discards its edits); presenter
    mode is left and the simulation stopped at teardown."""
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)
    window = MainWindow(load_design(examples_dir / "two-servers-one-leaf.json"),
                        settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.simulation.presenter.leave()
    window.simulation.shutdown()


def run_synthetic(qtbot, window: MainWindow, frames: int = 12):
    """Run a scripted simulation of ``frames`` frames (tests.ui.simview.synthetic) by
    clicking Run, and wait until it has finished and the view has caught up."""
    from fabricstudio.ui.simview import install_simulation_ui
    from tests.ui.simview.synthetic import factory

    sim = install_simulation_ui(window, factory())
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(float(frames))
    qtbot.mouseClick(sim.scenario.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: sim.controller.state == "finished", timeout=10_000)
    qtbot.waitUntil(lambda: not sim.controller.timer.isActive(), timeout=5_000)
    return sim


def engine_window(qtbot, path):
    """(window, simulation view) on the design file ``path``, running the real engine."""
    from fabricstudio.ui.simview import install_simulation_ui
    from fabricstudio.ui.simview.source import engine_source

    window = MainWindow(load_design(path))
    qtbot.addWidget(window)
    return window, install_simulation_ui(window, engine_source)


def menu_action(window: MainWindow, *path: str) -> QAction:
    """An action as reached through the menu bar: menu titles, submenu titles, then the
    item's text (each without '&' and a trailing '…')."""
    def plain(label: str) -> str:
        return label.replace("&", "").rstrip("…")

    actions = window.menuBar().actions()
    for depth, name in enumerate(path):
        found = next((a for a in actions if plain(a.text()) == name), None)
        if found is None:
            raise LookupError(" > ".join(path[:depth + 1]))
        if depth == len(path) - 1:
            return found
        actions = found.menu().actions()
    raise LookupError("an empty menu path")


@pytest.fixture
def small_design() -> Design:
    """A GPU server, two leaves and a management switch, apart on the canvas."""
    design = Design("small")
    design.add_device(GpuServer(id="gpu1", nics=2, nic_speed_gbps=400, x=0, y=300))
    design.add_device(Leaf(id="leaf1", radix=8, port_speed_gbps=400, x=-150, y=0))
    design.add_device(Leaf(id="leaf2", radix=8, port_speed_gbps=400, x=150, y=0))
    design.add_device(MgmtSwitch(id="mgmt1", x=300, y=300))
    return design


def viewport_point(window: MainWindow, scene_point: QPointF) -> QPoint:
    """Viewport coordinates of a scene point."""
    return window.view.mapFromScene(scene_point)


def drag(qtbot, window: MainWindow, start: QPointF, end: QPointF, steps: int = 4,
         modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """Press at ``start``, move in steps, release at ``end`` (scene coordinates)."""
    viewport = window.view.viewport()
    a, b = viewport_point(window, start), viewport_point(window, end)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, modifier, a)
    for i in range(1, steps + 1):
        p = a + (b - a) * i / steps
        qtbot.mouseMove(viewport, QPoint(int(p.x()), int(p.y())))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifier, b)


def click_menu_item(qtbot, window: MainWindow, title: str, text: str) -> None:
    """Click ``title`` in the menu bar, then the item ``text`` of the menu that opens (real
    mouse clicks, as a user does; '&' mnemonics and a trailing '…' are ignored)."""
    def plain(label: str) -> str:
        return label.replace("&", "").rstrip("…")

    bar = window.menuBar()
    top = next((a for a in bar.actions() if plain(a.text()) == plain(title)), None)
    assert top is not None and top.menu() is not None, f"no menu {title!r}"
    menu = top.menu()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    qtbot.waitUntil(menu.isVisible, timeout=5_000)
    item = next((a for a in menu.actions() if plain(a.text()) == plain(text)), None)
    assert item is not None, f"{text!r} not in {[a.text() for a in menu.actions()]}"
    assert item.isEnabled(), f"{text!r} is disabled"
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=5_000)
