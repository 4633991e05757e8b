"""The scenario panel's buttons stay in view whatever rows its workload shows: the dock scrolls
only vertically, so a row wider than the panel was built for (the Training step's "Compute per
step") used to push Compare fabrics half out of the dock on a 1366 x 768 screen."""

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QScrollArea

from tests.ui.simview.test_engines import pick


def scroll_area_of(widget) -> QScrollArea:
    area = widget.parentWidget()
    while not isinstance(area, QScrollArea):
        area = area.parentWidget()
    return area


@pytest.mark.parametrize("workload", ["training", "llm_training"])
def test_compare_fabrics_is_whole_and_clickable_at_1366_by_768(qtbot, sim_window, workload):
    window, sim = sim_window, sim_window.simulation
    window.resize(1366, 768)
    panel = sim.scenario
    pick(qtbot, panel.workload, workload)
    button = panel.compare_button
    viewport = scroll_area_of(button).viewport()

    def whole() -> bool:
        right = button.mapTo(viewport, QPoint(button.width(), 0)).x()
        return right <= viewport.width() and button.visibleRegion().boundingRect() == \
            button.rect()

    # the new rows are laid out (the panel never gets less than its minimum width) ...
    qtbot.waitUntil(lambda: panel.width() >= panel.minimumSizeHint().width(), timeout=3000)
    qtbot.wait(50)
    assert whole(), (button.mapTo(viewport, QPoint(button.width(), 0)).x(), viewport.width())
    # the pixel at the button's centre belongs to it (nothing covers or clips it) ...
    centre = button.rect().center()
    assert window.childAt(button.mapTo(window, centre)) is button
    # ... and a click there starts the comparison
    with qtbot.waitSignal(panel.compare_requested, timeout=3000):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=centre)
    assert sim.compare.running
    sim.stop()
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=30_000)
