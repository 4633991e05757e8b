"""Text from files shown to people: :func:`printable` (terminal, canvas, SVG, titles).

Names and descriptions are kept as written, but what is displayed never carries control
characters: an escape sequence in a design name must not clear a terminal or recolour it, and
XML (SVG) forbids most control characters even when escaped.  Bidirectional overrides, which
can make text read differently from what it is, are dropped too.
"""

from __future__ import annotations

import re

#: C0 and C1 controls, DEL, bidirectional embeddings/overrides/isolates, line and paragraph
#: separators, lone surrogates and the two non-characters XML forbids.
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff\ufffe\uffff]"
)
_WHITESPACE_CONTROLS = re.compile("[\t\n\r]+")


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` without control characters (tabs and line breaks become one space, or are kept
    as line breaks with ``keep_newlines``)."""
    if text.isprintable():
        return text
    if keep_newlines:
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
        return "\n".join(_UNPRINTABLE.sub("", line) for line in text.split("\n"))
    return _UNPRINTABLE.sub("", _WHITESPACE_CONTROLS.sub(" ", text))
