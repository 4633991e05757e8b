"""Key figures of a run, from the engine's Result and from the recorded metric stream."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from fabricstudio.formats import write_output
from fabricstudio.formats.csv_safe import spreadsheet_safe
from fabricstudio.sim.metrics import LINK_FIELDS, MetricStream


def lookup(result: dict[str, Any], *paths: str) -> Any:
    """The first of several dotted paths present in ``result`` (None when none is)."""
    for path in paths:
        value: Any = result
        for part in path.split("."):
            if not isinstance(value, dict) or part not in value:
                break
            value = value[part]
        else:
            return value
    return None


def stream_totals(stream: MetricStream | None) -> dict[str, float]:
    """Totals over every link and frame of a recorded run."""
    if stream is None or not len(stream):
        return {}
    period = stream.sample_period_s
    return {"pauses": float(stream.link_series("pauses_sent").sum()),
            "ecn_marks": float(stream.link_series("ecn_marks").sum()),
            "cnps": float(stream.link_series("cnps").sum()),
            "drops": float(stream.link_series("drops").sum()),
            "paused_s": float(stream.link_series("paused").sum() * period),
            "peak_queue_bytes": float(stream.link_series("queue_bytes").max()),
            "recorded_s": float(stream.times[-1])}


#: (key, label, unit, dotted paths in the Result) of the figures the results panel shows.
RESULT_FIGURES = (
    ("completion_time_s", "Completion time", "s", ("completion_time_s",)),
    ("algbw_gbps", "Algorithm bandwidth", "Gb/s", ("collective.algbw_gbps",)),
    ("busbw_gbps", "Bus bandwidth", "Gb/s", ("collective.busbw_gbps",)),
    ("gpu_utilisation", "GPU utilisation", "%",
     ("training.gpu_utilisation", "gpu_utilisation")),
    ("dropped", "Dropped packets", "", ("totals.drops", "totals.dropped_packets")),
    ("retransmitted_bytes", "Retransmitted", "B", ("totals.retransmitted_bytes",)),
    ("pauses", "PFC PAUSE frames", "", ("totals.pfc_pauses", "totals.pauses")),
    ("ecn_marks", "ECN marks", "", ("totals.ecn_marks",)),
    ("cnps", "CNPs", "", ("totals.cnps",)),
)
_STREAM_FALLBACK = {"dropped": "drops", "pauses": "pauses", "ecn_marks": "ecn_marks",
                    "cnps": "cnps"}


def figures(result: dict[str, Any] | None, stream: MetricStream | None) -> dict[str, Any]:
    """key -> value of RESULT_FIGURES (Result first, stream totals where the Result is silent)."""
    result = result or {}
    totals = stream_totals(stream)
    out: dict[str, Any] = {}
    for key, _label, _unit, paths in RESULT_FIGURES:
        value = lookup(result, *paths)
        if value is None and key in _STREAM_FALLBACK:
            value = totals.get(_STREAM_FALLBACK[key])
        out[key] = value
    paused = lookup(result, "totals.paused_time_s")
    out["paused_s"] = paused if paused is not None else totals.get("paused_s")
    out["peak_queue_bytes"] = totals.get("peak_queue_bytes")
    return out


def format_figure(key: str, value: Any) -> str:
    """A figure as text with its unit ('-' when unknown)."""
    if value is None:
        return "-"
    if key in ("completion_time_s", "paused_s"):
        return _seconds(float(value))
    if key == "gpu_utilisation":
        return f"{100 * float(value):.1f}%"
    if key in ("algbw_gbps", "busbw_gbps"):
        return f"{float(value):.1f} Gb/s"
    if key in ("retransmitted_bytes", "peak_queue_bytes"):
        return _bytes(float(value))
    return f"{float(value):,.0f}"


def _seconds(t: float) -> str:
    return f"{t * 1e6:.1f} µs" if t < 1e-3 else f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.3f} s"


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def write_metrics_csv(stream: MetricStream, path: str | Path) -> int:
    """Write every frame x directed link as CSV rows; returns the number of rows."""
    names = list(LINK_FIELDS)
    columns = {name: stream.link_series(name) for name in names}
    times = stream.times.copy()
    rows = 0

    def emit(handle) -> None:
        nonlocal rows
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
        writer = csv.writer(text)
        writer.writerow(["time_s", "link", "src", "src_port", "dst", "dst_port", *names])
        for f, t in enumerate(times[: len(columns[names[0]])]):
            for d in stream.links:
                writer.writerow([f"{t:.9g}", spreadsheet_safe(d.link_id), spreadsheet_safe(d.src),
                                 d.src_port, spreadsheet_safe(d.dst), d.dst_port,
                                 *(f"{columns[n][f, d.index]:.6g}" for n in names)])
                rows += 1
        text.flush()
        text.detach()

    write_output(path, emit)
    return rows
