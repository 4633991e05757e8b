"""Strict JSON decoding for FabricStudio's files: :func:`loads_strict`.

Python's ``json`` accepts more than JSON: a repeated key silently keeps its last value,
``NaN`` and ``Infinity`` parse, ``1e400`` becomes infinity, and an integer of more than 4,300
digits raises a ValueError that is not a decoding error.  Here each of those is a
:class:`JsonError` with one readable sentence, so no file can mean something other than what
it says and no input reaches the program as an "internal error".
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: Longest integer accepted (digits): far above any count, size or seed in a file (2**63 has 19).
MAX_INT_DIGITS = 40


class JsonError(ValueError):
    """The text is not acceptable JSON; ``str()`` is the message (without a file name)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):  # no key twice (built in C: a large file has 100k objects)
        return result
    result = {}
    for key, value in pairs:
        if key in result:
            raise JsonError(f'duplicate key "{_short(_escaped(key))}" in one object (each key '
                            "may appear once; which value was meant?)")
        result[key] = value
    return result


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonError(f"an integer of {digits:,} digits is too long (at most "
                        f"{MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonError(f"the number {_short(text)} is out of range")
    return value


def _constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number (use a finite number)")


def _escaped(text: str) -> str:
    """``text`` with control and non-ASCII characters as JSON escapes (safe on a terminal)."""
    return json.dumps(text)[1:-1]


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def loads_strict(text: str) -> Any:
    """Decode JSON ``text``; JsonError for duplicate keys, non-finite or absurdly long numbers
    and text that is not Unicode (an unpaired ``\\ud800`` escape), json.JSONDecodeError for
    syntax errors and RecursionError for too deep nesting."""
    doc = json.loads(text, object_pairs_hook=_object, parse_int=_integer,
                     parse_float=_float, parse_constant=_constant)
    if _SURROGATE_ESCAPE.search(text):  # rare: only then walk the document
        _check_unicode(doc)
    return doc


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _check_unicode(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise JsonError("text with an unpaired UTF-16 surrogate escape (\\ud800 .. "
                                "\\udfff) is not Unicode") from None
