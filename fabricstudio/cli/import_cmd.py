"""``fabricstudio import FILE [--format FMT] -o DESIGN``: a design from GraphML, DOT,
containerlab YAML or a NetBox CSV set, with a report of what was guessed."""

from __future__ import annotations

import argparse
from pathlib import Path

from fabricstudio.cli.common import CliError
from fabricstudio.cli.output import shown_path, write_out

NAME = "import"
HELP = ("make a design from another tool's file: GraphML, DOT, containerlab YAML or a NetBox "
        "CSV set (folder or .zip); reports what it had to guess")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``import``."""
    parser.add_argument("file", metavar="FILE",
                        help="file to import (a NetBox set: its folder, .zip or any of its CSVs)")
    parser.add_argument("--format", metavar="FMT",
                        help="graphml, dot, containerlab or netbox (default: recognised from "
                             "the file)")
    parser.add_argument("-o", "--output", metavar="DESIGN", required=True,
                        help="design file to write (.json)")
    parser.add_argument("--force", action="store_true",
                        help="allow -o to be the file being imported")


def run(args: argparse.Namespace) -> int:
    """Import, validate, save; print the report."""
    from fabricstudio.formats import DesignFileError, OutputError, check_output, dump_design
    from fabricstudio.formats.design_file import write_design_text
    from fabricstudio.interop import InteropError, import_design

    source, target = Path(args.file), Path(args.output)
    inputs = [source] if source.is_file() else []
    try:
        check_output(target, inputs=inputs, force=args.force)
        result = import_design(source, args.format)
        write_design_text(target, dump_design(result.design), inputs=inputs, force=args.force)
    except OutputError as exc:
        raise CliError(str(exc), 2) from None
    except (InteropError, DesignFileError) as exc:
        raise CliError(str(exc)) from None
    design = result.design
    write_out(f"imported {source} as {result.format}: {len(design.devices)} devices, "
          f"{len(design.links)} links")
    for line in result.report:
        write_out(f"  guessed: {line}")
    write_out(f"wrote {shown_path(target)}")
    return 0
