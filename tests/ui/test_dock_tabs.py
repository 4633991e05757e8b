"""Tabbed docks leave no stray tab bar: every tab bar shown inside the window names only docks
that are open. Qt kept the Charts | Compare fabrics tab bar over the Devices panel when a bottom
dock was shown before the window's first layout, because those docks were hidden after they
had been grouped."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QDockWidget, QTabBar

from fabricstudio.ui.main_window import MainWindow


def _shown_tab_bars(window) -> list[list[str]]:
    """The tabs of each tab bar the user can see: visible and inside the window."""
    window.grab()  # lays the window out and paints it as the screen would
    bars = []
    for bar in window.findChildren(QTabBar):
        if bar.parent() is not window or not bar.isVisible() or bar.count() == 0:
            continue
        if window.rect().intersects(bar.geometry()):
            bars.append([bar.tabText(i) for i in range(bar.count())])
    return bars


def _assert_no_stray_tab_bar(window) -> None:
    opened = {d.windowTitle() for d in window.findChildren(QDockWidget) if d.isVisible()}
    for titles in _shown_tab_bars(window):
        assert set(titles) <= opened, f"stray tab bar {titles}; open docks {sorted(opened)}"


def _settle() -> None:
    for _ in range(10):
        QApplication.processEvents()


def test_a_bottom_dock_shown_at_once_leaves_no_stray_tab_bar(qtbot, settings):
    window = MainWindow(None, None, settings=settings)
    qtbot.addWidget(window)
    window.resize(1920, 1080)
    window.show()
    _settle()
    window.sweep.dock.show()  # What-if > Sweep… shows it before it asks for a file
    _settle()
    _assert_no_stray_tab_bar(window)
    for key in ("charts", "compare"):  # as after a run
        window.simulation.docks[key].show()
    window.simulation.docks["charts"].raise_()
    _settle()
    assert [t for t in _shown_tab_bars(window) if "Charts" in t] == \
        [["Charts", "Compare fabrics", "Sweep"]]
    _assert_no_stray_tab_bar(window)
    window.close()
    window.analysis.wait()  # closing abandons a slow analysis; it must still end
