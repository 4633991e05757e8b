"""``fabricstudio validate DESIGN``: exit 0 when valid, 1 when invalid, 2 on usage errors."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fabricstudio.cli.output import write_err, write_out
from fabricstudio.formats import DesignFileError, load_design

NAME = "validate"
HELP = "check a design file (exit 0 valid, 1 invalid, 2 usage error)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``validate``."""
    parser.add_argument("design", metavar="DESIGN", help="design file to check")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")


def run(args: argparse.Namespace) -> int:
    """Load the file; report the verdict on stdout (valid) or stderr (invalid)."""
    path = Path(args.design)
    if not path.exists() or path.is_dir():  # usage errors; special files are refused below
        what = "is a folder" if path.is_dir() else "no such file"
        write_err(f"fabricstudio validate: error: {args.design}: {what}")
        return 2
    try:
        design = load_design(args.design)
    except DesignFileError as exc:
        if args.json:
            write_out(json.dumps({"valid": False, "file": args.design, "error": exc.problem}))
        else:
            write_err(f"invalid: {exc}")
        return 1
    summary = {"valid": True, "file": args.design, "name": design.name,
               "devices": len(design.devices), "links": len(design.links),
               "technology": design.fabric.technology.value}
    if args.json:
        write_out(json.dumps(summary))
    else:
        write_out(f"valid: {args.design}: {design.name!r}, {summary['devices']} devices, "
                  f"{summary['links']} links, {design.fabric.technology.label}")
    return 0
