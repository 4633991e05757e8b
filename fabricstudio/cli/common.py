"""Shared CLI helpers: the error type, a parser that fails in one line, argument types."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from fabricstudio.cli.output import write_err
from fabricstudio.formats import DesignFileError, load_design
from fabricstudio.model import Design


class CliError(Exception):
    """A user-facing failure: printed as one line; ``exit_code`` 1 (bad input) or 2 (usage)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class CliParser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        write_err(f"{self.prog}: error: {message} (see '{self.prog} --help')")
        raise SystemExit(2)


def load_design_arg(path: str | Path) -> Design:
    """Load a design named on the command line, turning file errors into CliError."""
    try:
        return load_design(path)
    except DesignFileError as exc:
        raise CliError(str(exc)) from None


def load_cost_book_arg(path: str | Path | None):
    """The default cost book with the file ``path`` merged over it (CliError when bad)."""
    from fabricstudio.formats.costbook import CostBookError, load_cost_book

    try:
        return load_cost_book(path)
    except CostBookError as exc:
        raise CliError(str(exc)) from None


def add_cost_book_argument(parser: argparse.ArgumentParser) -> None:
    """``--cost-book FILE``: prices and power figures that override the defaults."""
    parser.add_argument("--cost-book", metavar="FILE",
                        help="cost book whose items override the default prices and power "
                             "figures (docs/cost.md)")


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer > 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive whole number")
    return value


def failure_arg(text: str):
    """argparse type: ``link:ID``, ``device:ID`` or ``rail:N`` -> a Failure down from the start."""
    from pydantic import ValidationError

    from fabricstudio.model import format_validation_error
    from fabricstudio.model.failures import Failure

    kind, sep, target = text.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in ("link", "device", "rail") or not target:
        raise argparse.ArgumentTypeError(
            f"{text!r}: use link:ID, device:ID or rail:N (e.g. device:spine1)")
    value: object = target
    if kind == "rail":
        try:
            value = int(target)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: a rail is a number") from None
    try:
        return Failure.model_validate({kind: value})
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r}: {format_validation_error(exc)}") from None


def add_failure_argument(parser: argparse.ArgumentParser, timed: bool = False) -> None:
    """``--fail link:ID|device:ID|rail:N`` (repeatable)."""
    parser.add_argument(
        "--fail", action="append", type=failure_arg, default=[], metavar="KIND:ID",
        help="mark an element failed: link:ID, device:ID or rail:N (repeat for several; "
             "docs/failures.md)" + ("; down from --fail-at to --repair-at" if timed else ""))
