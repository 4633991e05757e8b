"""``fabricstudio export DESIGN --scenario FILE (--gif FILE | --mp4 FILE) [--story FILE]
[--from S] [--to S] [--fps N] [--seconds N] [--width PX]``: a video of a run or of a story.

Without ``--story`` the scenario runs once (its own fabric, or the design's) and the video
sweeps it from ``--from`` to ``--to`` simulated seconds in ``--seconds`` of video.  With
``--story`` the fabrics the story shows are simulated (the same scenario on each) and the
video plays the story's steps (``--seconds`` rescales their hold times).  Rendered off-screen
with the captions, the fleet gauge and the GPU rings; GIF by Pillow, MP4 by imageio-ffmpeg.
"""

from __future__ import annotations

import argparse
import time

from fabricstudio.cli.common import CliError, load_design_arg, positive_float
from fabricstudio.cli.output import shown_path, write_err, write_out

MAX_WIDTH = 3840
MAX_SECONDS = 600.0
MAX_FPS = 60.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The recording arguments of ``export``."""
    group = parser.add_argument_group("recordings (with --scenario)")
    group.add_argument("--gif", metavar="FILE", help="record the run (or --story) as a GIF")
    group.add_argument("--mp4", metavar="FILE", help="record the run (or --story) as an MP4")
    group.add_argument("--story", metavar="FILE", help="record this storyboard's steps")
    group.add_argument("--from", dest="from_s", type=float, metavar="S",
                       help="simulated time the video starts at (default 0)")
    group.add_argument("--to", dest="to_s", type=float, metavar="S",
                       help="simulated time the video ends at (default: the end of the run)")
    group.add_argument("--fps", type=positive_float, metavar="N",
                       help="frames per second (default 30 for MP4, 10 for GIF)")
    group.add_argument("--seconds", type=positive_float, metavar="N",
                       help="length of the video (default 20; a story: its steps' hold times)")
    # --width (the video's width, 16:9; default 1280 for MP4, 960 for GIF) is export's own
    # option, shared with the PNG.


def wanted(args: argparse.Namespace) -> bool:
    """True when the command asks for a recording."""
    return bool(args.gif or args.mp4)


def _check(args: argparse.Namespace) -> tuple[str, str]:
    if args.gif and args.mp4:
        raise CliError("give --gif FILE or --mp4 FILE, not both", 2)
    if args.scenario is None:
        raise CliError("a recording needs --scenario FILE (the run to record)", 2)
    if args.design is None:
        raise CliError("give the DESIGN file to record", 2)
    if args.png or args.svg or args.at is not None:
        raise CliError("a recording is written alone: leave out --png, --svg and --at", 2)
    kind, path = ("gif", args.gif) if args.gif else ("mp4", args.mp4)
    if args.width is not None and not 160 <= args.width <= MAX_WIDTH:
        raise CliError(f"--width must be 160 to {MAX_WIDTH} pixels, got {args.width}", 2)
    if args.fps is not None and args.fps > MAX_FPS:
        raise CliError(f"--fps {args.fps:g} is too high (at most {MAX_FPS:g})", 2)
    if args.seconds is not None and args.seconds > MAX_SECONDS:
        raise CliError(f"--seconds {args.seconds:g} is too long (at most {MAX_SECONDS:g})", 2)
    for name in ("from_s", "to_s"):
        value = getattr(args, name)
        if value is not None and not value >= 0:
            raise CliError(f"--{name[:-2]} must be a simulated time >= 0 seconds", 2)
    if args.from_s is not None and args.to_s is not None and args.to_s <= args.from_s:
        raise CliError("--to must be later than --from", 2)
    if args.story and (args.from_s is not None or args.to_s is not None):
        raise CliError("--from and --to record a run; a story sets its own moments", 2)
    return kind, path


def run(args: argparse.Namespace) -> int:
    """Simulate what the video shows, render and encode it; print what was written."""
    kind, path = _check(args)
    design = load_design_arg(args.design)
    from fabricstudio.formats.output import OutputError, check_output
    from fabricstudio.formats.story import StoryError, load_story
    from fabricstudio.sim.scenario import ScenarioError, load_scenario

    try:
        check_output(path, inputs=[p for p in (args.design, args.scenario, args.story) if p],
                     force=args.force)
        scenario = load_scenario(args.scenario)
        story = load_story(args.story) if args.story else None
    except (OutputError, ScenarioError, StoryError) as exc:
        raise CliError(str(exc)) from None
    fps = args.fps or (30.0 if kind == "mp4" else 10.0)
    width = args.width or (1280 if kind == "mp4" else 960)
    height = round(width * 9 / 16 / 2) * 2  # H.264 wants even sizes
    runs = _simulate(design, scenario, story)
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.recorder import (
        FrameRenderer,
        RecordingError,
        run_shots,
        story_shots,
        write_video,
    )

    ensure_app()
    try:
        if story is not None:
            shots = list(story_shots(story, runs, fps, args.seconds))
        else:
            record = next(iter(runs.values()))
            start = args.from_s or 0.0
            end = min(args.to_s if args.to_s is not None else record.end_s, record.end_s)
            if start >= end:
                raise CliError(f"--from {start:g} s is after the run's end ({end:g} s)", 2)
            shots = list(run_shots(record, start, end, args.seconds or 20.0, fps))
        renderer = FrameRenderer(width, height)
        stats = write_video(path, kind, renderer, shots, fps, force=args.force,
                            progress=_progress(len(shots)))
    except RecordingError as exc:
        raise CliError(str(exc)) from None
    except OutputError as exc:
        raise CliError(str(exc)) from None
    write_out(f"wrote {shown_path(path)} ({width} x {height}, {stats.frames} frames, "
              f"{stats.seconds:.1f} s at {fps:g} fps, {stats.bytes / 1e6:.1f} MB; "
              f"rendered in {stats.wall_s:.1f} s)")
    return 0


def _simulate(design, scenario, story) -> dict:
    """label -> RecordedRun: the scenario as it is, or on each fabric the story shows."""
    from fabricstudio.model import Technology
    from fabricstudio.sim.recorded import record_run
    from fabricstudio.sim.scenario import ScenarioError
    from fabricstudio.ui.simview.source import FABRIC_VARIANTS as variants

    wanted = []
    if story is None:
        tech = scenario.technology or design.fabric.technology
        dcqcn = scenario.dcqcn if scenario.dcqcn is not None else design.fabric.dcqcn.enabled
        label = Technology(tech).fabric_label(dcqcn)
        wanted.append((label, scenario))
    else:
        fabrics = [f for f in variants
                   if any(f in step.fabrics for step in story.steps)] or ["roce"]
        for fabric in fabrics:
            label, tech, dcqcn = variants[fabric]
            wanted.append((label, scenario.model_copy(update={"technology": tech,
                                                              "dcqcn": dcqcn})))
    runs = {}
    for label, variant in wanted:
        started = time.perf_counter()
        write_err(f"simulating {label}…")
        try:
            runs[label] = record_run(design, variant, label)
        except ScenarioError as exc:
            raise CliError(str(exc)) from None
        write_err(f"simulated {label} in {time.perf_counter() - started:.1f} s")
    return runs


def _progress(total: int):
    last = [0.0]

    def report(done: int, _total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 2.0 or done == total:
            last[0] = now
            write_err(f"rendering: {done}/{total} frames")
    return report
