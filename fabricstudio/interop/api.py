"""The two entry points the CLI and the GUI call: export a design, import a file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fabricstudio.interop.build import build_design
from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.options import Options, parse_options
from fabricstudio.interop.registry import (
    InteropError,
    export_format,
    guess_import_format,
    import_format,
)
from fabricstudio.interop.subset import apply_subset
from fabricstudio.model import Design


@dataclass
class ImportResult:
    """An imported design, the format it was read as and what was guessed."""

    design: Design
    format: str
    report: list[str] = field(default_factory=list)


def export_design(design: Design, fmt: str, option_pairs: Iterable[str] = (),
                  subset: str | None = None) -> Bundle:
    """The files of ``design`` (or of its ``subset``) in format ``fmt``."""
    spec = export_format(fmt)
    options = parse_options(option_pairs, spec.options, fmt, subset)
    part = apply_subset(design, subset)
    bundle = spec.export(part, options)
    if subset:
        bundle.notes.insert(0, f"subset {subset}: {len(part.devices)} devices, "
                               f"{len(part.links)} links")
    return bundle


def import_design(path: str | Path, fmt: str | None = None,
                  option_pairs: Iterable[str] = ()) -> ImportResult:
    """Read ``path`` (format ``fmt``, or recognised from the file) into a valid design."""
    path = Path(path)
    if not path.exists():
        raise InteropError(f"{path}: no such file or folder")
    spec = import_format(fmt) if fmt else guess_import_format(path)
    options: Options = parse_options(option_pairs, spec.options, spec.name)
    topology = spec.read(path, options)
    design, report = build_design(topology)
    return ImportResult(design, spec.name, report)
