"""The Charts and Compare fabrics panels are built at their first use, not with the window:
opening a design stays quick, and nothing is missing once they are needed."""

from __future__ import annotations

from tests.ui.conftest import menu_action, run_synthetic


def test_opening_a_window_builds_neither_chart_panel(sim_window):
    assert sim_window.simulation.panels_built == (False, False)


def test_view_panels_charts_builds_the_charts_in_the_theme(qtbot, sim_window):
    sim_window.set_theme("light")
    menu_action(sim_window, "View", "Panels", "Charts").trigger()
    sim = sim_window.simulation
    qtbot.waitUntil(lambda: sim.docks["charts"].isVisible())
    assert sim.panels_built[0]
    area = sim.docks["charts"].widget()
    assert area.widget() is sim.plots
    assert sim.plots._colours[0] == sim_window.scene.theme.canvas.name()


def test_charts_built_after_a_selection_show_the_selected_links(qtbot, sim_window):
    link = next(iter(sim_window.scene.link_items.values()))
    link.setSelected(True)
    menu_action(sim_window, "View", "Panels", "Charts").trigger()
    assert sim_window.simulation.plots.selected_links == (link.link.id,)


def test_view_panels_compare_builds_the_comparison_and_the_presenter_follows_it(
        qtbot, sim_window, monkeypatch):
    sim = sim_window.simulation
    heard = []
    monkeypatch.setattr(sim.presenter.player, "_on_compare_finished", lambda: heard.append(1))
    menu_action(sim_window, "View", "Panels", "Compare fabrics").trigger()
    qtbot.waitUntil(lambda: sim.docks["compare"].isVisible())
    assert sim.panels_built[1]
    assert sim.docks["compare"].widget().widget() is sim.compare
    sim.compare.finished.emit()  # the story player waits for it before a step
    assert heard == [1]


def test_a_run_builds_the_charts_and_fills_them(qtbot, sim_window):
    sim = run_synthetic(qtbot, sim_window)
    assert sim.panels_built[0]
    assert sim.docks["charts"].isVisible()
    assert sim.plots.stream is sim.controller.stream
