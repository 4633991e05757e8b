"""Rendering an AnalysisReport into the analysis dock's tree: issues first (coloured, each
carrying the ids to select), then every other section of the report as readable rows."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from fabricstudio.ui.forms import field_label
from fabricstudio.ui.panels.analysis import OBJECTS_ROLE, SEVERITY_COLOURS

MAX_ROWS = 200


def _issues(report) -> list:
    return list(getattr(report, "issues", []) or [])


def _severity(issue) -> str:
    value = getattr(issue, "severity", "warning")
    return str(getattr(value, "value", value)).lower()


def headline(report) -> str:
    """'2 errors, 5 warnings' or 'No problems found'."""
    counts: dict[str, int] = {}
    for issue in _issues(report):
        counts[_severity(issue)] = counts.get(_severity(issue), 0) + 1
    if not counts:
        return "✔ No problems found"
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in sorted(counts.items())]
    return "⚠ " + ", ".join(parts) + " · click one to select its objects"


def fill_tree(tree: QTreeWidget, report) -> None:
    """Replace the tree's contents by the report."""
    tree.setUpdatesEnabled(False)
    try:
        tree.clear()
        issues = _issues(report)
        if issues:
            top = QTreeWidgetItem([f"Problems ({len(issues)})"])
            tree.addTopLevelItem(top)
            for issue in issues[:MAX_ROWS]:
                sev = _severity(issue)
                item = QTreeWidgetItem([f"{sev.upper()}  {issue.message}"])
                item.setToolTip(0, f"{getattr(issue, 'code', '')}: {issue.message}")
                colour = SEVERITY_COLOURS.get(sev)
                if colour is not None:
                    item.setForeground(0, QBrush(colour))
                item.setData(0, OBJECTS_ROLE, list(getattr(issue, "objects", []) or []))
                top.addChild(item)
            if len(issues) > MAX_ROWS:
                top.addChild(QTreeWidgetItem([f"… and {len(issues) - MAX_ROWS} more"]))
            top.setExpanded(True)
        data = report.model_dump(mode="json") if hasattr(report, "model_dump") else {}
        for key, value in data.items():
            if key == "issues" or value in (None, [], {}):
                continue
            section = QTreeWidgetItem([field_label(key)])
            tree.addTopLevelItem(section)
            _add_value(section, value)
            section.setExpanded(key in ("oversubscription", "bisection", "hops", "summary"))
    finally:
        tree.setUpdatesEnabled(True)


def _add_value(parent: QTreeWidgetItem, value: Any) -> None:
    if isinstance(value, dict):
        for key, sub in list(value.items())[:MAX_ROWS]:
            if isinstance(sub, (dict, list)) and sub:
                child = QTreeWidgetItem([field_label(str(key))])
                parent.addChild(child)
                _add_value(child, sub)
            else:
                parent.addChild(QTreeWidgetItem([f"{field_label(str(key))}: {_text(sub)}"]))
    elif isinstance(value, list):
        for i, sub in enumerate(value[:MAX_ROWS]):
            if isinstance(sub, dict):
                title = sub.get("name") or sub.get("item") or sub.get("label") or f"#{i + 1}"
                child = QTreeWidgetItem([str(title)])
                parent.addChild(child)
                _add_value(child, {k: v for k, v in sub.items() if v != title})
            else:
                parent.addChild(QTreeWidgetItem([_text(sub)]))
    else:
        parent.setText(0, f"{parent.text(0)}: {_text(value)}")


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)
