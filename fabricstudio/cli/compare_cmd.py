"""``fabricstudio compare A B --scenario S [--json -]``: two designs on the same scenarios."""

from __future__ import annotations

import argparse
import sys

from fabricstudio.cli.common import (
    CliError,
    add_cost_book_argument,
    load_cost_book_arg,
    load_design_arg,
)
from fabricstudio.cli.output import write_err, write_out
from fabricstudio.formats import OutputError, check_output, write_output

NAME = "compare"
HELP = ("compare two designs (or two saved versions) on the same scenarios: cost, bisection, "
        "hops, completion / step time, GPU utilisation, drops and pauses, with B - A deltas")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``compare``."""
    parser.add_argument("design_a", metavar="A", help="first design file (the reference)")
    parser.add_argument("design_b", metavar="B", help="second design file (the candidate)")
    parser.add_argument("--scenario", action="append", default=[], metavar="FILE",
                        help="scenario file run on both designs (repeat for several; without "
                             "one only the designs' own figures are compared)")
    parser.add_argument("--engine", choices=("auto", "cell", "flow"),
                        help="engine for every run (default: each scenario's choice)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the comparison as JSON ('-' = stdout only; docs/compare.md)")
    parser.add_argument("--force", action="store_true",
                        help="let --json overwrite an input file")
    add_cost_book_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Analyse both designs, run each scenario on both, print the delta table."""
    from fabricstudio.sim.compare import compare_designs, format_comparison
    from fabricstudio.sim.engine.config import EngineError
    from fabricstudio.sim.scenario import ScenarioError, load_scenario

    book = load_cost_book_arg(args.cost_book)
    a = load_design_arg(args.design_a)
    b = load_design_arg(args.design_b)
    scenarios = []
    for path in args.scenario:
        try:
            scenario = load_scenario(path)
            if args.engine:
                scenario = scenario.with_changes(engine=args.engine)
        except (ScenarioError, ValueError) as exc:
            raise CliError(str(exc)) from None
        scenarios.append(scenario)
    inputs = [args.design_a, args.design_b, *args.scenario]
    if args.json and args.json != "-":
        _write(lambda: check_output(args.json, inputs=inputs, force=args.force))
    progress = (lambda text: write_err(f"compare: {text}")) if sys.stderr.isatty() else None
    try:
        comparison = compare_designs(a, b, scenarios, cost_book=book, progress=progress,
                                     labels=(_label(args.design_a, a), _label(args.design_b, b)))
    except ScenarioError as exc:
        raise CliError(str(exc)) from None
    except EngineError as exc:
        raise CliError(f"a run stopped: {exc}") from None
    if args.json == "-":
        sys.stdout.write(comparison.to_json())
        return 0
    write_out(format_comparison(comparison).rstrip("\n"))
    if args.json:
        _write(lambda: write_output(args.json, comparison.to_json(), inputs=inputs,
                                    force=args.force))
    return 0


def _write(action) -> None:
    try:
        action()
    except OutputError as exc:
        raise CliError(str(exc)) from None


def _label(path: str, design) -> str:
    """``a.json (Leaf-spine 32 GPUs)``: the file names the version, the name the design."""
    return f"{path} ({design.name})" if design.name else path
