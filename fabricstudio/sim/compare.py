"""Design A/B: two designs (or two saved versions of one) side by side on the same scenarios.

:func:`compare_designs` analyses both (cost from the cost book, bisection, hops, ECMP width,
oversubscription) and runs every scenario on both, then lines up the key figures with their
deltas (B minus A) and which side is better::

    comparison = compare_designs(a, b, [scenario], cost_book=book)
    print(format_comparison(comparison))
    comparison.to_json()        # "fabricstudio-compare" document (docs/compare.md)

Both runs of a scenario use the same seed, engine choice and workloads, so a difference comes
from the designs alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from fabricstudio.model import Design
from fabricstudio.sim.result import Result
from fabricstudio.sim.scenario import Scenario

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.topology.analysis.report import AnalysisReport

COMPARE_FORMAT = "fabricstudio-compare"
COMPARE_VERSION = 1
Better = Literal["lower", "higher"] | None


S = TypeVar("S")


@dataclass(frozen=True)
class Kpi(Generic[S]):
    """A key figure: its key, label, unit, which direction is better (None: neither), how it
    is read from what it is a figure of (the design's analysis report, or a run's Result) and
    whether the flow-level engine models it (a figure it does not is None, never a false 0).
    """

    key: str
    label: str
    unit: str
    better: Better
    of: Callable[[S], float | None] = field(compare=False, repr=False)
    at_flow_level: bool = True


def _leaf_oversubscription(report: AnalysisReport) -> float | None:
    leaf = next((t for t in report.oversubscription.tiers if t.tier == "leaf"), None)
    return leaf.ratio if leaf else None


def _step_time(result: Result) -> float | None:
    training, llm = result.training, result.llm_training
    return training.step_time_s if training else llm.iteration_time_s if llm else None


def _gpu_utilisation(result: Result) -> float | None:
    training, llm = result.training, result.llm_training
    return training.gpu_utilisation if training else llm.gpu_utilisation if llm else None


#: Figures of the designs themselves (from the analysis).
DESIGN_KPIS: tuple[Kpi[AnalysisReport], ...] = (
    Kpi("capex", "Capex", "money", "lower", lambda r: r.cost.total if r.cost else None),
    Kpi("network_capex", "Network capex", "money", "lower",
        lambda r: r.cost.network_total if r.cost else None),
    Kpi("power_kw", "Power", "kW", "lower",
        lambda r: r.cost.power_w / 1000 if r.cost else None),
    Kpi("gpus", "GPUs", "", None, lambda r: float(r.counts.gpus)),
    Kpi("switches", "Switches", "", "lower", lambda r: float(sum(r.counts.switches.values()))),
    Kpi("links", "Links", "", None, lambda r: float(r.counts.links)),
    Kpi("bisection_gbps", "Bisection bandwidth", "Gb/s", "higher", lambda r: r.bisection.gbps),
    Kpi("bisection_per_gpu_gbps", "Bisection per GPU", "Gb/s", "higher",
        lambda r: r.bisection.gbps / r.counts.gpus if r.counts.gpus else None),
    Kpi("leaf_oversubscription", "Leaf oversubscription", ":1", "lower",
        _leaf_oversubscription),
    Kpi("hops_mean", "Hops NIC to NIC (mean)", "", "lower",
        lambda r: r.paths.hops.mean if r.paths.hops else None),
    Kpi("hops_max", "Hops NIC to NIC (max)", "", "lower",
        lambda r: r.paths.hops.max if r.paths.hops else None),
    Kpi("ecmp_width_mean", "ECMP width (mean)", "", "higher",
        lambda r: r.paths.ecmp_width.mean if r.paths.ecmp_width else None),
    Kpi("errors", "Analysis errors", "", "lower", lambda r: float(len(r.errors()))),
)
#: Figures of one scenario's run.
RUN_KPIS: tuple[Kpi[Result], ...] = (
    Kpi("completion_time_s", "Completion time", "s", "lower", lambda r: r.completion_time_s),
    Kpi("collective_time_s", "Collective time", "s", "lower",
        lambda r: r.collective.time_s if r.collective else None),
    Kpi("busbw_gbps", "Bus bandwidth", "Gb/s", "higher",
        lambda r: r.collective.busbw_gbps if r.collective else None),
    Kpi("step_time_s", "Step / iteration time", "s", "lower", _step_time),
    Kpi("gpu_utilisation", "GPU utilisation", "%", "higher", _gpu_utilisation),
    Kpi("drops", "Dropped packets", "", "lower", lambda r: float(r.totals.drops), False),
    Kpi("pfc_pauses", "PFC PAUSE frames", "", "lower", lambda r: float(r.totals.pfc_pauses),
        False),
    Kpi("paused_time_s", "Time senders were paused", "s", "lower",
        lambda r: r.totals.paused_time_s, False),
    Kpi("ecn_marks", "ECN marks", "", None, lambda r: float(r.totals.ecn_marks), False),
    Kpi("retransmitted_bytes", "Retransmitted", "B", "lower",
        lambda r: float(r.totals.retransmitted_bytes), False),
    Kpi("timeouts", "Retransmission timeouts", "", "lower", lambda r: float(r.totals.timeouts),
        False),
)
#: Every key figure, the design's first.
ALL_KPIS: tuple[Kpi[Any], ...] = (*DESIGN_KPIS, *RUN_KPIS)
#: Run KPIs the flow-level engine does not model: None for its runs (never a false 0).
NOT_AT_FLOW_LEVEL = tuple(kpi.key for kpi in RUN_KPIS if not kpi.at_flow_level)


@dataclass(frozen=True)
class Row:
    """One line of the comparison: a figure of A and of B, and B minus A."""

    section: str
    kpi: Kpi[Any]
    a: float | None
    b: float | None

    @property
    def delta(self) -> float | None:
        """B minus A (None when either is unknown)."""
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def ratio(self) -> float | None:
        """B over A (None when either is unknown or A is 0)."""
        return None if self.a is None or self.b is None or self.a == 0 else self.b / self.a

    @property
    def better(self) -> str | None:
        """"a", "b", "same" or None (no direction, or a figure missing)."""
        if self.kpi.better is None or self.delta is None:
            return None
        if self.delta == 0:
            return "same"
        lower_wins = self.kpi.better == "lower"
        return "b" if (self.delta < 0) == lower_wins else "a"

    def to_dict(self) -> dict[str, Any]:
        """The row in the JSON document."""
        return {"section": self.section, "key": self.kpi.key, "label": self.kpi.label,
                "unit": self.kpi.unit, "a": self.a, "b": self.b, "delta": self.delta,
                "ratio": self.ratio, "better": self.better}


@dataclass
class Comparison:
    """Two designs' key figures on the same scenarios."""

    a_name: str
    b_name: str
    currency: str | None
    rows: list[Row] = field(default_factory=list)
    scenarios: list[str] = field(default_factory=list)
    results: dict[str, tuple[Result, Result]] = field(default_factory=dict)

    def row(self, section: str, key: str) -> Row:
        """The row of ``key`` in ``section`` ("design" or a scenario name)."""
        for row in self.rows:
            if row.section == section and row.kpi.key == key:
                return row
        raise KeyError(f"{section}/{key}")

    def to_dict(self) -> dict[str, Any]:
        """The ``fabricstudio-compare`` JSON document as a dict."""
        return {"format": COMPARE_FORMAT, "version": COMPARE_VERSION,
                "a": self.a_name, "b": self.b_name, "currency": self.currency,
                "scenarios": self.scenarios, "rows": [row.to_dict() for row in self.rows]}

    def to_json(self) -> str:
        """The JSON text (stable key order)."""
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"


def design_figures(design: Design, cost_book: Any = None) -> tuple[dict[str, float | None],
                                                                    str | None]:
    """The design KPIs of ``design`` (priced with ``cost_book`` when given) and the currency."""
    from fabricstudio.topology.analysis import analyze

    report = analyze(design, cost_book=cost_book)
    return ({kpi.key: kpi.of(report) for kpi in DESIGN_KPIS},
            report.cost.currency if report.cost else None)


def run_figures(result: Result) -> dict[str, float | None]:
    """The run KPIs of one Result (a flow-level run's :data:`NOT_AT_FLOW_LEVEL` are None)."""
    flow = result.engine.kind == "flow"
    return {kpi.key: None if flow and not kpi.at_flow_level else kpi.of(result)
            for kpi in RUN_KPIS}


Runner = Callable[[Design, Scenario], Result]


def run_scenario(design: Design, scenario: Scenario) -> Result:
    """Run ``scenario`` on ``design`` to the end (ScenarioError when it cannot run)."""
    from fabricstudio.sim.run import build_simulation

    return build_simulation(design, scenario).run()


def compare_designs(a: Design, b: Design, scenarios: Sequence[Scenario] = (), *,
                    cost_book: Any = None, runner: Runner = run_scenario,
                    progress: Callable[[str], None] | None = None,
                    labels: tuple[str, str] | None = None) -> Comparison:
    """Compare ``a`` and ``b``: their design figures, then each scenario run on both
    (``labels``: how to call them, default their names).

    ScenarioError (naming the design) when a scenario cannot run on one of them."""
    from fabricstudio.sim.scenario import ScenarioError

    fig_a, currency = design_figures(a, cost_book)
    fig_b, _ = design_figures(b, cost_book)
    runs: list[tuple[str, Result, Result]] = []
    names = _unique_names(scenarios)
    for scenario, name in zip(scenarios, names, strict=True):
        pair = []
        for side, design in (("A", a), ("B", b)):
            if progress is not None:
                progress(f"running {name} on {side} ({design.name or side})")
            try:
                pair.append(runner(design, scenario))
            except ScenarioError as exc:
                raise ScenarioError(f"scenario {name!r} cannot run on {side} "
                                    f"({design.name or side}): {exc}") from None
        runs.append((name, pair[0], pair[1]))
    return pair_comparison(labels or (a.name or "A", b.name or "B"), (fig_a, fig_b), currency,
                           runs)


def pair_comparison(labels: tuple[str, str],
                    figures: tuple[dict[str, float | None], dict[str, float | None]],
                    currency: str | None, runs: Sequence[tuple[str, Result, Result]] = ()
                    ) -> Comparison:
    """The comparison of two designs from their design figures (:func:`design_figures`) and
    the Results of each named scenario run on both (the designer runs them itself)."""
    fig_a, fig_b = figures
    comparison = Comparison(labels[0], labels[1], currency)
    comparison.rows += [Row("design", kpi, fig_a[kpi.key], fig_b[kpi.key]) for kpi in DESIGN_KPIS]
    for name, result_a, result_b in runs:
        comparison.scenarios.append(name)
        comparison.results[name] = (result_a, result_b)
        run_a, run_b = run_figures(result_a), run_figures(result_b)
        comparison.rows += [Row(name, kpi, run_a[kpi.key], run_b[kpi.key]) for kpi in RUN_KPIS
                            if run_a[kpi.key] is not None or run_b[kpi.key] is not None]
    return comparison


def _unique_names(scenarios: Sequence[Scenario]) -> list[str]:
    names: list[str] = []
    for i, scenario in enumerate(scenarios, start=1):
        name = scenario.name or f"scenario {i}"
        while name in names:
            name = f"{name} ({i})"
        names.append(name)
    return names


# ------------------------------------------------------------------ text
def format_value(kpi: Kpi[Any], value: float | None, currency: str | None = None) -> str:
    """A figure as text with its unit ('-' when unknown)."""
    from fabricstudio.model.units import format_bytes, format_time

    if value is None:
        return "-"
    if kpi.unit == "money":
        from fabricstudio.topology.cost import format_money

        return format_money(value, currency or "USD")
    if kpi.unit == "s":
        return format_time(value)
    if kpi.unit == "%":
        return f"{100 * value:.1f}%"
    if kpi.unit == "B":
        return format_bytes(value)
    if kpi.unit == "Gb/s":
        return f"{value / 1000:,.2f} Tb/s" if value >= 10_000 else f"{value:,.1f} Gb/s"
    if kpi.unit == ":1":
        return f"{value:g}:1"
    if kpi.unit == "kW":
        return f"{value:,.1f} kW"
    return f"{value:,.2f}" if value != int(value) else f"{value:,.0f}"


def format_delta(row: Row, currency: str | None = None) -> str:
    """B minus A as text: signed figure and percentage ('-' when unknown)."""
    delta = row.delta
    if delta is None:
        return "-"
    if delta == 0:
        return "="
    if row.kpi.unit == "%":
        text = f"{100 * delta:+.1f} pts"
    elif row.kpi.unit == ":1":
        text = f"{delta:+g}"
    else:
        sign = "+" if delta > 0 else "-"
        text = sign + format_value(row.kpi, abs(delta), currency)
    if row.ratio is not None and row.kpi.unit != "%":
        text += f" ({100 * (row.ratio - 1):+.1f}%)"
    return text


def format_comparison(comparison: Comparison) -> str:
    """The comparison as a plain-text table, one block per section."""
    out = [f"A: {comparison.a_name}", f"B: {comparison.b_name}"]
    sections = ["design", *comparison.scenarios]
    for section in sections:
        rows = [r for r in comparison.rows if r.section == section]
        if not rows:
            continue
        title = "Design" if section == "design" else f"Scenario: {section}"
        cells = [[r.kpi.label, format_value(r.kpi, r.a, comparison.currency),
                  format_value(r.kpi, r.b, comparison.currency),
                  format_delta(r, comparison.currency),
                  {"a": "A", "b": "B", "same": "="}.get(r.better or "", "")] for r in rows]
        headers = ["figure", "A", "B", "B - A", "better"]
        widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
        out += ["", title, *(_table_line(line, widths) for line in (headers, *cells))]
    return "\n".join(out) + "\n"


def _table_line(values: Sequence[str], widths: Sequence[int]) -> str:
    """One line of a text table: the first column left-aligned, the others right-aligned."""
    return "  " + "  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                            for i, (v, w) in enumerate(zip(values, widths, strict=True)))


__all__ = ["COMPARE_FORMAT", "DESIGN_KPIS", "RUN_KPIS", "Comparison", "Kpi", "Row",
           "compare_designs", "design_figures", "format_comparison", "pair_comparison",
           "run_figures"]
