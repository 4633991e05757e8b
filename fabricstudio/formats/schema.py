"""Generate the design file's JSON Schema: ``python -m fabricstudio.formats.schema [OUT]``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fabricstudio.formats.design_file import DesignFile
from fabricstudio.formats.output import write_output

DEFAULT_OUTPUT = Path("docs") / "design.schema.json"


def design_schema_text() -> str:
    """The JSON Schema of the design file, as stable pretty-printed text."""
    schema = DesignFile.model_json_schema(mode="validation")
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schema to the given path (default docs/design.schema.json)."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else DEFAULT_OUTPUT
    out.parent.mkdir(parents=True, exist_ok=True)
    write_output(out, design_schema_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
