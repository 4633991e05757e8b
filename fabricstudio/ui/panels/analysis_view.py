"""Rendering an AnalysisReport into the analysis dock's tree: problems first (coloured, each
carrying the ids to select), then key figures (oversubscription, bisection, hops, ECMP,
deadlock risk) and the bill of materials."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from fabricstudio.ui.panels.analysis import OBJECTS_ROLE, SEVERITY_COLOURS

MAX_ROWS = 200
_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _severity(issue) -> str:
    return str(getattr(issue.severity, "value", issue.severity)).lower()


def headline(report) -> str:
    """'✔ No errors or warnings' or '⚠ 2 errors, 5 warnings'."""
    counts: dict[str, int] = {}
    for issue in report.issues:
        counts[_severity(issue)] = counts.get(_severity(issue), 0) + 1
    bad = [(s, counts[s]) for s in ("error", "warning") if counts.get(s)]
    notes = counts.get("info", 0)
    tail = f" · {notes} note{'s' if notes != 1 else ''}" if notes else ""
    if not bad:
        return f"✔ No errors or warnings{tail}"
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in bad]
    return "⚠ " + ", ".join(parts) + tail + " · click one to select"


def _row(parent, text: str, tip: str = "") -> QTreeWidgetItem:
    item = QTreeWidgetItem([text])
    if tip:
        item.setToolTip(0, tip)
    if isinstance(parent, QTreeWidget):
        parent.addTopLevelItem(item)
    else:
        parent.addChild(item)
    return item


def fill_tree(tree: QTreeWidget, report) -> None:
    """Replace the tree's contents by the report."""
    tree.setUpdatesEnabled(False)
    try:
        tree.clear()
        _problems(tree, report)
        _figures(tree, report)
        _bom(tree, report.bom)
    finally:
        tree.setUpdatesEnabled(True)


def _problems(tree: QTreeWidget, report) -> None:
    issues = sorted(report.issues, key=lambda i: _SEVERITY_ORDER.get(_severity(i), 3))
    top = _row(tree, f"Problems ({len(issues)})" if issues else "Problems: none")
    for issue in issues[:MAX_ROWS]:
        sev = _severity(issue)
        item = _row(top, f"{sev.upper()}  {issue.message}", f"{issue.code}: {issue.message}")
        colour = SEVERITY_COLOURS.get(sev, QColor("#60A5FA"))
        item.setForeground(0, QBrush(colour))
        item.setData(0, OBJECTS_ROLE, list(issue.objects))
    if len(issues) > MAX_ROWS:
        _row(top, f"… and {len(issues) - MAX_ROWS} more")
    top.setExpanded(True)


def _ratio(value) -> str:
    return "—" if value is None else f"{value:g}:1"


def _figures(tree: QTreeWidget, report) -> None:
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


def _bom(tree: QTreeWidget, bom) -> None:
    top = _row(tree, "Bill of materials")
    _row(top, f"{bom.gpu_servers:,} GPU servers ({bom.gpus:,} GPUs), {bom.storage_servers:,} "
              "storage servers")
    switches = _row(top, f"Switches ({sum(g.count for g in bom.switches):,})")
    for g in bom.switches:
        _row(switches, f"{g.count:,} × {g.kind}, {g.radix} × {g.port_speed_gbps:g}G "
                       f"({g.ports_used:,} ports used, {g.ports_free:,} free)")
    nics = _row(top, f"NICs ({sum(g.count for g in bom.nics):,})")
    for g in bom.nics:
        _row(nics, f"{g.count:,} × {g.speed_gbps:g}G {g.plane} ({g.connected:,} connected)")
    cables = _row(top, f"Cables ({sum(g.count for g in bom.cables):,}), "
                       f"{bom.transceivers:,} transceivers")
    for g in bom.cables:
        _row(cables, f"{g.count:,} × {g.speed_gbps:g}G {g.cable} ({g.plane}"
                     + (f", {g.transceivers:,} transceivers)" if g.transceivers else ")"))
    top.setExpanded(True)
