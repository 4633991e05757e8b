"""The CLI's deliberate output: results on stdout, messages on stderr.

Every line the command line shows goes through these two functions (ruff bans ``print`` in
the package, so stray debug output cannot slip in).  Each writes ``text`` plus a newline and
flushes, as ``print`` did.
"""

from __future__ import annotations

import sys


def write_out(text: str = "") -> None:
    """Write one line (or several, joined by newlines in ``text``) of results to stdout."""
    sys.stdout.write(f"{text}\n")
    sys.stdout.flush()


def write_err(text: str) -> None:
    """Write a message (error, warning, note, progress) to stderr."""
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()
