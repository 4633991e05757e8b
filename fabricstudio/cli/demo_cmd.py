"""``fabricstudio demo [NAME]``: open a bundled demo straight into presenter mode.

``fabricstudio demo --list`` lists the demos that ship inside the package (a story with its
design and scenario, fabricstudio/resources/demos); ``--kiosk`` loops the story by itself
(trade shows), ``--story FILE`` presents a story file from disk instead.  ``--prepare``
simulates the runs beforehand, with no window, into the run cache (docs/user-guide/simulation.md,
"The run cache"), so the demo starts in seconds in front of the audience.
"""

from __future__ import annotations

import argparse

from fabricstudio.cli.common import CliError
from fabricstudio.cli.output import write_out

NAME = "demo"
HELP = "open a bundled demo (or --story FILE) in presenter mode; --list lists the demos"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``demo``."""
    parser.add_argument("name", nargs="?", metavar="NAME",
                        help="demo to open (default: the first; see --list)")
    parser.add_argument("--list", action="store_true", help="list the bundled demos and exit")
    parser.add_argument("--story", metavar="FILE",
                        help="present this story file (its design and scenario beside it)")
    parser.add_argument("--kiosk", action="store_true",
                        help="step through the story by itself, in a loop")
    parser.add_argument("--prepare", action="store_true",
                        help="simulate the demo's runs now, with no window, and keep them in "
                             "the run cache so the demo starts in seconds (every bundled "
                             "demo without NAME or --story)")


def run(args: argparse.Namespace) -> int:
    """List the demos, or check the chosen one and open it in presenter mode."""
    from fabricstudio.sim.demos import DemoError, demo_names, load_demo, load_story_file

    if args.list:
        if args.name or args.story:
            raise CliError("--list takes no demo name or --story", 2)
        for name in demo_names():
            demo = load_demo(name)
            write_out(f"{name:<24} {demo.title}")
        return 0
    if args.name and args.story:
        raise CliError("give a demo NAME or --story FILE, not both", 2)
    if args.prepare:
        if args.kiosk:
            raise CliError("--prepare opens no window: it takes no --kiosk", 2)
        return _prepare(args)
    try:
        demo = load_story_file(args.story) if args.story else load_demo(args.name)
    except DemoError as exc:
        raise CliError(str(exc)) from None
    from fabricstudio.cli.gui_cmd import _check_display

    _check_display()
    from fabricstudio.ui.app import run_demo  # lazy: Qt only when a window opens

    return run_demo(demo, kiosk=args.kiosk)


def _prepare(args: argparse.Namespace) -> int:
    """Record the runs of the chosen demo (or story, or every bundled demo) into the cache."""
    import os

    from fabricstudio.sim.demos import DemoError, demo_names, load_demo, load_story_file
    from fabricstudio.sim.run_cache import DISABLE_ENV, cache_enabled

    if not cache_enabled():
        raise CliError(f"the run cache is off ({DISABLE_ENV}={os.environ[DISABLE_ENV]}): "
                       "there is nowhere to keep the runs")
    try:
        demos = ([load_story_file(args.story)] if args.story
                 else [load_demo(args.name)] if args.name
                 else [load_demo(name) for name in demo_names()])
    except DemoError as exc:
        raise CliError(str(exc)) from None
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # no window, no display needed
    from fabricstudio.ui.presenter.prepare import prepare_demo  # lazy: Qt only here

    failed = 0
    for demo in demos:
        done = prepare_demo(demo)
        if done.error is not None:
            failed += 1
            write_out(f"{demo.name}: {done.error}")
            continue
        parts = []
        if done.simulated:
            parts.append(f"{len(done.simulated)} run(s) simulated and kept")
        if done.cached:
            parts.append(f"{len(done.cached)} already in the cache")
        write_out(f"{demo.name}: ready ({', '.join(parts)}) in {done.seconds:.1f} s")
    return 1 if failed else 0
