"""Reading untrusted files: a size limit, regular files only, UTF-8, YAML through the safe
loader only (``yaml.safe_load``'s SafeLoader or its C twin CSafeLoader: no object
construction) with a depth and size budget, and XML through defusedxml (no DTDs, no entity
expansion, no external references)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml
from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeET

from fabricstudio.interop.registry import InteropError

#: Largest file an import reads (32 MiB: other tools' files of a 16k-GPU fabric are a few MB;
#: the design-file limit is higher because the generator writes up to ~100 MB designs).
MAX_IMPORT_BYTES = 32 * 2**20
#: yaml.safe_load's loader, in C when libyaml is there (same safe constructor).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
#: Deepest nesting accepted in YAML and XML.
MAX_DEPTH = 64
#: Most values a YAML document may hold once its aliases are followed.
MAX_ITEMS = 5_000_000


def read_limited(path: Path, limit: int = MAX_IMPORT_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (InteropError otherwise)."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InteropError(f"{path}: is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InteropError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise InteropError(f"{path}: file is too large ({info.st_size / 2**20:.1f} MiB; "
                               f"the limit is {limit / 2**20:.0f} MiB)")
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise InteropError(f"{path}: no such file") from None
    except PermissionError:
        raise InteropError(f"{path}: permission denied") from None
    except OSError as exc:
        raise InteropError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InteropError(f"{path}: file is too large (the limit is {limit / 2**20:.0f} MiB)")
    return data


def decode(data: bytes, source: str | os.PathLike[str]) -> str:
    """UTF-8 text (a BOM allowed); InteropError naming the bad byte otherwise."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InteropError(f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                           f"{exc.start})") from None
    if not text.strip():
        raise InteropError(f"{source}: file is empty")
    return text


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


def parse_xml(data: bytes, source: str | os.PathLike[str]) -> Any:
    """The root element of an XML document parsed with defusedxml (DTDs forbidden)."""
    try:
        root = SafeET.fromstring(data, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise InteropError(f"{source}: XML refused: {type(exc).__name__} (DTDs and entities "
                           "are not accepted)") from None
    except SafeET.ParseError as exc:
        raise InteropError(f"{source}: not valid XML: {exc}") from None
    depth = _xml_depth(root)
    if depth > MAX_DEPTH:
        raise InteropError(f"{source}: XML nested too deeply ({depth} levels)")
    return root


def _xml_depth(root: Any) -> int:
    deepest = 0
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in element)
    return deepest
