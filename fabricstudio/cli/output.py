"""The CLI's deliberate output: results on stdout, messages on stderr.

Every line the command line shows goes through these two functions (ruff bans ``print`` in
the package, so stray debug output cannot slip in).  Each writes ``text`` plus a newline and
flushes, as ``print`` did.
"""

from __future__ import annotations

import sys

from fabricstudio.model.text import printable


def write_out(text: str = "") -> None:
    """Write one line (or several, joined by newlines in ``text``) of results to stdout;
    control characters (an escape sequence in a design name) never reach the terminal."""
    sys.stdout.write(f"{printable(text, keep_newlines=True)}\n")
    sys.stdout.flush()


def write_err(text: str) -> None:
    """Write a message (error, warning, note, progress) to stderr, control characters
    removed."""
    sys.stderr.write(f"{printable(text, keep_newlines=True)}\n")
    sys.stderr.flush()
