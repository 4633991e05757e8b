"""Rendering an AnalysisReport into the analysis dock's tree: problems first (coloured, each
carrying the ids to select), then key figures (oversubscription, bisection, hops, ECMP,
deadlock risk), cost and power (when priced) and the bill of materials."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from fabricstudio.topology.analysis.report import (
    AnalysisReport,
    BillOfMaterials,
    Cost,
    FailureImpact,
)
from fabricstudio.ui.panels.analysis import OBJECTS_ROLE, SEVERITY_COLOURS

MAX_ROWS = 200
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def headline(report: AnalysisReport) -> str:
    """'✔ No errors or warnings' or '⚠ 2 errors, 5 warnings'."""
    counts: dict[str, int] = {}
    for issue in report.issues:
        counts[issue.severity] = counts.get(issue.severity, 0) + 1
    bad = [(s, counts[s]) for s in ("error", "warning") if counts.get(s)]
    notes = counts.get("info", 0)
    tail = f" · {notes} note{'s' if notes != 1 else ''}" if notes else ""
    if not bad:
        return f"✔ No errors or warnings{tail}"
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in bad]
    return "⚠ " + ", ".join(parts) + tail + " · click one to select"


def _row(parent, text: str, tip: str = "") -> QTreeWidgetItem:
    item = QTreeWidgetItem([text])
    item.setToolTip(0, f"{text}\n{tip}" if tip else text)  # the whole row, when cut off
    if isinstance(parent, QTreeWidget):
        parent.addTopLevelItem(item)
    else:
        parent.addChild(item)
    return item


def fill_tree(tree: QTreeWidget, report: AnalysisReport) -> None:
    """Replace the tree's contents by the report."""
    tree.setUpdatesEnabled(False)
    try:
        tree.clear()
        _problems(tree, report)
        if report.failures is not None:
            _failures(tree, report.failures)
        _figures(tree, report)
        if report.cost is not None:
            _cost(tree, report.cost, report.bom.gpus)
        _bom(tree, report.bom)
    finally:
        tree.setUpdatesEnabled(True)


def _problems(tree: QTreeWidget, report: AnalysisReport) -> None:
    issues = sorted(report.issues, key=lambda i: _SEVERITY_ORDER[i.severity])
    top = _row(tree, f"Problems ({len(issues)})" if issues else "Problems: none")
    for issue in issues[:MAX_ROWS]:
        sev = issue.severity
        item = _row(top, f"{sev.upper()}  {issue.message}", f"{issue.code}: {issue.message}")
        colour = SEVERITY_COLOURS.get(sev, QColor("#60A5FA"))
        item.setForeground(0, QBrush(colour))
        item.setData(0, OBJECTS_ROLE, list(issue.objects))
    if len(issues) > MAX_ROWS:
        _row(top, f"… and {len(issues) - MAX_ROWS} more")
    top.setExpanded(True)


def _failures(tree: QTreeWidget, found: FailureImpact) -> None:
    """What the elements marked failed cost (the figures below are without them)."""
    top = _row(tree, f"Failures (what-if): {', '.join(found.failures[:4])}"
                     + (f" and {len(found.failures) - 4} more" if len(found.failures) > 4
                        else ""),
               "Marked failed with a right click; the key figures below are those of the "
               "fabric without them. Right click > Clear all failures to undo.")
    top.setForeground(0, QBrush(SEVERITY_COLOURS["warning"]))
    top.setData(0, OBJECTS_ROLE, list(found.devices_down) + list(found.links_down))
    _row(top, f"Down: {len(found.devices_down):,} devices, {len(found.links_down):,} cables")
    cut = _row(top, f"GPUs cut off: {found.gpus_cut_off:,} ({found.hosts_cut_off:,} of "
                    f"{found.hosts:,} GPU NICs)")
    if found.servers_cut_off:
        cut.setForeground(0, QBrush(SEVERITY_COLOURS["error"]))
        cut.setData(0, OBJECTS_ROLE, list(found.servers_cut_off))
    _row(top, f"Unreachable NIC pairs: {found.unreachable_pairs:,} of {found.pairs:,}")
    _row(top, f"Bisection: {found.bisection_gbps / 1000:,.1f} Tb/s "
              f"(healthy {found.healthy_bisection_gbps / 1000:,.1f} Tb/s)")
    if found.ecmp_width is not None and found.healthy_ecmp_width is not None:
        _row(top, f"ECMP width: mean {found.ecmp_width.mean:.1f} "
                  f"(healthy {found.healthy_ecmp_width.mean:.1f})")
    new = found.new_single_points_of_failure
    spof = _row(top, f"Single points of failure: {len(found.single_points_of_failure):,}"
                     + (f" ({len(new):,} new)" if new else ""))
    if new:
        spof.setData(0, OBJECTS_ROLE, list(new))
    top.setExpanded(True)


def _ratio(value) -> str:
    return "—" if value is None else f"{value:g}:1"


def _figures(tree: QTreeWidget, report: AnalysisReport) -> None:
    top = _row(tree, "Key figures")
    counts = report.counts
    sw = counts.switches
    _row(top, f"{counts.gpus:,} GPUs · {counts.gpu_servers:,} servers · {counts.hosts:,} fabric "
              f"NICs · {sum(sw.values()):,} switches · {counts.links:,} links")
    over = _row(top, "Oversubscription (down:up)")
    for tier in report.oversubscription.tiers:
        _row(over, f"{tier.tier}: {_ratio(tier.ratio)} (worst switch {_ratio(tier.worst_ratio)}, "
                   f"{tier.switches:,} switches)")
    over.setExpanded(True)
    b = report.bisection
    _row(top, f"Bisection bandwidth: {b.gbps / 1000:,.1f} Tb/s ({b.method}"
              f"{'' if b.exact else ', estimate'})", b.note)
    p = report.paths
    if p.hops is not None:
        _row(top, f"Hops NIC to NIC: min {p.hops.min:g}, mean {p.hops.mean:.2f}, max "
                  f"{p.hops.max:g}" + (" (sampled)" if p.sampled else ""), p.method)
    if p.ecmp_width is not None:
        _row(top, f"ECMP width: mean {p.ecmp_width.mean:.1f}, max {p.ecmp_width.max:g}")
    if p.unreachable_pairs:
        _row(top, f"Unreachable NIC pairs: {p.unreachable_pairs:,}").setForeground(
            0, QBrush(SEVERITY_COLOURS["error"]))
    d = report.deadlock
    risk = (f"PFC/credit deadlock risk: {len(d.cycles)} dependency cycle(s)" if d.risk
            else "No PFC/credit deadlock cycle on shortest routes")
    item = _row(top, risk, d.note)
    if d.risk:
        item.setForeground(0, QBrush(SEVERITY_COLOURS["warning"]))
        item.setData(0, OBJECTS_ROLE, sorted({s for c in d.cycles for s in c.switches}))
    top.setExpanded(True)


CONFIDENCE_TIPS = {
    "sourced": "every figure has a dated public source",
    "weak": "some figures come from indirect or derived sources",
    "placeholder": "some figures are placeholders with no public source: override them "
                   "(Edit > Preferences > Cost book)",
}
CATEGORY_LABELS = {"gpu_servers": "GPU servers", "storage_servers": "Storage servers",
                   "switches": "Switches", "nics": "Adapters", "transceivers": "Transceivers",
                   "cables": "Cables"}


def _confidence_colour(item: QTreeWidgetItem, confidence: str) -> None:
    if confidence == "placeholder":
        item.setForeground(0, QBrush(SEVERITY_COLOURS["warning"]))


def _cost(tree: QTreeWidget, cost: Cost, gpus: int) -> None:
    from fabricstudio.topology.cost import format_money

    cur = cost.currency
    top = _row(tree, f"Cost and power ({cost.confidence})",
               f"Prices in {cur}. Lowest confidence of the figures that went in: "
               f"{cost.confidence} - {CONFIDENCE_TIPS.get(cost.confidence, '')}")
    _confidence_colour(top, cost.confidence)
    per_gpu = f" ({format_money(cost.per_gpu, cur)}/GPU)" if cost.per_gpu else ""
    _row(top, f"Capex {format_money(cost.total, cur)}{per_gpu}",
         "Everything in the bill of materials, servers included")
    network = cost.network_total
    net_gpu = f" ({format_money(network / gpus, cur)}/GPU)" if gpus else ""
    share = f"{100 * network / cost.total:.0f}% of capex; " if cost.total else ""
    _confidence_colour(_row(top, f"Network {format_money(network, cur)}{net_gpu}",
                            f"Switches, adapters, transceivers and cables (what changes "
                            f"between fabrics): {share}confidence {cost.network_confidence}"),
                       cost.network_confidence)
    if cost.per_tbps_bisection:
        _row(top, f"{format_money(cost.per_tbps_bisection, cur)} per Tb/s bisection",
             "Capex / bisection bandwidth (one direction)")
    _row(top, f"Power {cost.power_w / 1000:,.1f} kW (network {cost.network_power_w / 1000:,.1f})",
         "Servers at maximum draw, switches without optics, each module and active cable "
         "on its own")
    _row(top, f"Rack units {cost.rack_units:,.0f} U")
    cats = _row(top, "By category")
    for name, cat in cost.by_category.items():
        item = _row(cats, f"{CATEGORY_LABELS.get(name, name)} {format_money(cat.total, cur)}, "
                          f"{cat.power_w / 1000:,.1f} kW",
                    f"{cat.rack_units:,.0f} U; {cat.confidence}: "
                    f"{CONFIDENCE_TIPS.get(cat.confidence, '')}")
        _confidence_colour(item, cat.confidence)
    cats.setExpanded(True)
    top.setExpanded(True)


def _bom(tree: QTreeWidget, bom: BillOfMaterials) -> None:
    top = _row(tree, "Bill of materials")
    _row(top, f"{bom.gpu_servers:,} GPU servers ({bom.gpus:,} GPUs), {bom.storage_servers:,} "
              "storage servers")
    switches = _row(top, f"Switches ({sum(g.count for g in bom.switches):,})")
    for g in bom.switches:
        _row(switches, f"{g.count:,} × {g.kind}, {g.radix} × {g.port_speed_gbps:g}G "
                       f"({g.ports_used:,} ports used, {g.ports_free:,} free)", g.part)
    nics = _row(top, f"NICs ({sum(g.count for g in bom.nics):,})")
    for g in bom.nics:
        _row(nics, f"{g.count:,} × {g.speed_gbps:g}G {g.plane} ({g.connected:,} connected)",
             g.part or "on the motherboard")
    cables = _row(top, f"Links ({sum(g.count for g in bom.cables):,}), "
                       f"{bom.transceivers:,} transceivers")
    for g in bom.cables:
        parts = [f"{g.assemblies:,} cables"] + [f"{n:,} × {m}" for m, n in g.modules.items()]
        brk = f", {g.breakout}" if g.breakout else ""
        _row(cables, f"{g.count:,} × {g.speed_gbps:g}G {g.segment} {g.media}{brk} ({g.plane})",
             "; ".join(parts))
    order = _row(top, f"Order ({len(bom.items)} lines)")
    for item in bom.items:
        _row(order, f"{item.count:,} × {item.label}", item.part)
    for note in bom.notes:
        _row(top, note).setForeground(0, QBrush(SEVERITY_COLOURS["warning"]))
    top.setExpanded(True)
