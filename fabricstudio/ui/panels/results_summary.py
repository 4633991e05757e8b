"""Key figures of a run: read from the typed Result once the run has ended, and from the
recorded metric stream while it is still going (there is no Result yet)."""

from __future__ import annotations

from typing import Any

from fabricstudio.model.units import format_bytes, format_time
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.moments import gpu_utilisation
from fabricstudio.sim.result import Result


def stream_totals(stream: MetricStream | None) -> dict[str, float]:
    """Totals over every link and frame of a recorded run."""
    if stream is None or not len(stream):
        return {}
    period = stream.sample_period_s
    return {"pauses": float(stream.link_series("pauses_sent").sum()),
            "ecn_marks": float(stream.link_series("ecn_marks").sum()),
            "cnps": float(stream.link_series("cnps").sum()),
            "dropped": float(stream.link_series("drops").sum()),
            "paused_s": float(stream.link_series("paused").sum() * period),
            "peak_queue_bytes": float(stream.link_series("queue_bytes").max()),
            "recorded_s": float(stream.times[-1])}


#: (key, label, unit) of the figures the results panel shows, in order.
RESULT_FIGURES = (
    ("completion_time_s", "Completion time", "s"),
    ("algbw_gbps", "Algorithm bandwidth", "Gb/s"),
    ("busbw_gbps", "Bus bandwidth", "Gb/s"),
    ("gpu_utilisation", "GPU utilisation", "%"),
    ("dropped", "Dropped packets", ""),
    ("retransmitted_bytes", "Retransmitted", "B"),
    ("pauses", "PFC PAUSE frames", ""),
    ("ecn_marks", "ECN marks", ""),
    ("cnps", "CNPs", ""),
)


def result_figures(result: Result) -> dict[str, Any]:
    """key -> value of RESULT_FIGURES (and ``paused_s``) from a finished run's Result."""
    collective, totals = result.collective, result.totals
    return {
        "completion_time_s": result.completion_time_s,
        "algbw_gbps": collective.algbw_gbps if collective else None,
        "busbw_gbps": collective.busbw_gbps if collective else None,
        "gpu_utilisation": gpu_utilisation(result),
        "dropped": totals.drops,
        "retransmitted_bytes": totals.retransmitted_bytes,
        "pauses": totals.pfc_pauses,
        "ecn_marks": totals.ecn_marks,
        "cnps": totals.cnps,
        "paused_s": totals.paused_time_s,
    }


def figures(result: Result | None, stream: MetricStream | None) -> dict[str, Any]:
    """The figures of a run: the Result's when it has ended, else what the stream recorded
    so far (event counters only); the peak queue always comes from the stream."""
    totals = stream_totals(stream)
    if result is not None:
        out = result_figures(result)
    else:
        out = {key: totals.get(key) for key, _label, _unit in RESULT_FIGURES}
        out["paused_s"] = totals.get("paused_s")
    out["peak_queue_bytes"] = totals.get("peak_queue_bytes")
    return out


def format_figure(key: str, value: Any) -> str:
    """A figure as text with its unit ('-' when unknown)."""
    if value is None:
        return "-"
    if key in ("completion_time_s", "paused_s"):
        return format_time(float(value))
    if key == "gpu_utilisation":
        return f"{100 * float(value):.1f}%"
    if key in ("algbw_gbps", "busbw_gbps"):
        return f"{float(value):.1f} Gb/s"
    if key in ("retransmitted_bytes", "peak_queue_bytes"):
        return format_bytes(float(value))
    return f"{float(value):,.0f}"

