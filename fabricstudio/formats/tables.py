"""Writing tables (cable plans, order lists) as CSV and XLSX, safely.

Cells that a spreadsheet would run as a formula (text starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return; OWASP "CSV injection") are written as text: CSV cells get a
leading apostrophe (:func:`~fabricstudio.formats.csv_safe.spreadsheet_safe`), XLSX cells are
written as strings with formula conversion off.  Numbers stay numbers.  Files go through THE
output writer (:func:`~fabricstudio.formats.output.write_output`: atomic, symlinks and
special files handled, inputs never overwritten without ``force``).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

from fabricstudio.formats.csv_safe import spreadsheet_safe
from fabricstudio.formats.output import OutputError, check_output, write_output

Cell = str | int | float | None
Sheet = tuple[str, Sequence[str], Sequence[Sequence[Cell]]]
Paths = Sequence[str | os.PathLike[str]]


def csv_cell(value: Cell) -> str | int | float:
    """A cell for the csv module: numbers as they are, text made inert."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return value
    return spreadsheet_safe(str(value))


def csv_bytes(headers: Sequence[str], rows: Sequence[Sequence[Cell]]) -> bytes:
    """The table as UTF-8 CSV (with a BOM so spreadsheet programs read UTF-8)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([csv_cell(h) for h in headers])
    for row in rows:
        writer.writerow([csv_cell(c) for c in row])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def write_csv(path: str | os.PathLike[str], headers: Sequence[str],
              rows: Sequence[Sequence[Cell]], *, inputs: Paths = (), force: bool = False
              ) -> None:
    """Write one table as CSV (OutputError, one line, when it cannot be written)."""
    write_output(path, csv_bytes(headers, rows), inputs=inputs, force=force)


def xlsx_bytes(sheets: Sequence[Sheet]) -> bytes:
    """A workbook with one sheet per (name, headers, rows); header row bold and frozen,
    columns sized to their contents, an autofilter on each table."""
    import xlsxwriter  # lazy: only exports need it

    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True, "strings_to_formulas": False,
                                        "strings_to_urls": False, "strings_to_numbers": False})
    bold = book.add_format({"bold": True, "bg_color": "#DDE3EA", "border": 1})
    for name, headers, rows in sheets:
        sheet = book.add_worksheet(name[:31])
        widths = [len(str(h)) for h in headers]
        for col, header in enumerate(headers):
            sheet.write_string(0, col, str(header), bold)
        for r, row in enumerate(rows, start=1):
            for col, value in enumerate(row):
                if value is None or value == "":
                    continue
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    sheet.write_number(r, col, value)
                else:
                    sheet.write_string(r, col, str(value))
                if col >= len(widths):
                    widths.append(0)
                widths[col] = max(widths[col], len(str(value)))
        for col, width in enumerate(widths):
            sheet.set_column(col, col, min(max(width + 2, 6), 60))
        sheet.freeze_panes(1, 0)
        if rows and headers:
            sheet.autofilter(0, 0, len(rows), len(headers) - 1)
    book.close()
    return buffer.getvalue()


def write_xlsx(path: str | os.PathLike[str], sheets: Sequence[Sheet], *, inputs: Paths = (),
               force: bool = False) -> None:
    """Write the sheets as an XLSX workbook (OutputError when it cannot be written)."""
    write_output(path, xlsx_bytes(sheets), inputs=inputs, force=force)


def table_paths(path: str | os.PathLike[str], sheets: Sequence[Sheet]) -> list[Path]:
    """The files :func:`write_tables` writes for ``path``: the workbook, or one CSV per
    sheet (``<stem>.<sheet>.csv`` beside the first).  OutputError for another extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return [path]
    if suffix != ".csv":
        raise OutputError(path, "unknown table format: use a .csv or .xlsx file name")
    return [path if n == 0 else path.with_name(f"{path.stem}.{name.lower()}.csv")
            for n, (name, _h, _r) in enumerate(sheets)]


def check_tables(path: str | os.PathLike[str], sheets: Sequence[Sheet], *,
                 inputs: Paths = (), force: bool = False) -> None:
    """Refuse output paths :func:`write_tables` would refuse, without writing."""
    for target in table_paths(path, sheets):
        check_output(target, inputs=inputs, force=force)


def write_tables(path: str | os.PathLike[str], sheets: Sequence[Sheet], *, inputs: Paths = (),
                 force: bool = False) -> list[Path]:
    """Write ``sheets`` by the file's extension: ``.xlsx`` one workbook; ``.csv`` the first
    sheet to ``path`` and each further sheet beside it as ``<stem>.<sheet>.csv``.  Returns the
    files written; OutputError (one line) when a file cannot be written."""
    targets = table_paths(path, sheets)
    check_tables(path, sheets, inputs=inputs, force=force)
    if len(targets) == 1 and targets[0].suffix.lower() == ".xlsx":
        write_xlsx(targets[0], sheets, inputs=inputs, force=force)
        return targets
    for target, (_name, headers, rows) in zip(targets, sheets, strict=True):
        write_csv(target, headers, rows, inputs=inputs, force=force)
    return targets
