"""The CLI's deliberate output: results on stdout, messages on stderr.

Every line the command line shows goes through these two functions (ruff bans ``print`` in
the package, so stray debug output cannot slip in).  Each writes ``text`` plus a newline and
flushes, as ``print`` did.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from fabricstudio.model.text import printable

_state = {"stdout_is_data": False}


def claim_stdout(values: Iterable[object]) -> None:
    """When one of ``values`` (the command's arguments) names standard output as a file
    (``--svg /dev/stdout``), results lines go to stderr so they do not end up inside the
    data; otherwise they go to stdout."""
    from fabricstudio.formats.output import inherited_fd

    _state["stdout_is_data"] = any(isinstance(v, str) and inherited_fd(v) == 1 for v in values)


def write_out(text: str = "") -> None:
    """Write one line (or several, joined by newlines in ``text``) of results to stdout (to
    stderr when stdout carries an output file, see :func:`claim_stdout`); control characters
    (an escape sequence in a design name) never reach the terminal."""
    stream = sys.stderr if _state["stdout_is_data"] else sys.stdout
    stream.write(f"{printable(text, keep_newlines=True)}\n")
    stream.flush()


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` for a message line: as it is, or quoted with escapes (``repr``) when it holds
    a line break or another control character, so "wrote PATH" stays one true line."""
    text = os.fspath(path)
    return text if printable(text) == text else repr(text)


def write_err(text: str) -> None:
    """Write a message (error, warning, note, progress) to stderr, control characters
    removed."""
    sys.stderr.write(f"{printable(text, keep_newlines=True)}\n")
    sys.stderr.flush()
