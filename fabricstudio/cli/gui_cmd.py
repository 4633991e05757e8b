"""``fabricstudio gui [DESIGN]``: open the designer window."""

from __future__ import annotations

import argparse
import os
import sys

from fabricstudio.cli.common import CliError, load_design_arg

NAME = "gui"
HELP = "open the designer window (the default when no subcommand is given)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``gui``."""
    parser.add_argument("design", nargs="?", metavar="DESIGN", help="design file to open")


def run(args: argparse.Namespace) -> int:
    """Check the design file first (a bad file is one line on stderr), then start Qt."""
    design = load_design_arg(args.design) if args.design else None
    _check_display()
    from fabricstudio.ui.app import run_gui  # lazy: the only path from cli into ui

    return run_gui(design, args.design)


def _check_display() -> None:
    """Fail with a clear message instead of Qt's abort when Linux has no display."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise CliError("no display found (DISPLAY is not set): run on a desktop, or under "
                       "xvfb-run, or set QT_QPA_PLATFORM=offscreen")
