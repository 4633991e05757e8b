"""Simulated time on the charts, the pace label and the captions reads in the unit that suits
it: a one-second LLM iteration showed '2e+06' ticks, '9.39e+03 ms' and '428789.0 µs/s'."""

from fabricstudio.sim.moments import _ms
from fabricstudio.ui.plots.metrics_plots import TimeAxis
from fabricstudio.ui.simview.controls import _pace


def test_chart_ticks_follow_their_spacing(qtbot):
    axis = TimeAxis("bottom")
    assert axis.tickStrings([0.0, 2e6, 4e6], 1.0, 2e6) == ["0 s", "2 s", "4 s"]
    assert axis.tickStrings([500.0, 1000.0, 1500.0], 1.0, 500.0) == ["0.5 ms", "1 ms", "1.5 ms"]
    assert axis.tickStrings([0.0, 20.0, 40.0], 1.0, 20.0) == ["0 µs", "20 µs", "40 µs"]


def test_captions_and_the_pace_use_seconds_for_long_runs():
    assert _ms(9.392) == "9.39 s" and _ms(2.5e-3) == "2.5 ms" and _ms(4e-6) == "4 µs"
    assert _pace(0.607) == "0.607 s/s" and _pace(3.2e-3) == "3.2 ms/s"
    assert _pace(1.25e-5) == "12.5 µs/s"
