"""The ``fabricstudio`` command line: ``gui`` (default), ``validate`` and the other subcommands.

Each subcommand lives in its own module of this package with ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``.  Bad input never shows a traceback: one
line on stderr and a non-zero exit status (2 for usage errors).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from fabricstudio import __version__
from fabricstudio.cli.common import CliError, CliParser
from fabricstudio.cli.output import claim_stdout, write_err

#: Subcommand modules, in the order ``--help`` lists them.
COMMAND_MODULES = ("gui", "validate", "generate", "analyze", "simulate", "export", "import",
                   "report", "demo")


def _available_commands() -> list:
    modules = []
    for name in COMMAND_MODULES:
        try:
            modules.append(importlib.import_module(f"fabricstudio.cli.{name}_cmd"))
        except ModuleNotFoundError as exc:
            if exc.name != f"fabricstudio.cli.{name}_cmd":
                raise
    return modules


def build_parser() -> tuple[CliParser, dict]:
    """The top-level parser and a map of subcommand name -> module."""
    parser = CliParser(
        prog="fabricstudio",
        description="Design, analyse and simulate AI data-centre network fabrics. "
                    "Without a subcommand, opens the designer (optionally on DESIGN).",
    )
    parser.add_argument("--version", action="version", version=f"fabricstudio {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CliParser)
    modules = {}
    for module in _available_commands():
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(cmd)
        modules[module.NAME] = module
    return parser, modules


#: Output options where ``-`` means standard output (``generate -o -`` and ``simulate --json
#: -`` handle it themselves); without this a file named ``-`` was written.
_DASH_OUTPUTS = ("output", "png", "svg", "metrics")


def _dash_is_stdout(args: argparse.Namespace) -> None:
    if args.command == "generate":
        return
    for dest in _DASH_OUTPUTS:
        if getattr(args, dest, None) == "-":
            setattr(args, dest, "/dev/stdout")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fabricstudio`` console script."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser, modules = build_parser()
    if not args_list or (args_list[0] not in modules and args_list[0] not in
                         ("-h", "--help", "--version")):
        args_list.insert(0, "gui")
    claim_stdout(())
    try:
        args = parser.parse_args(args_list)
        _dash_is_stdout(args)
        claim_stdout(vars(args).values())
        return int(modules[args.command].run(args) or 0)
    except CliError as exc:
        write_err(f"fabricstudio: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        write_err("fabricstudio: interrupted")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no tracebacks
        if os.environ.get("FABRICSTUDIO_DEBUG"):
            raise
        write_err(f"fabricstudio: internal error: {type(exc).__name__}: {exc} "
                  "(set FABRICSTUDIO_DEBUG=1 for a traceback)")
        return 3


__all__ = ["CliError", "build_parser", "main", "argparse"]
