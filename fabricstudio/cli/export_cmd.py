"""``fabricstudio export DESIGN --png FILE [--scenario FILE --at SECONDS]``: images headless.

Without ``--scenario`` the PNG shows the design.  With a scenario, the simulation runs headless
up to ``--at`` simulated seconds and the PNG shows that moment: link utilisation, PFC pauses,
ECN marks, drops, queues and credit stalls, with the legend and the simulated time.
"""

from __future__ import annotations

import argparse
import os
import sys

from fabricstudio.cli.common import CliError, load_design_arg, positive_float

NAME = "export"
HELP = "write a PNG of a design, or of a simulation moment (--scenario FILE --at SECONDS)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``export``."""
    parser.add_argument("design", metavar="DESIGN", help="design file")
    parser.add_argument("--png", metavar="FILE", required=True, help="PNG file to write")
    parser.add_argument("--scenario", metavar="FILE", help="scenario file to simulate")
    parser.add_argument("--at", metavar="SECONDS", type=float,
                        help="simulated time of the moment (needs --scenario), e.g. 25e-6")
    parser.add_argument("--scale", metavar="N", type=positive_float, default=2.0,
                        help="pixels per canvas unit (default 2)")


def run(args: argparse.Namespace) -> int:
    """Render the design or the moment and write the PNG."""
    if args.at is not None and args.scenario is None:
        raise CliError("--at needs --scenario FILE (the run to take the moment from)", 2)
    if args.at is not None and not args.at >= 0:
        raise CliError(f"--at must be a simulated time >= 0 seconds, got {args.at!r}", 2)
    design = load_design_arg(args.design)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from fabricstudio.ui.app import ensure_app

    ensure_app()
    try:
        if args.scenario is None:
            _export_design(design, args)
        else:
            _export_moment(design, args)
    except OSError as exc:
        raise CliError(f"{args.png}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {args.png}")
    return 0


def _export_design(design, args: argparse.Namespace) -> None:
    from fabricstudio.topology.layout import auto_layout, needs_layout
    from fabricstudio.ui.canvas.scene import FabricScene
    from fabricstudio.ui.simview.moment import render_scene_image, save_png

    if needs_layout(design):
        design.move_devices(auto_layout(list(design.devices.values())))
    scene = FabricScene(design)
    save_png(render_scene_image(scene, legend=False, scale=args.scale), args.png)
    scene.detach()


def _export_moment(design, args: argparse.Namespace) -> None:
    from fabricstudio.sim.scenario import ScenarioError, load_scenario
    from fabricstudio.ui.simview.moment import export_moment
    from fabricstudio.ui.simview.source import SimulationUnavailable, scenario_source

    try:
        scenario = load_scenario(args.scenario)
        source = scenario_source(design, scenario)
    except (ScenarioError, SimulationUnavailable) as exc:
        raise CliError(str(exc)) from None
    at = source.until_s if args.at is None else args.at
    source.advance(min(at, source.until_s))
    stream = source.stream
    if not len(stream):
        raise CliError(f"no frame recorded by t = {at:g} s (the first sample is at "
                       f"{stream.sample_period_s:g} s)")
    if at > stream.times[-1] + stream.sample_period_s:
        print(f"fabricstudio export: note: the run ended at {stream.times[-1]:g} s; "
              "showing its last frame", file=sys.stderr)
    label = scenario.name or ""
    export_moment(design, stream, at, args.png, label=label, scale=args.scale)
