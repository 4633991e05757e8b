"""Reading untrusted files: a size limit, regular files only, UTF-8, YAML through the safe
loader only (``yaml.safe_load``'s SafeLoader or its C twin CSafeLoader: no object
construction) with a depth and size budget, and XML through a guarded parser: a document
with a DTD is refused before parsing (entities can only be declared in a DTD, so none can be
expanded and no external reference can be followed), then expat parses it in C.  This is
defusedxml's ``forbid_dtd`` rule without its pure-Python parser, which took 5 s on an
8,192-GPU GraphML file."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

from fabricstudio.formats.reading import InputError, decode_text, read_input
from fabricstudio.interop.registry import InteropError

#: Largest file an import reads: 64 MiB.  FabricStudio's own GraphML of an 8,192-GPU rail
#: fabric with storage and management is 14 MB (benchmarks/interop.py), so 16k GPUs fit; other
#: tools' files of such fabrics are smaller.  (The design-file limit is higher because the
#: generator writes designs of up to ~100 MB.)
MAX_IMPORT_BYTES = 64 * 2**20
#: yaml.safe_load's loader, in C when libyaml is there (same safe constructor).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
#: Deepest nesting accepted in YAML and XML.
MAX_DEPTH = 64
#: Most values a YAML document may hold once its aliases are followed.
MAX_ITEMS = 5_000_000


def read_limited(path: Path, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (default MAX_IMPORT_BYTES):
    :func:`fabricstudio.formats.read_input`, the reader design files use, with InteropError."""
    try:
        return read_input(path, MAX_IMPORT_BYTES if limit is None else limit)
    except InputError as exc:
        raise InteropError(str(exc)) from None


def decode(data: bytes, source: str | os.PathLike[str]) -> str:
    """UTF-8 text (a BOM allowed); InteropError naming the bad byte otherwise."""
    try:
        return decode_text(data, source)
    except InputError as exc:
        raise InteropError(str(exc)) from None


def load_yaml(text: str, source: str | os.PathLike[str]) -> Any:
    """One YAML document, loaded safely and checked for depth and size."""
    try:
        doc = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a SafeLoader, never Loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise InteropError(f"{source}: not valid YAML: {exc.problem or exc}{where}") from None
    except yaml.YAMLError as exc:
        raise InteropError(f"{source}: not valid YAML: {exc}") from None
    except RecursionError:
        raise InteropError(f"{source}: YAML is nested too deeply") from None
    check_depth(doc, source)
    return doc


def check_depth(doc: Any, source: str | os.PathLike[str]) -> None:
    """InteropError when ``doc`` nests deeper than MAX_DEPTH or holds more than MAX_ITEMS
    values (aliases counted each time they are used)."""
    budget = MAX_ITEMS
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise InteropError(f"{source}: too many values (more than {MAX_ITEMS:,}, counting "
                               "repeated aliases)")
        if depth > MAX_DEPTH:
            raise InteropError(f"{source}: nested too deeply (more than {MAX_DEPTH} levels)")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
            stack.extend((k, depth + 1) for k in value if isinstance(k, (tuple, list)))
        elif isinstance(value, (list, tuple)):
            stack.extend((v, depth + 1) for v in value)


_DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


def parse_xml(data: bytes, source: str | os.PathLike[str]) -> ET.Element:
    """The root element of a UTF-8 XML document without a DTD (InteropError otherwise)."""
    text = decode(data, source)
    found = _DTD.search(text)
    if found:
        raise InteropError(f"{source}: XML refused: it declares a {found.group(1).upper()} "
                           "(DTDs and entities are not accepted)")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InteropError(f"{source}: not valid XML: {exc}") from None
    depth = _xml_depth(root)
    if depth > MAX_DEPTH:
        raise InteropError(f"{source}: XML nested too deeply ({depth} levels)")
    return root


def _xml_depth(root: ET.Element) -> int:
    deepest = 0
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in element)
    return deepest
