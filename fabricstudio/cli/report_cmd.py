"""``fabricstudio report DESIGN -o FILE.pdf``: the customer proposal as a PDF, headless.

Cover, the design as a vector picture, key figures, bill of materials, cost and power with
confidence labels, the fabric comparison (with ``--scenario FILE``: the scenario run on
InfiniBand, RoCE with and without DCQCN and lossy Ethernet; chart, table and GPU-idle
money), analysis findings, assumptions with sources.  Qt runs on the offscreen platform
(unless QT_QPA_PLATFORM says otherwise), so it works on a server with no display.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from fabricstudio.cli.common import (
    CliError,
    add_cost_book_argument,
    load_cost_book_arg,
    load_design_arg,
)
from fabricstudio.cli.output import shown_path, write_err, write_out
from fabricstudio.formats import OutputError, check_output

NAME = "report"
HELP = ("write a proposal PDF: design picture, key figures, bill of materials, cost and power, "
        "fabric comparison (--scenario), findings and sources")
MAX_CUSTOMER = 200


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``report``."""
    parser.add_argument("design", metavar="DESIGN", help="design file")
    parser.add_argument("-o", "--output", metavar="FILE.pdf", required=True,
                        help="the PDF to write")
    parser.add_argument("--scenario", metavar="FILE",
                        help="compare the fabrics on this scenario (four simulation runs)")
    add_cost_book_argument(parser)
    parser.add_argument("--customer", metavar="NAME", default="",
                        help="who the proposal is for (cover and footer)")
    parser.add_argument("--logo", metavar="FILE", help="logo for the cover (PNG, JPEG or SVG)")
    parser.add_argument("--force", action="store_true",
                        help="allow the PDF to replace one of the input files")
    parser.add_argument("--hide-prices", action="store_true",
                        help="leave the parts' prices and capex out (quantities, power, rack "
                             "units and GPU-idle money stay)")


def _check(args: argparse.Namespace) -> None:
    if not str(args.output).lower().endswith(".pdf"):
        raise CliError(f"-o {args.output}: the file name must end in .pdf", 2)
    if len(args.customer) > MAX_CUSTOMER or any(ord(c) < 32 for c in args.customer):
        raise CliError(f"--customer: at most {MAX_CUSTOMER} printable characters", 2)
    if args.logo is not None and not Path(args.logo).is_file():
        raise CliError(f"--logo {args.logo}: no such file")


def _inputs(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(p for p in (args.design, args.scenario, args.cost_book, args.logo) if p)


def run(args: argparse.Namespace) -> int:
    """Gather, (compare), draw, write."""
    _check(args)
    try:  # a bad output path fails now, not after four simulation runs
        check_output(args.output, inputs=_inputs(args), force=args.force)
    except OutputError as exc:
        raise CliError(str(exc)) from None
    book = load_cost_book_arg(args.cost_book)
    design = load_design_arg(args.design)
    scenario = None
    if args.scenario:
        from fabricstudio.sim.scenario import ScenarioError, load_scenario

        try:
            scenario = load_scenario(args.scenario)
        except ScenarioError as exc:
            raise CliError(str(exc)) from None
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from fabricstudio.ui.app import ensure_app  # lazy: Qt only here
    from fabricstudio.ui.report.pdf import ReportError, write_proposal
    from fabricstudio.ui.report.proposal import build_proposal

    ensure_app()
    comparison = None
    if scenario is not None:
        comparison = _compare(design, scenario)
    try:
        proposal = build_proposal(design, book, customer=args.customer, logo=args.logo,
                                  hide_prices=args.hide_prices, comparison=comparison)
        size = write_proposal(proposal, args.output, inputs=_inputs(args), force=args.force)
    except (ReportError, OutputError) as exc:
        raise CliError(str(exc)) from None
    write_out(f"wrote {shown_path(args.output)} ({size / 1024:,.0f} KiB"
              + (", with the fabric comparison" if comparison is not None else "") + ")")
    return 0


def _compare(design, scenario):  # noqa: ANN001, ANN202 - CLI glue
    from fabricstudio.sim.scenario import ScenarioError
    from fabricstudio.ui.report.compare import run_comparison

    tty = sys.stderr.isatty()
    try:
        return run_comparison(design, scenario,
                              (lambda label: write_err(f"simulating {label}…")) if tty
                              else None)
    except ScenarioError as exc:
        raise CliError(str(exc)) from None
