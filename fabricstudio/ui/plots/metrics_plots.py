"""pyqtgraph charts of a run that follow the scrubber.

Link utilisation and queue depth of the selected links (the busiest when none is selected),
PFC pauses / ECN marks / drops per second over the fabric, and per-flow throughput (fastest,
mean and slowest flow of each frame).  Every reader is incremental: a refresh reads only the
frames recorded since the last one (running link means, appended flow statistics), so its cost
does not grow with the run's length or its flow count; then ``setData`` once per curve, with
clip-to-view and peak downsampling.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QWidget

from fabricstudio.sim.metrics import METRICS, MetricStream, chart_unit

MAX_LINK_CURVES = 6
PLOT_KEYS = ("util", "queue", "events", "flows")
PLOT_BACKGROUND = "#16181D"  # the dark canvas colour, so charts sit well beside it
#: The flow chart's curves: name -> (legend, colour).
FLOW_CURVES = {"max": ("fastest flow", "#56B4E9"), "mean": ("mean flow", "#009E73"),
               "min": ("slowest flow", "#D55E00")}
_PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")


def _curve(plot: pg.PlotItem, name: str, colour: str) -> pg.PlotDataItem:
    item = plot.plot([], [], name=name, pen=pg.mkPen(colour, width=1.6))
    item.setClipToView(True)
    item.setDownsampling(auto=True, method="peak")
    item.setSkipFiniteCheck(True)
    return item


class TimeAxis(pg.AxisItem):
    """Simulated time ticks from the charts' microsecond data, in the unit their spacing suits
    (``250 µs``, ``1.5 ms``, ``2 s``): an LLM iteration of seconds read ``2e+06`` before."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        unit, factor = (("s", 1e6) if spacing * scale >= 1e5 else
                        ("ms", 1e3) if spacing * scale >= 100 else ("µs", 1.0))
        return [f"{v * scale / factor:g} {unit}" for v in values]


class MetricsPlots(QWidget):
    """Four stacked charts with a time cursor."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=False)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        titles = (("util", "Link utilisation", chart_unit(METRICS["utilisation"])[0]),
                  ("queue", "Queue depth", chart_unit(METRICS["queue_bytes"])[0]),
                  ("events", "PAUSE / ECN / drops", "per µs"),
                  ("flows", "Flow throughput", chart_unit(METRICS["rate_gbps"])[0]))
        self.plots: dict[str, pg.PlotItem] = {}
        self.widgets: list[pg.PlotWidget] = []
        self.cursors: dict[str, pg.InfiniteLine] = {}
        for row, (key, title, unit) in enumerate(titles):
            widget = pg.PlotWidget(title=title, background=PLOT_BACKGROUND,
                                   axisItems={"bottom": TimeAxis("bottom")})
            self.widgets.append(widget)
            widget.setMinimumHeight(120)
            grid.addWidget(widget, row // 2, row % 2)
            plot = widget.getPlotItem()
            plot.setLabel("left", unit)
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.getAxis("bottom").enableAutoSIPrefix(False)
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.addLegend(offset=(-5, 5), labelTextSize="8pt")
            plot.setMouseEnabled(y=False)
            if row:
                plot.setXLink(self.plots["util"])
            cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen("#D55E00", width=1.2))
            plot.addItem(cursor)
            self.plots[key] = plot
            self.cursors[key] = cursor
        for key in ("events", "flows"):
            self.plots[key].setLabel("bottom", "simulated time")
        for key in ("queue", "events", "flows"):  # no negative axis under an all-zero curve
            self.plots[key].setLimits(yMin=0)
        self.plots["util"].setYRange(0, 105, padding=0)
        self.plots["util"].enableAutoRange(axis="y", enable=False)
        self.events = {name: _curve(self.plots["events"], label, colour)
                       for name, label, colour in (("pauses_sent", "PAUSE", "#D55E00"),
                                                   ("ecn_marks", "ECN marks", "#E69F00"),
                                                   ("drops", "drops", "#CC0066"))}
        self.stream: MetricStream | None = None
        self.selected_links: tuple[str, ...] = ()
        self._shown_count = -1
        self._link_curves = {key: [_curve(self.plots[key], f"link {k}", _PALETTE[k])
                                   for k in range(MAX_LINK_CURVES)] for key in ("util", "queue")}
        self.flow_curves = {name: _curve(self.plots["flows"], label, colour)
                            for name, (label, colour) in FLOW_CURVES.items()}
        for curves in self._link_curves.values():
            for curve in curves:
                _show_curve(curve, False)
        self.shown_links: list[int] = []
        self.flow_stats = FlowStats()
        self.link_means = RunningMean()
        self.event_totals = {name: RowTotals() for name in self.events}
        self._next = 0
        self._chart_counts = dict.fromkeys(PLOT_KEYS, -1)
        self._colours = ("", "")

    def set_colours(self, background: QColor, text: QColor) -> None:
        """Follow the canvas theme (no-op if unchanged)."""
        if self._colours == (background.name(), text.name()):
            return
        self._colours = (background.name(), text.name())
        for widget in self.widgets:
            widget.setBackground(background)
        for plot in self.plots.values():
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(text))
                axis.setTextPen(pg.mkPen(text))
            plot.titleLabel.setText(plot.titleLabel.text, color=text.name())
            legend = plot.legend
            if legend is not None:  # the chart legends follow the theme too
                legend.setLabelTextColor(text)
                for _sample, label in legend.items:
                    label.setText(label.text, color=text.name())

    def set_stream(self, stream: MetricStream | None) -> None:
        """Chart another run (None clears); a flow-level run's queue and event charts say
        that it does not model them."""
        self.stream = stream
        flow = stream is not None and stream.engine == "flow"
        for key, title in (("queue", "Queue depth"), ("events", "PAUSE / ECN / drops")):
            text = f"{title}: not modelled at flow level" if flow else title
            self.plots[key].setTitle(text, color=self._colours[1] or None)
        self._shown_count = -1
        self._chart_counts = dict.fromkeys(PLOT_KEYS, -1)
        self.flow_stats = FlowStats()
        self.link_means = RunningMean()
        self.event_totals = {name: RowTotals() for name in self.events}
        self.refresh(force=True)

    def set_selected_links(self, link_ids) -> None:
        """Chart these cables (both directions); empty = the busiest links."""
        link_ids = tuple(sorted(link_ids))
        if link_ids != self.selected_links:
            self.selected_links = link_ids
            self.refresh(force=True)

    def set_cursor(self, t: float) -> None:
        """Move the time cursor to simulated time ``t``."""
        x = t * 1e6
        for cursor in self.cursors.values():
            if cursor.value() != x:
                cursor.setValue(x)

    def showEvent(self, event) -> None:  # noqa: N802
        """Charts are not refreshed while hidden (closed or tabbed-away dock): catch up now."""
        super().showEvent(event)
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Re-read the stream into every chart if it grew (one setData per curve); nothing
        while the charts are hidden."""
        if not self.isVisible():
            self._shown_count = -1
            return
        stream = self.stream
        count = len(stream) if stream is not None else 0
        if count == self._shown_count and not force:
            return
        self._shown_count = count
        if not count:
            for curves in self._link_curves.values():
                for curve in curves:
                    _show_curve(curve, False)
            self.shown_links = []
            for curve in (*self.events.values(), *self.flow_curves.values()):
                curve.setData([], [])
            return
        for key in PLOT_KEYS:
            self._refresh_plot(key)
            self._chart_counts[key] = count
        self._next = 0

    def refresh_next(self) -> bool:
        """Refresh the next chart (round robin) that has not shown the newest frame; False
        when all are current or hidden.  Spreads the cost of a live run over display ticks."""
        stream = self.stream
        if stream is None or not len(stream) or not self.isVisible():
            return False
        count = len(stream)
        for step in range(len(PLOT_KEYS)):
            key = PLOT_KEYS[(self._next + step) % len(PLOT_KEYS)]
            if self._chart_counts[key] != count:
                self._shown_count = -1  # a full refresh() catches up later
                self._refresh_plot(key)
                self._chart_counts[key] = count
                self._next = (self._next + step + 1) % len(PLOT_KEYS)
                return True
        return False

    def _refresh_plot(self, key: str) -> None:
        stream = self.stream
        times = stream.times.copy()
        x = times * 1e6
        if key == "util":
            self._refresh_links(stream, x, "util")
        elif key == "queue":
            self._refresh_links(stream, x, "queue")
        elif key == "events":
            scale = 1e-6 / stream.sample_period_s
            for name, curve in self.events.items():
                series = self.event_totals[name].update(stream, name) * scale
                curve.setData(x[: len(series)], series)
        else:
            self.flow_stats.update(stream)
            for name, curve in self.flow_curves.items():
                curve.setData(*self.flow_stats.series(name))

    def _chosen_links(self, stream: MetricStream) -> list[int]:
        if self.selected_links:
            wanted = set(self.selected_links)
            return [d.index for d in stream.links if d.link_id in wanted][:MAX_LINK_CURVES]
        mean = self.link_means.update(stream, "utilisation")
        order = np.argsort(-mean, kind="stable")
        return [int(i) for i in order[: min(4, len(order))] if mean[i] > 0]

    def _refresh_links(self, stream: MetricStream, x: np.ndarray, key: str) -> None:
        if key == "util":
            chosen = self._chosen_links(stream)
            if chosen != self.shown_links:
                self.shown_links = chosen
                self._relabel_links(stream)
        chosen = self.shown_links
        name = "utilisation" if key == "util" else "queue_bytes"
        scale = chart_unit(METRICS[name])[1]
        for curve, i in zip(self._link_curves[key], chosen, strict=False):
            values = stream.link_series(name, i)[: len(x)] * scale
            curve.setData(x[: len(values)], values)

    def _relabel_links(self, stream: MetricStream) -> None:
        for key, curves in self._link_curves.items():
            for k, curve in enumerate(curves):
                if k < len(self.shown_links):
                    d = stream.links[self.shown_links[k]]
                    _rename(self.plots[key], curve, f"{d.src}→{d.dst}")
                _show_curve(curve, k < len(self.shown_links))


class RunningMean:
    """Per-link mean of a field over a growing stream, updated from the new rows only."""

    def __init__(self) -> None:
        self.rows_read = 0
        self._sum: np.ndarray | None = None

    def update(self, stream: MetricStream, name: str) -> np.ndarray:
        """The mean over every frame so far (reads frames not seen before)."""
        rows = stream.link_rows(name, self.rows_read)
        if self._sum is None:
            self._sum = np.zeros(len(stream.links), dtype=np.float64)
        self._sum += rows.sum(axis=0, dtype=np.float64)
        self.rows_read += len(rows)
        return self._sum / max(1, self.rows_read)


class RowTotals:
    """Per-frame total of a field over all links, appended from the new rows only."""

    def __init__(self) -> None:
        self.rows_read = 0
        self._totals = np.zeros(0)

    def update(self, stream: MetricStream, name: str) -> np.ndarray:
        """Totals of every frame so far (a view)."""
        rows = stream.link_rows(name, self.rows_read)
        if len(rows):
            self._totals = np.concatenate([self._totals, rows.sum(axis=1, dtype=np.float64)])
            self.rows_read += len(rows)
        return self._totals


class FlowStats:
    """Fastest, mean and slowest flow rate of each frame, appended as frames arrive.

    A frame of a big collective lists ~10^4 flows; each new frame costs one vectorised pass
    over its rate array and nothing is re-read, so a refresh costs O(new frames) whatever the
    history.  ``frames_read`` counts the frames consumed (tests check it never re-reads).
    """

    def __init__(self) -> None:
        self.frames_read = 0
        self._t = np.zeros(256)
        self._values = {name: np.zeros(256) for name in FLOW_CURVES}
        self._count = 0

    def update(self, stream: MetricStream) -> None:
        """Append the statistics of the frames recorded since the last update."""
        for index in range(self.frames_read, len(stream)):
            t, _, flows = stream.flow_frame(index)
            self.frames_read = index + 1
            rates = flows.get("rate_gbps")
            if rates is None or not len(rates):
                continue
            self._append(t * 1e6, (float(np.max(rates)), float(np.mean(rates)),
                                   float(np.min(rates))))

    def _append(self, x: float, values: tuple[float, float, float]) -> None:
        if self._count == len(self._t):
            self._t = np.resize(self._t, 2 * self._count)
            self._values = {k: np.resize(v, 2 * self._count) for k, v in self._values.items()}
        self._t[self._count] = x
        for name, value in zip(FLOW_CURVES, values, strict=True):
            self._values[name][self._count] = value
        self._count += 1

    def series(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(µs, Gb/s) of curve ``name`` ("max", "mean" or "min") so far (views, no copies)."""
        return self._t[: self._count], self._values[name][: self._count]


def _show_curve(curve: pg.PlotDataItem, visible: bool) -> None:
    """Show or hide a curve and its legend entry (no-op if unchanged): a hidden curve leaves
    the legend, so an empty chart does not list "link 0, link 1..."."""
    legend = curve.getViewBox().parentItem().legend if curve.getViewBox() else None
    if curve.isVisible() != visible:
        curve.setVisible(visible)
        if not visible:
            curve.setData([], [])
    if legend is not None:
        listed = legend.getLabel(curve) is not None
        if listed and not visible:
            legend.removeItem(curve)
        elif visible and not listed:
            legend.addItem(curve, curve.name())


def _rename(plot: pg.PlotItem, curve: pg.PlotDataItem, name: str) -> None:
    """Change a curve's legend text (no-op if unchanged)."""
    if curve.name() != name:
        curve.opts["name"] = name
        label = plot.legend.getLabel(curve)
        if label is not None:
            label.setText(name)
