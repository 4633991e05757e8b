"""CSV cells a spreadsheet will not execute: :func:`spreadsheet_safe`.

Spreadsheets treat a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or
carriage return) as a formula, so an id such as ``=HYPERLINK("http://...")`` in an exported CSV
would run when the file is opened (OWASP "CSV injection").  Text cells that start with one of
those characters get a leading apostrophe, which spreadsheets show as text; numbers are left
alone (write them as numbers, not through this function).
"""

from __future__ import annotations

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """``text`` as a CSV text cell that opens as text in a spreadsheet."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text



def from_spreadsheet_safe(text: str) -> str:
    """Undo :func:`spreadsheet_safe`: the cell's text without the apostrophe that was put
    before a formula character."""
    if len(text) > 1 and text[0] == "'" and text[1] in FORMULA_STARTS:
        return text[1:]
    return text
