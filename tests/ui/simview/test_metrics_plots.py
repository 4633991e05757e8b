"""The live charts read each recorded frame once: their cost follows new frames, not history."""

import numpy as np
import pytest

from fabricstudio.sim.metrics import DirectedLink, Frame, MetricStream, empty_link_arrays
from fabricstudio.ui.plots.metrics_plots import MetricsPlots

N_FLOWS = 500


def _append(stream: MetricStream, i: int) -> None:
    arrays = empty_link_arrays(len(stream.links))
    arrays["utilisation"][:] = (0.2, 0.9, 0.1, 0.0)
    arrays["pauses_sent"][1] = i % 3
    rates = np.linspace(1.0, 2.0 + i, N_FLOWS).astype(np.float32)
    stream.append(Frame((i + 1) * 1e-6, arrays,
                        {"rate_gbps": rates, "delivered_bytes": np.zeros(N_FLOWS)},
                        tuple(range(N_FLOWS))))


class CountingStream(MetricStream):
    """Counts the frames the charts read back."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.flow_frames_read = 0
        self.link_rows_read = 0

    def flow_frame(self, index):
        self.flow_frames_read += 1
        return super().flow_frame(index)

    def link_rows(self, name, start, stop=None):
        rows = super().link_rows(name, start, stop)
        self.link_rows_read += len(rows)
        return rows


@pytest.fixture
def stream() -> CountingStream:
    links = tuple(DirectedLink(k, f"l{k // 2}", "a", k, "b", k, 400.0) for k in range(4))
    return CountingStream(links, 1e-6)


def test_each_refresh_reads_only_the_new_frames(qtbot, stream):
    plots = MetricsPlots()
    qtbot.addWidget(plots)
    plots.show()
    plots.set_stream(stream)
    total = 0
    for batch in (5, 20, 40):  # growing history: a rebuild would read 5, 25 and 65 frames
        for _ in range(batch):
            _append(stream, total)
            total += 1
        plots.refresh()
        assert stream.flow_frames_read == total
    # utilisation means and event totals (3 fields) also read each row once
    assert stream.link_rows_read == 4 * total
    fastest = plots.flow_curves["max"].yData  # the data set, before clip-to-view
    assert len(fastest) == total and fastest[-1] == pytest.approx(2.0 + total - 1)
    assert np.all(plots.flow_curves["min"].yData == pytest.approx(1.0))
    assert plots.shown_links[0] == 1  # the busiest link is charted first


def test_hidden_charts_do_no_work_and_catch_up_when_shown(qtbot, stream):
    plots = MetricsPlots()
    qtbot.addWidget(plots)
    plots.set_stream(stream)
    for i in range(10):
        _append(stream, i)
    plots.refresh()
    plots.refresh_next()
    assert stream.flow_frames_read == 0
    plots.show()
    qtbot.waitExposed(plots)
    assert stream.flow_frames_read == 10
    assert len(plots.flow_curves["mean"].yData) == 10


def test_round_robin_refreshes_each_stale_chart_once(qtbot, stream):
    plots = MetricsPlots()
    qtbot.addWidget(plots)
    plots.show()
    plots.set_stream(stream)
    for i in range(3):
        _append(stream, i)
    assert [plots.refresh_next() for _ in range(5)] == [True] * 4 + [False]
    assert stream.flow_frames_read == 3
