"""Small designs for engine tests, built with the model API."""

from __future__ import annotations

from fabricstudio.model import Design, FabricSettings, GpuServer, Leaf, Link, Technology


def server(sid: str, speed: float = 100.0, gpus: int = 1, nics: int = 1) -> GpuServer:
    return GpuServer(id=sid, gpus=gpus, nics=nics, nic_speed_gbps=speed, mgmt_ports=0)


def leaf(sid: str, speed: float = 100.0, buffer: int = 16 * 1024**2, radix: int = 64) -> Leaf:
    return Leaf(id=sid, radix=radix, port_speed_gbps=speed, buffer_bytes=buffer)


def fabric(technology: Technology = Technology.ROCE, **changes) -> FabricSettings:
    return FabricSettings(technology=technology).model_copy(update=changes)


def star(hosts: list[str], technology: Technology = Technology.ROCE, speed: float = 100.0,
         buffer: int = 16 * 1024**2, length_m: float = 100.0, settings: FabricSettings | None = None
         ) -> Design:
    """Hosts on one switch ``s`` (100 m cables: 0.5 us propagation)."""
    design = Design("star", fabric=settings or fabric(technology))
    design.add_device(leaf("s", speed, buffer))
    for h in hosts:
        design.add_device(server(h, speed))
        design.add_link(Link(id=f"l-{h}", a=h, b="s", speed_gbps=speed, length_m=length_m))
    return design


def victim(technology: Technology = Technology.ROCE, speed: float = 100.0,
           buffer: int = 16 * 1024**2, length_m: float = 200.0,
           settings: FabricSettings | None = None) -> Design:
    """SIMULATION.md V4: A and V on S1; B1-B3, R and W on S2; one S1-S2 link."""
    design = Design("victim", fabric=settings or fabric(technology))
    design.add_device(leaf("s1", speed, buffer))
    design.add_device(leaf("s2", speed, buffer))
    for h, sw in (("a", "s1"), ("v", "s1"), ("b1", "s2"), ("b2", "s2"), ("b3", "s2"),
                  ("r", "s2"), ("w", "s2")):
        design.add_device(server(h, speed))
        design.add_link(Link(id=f"l-{h}", a=h, b=sw, speed_gbps=speed, length_m=length_m))
    design.add_link(Link(id="l-s1s2", a="s1", b="s2", speed_gbps=speed, length_m=length_m))
    return design
