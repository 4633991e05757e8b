"""The envelope every FabricStudio file starts with: ``{"format": NAME, "version": N, ...}``.

:func:`check_envelope` is the one check of it (the design, scenario, story and cost-book
readers call it): the document is an object, names this kind's format, and has an integer
version this build reads.  Each kind keeps its own wording of the messages (its
:class:`FileKind`), so users see what they saw before the check was shared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

#: The keys of the envelope (the rest of the document is the body).
ENVELOPE_KEYS = ("format", "version")


class FileError(ValueError):
    """A FabricStudio file could not be read (or written): ``source`` names it, ``problem``
    says what is wrong, ``str()`` is both on one line for the user.  The design, story and
    cost-book errors are FileErrors."""

    def __init__(self, source: str | os.PathLike[str], problem: str) -> None:
        self.source = str(source)
        self.problem = problem
        super().__init__(f"{self.source}: {problem}")


class EnvelopeError(ValueError):
    """The envelope is wrong; ``problem`` is the message without the file name (each reader
    raises it again as its own error type, with the file)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(problem)


@dataclass(frozen=True)
class FileKind:
    """One kind of FabricStudio file, as its envelope check names it."""

    #: What the file is, in "not a FabricStudio {noun}".
    noun: str
    #: The value of its ``format`` field.
    format_name: str
    #: The newest version this build reads.
    current_version: int
    #: How its version is named: "unknown {version_label} 0".
    version_label: str
    #: The message for a newer version (fields ``label``, ``version``, ``current``).
    newer: str = ("written by a newer FabricStudio ({label} {version}; this version reads up "
                  "to {current}). Please upgrade.")
    #: Add the JSON type found (", found a string") to shape errors.
    name_found_type: bool = False
    #: The verb before the format found: 'has no "format" field', "has format 'x'".
    format_verb: str = "has "


def check_envelope(doc: Any, kind: FileKind) -> tuple[dict[str, Any], int]:
    """``doc`` as the object it is, and its version (1 to ``kind.current_version``);
    :class:`EnvelopeError` when ``doc`` is not an object, is of another format or has a version
    this build cannot read."""
    if not isinstance(doc, dict):
        raise EnvelopeError("expected a JSON object at the top" + _found(doc, kind))
    fmt = doc.get("format")
    if fmt != kind.format_name:
        what = '"format" field' if fmt is None else f"format {fmt!r}"
        no = "no " if fmt is None else ""
        raise EnvelopeError(f"not a FabricStudio {kind.noun}: {kind.format_verb}{no}{what} "
                            f'(expected "{kind.format_name}")')
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise EnvelopeError('"version" must be an integer' + _found(version, kind))
    if version > kind.current_version:
        raise EnvelopeError(kind.newer.format(label=kind.version_label, version=version,
                                              current=kind.current_version))
    if version < 1:
        raise EnvelopeError(f"unknown {kind.version_label} {version}")
    return doc, version


def body_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without its envelope."""
    return {k: v for k, v in doc.items() if k not in ENVELOPE_KEYS}


def json_type(value: Any) -> str:
    """'an object', 'a string', ... : the JSON type of a decoded value, for messages."""
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")


def _found(value: Any, kind: FileKind) -> str:
    return f", found {json_type(value)}" if kind.name_found_type else ""
