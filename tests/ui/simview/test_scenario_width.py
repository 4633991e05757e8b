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


def test_the_opened_scenarios_title_is_never_cut_at_1366_by_768(qtbot, make_window):
    """With Compare fabrics open below it, the Scenario dock used to cut the demo scenario's
    title line through the middle ("overloaded experts)" half shown)."""
    from fabricstudio.formats import load_design
    from fabricstudio.ui.simview import install_simulation_ui
    from tests.conftest import EXAMPLES
    from tests.ui.simview.synthetic import factory

    folder = EXAMPLES / "scenarios"
    window = make_window(load_design(folder / "demo-rail64.design.json"))
    window.resize(1366, 768)
    sim = install_simulation_ui(window, factory())
    panel = sim.scenario
    assert panel.load_scenario_file(folder / "demo-moe-dispatch.scenario.json")
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=30_000)
    title = panel.scenario_info
    viewport = scroll_area_of(title).viewport()

    def whole() -> bool:
        top_left = title.mapTo(viewport, QPoint(0, 0))
        return viewport.rect().contains(title.rect().translated(top_left))

    qtbot.waitUntil(whole, timeout=3000)
    assert "overloaded experts" in title.text()
    assert sim.docks["compare"].isVisible() and sim.docks["results"].height() > 60
