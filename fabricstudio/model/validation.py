"""Cross-object validation rules shared by the Design document and the file loader.

Each rule returns messages that name the objects involved, so a user can find them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fabricstudio.model.devices import Device
from fabricstudio.model.enums import Plane
from fabricstudio.model.links import Link


class DesignError(ValueError):
    """A change or a file would make the design invalid; the message says why."""


def first_free_port(device: Device, plane: Plane, used: Iterable[int]) -> int | None:
    """Lowest port of ``device`` usable by ``plane`` that is not in ``used``."""
    taken = set(used)
    for port in device.ports_for_plane(plane):
        if port not in taken:
            return port
    return None


def end_problems(link: Link, device: Device, port: int | None,
                 used: Mapping[int, str]) -> list[str]:
    """Problems with one end of ``link`` on ``device`` at ``port`` (None = no free port)."""
    if (port is not None and link.plane in device.planes and port < device.port_count()
            and used.get(port, link.id) == link.id
            and device.port_plane(port) in (None, link.plane)
            and link.speed_gbps <= device.speed_of_port(port)):
        return []  # the common case, checked without building messages (large files)
    where = f"link {link.id}: {device.id}"
    if link.plane not in device.planes:
        planes = ", ".join(p.value for p in device.planes) or "none"
        return [f"{where} is not on the {link.plane.value} network (it is on: {planes})"]
    if port is None:
        return [f"{where} has no free {link.plane.value} port ({device.port_count()} ports)"]
    problems = []
    if port >= device.port_count():
        problems.append(f"{where} port {port} out of range (0..{device.port_count() - 1})")
        return problems
    owner = used.get(port)
    if owner is not None and owner != link.id:
        problems.append(f"{where} port {port} is already used by link {owner}")
    port_plane = device.port_plane(port)
    if port_plane is not None and port_plane != link.plane:
        problems.append(
            f"{where} port {port} is a {port_plane.value} port, not {link.plane.value}"
        )
    speed = device.speed_of_port(port)
    if link.speed_gbps > speed:
        problems.append(
            f"{where} port {port} runs at {speed:g} Gb/s, slower than the link's "
            f"{link.speed_gbps:g} Gb/s"
        )
    return problems


def device_fits_links(device: Device, links: Iterable[Link]) -> list[str]:
    """Problems that changing a device to ``device`` would cause for its existing links."""
    problems: list[str] = []
    used: dict[int, str] = {}
    for link in links:
        port = link.port_at(device.id)
        problems += end_problems(link, device, port, used)
        if port is not None:
            used[port] = link.id
    return problems
