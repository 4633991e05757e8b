"""Interoperability: exports of a design to the tools architects hand designs on to
(containerlab, NetBox, NVIDIA Air, Slurm, draw.io, GraphML, DOT) and imports back.

Qt-free.  Formats are found in the registry (:mod:`fabricstudio.interop.registry`): each
module of ``exporters/`` and ``importers/`` that defines ``FORMAT`` is one format.
"""

from fabricstudio.interop.api import ImportResult, export_design, import_design
from fabricstudio.interop.bundle import Bundle, write_bundle
from fabricstudio.interop.options import Options, parse_options
from fabricstudio.interop.registry import (
    ExportFormat,
    ImportFormat,
    InteropError,
    Option,
    export_format,
    export_formats,
    import_format,
    import_formats,
)

__all__ = [
    "Bundle", "ExportFormat", "ImportFormat", "ImportResult", "InteropError", "Option",
    "Options", "export_design", "export_format", "export_formats", "import_design",
    "import_format", "import_formats", "parse_options", "write_bundle",
]
