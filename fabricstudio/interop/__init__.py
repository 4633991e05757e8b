"""Interoperability: exports of a design to the tools architects hand designs on to
(containerlab, NetBox, NVIDIA Air, Slurm, draw.io, GraphML, DOT) and imports back.

Qt-free.  Formats are found in the registry (:mod:`fabricstudio.interop.registry`): each
module of ``exporters/`` and ``importers/`` that defines ``FORMAT`` is one format.  The names
below load on first use, so importing a small module of the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "export_design": "api", "import_design": "api", "ImportResult": "api",
    "Bundle": "bundle", "write_bundle": "bundle", "Options": "options",
    "parse_options": "options", "ExportFormat": "registry", "ImportFormat": "registry",
    "InteropError": "registry", "Option": "registry", "export_format": "registry",
    "export_formats": "registry", "import_format": "registry", "import_formats": "registry",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
