"""``fabricstudio export DESIGN --cable-plan FILE.csv|FILE.xlsx``: the cutsheet, one row per
cable with racks, U, port names, media, modules and order lengths, plus a summary sheet
(XLSX) or a ``FILE.summary.csv`` beside the CSV.  Qt-free; part of the ``export``
dispatcher."""

from __future__ import annotations

import argparse

from fabricstudio.cli.common import CliError
from fabricstudio.cli.output import shown_path, write_out
from fabricstudio.formats import OutputError
from fabricstudio.model import Design


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cable-plan FILE``."""
    parser.add_argument("--cable-plan", metavar="FILE.csv|FILE.xlsx",
                        help="write the cable plan (cutsheet): one row per cable with racks, "
                             "U, ports, media, transceivers and lengths, and a summary")


def wanted(args: argparse.Namespace) -> bool:
    """True when the command line asks for a cable plan."""
    return bool(getattr(args, "cable_plan", None))


def output_paths(target: str) -> list[str]:
    """The files ``--cable-plan TARGET`` writes (a CSV's summary beside it); [] when the name
    is not .csv or .xlsx (:func:`run` says so)."""
    from fabricstudio.formats.tables import table_paths

    try:
        return [str(p) for p in table_paths(target, [("Cables", [], []), ("Summary", [], [])])]
    except OutputError:
        return []


def run(args: argparse.Namespace, design: Design) -> int:
    """Write the cable plan of ``design`` to ``args.cable_plan``."""
    from fabricstudio.formats.tables import write_tables
    from fabricstudio.topology.cableplan import cable_plan

    target = str(args.cable_plan)
    if not target.lower().endswith((".csv", ".xlsx")):
        raise CliError(f"--cable-plan {target}: the file name must end in .csv or .xlsx", 2)
    plan = cable_plan(design)
    inputs = [p for p in (args.design, getattr(args, "scenario", None)) if p]
    try:
        written = write_tables(target, plan.sheets(), inputs=inputs,
                               force=bool(getattr(args, "force", False)))
    except OutputError as exc:
        raise CliError(str(exc)) from None
    racks = len({slot.rack for slot in plan.racks.values()})
    for n, path in enumerate(written):
        detail = f"{len(plan.rows):,} cables in {racks} racks" if n == 0 else "summary"
        write_out(f"wrote {shown_path(path)} ({detail})")
    return 0
