"""The design file: ``{"format": "fabricstudio-design", "version": N, ...}``.

Loading never trusts its input: size, encoding, JSON syntax, nesting, envelope, version,
field types and cross-object rules are each checked, and every failure raises
:class:`DesignFileError` with one readable message naming the file and the problem.
Saving goes through :func:`fabricstudio.formats.output.write_output` (atomic, follows links,
never replaces a device or the input file) and refuses a design too large to open again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import ConfigDict, ValidationError

from fabricstudio.formats.envelope import (
    EnvelopeError,
    FileError,
    FileKind,
    body_of,
    check_envelope,
)
from fabricstudio.formats.output import OutputError, write_output
from fabricstudio.formats.reading import InputError, decode_json, read_input
from fabricstudio.model import Design, DesignData, DesignError, format_validation_error
from fabricstudio.model.bulk import bulk_build
from fabricstudio.model.units import format_mib

FORMAT_NAME = "fabricstudio-design"
#: Version 1: devices, links, fabric settings.  Version 2 adds ``groups`` (racks with
#: optional U positions, scalable units, pods, user groups).
CURRENT_VERSION = 2
#: Largest design file read or written.  The largest fabric the generator builds (131,072
#: GPUs with storage and management networks) is about 115 MiB; a 65,536-GPU rail-optimised
#: fabric 37 MiB.  Saves refuse anything above it, so every file the tool writes opens again.
MAX_FILE_BYTES = 256 * 2**20
#: How the envelope check names design files.
DESIGN_FILE = FileKind(
    noun="design", format_name=FORMAT_NAME, current_version=CURRENT_VERSION,
    version_label="format version", name_found_type=True,
    newer=("written by a newer FabricStudio ({label} {version}; this version reads up to "
           "{current}). Please upgrade FabricStudio."))


def _v1_to_v2(doc: dict[str, Any]) -> dict[str, Any]:
    """Version 1 had no groups: the design keeps its devices and links, in no group."""
    if "groups" in doc:
        raise ValueError("\"groups\" needs format version 2 (this file says version 1)")
    out = dict(doc)
    out["groups"] = []
    out["version"] = 2
    return out


#: Migrations: version N -> function turning a version-N dict into a version-(N+1) dict.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}


class DesignFileError(FileError):
    """A design file could not be read or written; ``str()`` is the message for the user."""


class DesignFile(DesignData):
    """The file's top-level object (used for the published JSON Schema)."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="FabricStudio design file")

    format: Literal["fabricstudio-design"]
    version: Literal[2]


def load_design(path: str | os.PathLike[str]) -> Design:
    """Read and validate a design file (a regular file of at most :data:`MAX_FILE_BYTES`)."""
    try:
        raw = read_input(path, MAX_FILE_BYTES)
    except InputError as exc:
        raise DesignFileError(path, exc.problem) from None
    return parse_design(raw, source=path)


def parse_design(raw: bytes | str, source: str | os.PathLike[str] = "<input>") -> Design:
    """Parse design-file text or bytes into a validated Design."""
    with bulk_build():
        return _parse_design(raw, source)


def _parse_design(raw: bytes | str, source: str | os.PathLike[str]) -> Design:
    try:
        doc = decode_json(raw, source, MAX_FILE_BYTES)
    except InputError as exc:
        raise DesignFileError(source, exc.problem) from None
    doc = _check_envelope(doc, source)
    body = body_of(doc)
    try:
        data = DesignData.model_validate(body)
    except ValidationError as exc:
        raise DesignFileError(source, format_validation_error(exc)) from None
    except RecursionError:
        raise DesignFileError(source, "data is nested too deeply") from None
    try:
        return Design.from_data(data)
    except DesignError as exc:
        raise DesignFileError(source, str(exc)) from None


def _check_envelope(doc: Any, source: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        migrated, version = check_envelope(doc, DESIGN_FILE)
    except EnvelopeError as exc:
        raise DesignFileError(source, exc.problem) from None
    while version < CURRENT_VERSION:
        try:
            migrated = MIGRATIONS[version](migrated)
        except ValueError as exc:
            raise DesignFileError(source, str(exc)) from None
        version += 1
    return migrated


def dump_design(design: Design) -> str:
    """The design as design-file JSON text."""
    return dump_design_data(design.to_data())


def dump_design_data(data: DesignData) -> str:
    """A design's plain value as design-file JSON text (safe on a worker thread: the values
    are immutable)."""
    body = data.model_dump(mode="json")
    doc = {"format": FORMAT_NAME, "version": CURRENT_VERSION, **body}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def save_design(design: Design, path: str | os.PathLike[str]) -> None:
    """Write the design safely (:func:`~fabricstudio.formats.output.write_output`: atomic, a
    crash never leaves a truncated file); refuses a design too large to open again."""
    write_design_text(path, dump_design(design))


def write_design_text(path: str | os.PathLike[str], text: str, *,
                      inputs: Iterable[str | os.PathLike[str]] = (), force: bool = False) -> None:
    """Write design-file ``text`` (from :func:`dump_design`) to ``path``; DesignFileError when
    it would be larger than the files FabricStudio opens, or cannot be written."""
    data = text.encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        raise DesignFileError(path, f"the design would be {format_mib(len(data))}, more than "
                                    f"the {format_mib(MAX_FILE_BYTES)} FabricStudio opens; not "
                                    "saved (split the design)")
    try:
        write_output(path, data, inputs=inputs, force=force)
    except OutputError as exc:
        raise DesignFileError(path, exc.problem) from None


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` with :func:`~fabricstudio.formats.output.write_output`
    (kept for callers written before it; DesignFileError on failure)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` with :func:`~fabricstudio.formats.output.write_output`
    (kept for callers written before it; DesignFileError on failure)."""
    try:
        write_output(path, data)
    except OutputError as exc:
        raise DesignFileError(path, exc.problem) from None
