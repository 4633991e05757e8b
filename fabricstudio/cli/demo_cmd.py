"""``fabricstudio demo [NAME]``: open a bundled demo straight into presenter mode.

``fabricstudio demo --list`` lists the demos that ship inside the package (a story with its
design and scenario, fabricstudio/resources/demos); ``--kiosk`` loops the story by itself
(trade shows), ``--story FILE`` presents a story file from disk instead.
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
    try:
        demo = load_story_file(args.story) if args.story else load_demo(args.name)
    except DemoError as exc:
        raise CliError(str(exc)) from None
    from fabricstudio.cli.gui_cmd import _check_display

    _check_display()
    from fabricstudio.ui.app import run_demo  # lazy: Qt only when a window opens

    return run_demo(demo, kiosk=args.kiosk)
