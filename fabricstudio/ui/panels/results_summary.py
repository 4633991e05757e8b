"""Key figures of a run: read from the typed Result once the run has ended, and from the
recorded metric stream while it is still going (there is no Result yet)."""

from __future__ import annotations

from typing import Any

from fabricstudio.model.units import format_bytes, format_time
from fabricstudio.sim.metrics import MetricStream
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
    ("engine", "Engine", ""),
    ("hotspots", "Hotspots (flow level)", ""),
    ("iteration_time_s", "LLM iteration", "s"),
    ("mfu", "MFU", "%"),
    ("network_tax", "Network tax", "%"),
)


#: Figures a flow-level run does not model (shown as :data:`NOT_MODELLED_TEXT`, never as 0).
NOT_AT_FLOW_LEVEL = ("dropped", "retransmitted_bytes", "pauses", "ecn_marks", "cnps",
                     "paused_s", "peak_queue_bytes")
#: What a figure the run's engine does not model reads as.
NOT_MODELLED_TEXT = "not modelled (flow level)"


def result_figures(result: Result) -> dict[str, Any]:
    """key -> value of RESULT_FIGURES (and ``paused_s``) from a finished run's Result.  A
    flow-level run's :data:`NOT_AT_FLOW_LEVEL` figures are None (not modelled, never 0)."""
    collective, training, totals = result.collective, result.training, result.totals
    llm = result.llm_training
    out = {
        "completion_time_s": result.completion_time_s,
        "algbw_gbps": collective.algbw_gbps if collective else None,
        "busbw_gbps": collective.busbw_gbps if collective else None,
        "gpu_utilisation": (training.gpu_utilisation if training else
                            llm.gpu_utilisation if llm else None),
        "dropped": totals.drops,
        "retransmitted_bytes": totals.retransmitted_bytes,
        "pauses": totals.pfc_pauses,
        "ecn_marks": totals.ecn_marks,
        "cnps": totals.cnps,
        "paused_s": totals.paused_time_s,
        "engine": result.engine.kind,
        "hotspots": result.hotspots.count if result.hotspots is not None else None,
        "iteration_time_s": llm.iteration_time_s if llm else None,
        "mfu": llm.mfu if llm else None,
        "network_tax": llm.network_tax_fraction if llm else None,
    }
    if result.engine.kind == "flow":
        out.update(dict.fromkeys(NOT_AT_FLOW_LEVEL))
    return out


def figures(result: Result | None, stream: MetricStream | None) -> dict[str, Any]:
    """The figures of a run: the Result's when it has ended, else what the stream recorded
    so far (event counters only); the peak queue always comes from the stream."""
    totals = stream_totals(stream)
    if result is not None:
        out = result_figures(result)
    else:
        out = {key: totals.get(key) for key, _label, _unit in RESULT_FIGURES}
        out["paused_s"] = totals.get("paused_s")
    out["peak_queue_bytes"] = (None if out.get("engine") == "flow"
                               else totals.get("peak_queue_bytes"))
    return out


def figure_text(key: str, values: dict[str, Any], not_modelled: str = NOT_MODELLED_TEXT) -> str:
    """The text of figure ``key`` among a run's ``values`` (:func:`figures`):
    ``not_modelled`` for what a flow-level run does not model, else :func:`format_figure`."""
    if values.get("engine") == "flow" and key in NOT_AT_FLOW_LEVEL:
        return not_modelled
    return format_figure(key, values.get(key))


def format_figure(key: str, value: Any) -> str:
    """A figure as text with its unit ('-' when unknown)."""
    if value is None:
        return "-"
    if key == "engine":
        return {"cell": "cell level", "flow": "flow level"}.get(str(value), str(value))
    if key in ("completion_time_s", "paused_s", "iteration_time_s"):
        return format_time(float(value))
    if key in ("gpu_utilisation", "mfu", "network_tax"):
        return f"{100 * float(value):.1f}%"
    if key in ("algbw_gbps", "busbw_gbps"):
        return f"{float(value):.1f} Gb/s"
    if key in ("retransmitted_bytes", "peak_queue_bytes"):
        return format_bytes(float(value))
    return f"{float(value):,.0f}"



def failure_summary(result: Result | None) -> str:
    """What the run's failures cost against its no-failure twin, in a sentence or two
    ('' when the run had no failures)."""
    found = result.failures if result is not None else None
    if found is None:
        return ""
    fails = [e.at_s for e in found.events if e.event == "fail"]
    if fails and not any(fails):
        when = "down before the run: routed around from the start"
    else:
        when = (f"rerouted {format_time(found.convergence_s)} after failing"
                if found.convergence_s else "rerouted at once")
    text = (f"Failures: {'; '.join(found.failures[:3])}"
            f"{' …' if len(found.failures) > 3 else ''} ({when}); "
            f"{found.packets_lost:,} packets lost, {found.flows_rerouted:,} flow paths moved.")
    mine, base, cost = found.with_failures, found.without_failures, found.cost
    if base is None or cost is None:
        return text
    if mine.step_time_s is not None and base.step_time_s is not None:
        text += (f" Step time {format_time(mine.step_time_s)} vs "
                 f"{format_time(base.step_time_s)} without.")
    if mine.gpu_utilisation is not None and base.gpu_utilisation is not None:
        text += (f" GPU utilisation {100 * mine.gpu_utilisation:.1f}% vs "
                 f"{100 * base.gpu_utilisation:.1f}% without.")
    if cost.slowdown is not None:
        text += f" Completion {cost.slowdown:.2f}x the healthy run's."
    elif not mine.finished:
        text += " The run did not complete within its horizon."
    return text
