"""Writing tables (cable plans, order lists) as CSV and XLSX, safely.

Cells that a spreadsheet would run as a formula (text starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return; OWASP "CSV injection") are written as text: CSV cells get a
leading apostrophe, XLSX cells are written as strings with formula conversion off.  Numbers
stay numbers.  Files are written atomically (temporary file, then rename).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path

from fabricstudio.formats.design_file import DesignFileError, atomic_write_bytes

Cell = str | int | float | None
Sheet = tuple[str, Sequence[str], Sequence[Sequence[Cell]]]
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: str) -> str:
    """``value`` made inert for spreadsheets (leading apostrophe before a formula start)."""
    return "'" + value if value.startswith(_FORMULA_START) else value


def csv_cell(value: Cell) -> str | int | float:
    """A cell for the csv module: numbers as they are, text made inert."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return value
    return safe_text(str(value))


def csv_bytes(headers: Sequence[str], rows: Sequence[Sequence[Cell]]) -> bytes:
    """The table as UTF-8 CSV (with a BOM so spreadsheet programs read UTF-8)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([csv_cell(h) for h in headers])
    for row in rows:
        writer.writerow([csv_cell(c) for c in row])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


def write_csv(path: str | os.PathLike[str], headers: Sequence[str],
              rows: Sequence[Sequence[Cell]]) -> None:
    """Write one table as CSV, atomically."""
    atomic_write_bytes(path, csv_bytes(headers, rows))


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


def write_xlsx(path: str | os.PathLike[str], sheets: Sequence[Sheet]) -> None:
    """Write the sheets as an XLSX workbook, atomically."""
    atomic_write_bytes(path, xlsx_bytes(sheets))


def write_tables(path: str | os.PathLike[str], sheets: Sequence[Sheet]) -> list[Path]:
    """Write ``sheets`` by the file's extension: ``.xlsx`` one workbook; ``.csv`` the first
    sheet to ``path`` and each further sheet beside it as ``<stem>.<sheet>.csv``.  Returns the
    files written; DesignFileError (one line) when a file cannot be written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        write_xlsx(path, sheets)
        return [path]
    if suffix != ".csv":
        raise DesignFileError(path, "unknown table format: use a .csv or .xlsx file name")
    written = []
    for n, (name, headers, rows) in enumerate(sheets):
        target = path if n == 0 else path.with_name(f"{path.stem}.{name.lower()}.csv")
        write_csv(target, headers, rows)
        written.append(target)
    return written
