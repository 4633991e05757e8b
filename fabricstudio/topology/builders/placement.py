"""Positions for a built fabric: role-sorted rows (core > spine > leaf > servers), servers
in a grid under their leaf, scalable unit or pod; storage network to the right; management
switches in a row below the servers they serve."""

from __future__ import annotations

import math
from collections.abc import Sequence

from fabricstudio.topology.layout import COLUMN_GAP, ROW_GAP

#: Vertical distance between rows of servers in a group, and most rows before widening.
SERVER_ROW_GAP = 70.0
MAX_SERVER_ROWS = 8
GROUP_GAP = 0.6 * COLUMN_GAP

Group = tuple[Sequence[str], Sequence[str]]


def _row(ids: Sequence[str], centre: float, y: float, out: dict) -> None:
    start = centre - (len(ids) - 1) * COLUMN_GAP / 2
    for i, ident in enumerate(ids):
        out[ident] = (start + i * COLUMN_GAP, y)


def place_groups(groups: Sequence[Group], x0: float, out: dict,
                 pod_spines: Sequence[Sequence[str]] = (),
                 column_major: bool = False) -> tuple[float, float]:
    """Each group: its leaves in the leaf row, its servers in a grid below (and its pod
    spines above, when given).  ``column_major`` fills the grid column by column, so servers
    listed leaf by leaf stand under their own leaf.  Returns (right edge x, lowest server y)."""
    x = x0
    lowest = 0.0
    for g, (leaves, servers) in enumerate(groups):
        spines = pod_spines[g] if g < len(pod_spines) else ()
        cols = max(len(leaves), len(spines), math.ceil(len(servers) / MAX_SERVER_ROWS), 1)
        width = (cols - 1) * COLUMN_GAP
        centre = x + width / 2
        _row(leaves, centre, -ROW_GAP, out)
        if spines:
            _row(spines, centre, -2 * ROW_GAP, out)
        rows = math.ceil(len(servers) / cols)
        for i, server in enumerate(servers):
            if column_major:
                col, row = divmod(i, rows)
                in_row = math.ceil(len(servers) / rows)
            else:
                row, col = divmod(i, cols)
                in_row = min(cols, len(servers) - row * cols)
            start = centre - (in_row - 1) * COLUMN_GAP / 2
            out[server] = (start + col * COLUMN_GAP, row * SERVER_ROW_GAP)
            lowest = max(lowest, row * SERVER_ROW_GAP)
        x += width + COLUMN_GAP + GROUP_GAP
    return x - COLUMN_GAP - GROUP_GAP, lowest


def place_network(groups: Sequence[Group], spines: Sequence[str], cores: Sequence[str],
                  pod_spines: Sequence[Sequence[str]], x0: float, out: dict,
                  column_major: bool = False) -> tuple[float, float]:
    """Place one network (compute or storage) starting at ``x0``; returns (right x, lowest y)."""
    right, lowest = place_groups(groups, x0, out, pod_spines, column_major)
    centre = (x0 + right) / 2
    if not pod_spines:
        _row(spines, centre, -2 * ROW_GAP, out)
    _row(cores, centre, -3 * ROW_GAP, out)
    return max(right, centre + len(spines) * COLUMN_GAP / 2), lowest


def place_management(racks: Sequence[tuple[str, Sequence[str]]],
                     aggregation: Sequence[Sequence[str]], y: float, out: dict) -> None:
    """Rack switches below the mean x of their servers; aggregation rows further below."""
    last_x = -math.inf
    for switch, members in racks:
        xs = [out[m][0] for m in members if m in out] or [0.0]
        # A rack stacked in one column: step aside so its cables fan out visibly.
        nudge = COLUMN_GAP * 0.45 if len(set(xs)) == 1 and len(xs) > 1 else 0.0
        x = max(sum(xs) / len(xs) + nudge, last_x + COLUMN_GAP)
        out[switch] = (x, y)
        last_x = x
    if racks:
        centre = (out[racks[0][0]][0] + out[racks[-1][0]][0]) / 2
    else:
        centre = 0.0
    for level, row in enumerate(aggregation, start=1):
        _row(row, centre, y + level * ROW_GAP * 0.8, out)
