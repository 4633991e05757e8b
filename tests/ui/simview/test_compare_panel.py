"""The Compare fabrics panel at 1366 x 768: its charts, table and explanation say each figure
the same way, and every chart label is whole inside its chart."""

from fabricstudio.model.units import format_bytes
from fabricstudio.sim.moments import RunFacts
from fabricstudio.ui.simview import install_simulation_ui
from tests.ui.simview.synthetic import SyntheticSource


class _ExplainedSource(SyntheticSource):
    """The synthetic run with the facts the explanation is written from."""

    def facts(self) -> RunFacts:
        result = self.result()
        totals = result.totals
        return RunFacts(technology=result.run.technology.value, dcqcn=False,
                        ib_congestion_control=False,
                        gpu_utilisation=result.training.gpu_utilisation,
                        completion_s=result.completion_time_s, step_times_s=[],
                        drops=totals.drops, retransmitted_bytes=totals.retransmitted_bytes,
                        timeouts=0, min_rto_s=0.01, longest_stall_s=0.0,
                        pauses=totals.pfc_pauses, ecn_marks=totals.ecn_marks, cnps=0,
                        credit_stall_s=0.0)


def test_charts_table_and_explanation_quote_the_same_figures(qtbot, sim_window):
    window = sim_window
    sim = install_simulation_ui(window, lambda design, request: _ExplainedSource(design, request))
    window.resize(1366, 768)
    sim.scenario.until_complete.setChecked(False)
    sim.scenario.horizon_us.setValue(5.0)
    sim.scenario.compare_button.click()
    qtbot.waitUntil(lambda: not sim.compare.running, timeout=10_000)
    panel = sim.compare
    qtbot.waitUntil(lambda: panel.charts.isVisible() and panel.charts.height() > 100,
                    timeout=3000)
    resent = panel.value_text("Lossy Ethernet", "retransmitted_bytes")
    assert resent == format_bytes(7 * 4096)
    assert f"resent {resent}" in panel.explanation.text()
    found = panel.charts.geometry_now()
    area = panel.charts.rect()
    assert [c.key for c in found.charts] == panel.chart_keys
    for chart in found.charts:
        assert area.contains(chart.rect.toAlignedRect())
        for bar in chart.bars:
            label = panel.labels[bar.row]
            assert bar.text == panel.value_text(label, chart.key)
            assert chart.rect.adjusted(-0.5, -0.5, 0.5, 0.5).contains(bar.label_rect)
