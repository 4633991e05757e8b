"""File formats: the versioned design file and other exports (Qt-free)."""

from fabricstudio.formats.design_file import (
    CURRENT_VERSION,
    FORMAT_NAME,
    DesignFileError,
    atomic_write_text,
    dump_design,
    load_design,
    parse_design,
    save_design,
)

__all__ = [
    "CURRENT_VERSION", "FORMAT_NAME", "DesignFileError", "atomic_write_text", "dump_design",
    "load_design", "parse_design", "save_design",
]
