"""pyqtgraph charts of a run that follow the scrubber.

Link utilisation and queue depth of the selected links (the busiest when none is selected),
PFC pauses / ECN marks / drops per second over the fabric, and per-flow throughput.  Each
refresh calls ``setData`` once per curve; curves clip to view and peak-downsample.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QWidget

from fabricstudio.sim.metrics import MetricStream

MAX_LINK_CURVES = 6
PLOT_KEYS = ("util", "queue", "events", "flows")
PLOT_BACKGROUND = "#16181D"  # the dark canvas colour, so charts sit well beside it
MAX_FLOW_CURVES = 6
_PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")


def _curve(plot: pg.PlotItem, name: str, colour: str) -> pg.PlotDataItem:
    item = plot.plot([], [], name=name, pen=pg.mkPen(colour, width=1.6))
    item.setClipToView(True)
    item.setDownsampling(auto=True, method="peak")
    item.setSkipFiniteCheck(True)
    return item


class MetricsPlots(QWidget):
    """Four stacked charts with a time cursor."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=False)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        titles = (("util", "Link utilisation", "%"), ("queue", "Queue depth", "KiB"),
                  ("events", "PAUSE / ECN / drops", "per µs"),
                  ("flows", "Flow throughput", "Gb/s"))
        self.plots: dict[str, pg.PlotItem] = {}
        self.widgets: list[pg.PlotWidget] = []
        self.cursors: dict[str, pg.InfiniteLine] = {}
        for row, (key, title, unit) in enumerate(titles):
            widget = pg.PlotWidget(title=title, background=PLOT_BACKGROUND)
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
            self.plots[key].setLabel("bottom", "simulated time", "µs")
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
        self._flow_curves = [_curve(self.plots["flows"], f"flow {k}", _PALETTE[k])
                             for k in range(MAX_FLOW_CURVES)]
        for curve in (*self._link_curves["util"], *self._link_curves["queue"],
                      *self._flow_curves):
            _show_curve(curve, False)
        self.shown_links: list[int] = []
        self._flow_cursor = 0
        self._flow_ids = []
        self._flow_data = {}
        self._next = 0
        self._colours = ("", "")
        self._ids_seen = ()
        self._ids_positions = []

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

    def set_stream(self, stream: MetricStream | None) -> None:
        """Chart another run (None clears)."""
        self.stream = stream
        self._shown_count = -1
        self._flow_cursor = 0
        self._flow_ids: list[int] = []
        self._flow_data: dict[int, tuple[list, list]] = {}
        self._ids_seen: tuple[int, ...] = ()
        self._ids_positions: list[tuple[int, int]] = []
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

    def refresh(self, force: bool = False) -> None:
        """Re-read the stream into every chart if it grew (one setData per curve)."""
        stream = self.stream
        count = len(stream) if stream is not None else 0
        if count == self._shown_count and not force:
            return
        self._shown_count = count
        if not count:
            for curves in (*self._link_curves.values(), self._flow_curves):
                for curve in curves:
                    _show_curve(curve, False)
            self.shown_links = []
            for curve in self.events.values():
                curve.setData([], [])
            return
        for key in PLOT_KEYS:
            self._refresh_plot(key)
        self._next = 0

    def refresh_next(self) -> None:
        """Refresh one chart (round robin): spreads the cost of a live run over ticks."""
        stream = self.stream
        if stream is None or not len(stream):
            return
        self._shown_count = -1  # a full refresh() catches up later
        self._refresh_plot(PLOT_KEYS[self._next])
        self._next = (self._next + 1) % len(PLOT_KEYS)

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
                series = stream.link_series(name)[: len(x)].sum(axis=1) * scale
                curve.setData(x[: len(series)], series)
        else:
            self._refresh_flows(stream, times)

    def _chosen_links(self, stream: MetricStream) -> list[int]:
        if self.selected_links:
            wanted = set(self.selected_links)
            return [d.index for d in stream.links if d.link_id in wanted][:MAX_LINK_CURVES]
        mean = stream.link_series("utilisation").mean(axis=0)
        order = np.argsort(-mean, kind="stable")
        return [int(i) for i in order[: min(4, len(order))] if mean[i] > 0]

    def _refresh_links(self, stream: MetricStream, x: np.ndarray, key: str) -> None:
        if key == "util":
            chosen = self._chosen_links(stream)
            if chosen != self.shown_links:
                self.shown_links = chosen
                self._relabel_links(stream)
        chosen = self.shown_links
        if key == "util":
            values = 100.0 * stream.link_series("utilisation")[: len(x)]
        else:
            values = stream.link_series("queue_bytes")[: len(x)] / 1024.0
        n = min(len(x), len(values))
        for curve, i in zip(self._link_curves[key], chosen):
            curve.setData(x[:n], values[:n, i])

    def _relabel_links(self, stream: MetricStream) -> None:
        for key, curves in self._link_curves.items():
            for k, curve in enumerate(curves):
                if k < len(self.shown_links):
                    d = stream.links[self.shown_links[k]]
                    _rename(self.plots[key], curve, f"{d.src}→{d.dst}")
                _show_curve(curve, k < len(self.shown_links))

    def _positions(self, ids: tuple[int, ...]) -> list[tuple[int, int]]:
        """(flow id, index in ``ids``) of the charted flows; recomputed only when the set of
        flows changes (frames of big collectives hold ~10^4 flows)."""
        if ids != self._ids_seen:
            index = {fid: k for k, fid in enumerate(ids)}
            self._ids_seen = ids
            self._ids_positions = [(fid, index[fid]) for fid in self._flow_ids if fid in index]
        return self._ids_positions

    def _refresh_flows(self, stream: MetricStream, times: np.ndarray) -> None:
        """Per-flow rates, read incrementally (only frames not seen before)."""
        count = len(times)
        if self._flow_cursor == 0 and count:
            first_ids = stream.frame(count - 1).flow_ids
            self._flow_ids = list(first_ids[:MAX_FLOW_CURVES])
            self._flow_data = {fid: ([], []) for fid in self._flow_ids}
        for i in range(self._flow_cursor, count):
            frame = stream.frame(i)
            for fid, k in self._positions(frame.flow_ids):
                ts, vs = self._flow_data[fid]
                ts.append(frame.t * 1e6)
                vs.append(float(frame.flows["rate_gbps"][k]))
        self._flow_cursor = count
        for k, curve in enumerate(self._flow_curves):
            shown = k < len(self._flow_ids)
            if shown:
                fid = self._flow_ids[k]
                _rename(self.plots["flows"], curve, f"flow {fid}")
                curve.setData(*self._flow_data[fid])
            _show_curve(curve, shown)


def _show_curve(curve: pg.PlotDataItem, visible: bool) -> None:
    """Show or hide a curve and its legend entry (no-op if unchanged)."""
    if curve.isVisible() != visible:
        curve.setVisible(visible)
        if not visible:
            curve.setData([], [])


def _rename(plot: pg.PlotItem, curve: pg.PlotDataItem, name: str) -> None:
    """Change a curve's legend text (no-op if unchanged)."""
    if curve.name() != name:
        curve.opts["name"] = name
        label = plot.legend.getLabel(curve)
        if label is not None:
            label.setText(name)
