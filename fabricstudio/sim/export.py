"""The metrics CSV of a run: the one writer the CLI (``simulate --metrics``) and the GUI
(Results panel, Simulation menu) both use, so the same run gives the same file.

One row per frame and directed link, then one per frame and flow listed in the frame.
Columns: ``t_s, kind, id, from, to`` then every per-link field of
:data:`fabricstudio.sim.metrics.LINK_FIELDS` (rows of kind ``link``) and every per-flow field of
:data:`~fabricstudio.sim.metrics.FLOW_FIELDS` (rows of kind ``flow``); fields that do not apply
to a row are empty.  ``t_s`` is the end of the sample period; a flow row's ``from``/``to`` are
its endpoints (``MetricStream.flow_ends``, filled when the run ends).  Text cells that a
spreadsheet would read as a formula (an id starting with ``=``) get a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from typing import IO, Any, BinaryIO

from fabricstudio.formats import write_output
from fabricstudio.formats.csv_safe import spreadsheet_safe
from fabricstudio.sim.metrics import FLOW_FIELDS, LINK_FIELDS, MetricStream


def _write_rows(out: IO[str], stream: MetricStream) -> int:
    writer = csv.writer(out, lineterminator="\n")
    link_names, flow_names = list(LINK_FIELDS), list(FLOW_FIELDS)
    writer.writerow(["t_s", "kind", "id", "from", "to", *link_names, *flow_names])
    blank_links, blank_flows = [""] * len(link_names), [""] * len(flow_names)
    flow_ends = stream.flow_ends
    rows = 0
    for i in range(len(stream)):
        frame = stream.frame(i)
        t = repr(frame.t)
        columns = [frame.links[name] for name in link_names]
        for j, link in enumerate(stream.links):
            values = [_cell(column[j]) for column in columns]
            writer.writerow([t, "link", spreadsheet_safe(link.key), spreadsheet_safe(link.src),
                             spreadsheet_safe(link.dst), *values, *blank_flows])
        for k, flow_id in enumerate(frame.flow_ids):
            src, dst = flow_ends.get(flow_id, ("", ""))
            values = [_cell(frame.flows[name][k]) for name in flow_names]
            writer.writerow([t, "flow", flow_id, spreadsheet_safe(src), spreadsheet_safe(dst),
                             *blank_links, *values])
        rows += len(stream.links) + len(frame.flow_ids)
    return rows


def _cell(value: Any) -> str:
    number = value.item() if hasattr(value, "item") else value
    return f"{number:.7g}" if isinstance(number, float) else str(number)


def write_metrics_csv(stream: MetricStream, path: str | os.PathLike[str], *,
                      inputs: Iterable[str | os.PathLike[str]] = (), force: bool = False) -> int:
    """Stream the CSV to ``path`` through :func:`~fabricstudio.formats.output.write_output`
    (OutputError on failure; ``inputs``/``force`` as there); returns the number of data rows."""
    rows = 0

    def emit(handle: BinaryIO) -> None:
        nonlocal rows
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
        rows = _write_rows(text, stream)
        text.flush()
        text.detach()

    write_output(path, emit, inputs=inputs, force=force)
    return rows
