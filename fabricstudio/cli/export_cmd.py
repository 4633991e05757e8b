"""``fabricstudio export DESIGN --png FILE [--svg FILE] [--scale N]``: images without a display.

Qt runs on the offscreen platform here (unless a platform is forced with QT_QPA_PLATFORM), so
the command works on a server or in CI with no X display.
"""

from __future__ import annotations

import argparse
import os
import sys

from fabricstudio.cli.common import CliError, load_design_arg, positive_float

NAME = "export"
HELP = "write a PNG and/or SVG picture of a design (works without a display)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``export``."""
    parser.add_argument("design", metavar="DESIGN", help="design file to draw")
    parser.add_argument("--png", metavar="FILE", help="write a PNG image")
    parser.add_argument("--svg", metavar="FILE", help="write an SVG drawing")
    parser.add_argument("--scale", type=positive_float, default=2.0, metavar="N",
                        help="PNG pixels per canvas unit (default 2)")
    parser.add_argument("--background", choices=("white", "transparent", "dark", "light"),
                        default="white", help="background (default white; dark/light = theme)")
    parser.add_argument("--no-legend", action="store_true", help="leave the legend out")
    parser.add_argument("--colour-by", choices=("speed", "plane"), default="speed",
                        help="link colours: by line rate (default) or by network")


def run(args: argparse.Namespace) -> int:
    """Load, lay out if needed, render, write; print what was written."""
    if not args.png and not args.svg:
        raise CliError("nothing to do: give --png FILE and/or --svg FILE", 2)
    if args.scale > 16:
        raise CliError(f"--scale {args.scale:g} is too large (at most 16)", 2)
    design = load_design_arg(args.design)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from fabricstudio.ui.headless import export_design  # lazy: Qt only when needed

    try:
        written = export_design(design, png=args.png, svg=args.svg, scale=args.scale,
                                background=args.background, legend=not args.no_legend,
                                colour_by=args.colour_by)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for path, detail in written:
        print(f"wrote {path} ({detail})", file=sys.stdout)
    return 0
