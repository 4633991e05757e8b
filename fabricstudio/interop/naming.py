"""Names shared by the exporters and importers: interface names, roles, safe node names.

Interfaces are numbered from 1 (port ``p`` is interface ``p + 1``): switches ``swp<n>`` (the
Cumulus / NVIDIA Air convention, also understood by the UFM cable validation tool), servers
``eth<n>`` (``eth0`` stays the operating system's own management interface, as in
containerlab and NVIDIA Air).
"""

from __future__ import annotations

import re

from fabricstudio.model import Design, Device, DeviceKind

SWITCH_PREFIX = "swp"
SERVER_PREFIX = "eth"

#: Human role per kind (NetBox device roles, draw.io tooltips).
ROLE_NAMES = {
    DeviceKind.GPU_SERVER: "GPU server",
    DeviceKind.STORAGE_SERVER: "Storage server",
    DeviceKind.LEAF: "Leaf switch",
    DeviceKind.SPINE: "Spine switch",
    DeviceKind.CORE: "Core switch",
    DeviceKind.MGMT_SWITCH: "Management switch",
}
#: Colours per kind (hex without '#'), the canvas palette.
KIND_COLOURS = {kind: kind.colour for kind in DeviceKind}
#: Roles of the UFM cable validation tool's DOT file (switch tiers only).
CVT_ROLES = {DeviceKind.LEAF: "leaf", DeviceKind.SPINE: "spine", DeviceKind.CORE: "super_spine"}

_NUMBER_AT_END = re.compile(r"(\d+)$")
#: Characters XML 1.0 cannot hold (C0 controls but tab, CR and LF; U+FFFE, U+FFFF, surrogates).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def one_line(text: str) -> str:
    """``text`` for a one-line comment: control characters and line breaks become spaces."""
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", " ", text)


def xml_safe(text: str) -> str:
    """``text`` with the characters XML cannot hold replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def interface_name(device: Device, port: int) -> str:
    """Interface name of ``port`` (0-based) of ``device``."""
    prefix = SWITCH_PREFIX if DeviceKind(device.kind).is_switch else SERVER_PREFIX
    return f"{prefix}{port + 1}"


def number_in(name: str) -> int | None:
    """The number ending an interface name (``swp12`` -> 12, ``e1-3`` -> 3), or None."""
    match = _NUMBER_AT_END.search(name.strip())
    return int(match.group(1)) if match else None


def safe_name(ident: str, pattern: str = r"[^A-Za-z0-9._-]") -> str:
    """``ident`` with characters outside the allowed set replaced by '-'."""
    cleaned = re.sub(pattern, "-", ident)
    return cleaned if cleaned and cleaned[0].isalnum() else f"n{cleaned}"


def unique_names(idents: list[str], pattern: str = r"[^A-Za-z0-9._-]") -> dict[str, str]:
    """A safe, unique name per id (ids that are already safe keep their name)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for ident in idents:
        name = safe_name(ident, pattern)
        base, n = name, 2
        while name in used:
            name = f"{base}-{n}"
            n += 1
        used.add(name)
        out[ident] = name
    return out


def file_stem(design: Design) -> str:
    """A file name stem from the design's name."""
    stem = re.sub(r"[^A-Za-z0-9._]+", "-", design.name).strip("-.")
    return stem[:80] or "design"
