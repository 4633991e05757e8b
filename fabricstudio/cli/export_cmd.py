"""``fabricstudio export DESIGN --png FILE [--svg FILE] [--scale N]``: images without a display;
``--format FMT -o FILE`` exports to other tools (containerlab, NetBox, ...: interop_export.py).

With ``--scenario FILE --at SECONDS`` the PNG shows a simulation moment instead: the scenario
runs headless up to that simulated time and the picture shows link utilisation, PFC pauses, ECN
marks, drops, queues and credit stalls with their legend and the time.

Qt runs on the offscreen platform here (unless a platform is forced with QT_QPA_PLATFORM), so
the command works on a server or in CI with no X display.
"""

from __future__ import annotations

import argparse
import os

from fabricstudio.cli import cable_plan_export, interop_export, recording_export
from fabricstudio.cli.common import CliError, load_design_arg, positive_float, positive_int
from fabricstudio.cli.output import shown_path, write_err, write_out

NAME = "export"
HELP = ("write a PNG and/or SVG picture of a design, a PNG of a simulation moment "
        "(--scenario FILE --at SECONDS), the cable plan (--cable-plan FILE.csv|.xlsx), or "
        "another tool's format (--format FMT -o FILE: "
        "containerlab, NetBox, NVIDIA Air, Slurm, draw.io, GraphML, DOT); works without a "
        "display")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``export``."""
    parser.add_argument("design", metavar="DESIGN", nargs="?", help="design file to export")
    parser.add_argument("--png", metavar="FILE", help="write a PNG image")
    parser.add_argument("--svg", metavar="FILE", help="write an SVG drawing")
    parser.add_argument("--scale", type=positive_float, default=None, metavar="N",
                        help="PNG pixels per canvas unit (default: picked from the design's "
                             "size: the longest side at most 8,192 px, at most 2 px per unit)")
    parser.add_argument("--width", type=positive_int, default=None, metavar="PX",
                        help="PNG width in pixels (the height follows; instead of --scale), "
                             "or a recording's width (16:9; default 1280 for MP4, 960 for GIF)")
    parser.add_argument("--background", choices=("white", "transparent", "dark", "light"),
                        default="white", help="background (default white; dark/light = theme)")
    parser.add_argument("--no-legend", action="store_true", help="leave the legend out")
    parser.add_argument("--colour-by", choices=("speed", "plane"), default="speed",
                        help="link colours: by line rate (default) or by network")
    parser.add_argument("--scenario", metavar="FILE",
                        help="simulate this scenario file and draw the moment given by --at")
    parser.add_argument("--force", action="store_true",
                        help="allow an output file to replace the design or scenario file")
    parser.add_argument("--at", metavar="SECONDS", type=float,
                        help="simulated time of the moment (with --scenario), e.g. 25e-6; "
                             "default: the end of the run")
    cable_plan_export.add_arguments(parser)
    interop_export.add_arguments(parser)
    recording_export.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Load, lay out if needed, render, write; print what was written."""
    if interop_export.wanted(args):
        others = [o for o, v in (("--png", args.png), ("--svg", args.svg),
                                 ("--cable-plan", args.cable_plan),
                                 ("--scenario", args.scenario)) if v]
        if others and args.format:
            raise CliError(f"--format writes one export; {' and '.join(others)} cannot be "
                           "combined with it (run export once for each)", 2)
        return interop_export.run(args)
    if recording_export.wanted(args):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        return recording_export.run(args)
    plan = cable_plan_export.wanted(args)
    if not args.png and not args.svg and not plan:
        raise CliError("nothing to do: give --png FILE and/or --svg FILE, --cable-plan FILE, "
                       "or --format FMT -o FILE", 2)
    if args.design is None:
        raise CliError("give the DESIGN file to export", 2)
    if plan and not args.png and not args.svg:
        return cable_plan_export.run(args, load_design_arg(args.design))
    if args.scale is not None and args.scale > 16:
        raise CliError(f"--scale {args.scale:g} is too large (at most 16)", 2)
    if args.scale is not None and args.width is not None:
        raise CliError("give --scale or --width, not both", 2)
    if args.width is not None and args.width > 65536:
        raise CliError(f"--width {args.width} is too large (at most 65,536 px)", 2)
    if args.at is not None and args.scenario is None:
        raise CliError("--at needs --scenario FILE (the run to take the moment from)", 2)
    if args.at is not None and not args.at >= 0:
        raise CliError(f"--at must be a simulated time >= 0 seconds, got {args.at!r}", 2)
    if args.scenario is not None and (args.svg or not args.png):
        raise CliError("a simulation moment is written as PNG: give --png FILE (no --svg)", 2)
    _check_distinct(args)
    design = load_design_arg(args.design)
    _check_outputs(args)
    if plan:
        cable_plan_export.run(args, design)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if args.scenario is not None:
        return _export_moment(design, args)
    from fabricstudio.ui.headless import export_design  # lazy: Qt only when needed

    try:
        written = export_design(design, png=args.png, svg=args.svg, scale=args.scale,
                                width=args.width,
                                background=args.background, legend=not args.no_legend,
                                colour_by=args.colour_by, inputs=_inputs(args),
                                force=args.force)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    for path, detail in written:
        write_out(f"wrote {shown_path(path)} ({detail})")
    return 0


def _inputs(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(p for p in (args.design, args.scenario) if p)


def _check_distinct(args: argparse.Namespace) -> None:
    """Refuse two outputs that are one file (the second would replace the first)."""
    from fabricstudio.formats import OutputError, distinct_outputs

    named = [("--png", args.png or ""), ("--svg", args.svg or "")]
    if args.cable_plan:
        named += [("--cable-plan", p) for p in cable_plan_export.output_paths(args.cable_plan)]
    try:
        distinct_outputs(named)
    except OutputError as exc:
        raise CliError(str(exc), 2) from None


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse bad output paths before rendering or simulating."""
    from fabricstudio.formats import OutputError, check_output

    for path in (args.png, args.svg):
        if path:
            try:
                check_output(path, inputs=_inputs(args), force=args.force)
            except OutputError as exc:
                raise CliError(str(exc)) from None


def _export_moment(design, args: argparse.Namespace) -> int:
    """Simulate up to ``--at`` and write the moment's PNG."""
    from fabricstudio.sim.scenario import ScenarioError, load_scenario
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.simview.moment import export_moment
    from fabricstudio.ui.simview.source import scenario_source

    ensure_app()
    try:
        scenario = load_scenario(args.scenario)
        source = scenario_source(design, scenario)
    except ScenarioError as exc:
        raise CliError(str(exc)) from None
    at = source.until_s if args.at is None else args.at
    source.advance(min(at, source.until_s))
    stream = source.stream
    if not len(stream):
        raise CliError(f"no frame recorded by t = {at:g} s (the first sample is at "
                       f"{stream.sample_period_s:g} s)")
    if at > stream.times[-1] + stream.sample_period_s:
        write_err(f"fabricstudio export: note: the run ended at {stream.times[-1]:g} s; "
                  "showing its last frame")
    try:
        export_moment(design, stream, at, args.png, label=scenario.name,
                      scale=args.scale or 2.0,
                      inputs=_inputs(args), force=args.force)
    except OSError as exc:
        raise CliError(f"{args.png}: cannot write: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(str(exc)) from None
    write_out(f"wrote {shown_path(args.png)} (t = {stream.frame_at(at).t:g} s)")
    return 0
