"""Endpoint addresses of the engines: ``server``, ``server/gpuN``, ``server/nicN``."""

from __future__ import annotations

from fabricstudio.model import Design
from fabricstudio.model.devices import GpuServer, StorageServer
from fabricstudio.sim.engine.config import EngineError


def resolve_address(design: Design, address: str) -> tuple[str, int, int | None]:
    """``server``, ``server/gpuN`` or ``server/nicN`` -> (device id, NIC port, GPU or None);
    NIC port -1 for a GPU of a server without NICs.  Raises EngineError naming the problem."""
    name, _, sub = str(address).partition("/")
    device = design.devices.get(name)
    if device is None:
        raise EngineError(f"unknown device {name!r} in address {address!r}")
    if not isinstance(device, (GpuServer, StorageServer)):
        raise EngineError(f"{name} is a switch; flows start and end at servers")
    if not sub:
        if isinstance(device, StorageServer) and device.storage_nics:
            return name, device.nics, None
        if device.nics:
            return name, 0, None
        if device.storage_nics:
            return name, device.nics, None
        raise EngineError(f"{name} has no NIC to send or receive traffic")
    if sub.startswith("gpu") and sub[3:].isdigit():
        gpu = int(sub[3:])
        if not isinstance(device, GpuServer) or gpu >= device.gpus:
            raise EngineError(f"{address!r}: {name} has no GPU {gpu}")
        if device.nics == 0:
            return name, -1, gpu
        return name, device.gpu_nic(gpu), gpu
    if sub.startswith("nic") and sub[3:].isdigit():
        nic = int(sub[3:])
        if nic >= device.nics + device.storage_nics:
            raise EngineError(f"{address!r}: {name} has no NIC {nic}")
        return name, nic, None
    raise EngineError(f"bad address {address!r}: use server, server/gpuN or server/nicN")


def on_one_server(src: str, dst: str, source: tuple[str, int, int | None],
                  target: tuple[str, int, int | None]) -> bool:
    """True when a transfer between resolved addresses stays on one server (NVLink, GPU to
    GPU), False when it crosses the network; EngineError for the pairs no engine carries
    (within a server but not between two GPUs, or across servers from or to one without NICs).
    """
    (sdev, snic, sgpu), (ddev, dnic, dgpu) = source, target
    if sdev == ddev:
        if sgpu is None or dgpu is None:
            raise EngineError(f"flow {src} -> {dst}: source and destination are the same "
                              "server (only GPU-to-GPU NVLink transfers stay inside one)")
        if sgpu == dgpu:
            raise EngineError(f"flow {src} -> {dst}: source and destination are the same GPU")
        return True
    if snic < 0 or dnic < 0:
        raise EngineError(f"flow {src} -> {dst}: a server without NICs cannot reach "
                          "another server")
    return False
