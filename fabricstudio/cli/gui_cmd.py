"""``fabricstudio gui [DESIGN]``: open the designer window."""

from __future__ import annotations

import argparse

from fabricstudio.cli.common import load_design_arg

NAME = "gui"
HELP = "open the designer window (the default when no subcommand is given)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``gui``."""
    parser.add_argument("design", nargs="?", metavar="DESIGN", help="design file to open")


def run(args: argparse.Namespace) -> int:
    """Check the design file first (a bad file is one line on stderr), then start Qt."""
    design = load_design_arg(args.design) if args.design else None
    from fabricstudio.ui.app import run_gui  # lazy: the only path from cli into ui

    return run_gui(design, args.design)
