"""Reading an input file without trusting it: :func:`read_input`, then :func:`decode_json`.

Only regular files are read: devices (``/dev/zero``), FIFOs, sockets and folders are refused
from their metadata, before anything is read, so a stream never fills memory and a pipe never
hangs the program.  The size limit is checked before reading and again while reading (a file
that grows, or a ``/proc`` file reporting size 0, cannot get past it).
"""

from __future__ import annotations

import errno
import json
import os
import stat
from typing import Any

from fabricstudio.formats.json_strict import JsonError, loads_strict
from fabricstudio.model.units import format_mib

#: Names of the kinds of special file, for messages.
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


class InputError(ValueError):
    """An input file cannot be read; ``problem`` is the message without the path."""

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def too_large(size: float, limit: int) -> str:
    """The message for a file over the limit, in the same unit for both numbers."""
    return f"file is too large ({format_mib(size)}; the limit is {format_mib(limit)})"


def file_kind(mode: int) -> str | None:
    """'a folder', 'a FIFO (named pipe)', ... for a special file's mode; None when regular."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "an unusual kind of file"


def read_input(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit`` bytes); InputError otherwise."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as exc:
        raise InputError(path, _reason(exc)) from None
    _check_regular(path, info.st_mode)
    if info.st_size > limit:
        raise InputError(path, too_large(info.st_size, limit))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputError(path, _reason(exc)) from None
    try:
        _check_regular(path, os.fstat(fd).st_mode)  # swapped for a pipe since the stat?
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(path, too_large(total, limit))
    except OSError as exc:
        raise InputError(path, _reason(exc)) from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def decode_text(raw: bytes | str, source: str | os.PathLike[str]) -> str:
    """The text of a file's bytes (UTF-8, a BOM allowed); InputError naming the first bad
    byte, or saying the file is empty (nothing but white space)."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(source, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                                     f"{exc.start})") from None
    else:
        text = raw.removeprefix("\ufeff")
    if not text.strip():
        raise InputError(source, "file is empty")
    return text


def decode_json(raw: bytes | str, source: str | os.PathLike[str],
                limit: int | None = None) -> Any:
    """The strict JSON document (:func:`~fabricstudio.formats.json_strict.loads_strict`) in
    a file's bytes or text (a UTF-8 BOM allowed); InputError(source, problem) otherwise, the
    problem one line: too large (over ``limit`` bytes), not UTF-8, empty, not valid JSON
    (where, and whether the text looks truncated), or nested too deeply.  Every file format
    decodes through here and wraps the problem in its own error."""
    if limit is not None and len(raw) > limit:
        raise InputError(source, too_large(len(raw), limit))
    text = decode_text(raw, source)
    try:
        return loads_strict(text)
    except JsonError as exc:
        raise InputError(source, f"not valid JSON ({exc})") from None
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        hint = "; the file looks truncated" if truncated else ""
        raise InputError(source, f"not valid JSON ({exc.msg}: line {exc.lineno}, column "
                                 f"{exc.colno}{hint})") from None
    except RecursionError:
        raise InputError(source, "JSON is nested too deeply") from None


def _check_regular(path: str | os.PathLike[str], mode: int) -> None:
    kind = file_kind(mode)
    if kind == "a folder":
        raise InputError(path, "is a folder, not a file")
    if kind is not None:
        raise InputError(path, f"not a regular file ({kind})")


def _reason(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ELOOP:
        return "too many levels of symbolic links"
    if exc.errno == errno.EISDIR:
        return "is a folder, not a file"
    return f"cannot read: {exc.strerror or exc}"
