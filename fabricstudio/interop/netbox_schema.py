"""NetBox import vocabulary shared by the NetBox exporter and importer: the CSV columns of
NetBox's bulk-import forms (netbox dcim/forms/bulk_import.py), interface types by speed
(dcim/choices.py InterfaceTypeChoices) and cable types (CableTypeChoices)."""

from __future__ import annotations

import re

from fabricstudio.model import Plane, Technology

MANUFACTURER = "Generic"
STATUS = "planned"

COLUMNS = {
    "manufacturers.csv": ("name", "slug", "description"),
    "device_roles.csv": ("name", "slug", "color", "description"),
    "device_types.csv": ("manufacturer", "model", "slug", "part_number", "u_height",
                         "is_full_depth", "description", "comments"),
    "sites.csv": ("name", "slug", "status", "description", "comments"),
    "racks.csv": ("site", "name", "status", "width", "u_height"),
    "devices.csv": ("name", "role", "manufacturer", "device_type", "status", "site", "rack",
                    "position", "face", "description", "comments"),
    "interfaces.csv": ("device", "name", "type", "speed", "enabled", "mgmt_only",
                       "description"),
    "cables.csv": ("side_a_device", "side_a_type", "side_a_name", "side_b_device",
                   "side_b_type", "side_b_name", "type", "status", "label", "length",
                   "length_unit", "description"),
}
INTERFACE_TERMINATION = "dcim.interface"

_ETHERNET = {1: "1000base-t", 10: "10gbase-x-sfpp", 25: "25gbase-x-sfp28",
             40: "40gbase-x-qsfpp", 50: "50gbase-x-sfp56", 100: "100gbase-x-qsfp28",
             200: "200gbase-x-qsfp56", 400: "400gbase-x-osfp", 800: "800gbase-x-osfp",
             1600: "1.6tbase-x-osfp1600"}
_COPPER = {1: "1000base-t", 10: "10gbase-t"}
#: InfiniBand generations by 4x port speed (NDR 400G, XDR 800G).
_INFINIBAND = {100: "infiniband-edr", 200: "infiniband-hdr", 400: "infiniband-ndr",
               800: "infiniband-xdr"}
#: Media (fabricstudio.model.cabling.cable_class, the one cable-class function) -> NetBox
#: cable type.
CABLE_TYPES = {"DAC": "dac-passive", "ACC": "dac-active", "AOC": "aoc", "MMF": "mmf",
               "SMF": "smf", "RJ45": "cat6a"}
LENGTH_UNITS = {"m": 1.0, "cm": 0.01, "ft": 0.3048, "in": 0.0254}


def interface_type(speed_gbps: float, plane: Plane, technology: Technology) -> str:
    """NetBox interface type of a port."""
    speed = int(round(speed_gbps))
    if plane is Plane.MANAGEMENT and speed in _COPPER:
        return _COPPER[speed]
    if plane is Plane.COMPUTE and technology is Technology.INFINIBAND and speed in _INFINIBAND:
        return _INFINIBAND[speed]
    return _ETHERNET.get(speed, "other")


def speed_of_type(text: str) -> float | None:
    """Gb/s of a NetBox interface type ('400gbase-x-osfp' -> 400), or None."""
    text = text.strip().lower()
    for table in (_INFINIBAND, _ETHERNET, _COPPER):
        for speed, name in table.items():
            if name == text:
                return float(speed)
    match = re.match(r"(\d+(?:\.\d+)?)([gt])base", text)
    if match:
        return float(match.group(1)) * (1000 if match.group(2) == "t" else 1)
    return None


def cable_type(media: str) -> str:
    """NetBox cable type of a link's media."""
    return CABLE_TYPES.get(media, "")


def slug(text: str) -> str:
    """A NetBox slug (lower-case letters, digits, hyphens, underscores)."""
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")[:100] or "x"
