"""Every class of part the hardware and cabling functions can produce for designs built from
standard speeds, radixes and lengths (to check that the default cost book prices them all)."""

from fabricstudio.model import GpuServer, Leaf, Link, MgmtSwitch, Plane, Technology
from fabricstudio.model.cabling import cable_class
from fabricstudio.model.hardware import nic_class, switch_class

SPEEDS = (1, 10, 25, 100, 200, 400, 800)
LENGTHS = (1, 4, 15, 45, 80, 300, 1500, 5000)


def producible_parts() -> set[str]:
    """Part classes of switches, adapters, transceivers and cables."""
    parts: set[str] = set()
    for tech in Technology:
        for speed in SPEEDS:
            for radix in (32, 48, 64, 128, 144):
                for kind in (Leaf, MgmtSwitch):
                    switch = kind(id="s", radix=radix, port_speed_gbps=speed,
                                  planes=tuple(Plane))
                    parts.add(switch_class(switch, tech).key)
                    _server_links(parts, switch, speed, tech)
                    _switch_links(parts, switch, speed, tech)
    return parts


def _server_links(parts, switch, speed, tech):
    for nic_speed in (s for s in SPEEDS if s <= speed):
        srv = GpuServer(id="g", nics=1, nic_speed_gbps=nic_speed, storage_nics=1,
                        storage_nic_speed_gbps=nic_speed, mgmt_ports=1,
                        mgmt_speed_gbps=min(nic_speed, 10), planes=tuple(Plane))
        for plane in Plane:
            port = srv.ports_for_plane(plane)[0]
            rate = srv.speed_of_port(port)
            nic = nic_class(rate, plane, tech)
            if nic is not None:
                parts.add(nic.key)
            for length in LENGTHS:
                for far in (0, 1):
                    link = Link(id="l", a="g", b="s", a_port=port, b_port=far, plane=plane,
                                speed_gbps=min(rate, speed), length_m=length)
                    _add(parts, cable_class(link, srv, switch, tech))


def _switch_links(parts, switch, speed, tech):
    other = switch.model_copy(update={"id": "t"})
    for length in LENGTHS:
        link = Link(id="l", a="s", b="t", a_port=0, b_port=0, speed_gbps=speed,
                    length_m=length)
        _add(parts, cable_class(link, switch, other, tech))


def _add(parts, choice):
    parts.update(p for p in (choice.module_a, choice.module_b, choice.assembly) if p)
