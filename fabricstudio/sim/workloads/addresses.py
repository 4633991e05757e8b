"""Endpoint addresses and rank lists.

An address is ``"server"`` (the server itself; the engine uses its first NIC), ``"server/gpuN"``
(GPU N, reaching the fabric through its rail NIC ``GpuServer.gpu_nic(N)``) or ``"server/nicN"``
(NIC N).  Ranks of collectives are GPUs; ``"all"`` means every GPU of every GPU server that
has a compute NIC, in design order.
"""

from __future__ import annotations

import re

from fabricstudio.model import Design, GpuServer, Plane, StorageServer
from fabricstudio.model.devices import SERVER_TYPES, SWITCH_TYPES
from fabricstudio.sim.scenario import ScenarioError

_SUFFIX = re.compile(r"^(gpu|nic)(\d+)$")


def server_of(address: str) -> str:
    """The device id of an address (``"s1/gpu3"`` -> ``"s1"``)."""
    return address.split("/", 1)[0]


def check_address(design: Design, address: str, what: str = "endpoint") -> None:
    """Raise ScenarioError unless ``address`` names a server, one of its GPUs or NICs."""
    device_id, _, suffix = address.partition("/")
    device = design.devices.get(device_id)
    if device is None:
        raise ScenarioError(f"{what} {address!r}: no device {device_id!r} in the design")
    if isinstance(device, SWITCH_TYPES):
        raise ScenarioError(f"{what} {address!r}: {device_id} is a switch; traffic starts and "
                            "ends at servers")
    if not suffix:
        return
    match = _SUFFIX.match(suffix)
    if not match:
        raise ScenarioError(f"{what} {address!r}: expected \"{device_id}\", "
                            f"\"{device_id}/gpuN\" or \"{device_id}/nicN\"")
    kind, index = match.group(1), int(match.group(2))
    if kind == "gpu":
        if not isinstance(device, GpuServer):
            raise ScenarioError(f"{what} {address!r}: {device_id} is not a GPU server")
        if index >= device.gpus:
            raise ScenarioError(f"{what} {address!r}: {device_id} has {device.gpus} GPUs "
                                f"(gpu0..gpu{device.gpus - 1})")
    else:
        nics = device.nics + device.storage_nics
        if index >= nics:
            raise ScenarioError(f"{what} {address!r}: {device_id} has {nics} NICs")


def rail_of(design: Design, address: str) -> int:
    """Compute NIC (rail) an address sends through: GPU i -> NIC i, ``/nicN`` -> N, else 0."""
    device_id, _, suffix = address.partition("/")
    match = _SUFFIX.match(suffix)
    if not match:
        return 0
    index = int(match.group(2))
    if match.group(1) == "nic":
        return index
    device = design.devices[device_id]
    return device.gpu_nic(index) if isinstance(device, GpuServer) else 0


def all_gpus(design: Design) -> list[str]:
    """Every GPU of every GPU server with a compute NIC on a link, as ``server/gpuN``."""
    ranks: list[str] = []
    for device in design.devices.values():
        if not isinstance(device, GpuServer) or device.nics == 0:
            continue
        if not any(link.plane is Plane.COMPUTE for link in design.links_of(device.id)):
            continue
        ranks.extend(f"{device.id}/gpu{i}" for i in range(device.gpus))
    return ranks


def resolve_ranks(design: Design, ranks: str | list[str], what: str) -> list[str]:
    """The rank addresses of a workload, checked; ``"all"`` expands to :func:`all_gpus`."""
    if ranks == "all":
        resolved = all_gpus(design)
        if len(resolved) < 2:
            raise ScenarioError(f"{what}: the design has {len(resolved)} connected GPU(s); "
                                "a collective needs at least 2")
        return resolved
    seen = set()
    for address in ranks:
        check_address(design, address, what)
        device = design.devices[server_of(address)]
        if not isinstance(device, GpuServer):
            raise ScenarioError(f"{what}: rank {address!r} is a {device.kind.replace('_', ' ')}; "
                                "ranks are GPUs of GPU servers (\"server/gpuN\")")
        if device.nics == 0:
            raise ScenarioError(f"{what}: rank {address!r}: {device.id} has no compute NIC")
        if address in seen:
            raise ScenarioError(f"{what}: rank {address!r} is listed twice")
        seen.add(address)
    return list(ranks)


def storage_servers(design: Design) -> list[str]:
    """Ids of every storage server."""
    return [d.id for d in design.devices.values() if isinstance(d, StorageServer)]


def gpu_servers(design: Design) -> list[str]:
    """Ids of every GPU server."""
    return [d.id for d in design.devices.values() if isinstance(d, GpuServer)]


def storage_endpoint(design: Design, address: str) -> str:
    """Where storage traffic of ``address`` enters the fabric: a bare server id maps to its
    first storage NIC (``server/nicK``, K = compute NICs) when it has one, else to itself."""
    if "/" in address:
        return address
    device = design.devices[address]
    if isinstance(device, SERVER_TYPES) and device.storage_nics and device.nics:
        return f"{address}/nic{device.nics}"
    return address


def group_by_server(ranks: list[str]) -> list[list[str]]:
    """Ranks grouped by server, servers and ranks in first-appearance order."""
    groups: dict[str, list[str]] = {}
    for address in ranks:
        groups.setdefault(server_of(address), []).append(address)
    return list(groups.values())
