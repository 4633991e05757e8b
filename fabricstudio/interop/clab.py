"""containerlab conventions shared by the exporter and the importer: node kinds, default
images and interface names per kind (containerlab.dev/manual/kinds)."""

from __future__ import annotations

#: Default image per containerlab kind (freely pullable where one exists).
IMAGES = {
    "nokia_srlinux": "ghcr.io/nokia/srlinux:latest",
    "linux": "ghcr.io/hellt/network-multitool:latest",
    "sonic-vs": "docker-sonic-vs:latest",
    "arista_ceos": "ceos:latest",
    "cumulus_cvx": "networkop/cx:5.3.0",
}
#: Interface name pattern per kind; {n} is the 1-based data port number (eth0 is the
#: container's management interface, so data ports start at 1).
INTERFACES = {
    "nokia_srlinux": "e1-{n}",
    "cumulus_cvx": "swp{n}",
}
DEFAULT_INTERFACE = "eth{n}"
#: Kinds that run a server OS rather than a network OS.
SERVER_KINDS = ("linux", "bridge", "ext-container", "host")
DEFAULT_SWITCH_KIND = "nokia_srlinux"
DEFAULT_SERVER_KIND = "linux"


def interface_pattern(kind: str, overrides: dict[str, str]) -> str:
    """The interface pattern of containerlab ``kind``."""
    return overrides.get(kind) or INTERFACES.get(kind, DEFAULT_INTERFACE)
