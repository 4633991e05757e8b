"""``fabricstudio analyze DESIGN [--json]``: checks, capacity, paths, BOM and deadlock risk."""

from __future__ import annotations

import argparse
import sys

from fabricstudio.cli.common import (
    CliError,
    add_cost_book_argument,
    add_failure_argument,
    load_cost_book_arg,
    load_design_arg,
    positive_int,
)
from fabricstudio.cli.output import write_out
from fabricstudio.topology.analysis import DEFAULT_MAX_PAIRS, AnalysisReport, Stat, analyze
from fabricstudio.topology.cost import format_money

NAME = "analyze"
HELP = "analyse a design: issues, oversubscription, bisection, paths, bill of materials, " \
       "cost and power, PFC deadlock risk"
#: Issues listed in the table before "... and N more".
SHOWN_ISSUES = 25


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``analyze``."""
    parser.add_argument("design", metavar="DESIGN", help="design file")
    parser.add_argument("--json", action="store_true",
                        help="print the report as JSON (keys documented in docs/analysis.md)")
    parser.add_argument("--max-pairs", type=positive_int, default=DEFAULT_MAX_PAIRS, metavar="N",
                        help="(source leaf x switch) pairs examined before sampling "
                             f"(default {DEFAULT_MAX_PAIRS:,})")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when the report has errors")
    add_cost_book_argument(parser)
    add_failure_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Analyse and print."""
    book = load_cost_book_arg(args.cost_book)
    design = load_design_arg(args.design)
    try:
        report = analyze(design, max_pairs=args.max_pairs, cost_book=book, failures=args.fail)
    except ValueError as exc:
        raise CliError(f"{args.design}: {exc}") from None
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    else:
        write_out(format_report(report).rstrip("\n"))  # names shown without control chars
    return 1 if args.strict and report.errors() else 0


def _tbps(gbps: float) -> str:
    return f"{gbps / 1000:,.1f} Tb/s" if gbps >= 1000 else f"{gbps:,.0f} Gb/s"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:g}:1"


def _stat(stat: Stat | None) -> str:
    return "-" if stat is None else f"{stat.min:g} / {stat.mean:g} / {stat.max:g}"


def format_report(report: AnalysisReport) -> str:
    """The report as a readable plain-text table."""
    out: list[str] = []
    c = report.counts
    sw = ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in c.switches.items() if n)
    out.append(f"Design: {report.design} ({report.technology}, "
               f"{'lossless' if report.lossless else 'lossy'})")
    out.append(f"  {c.gpus:,} GPUs on {c.gpu_servers:,} servers, {c.hosts:,} GPU NICs connected, "
               f"{c.storage_servers:,} storage servers; switches: {sw or 'none'}; "
               f"{c.links:,} links")
    out += _issues(report)
    out += _failures(report)
    out.append("")
    out.append("Oversubscription (compute network)")
    out.append(f"  {'tier':<6} {'switches':>8} {'down':>13} {'up':>13} {'ratio':>8} {'worst':>8}")
    for t in report.oversubscription.tiers:
        out.append(f"  {t.tier:<6} {t.switches:>8,} {_tbps(t.down_gbps):>13} "
                   f"{_tbps(t.up_gbps):>13} {_ratio(t.ratio):>8} {_ratio(t.worst_ratio):>8}")
    b = report.bisection
    out.append("")
    out.append(f"Bisection bandwidth: {_tbps(b.gbps)} ({b.method}, "
               f"{'exact' if b.exact else 'estimate'}): {b.note}")
    p = report.paths
    out.append("")
    out.append(f"Paths between GPU NICs on different servers ({p.method}; "
               f"{p.pairs_examined:,} of {p.pairs:,} pairs)")
    out.append(f"  hops min/mean/max        {_stat(p.hops)}   diameter {p.diameter_hops or '-'}")
    out.append(f"  ECMP paths min/mean/max  {_stat(p.ecmp_paths)}")
    out.append(f"  ECMP width min/mean/max  {_stat(p.ecmp_width)}")
    if p.unreachable_pairs:
        out.append(f"  unreachable pairs        {p.unreachable_pairs:,}")
    d = report.deadlock
    out.append("")
    verdict = "RISK" if d.risk else "no risk"
    out.append(f"PFC deadlock: {verdict} ({d.method}, {d.destinations_examined} of "
               f"{d.destinations} destinations{'' if d.exact else ', sampled'}): {d.note}")
    for cycle in d.cycles:
        out.append("  cycle: " + " -> ".join(cycle.switches + cycle.switches[:1]))
    out += _bom(report)
    out += _cost(report)
    return "\n".join(out) + "\n"


def _issues(report: AnalysisReport) -> list[str]:
    issues = report.issues
    counts = {s: sum(1 for i in issues if i.severity == s) for s in ("error", "warning", "info")}
    out = ["", f"Issues: {counts['error']} error(s), {counts['warning']} warning(s), "
               f"{counts['info']} note(s)"]
    for issue in issues[:SHOWN_ISSUES]:
        out.append(f"  {issue.severity.upper():<8} {issue.code:<24} {issue.message}")
    if len(issues) > SHOWN_ISSUES:
        out.append(f"  ... and {len(issues) - SHOWN_ISSUES} more (see --json)")
    return out


def _failures(report: AnalysisReport) -> list[str]:
    found = report.failures
    if found is None:
        return []
    out = ["", f"Failures: {', '.join(found.failures)} ({len(found.links_down):,} cables, "
               f"{len(found.devices_down):,} devices down); the figures below are without them"]
    out.append(f"  GPU NICs cut off         {found.hosts_cut_off:,} of {found.hosts:,} "
               f"({found.gpus_cut_off:,} GPUs; servers: "
               f"{', '.join(found.servers_cut_off[:8]) or 'none'})")
    out.append(f"  unreachable NIC pairs    {found.unreachable_pairs:,} of {found.pairs:,}")
    out.append(f"  bisection                {_tbps(found.bisection_gbps)} "
               f"(healthy {_tbps(found.healthy_bisection_gbps)})")
    out.append(f"  ECMP width min/mean/max  {_stat(found.ecmp_width)} "
               f"(healthy {_stat(found.healthy_ecmp_width)})")
    new = found.new_single_points_of_failure
    out.append(f"  single points of failure {len(found.single_points_of_failure):,}"
               f"{f' (new: {chr(44).join(new[:8])})' if new else ''}")
    return out


def _bom(report: AnalysisReport) -> list[str]:
    bom = report.bom
    out = ["", "Bill of materials",
           f"  {bom.gpu_servers:,} GPU servers ({bom.gpus:,} GPUs), "
           f"{bom.storage_servers:,} storage servers"]
    for g in bom.switches:
        out.append(f"  {g.count:>6,} x {g.kind.replace('_', ' '):<12} radix {g.radix:<4} "
                   f"@ {g.port_speed_gbps:g}G   ports used {g.ports_used:,}, free "
                   f"{g.ports_free:,}")
    for n in bom.nics:
        out.append(f"  {n.count:>6,} x {n.plane} NIC port @ {n.speed_gbps:g}G "
                   f"({n.connected:,} connected)")
    out.append("  links by segment:")
    for cable in bom.cables:
        parts = [f"{cable.assemblies:,} cables"]
        parts += [f"{n:,} x {module}" for module, n in cable.modules.items()]
        brk = f", breakout {cable.breakout}" if cable.breakout else ""
        out.append(f"  {cable.count:>6,} x {cable.plane} {cable.segment} {cable.media} "
                   f"@ {cable.speed_gbps:g}G{brk}: {', '.join(parts)}")
    classes = ", ".join(f"{k} {v:,}" for k, v in bom.cables_by_class.items())
    out.append(f"  links by class: {classes}; transceivers {bom.transceivers:,}; switch ports "
               f"used {bom.switch_ports_used:,}, free {bom.switch_ports_free:,}")
    out.append("  order:")
    for item in bom.items:
        out.append(f"  {item.count:>6,} x {item.part:<26} {item.label}")
    out += [f"  note: {note}" for note in bom.notes]
    return out


def _cost(report: AnalysisReport) -> list[str]:
    cost = report.cost
    if cost is None:
        return []
    cur = cost.currency
    out = ["", f"Cost and power ({cur}; lowest confidence: {cost.confidence})",
           f"  {'category':<16} {'capex':>10} {'power':>10} {'rack U':>7}  confidence"]
    for name, cat in cost.by_category.items():
        out.append(f"  {name.replace('_', ' '):<16} {format_money(cat.total, cur):>10} "
                   f"{cat.power_w / 1000:>8,.1f}kW {cat.rack_units:>7,.0f}  {cat.confidence}")
    out.append(f"  {'total':<16} {format_money(cost.total, cur):>10} "
               f"{cost.power_w / 1000:>8,.1f}kW {cost.rack_units:>7,.0f}  {cost.confidence}")
    gpus = report.bom.gpus
    network = cost.network_total
    per_gpu = f", {format_money(cost.per_gpu, cur)} per GPU" if cost.per_gpu else ""
    per_tbps = (f", {format_money(cost.per_tbps_bisection, cur)} per Tb/s of bisection"
                if cost.per_tbps_bisection else "")
    out.append(f"  cluster {format_money(cost.total, cur)}{per_gpu}{per_tbps}")
    if gpus:
        out.append(f"  network (switches, adapters, optics, cables) {format_money(network, cur)}"
                   f" = {network / gpus if gpus else 0:,.0f} {cur} per GPU, "
                   f"{100 * network / cost.total if cost.total else 0:.1f}% of the total; "
                   f"{cost.network_power_w / 1000:,.1f} kW")
    if cost.confidence != "sourced":
        out.append("  prices marked weak or placeholder are estimates: override them with "
                   "--cost-book FILE (docs/cost.md)")
    return out
