"""The registry of export and import formats.

Every module of :mod:`fabricstudio.interop.exporters` that defines ``FORMAT`` (an
:class:`ExportFormat`) is an export format, and likewise every module of
:mod:`fabricstudio.interop.importers` with an :class:`ImportFormat`: adding a format is adding
one module.  The CLI (``--list-formats``, ``--format``) and the GUI menus read this registry.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fabricstudio.interop.bundle import Bundle
    from fabricstudio.interop.imported import ImportedTopology
    from fabricstudio.interop.options import Options
    from fabricstudio.model import Design


class InteropError(ValueError):
    """An export or import cannot be done; ``str()`` is one line for the user."""


@dataclass(frozen=True)
class Option:
    """A format-specific option (``-O KEY=VALUE`` on the command line)."""

    key: str
    help: str
    default: str = ""


@dataclass(frozen=True)
class ExportFormat:
    """An export format: ``export(design, options)`` returns the files it writes."""

    name: str
    summary: str
    #: File name suffixes the format writes (the first is the default), e.g. (".clab.yml",).
    suffixes: tuple[str, ...]
    export: Callable[[Design, Options], Bundle]
    options: tuple[Option, ...] = ()
    #: True when the output is several files (written to a folder or a .zip).
    multi_file: bool = False


@dataclass(frozen=True)
class ImportFormat:
    """An import format: ``read(path, options)`` returns the topology found in ``path``."""

    name: str
    summary: str
    suffixes: tuple[str, ...]
    read: Callable[[Path, Options], ImportedTopology]
    #: True when ``path`` looks like this format (used when no --format is given).
    sniff: Callable[[Path], bool] = field(default=lambda path: False)
    options: tuple[Option, ...] = ()


def _discover(package: str, kind: type) -> dict[str, Any]:
    found: dict[str, Any] = {}
    module = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        fmt: Any = getattr(importlib.import_module(f"{package}.{info.name}"), "FORMAT", None)
        if isinstance(fmt, (ExportFormat, ImportFormat)) and isinstance(fmt, kind):
            if fmt.name in found:
                raise RuntimeError(f"two formats named {fmt.name!r} in {package}")
            found[fmt.name] = fmt
    return found


@cache
def export_formats() -> dict[str, ExportFormat]:
    """Export formats by name, in name order."""
    return _discover("fabricstudio.interop.exporters", ExportFormat)


@cache
def import_formats() -> dict[str, ImportFormat]:
    """Import formats by name, in name order."""
    return _discover("fabricstudio.interop.importers", ImportFormat)


def export_format(name: str) -> ExportFormat:
    """The export format called ``name`` (InteropError naming the known ones otherwise)."""
    formats = export_formats()
    if name not in formats:
        raise InteropError(f"unknown export format {name!r}: choose one of "
                           f"{', '.join(formats)}")
    return formats[name]


def import_format(name: str) -> ImportFormat:
    """The import format called ``name`` (InteropError naming the known ones otherwise)."""
    formats = import_formats()
    if name not in formats:
        raise InteropError(f"unknown import format {name!r}: choose one of "
                           f"{', '.join(formats)}")
    return formats[name]


def guess_import_format(path: Path) -> ImportFormat:
    """The import format of ``path`` by its content and name."""
    for fmt in import_formats().values():
        if fmt.sniff(path):
            return fmt
    names = ", ".join(import_formats())
    raise InteropError(f"{path}: cannot tell the format; give --format ({names})")
