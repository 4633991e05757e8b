"""Reading cost books: the default ``resources/costbook.json`` and a user's override file.

A user's file has the same envelope (``format``, ``version``, ``currency``) and lists only the
items it changes or adds; :func:`load_cost_book` merges it over the default.  Loading never
trusts the file: only regular files are read (:func:`~fabricstudio.formats.reading.read_input`),
then size, encoding, strict JSON (:func:`~fabricstudio.formats.reading.decode_json`:
duplicate keys, NaN and Infinity refused), envelope, version, field types and ranges are
checked, and every failure is a :class:`CostBookError` whose message is one line naming the
file and the problem.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fabricstudio.formats.envelope import EnvelopeError, FileError, FileKind, check_envelope
from fabricstudio.formats.reading import InputError, decode_json, read_input
from fabricstudio.model import format_validation_error
from fabricstudio.model.costbook import COSTBOOK_FORMAT, COSTBOOK_VERSION, CostBook

#: A cost book of ten thousand items is under 5 MB.
MAX_COSTBOOK_BYTES = 5 * 1024 * 1024
#: How the envelope check names cost books.
COST_BOOK_FILE = FileKind(
    noun="cost book", format_name=COSTBOOK_FORMAT, current_version=COSTBOOK_VERSION,
    version_label="cost book format version", format_verb="",
    newer="{label} {version} is newer than this FabricStudio reads ({current}); please upgrade")


class CostBookError(FileError):
    """A cost book could not be read; ``str()`` is one line for the user."""


def _decode(raw: bytes | str, source: str | os.PathLike[str]) -> Any:
    try:
        return decode_json(raw, source, MAX_COSTBOOK_BYTES)
    except InputError as exc:
        raise CostBookError(source, exc.problem) from None


def _envelope(doc: Any, source: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        checked, _version = check_envelope(doc, COST_BOOK_FILE)
    except EnvelopeError as exc:
        raise CostBookError(source, exc.problem) from None
    if not isinstance(checked.get("items", []), list):
        raise CostBookError(source, "\"items\" must be a list")
    for n, item in enumerate(checked.get("items", [])):
        if not isinstance(item, dict) or not isinstance(item.get("class"), str):
            raise CostBookError(source, f"items.{n}: each item must be an object with a "
                                        "\"class\" string")
    return checked


def parse_cost_book(raw: bytes | str, source: str | os.PathLike[str] = "<input>") -> CostBook:
    """A complete cost book from file text or bytes."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    doc = _envelope(_decode(data, source), source)
    try:
        return CostBook.model_validate(doc)
    except ValidationError as exc:
        raise CostBookError(source, _readable(format_validation_error(exc, limit=2))) from None


def _readable(text: str) -> str:
    return text.replace("items.", "item ").replace("\n", " ")


@lru_cache(maxsize=1)
def default_cost_book() -> CostBook:
    """The cost book shipped with FabricStudio (resources/costbook.json)."""
    raw = resources.files("fabricstudio").joinpath("resources/costbook.json").read_bytes()
    return parse_cost_book(raw, "resources/costbook.json")


def read_override(path: str | os.PathLike[str]) -> tuple[str, list[dict[str, Any]]]:
    """(currency, items) of a user's cost-book file, checked but not merged."""
    try:
        raw = read_input(path, MAX_COSTBOOK_BYTES)
    except InputError as exc:
        raise CostBookError(path, exc.problem) from None
    doc = _envelope(_decode(raw, path), path)
    currency = doc.get("currency", default_cost_book().currency)
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        raise CostBookError(path, "\"currency\" must be a three-letter code such as \"USD\"")
    return currency, list(doc.get("items", []))


def load_cost_book(override: str | os.PathLike[str] | None = None) -> CostBook:
    """The default cost book, with the items of the file ``override`` merged over it."""
    book = default_cost_book()
    if override is None or str(override) == "":
        return book
    currency, items = read_override(override)
    try:
        return book.merged(items, currency=currency, source=f"cost book {Path(override).name}")
    except ValidationError as exc:
        raise CostBookError(override, _readable(format_validation_error(exc, limit=2))) \
            from None
    except ValueError as exc:
        raise CostBookError(override, str(exc).splitlines()[0]) from None
