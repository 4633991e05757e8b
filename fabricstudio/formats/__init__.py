"""File formats: the versioned design file, safe reading and THE output writer (Qt-free)."""

from fabricstudio.formats.design_file import (
    CURRENT_VERSION,
    FORMAT_NAME,
    MAX_FILE_BYTES,
    DesignFileError,
    atomic_write_text,
    dump_design,
    load_design,
    parse_design,
    save_design,
    write_design_text,
)
from fabricstudio.formats.output import OutputError, check_output, distinct_outputs, write_output
from fabricstudio.formats.reading import InputError, read_input

__all__ = [
    "CURRENT_VERSION", "FORMAT_NAME", "MAX_FILE_BYTES", "DesignFileError", "InputError",
    "OutputError", "atomic_write_text", "check_output", "distinct_outputs", "dump_design",
    "load_design",
    "parse_design", "read_input", "save_design", "write_design_text", "write_output",
]
