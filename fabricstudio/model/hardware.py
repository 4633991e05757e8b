"""Hardware classes behind the devices of a design: which switch and NIC family a device is,
and the cage (the physical socket) each of its ports sits in.

A design's devices are generic (a leaf of radix 64 at 400 Gb/s); an order is not.  These
functions map a device and the fabric technology to the class of part that is bought, so that
the bill of materials, the cable plan, the inspector and the cost book all agree:

* InfiniBand designs use NVIDIA Quantum switches and ConnectX adapters, Ethernet (RoCE and
  lossy) designs Spectrum-class switches and ConnectX / BlueField SuperNICs; management
  networks are always Ethernet.
* Quantum-2 (NDR) and Spectrum-4 switches run their 400G ports two to a *twin-port* OSFP cage
  (one 800G plug carries two 400G links); Quantum-X800 (XDR) two 800G ports to a 1.6T cage.
  Adapters have single-port cages (ConnectX-7: one 400G OSFP).
  Sources: docs.nvidia.com/networking/display/800GMMS4X00NS/Overview,
  docs.nvidia.com/networking/display/QM97X0PUB/Interfaces, docs/cost.md.

Port ``p`` of a device sits in cage ``p // cage.ports``.  Only stdlib and the model are used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from fabricstudio.model.devices import Device, Switch
from fabricstudio.model.enums import DeviceKind, Plane, Technology

Family = Literal["infiniband", "ethernet"]

#: Ports at or below this rate on a management switch or server management port are
#: twisted-pair copper (1000BASE-T / 10GBASE-T).
RJ45_MAX_GBPS = 10.0


@dataclass(frozen=True)
class Cage:
    """A physical port socket: ``form`` factor, electrical rate ``gbps`` of the whole cage,
    and how many design ports (links) share it (2 = twin-port, 4 = quad split)."""

    form: str
    gbps: float
    ports: int = 1

    @property
    def port_gbps(self) -> float:
        """Rate of one design port in this cage."""
        return self.gbps / self.ports

    @property
    def label(self) -> str:
        """'800G OSFP twin-port', '400G OSFP', 'RJ45'."""
        if self.form == "RJ45":
            return "RJ45"
        split = {1: "", 2: " twin-port", 4: " 4-way split"}.get(self.ports, f" {self.ports}-way")
        return f"{self.gbps:g}G {self.form}{split}"


@dataclass(frozen=True)
class PartClass:
    """A class of orderable part: cost-book ``key`` and a readable ``label``."""

    key: str
    label: str
    cage: Cage
    native_ports: int = 1
    mode: str = ""


def family_of(technology: Technology | str, plane: Plane | str | None = None) -> Family:
    """InfiniBand for InfiniBand designs (compute and storage), Ethernet otherwise and on the
    management network."""
    if plane is not None and Plane(plane) is Plane.MANAGEMENT:
        return "ethernet"
    return "infiniband" if Technology(technology) is Technology.INFINIBAND else "ethernet"


# ------------------------------------------------------------------------------- switches
_MGMT_SWITCH = PartClass("switch-mgmt-48x1g", "Management switch, 48 x 1GbE RJ45 + 4 x 100G "
                         "uplinks (SN2201 class)", Cage("RJ45", 1.0), 48)
_IB_SWITCHES = (
    # (port rate above, switch); first match wins, fastest first
    (400.0, PartClass("switch-ib-xdr-144x800g", "InfiniBand XDR switch, 144 x 800G in 72 "
                      "twin-port OSFP cages (Quantum-X800 Q3400 class)", Cage("OSFP", 1600.0, 2),
                      144)),
    (200.0, PartClass("switch-ib-ndr-64x400g", "InfiniBand NDR switch, 64 x 400G in 32 "
                      "twin-port OSFP cages (Quantum-2 QM9700 class)", Cage("OSFP", 800.0, 2), 64)),
)
_IB_NDR200 = PartClass("switch-ib-ndr-64x400g", _IB_SWITCHES[1][1].label, Cage("OSFP", 800.0, 4),
                       128, "run as 128 x 200G (NDR200)")
_IB_HDR = PartClass("switch-ib-hdr-40x200g", "InfiniBand HDR switch, 40 x 200G QSFP56 "
                    "(Quantum QM8700 class)", Cage("QSFP56", 200.0), 40)
_IB_EDR = PartClass("switch-ib-edr-36x100g", "InfiniBand EDR switch, 36 x 100G QSFP28 "
                    "(Switch-IB 2 SB7800 class)", Cage("QSFP28", 100.0), 36)
_ETH_51T = "Ethernet 51.2T switch, 64 x 800G OSFP cages (Spectrum-4 SN5600 class)"
_ETH_800 = PartClass("switch-eth-51t-64x800g", _ETH_51T, Cage("OSFP", 800.0), 64)
_ETH_400 = PartClass("switch-eth-51t-64x800g", _ETH_51T, Cage("OSFP", 800.0, 2), 128,
                     "cages run as twin-port 2 x 400G")
_ETH_200_SPLIT = PartClass("switch-eth-51t-64x800g", _ETH_51T, Cage("OSFP", 800.0, 4), 256,
                           "cages split 4 x 200G")
_ETH_200 = PartClass("switch-eth-64x200g", "Ethernet 12.8T switch, 64 x 200G QSFP56 "
                     "(Spectrum-3 SN4600 class)", Cage("QSFP56", 200.0), 64)
_ETH_100 = PartClass("switch-eth-64x100g", "Ethernet 6.4T switch, 64 x 100G QSFP28 "
                     "(Spectrum-2 SN4600C class)", Cage("QSFP28", 100.0), 64)
_ETH_25 = PartClass("switch-eth-48x25g", "Ethernet switch, 48 x 25G SFP28 + 8 x 100G "
                    "(Spectrum SN2410 class)", Cage("SFP28", 25.0), 48)


def switch_class(device: Device, technology: Technology | str) -> PartClass:
    """The class of switch a switch device is ordered as (by technology, speed and radix)."""
    if not isinstance(device, Switch):
        raise TypeError(f"{device.id} is a {device.kind}, not a switch")
    return _switch_class(str(device.kind), float(device.port_speed_gbps), int(device.radix),
                         tuple(device.planes), str(technology))


@lru_cache(maxsize=256)
def _switch_class(kind_name: str, speed: float, radix: int, planes: tuple[Plane, ...],
                  technology: str) -> PartClass:
    kind = DeviceKind(kind_name)
    if kind is DeviceKind.MGMT_SWITCH or speed <= RJ45_MAX_GBPS:
        return _MGMT_SWITCH
    plane = Plane.MANAGEMENT if Plane.MANAGEMENT in planes and \
        Plane.COMPUTE not in planes and Plane.STORAGE not in planes else None
    if family_of(technology, plane) == "infiniband":
        for above, part in _IB_SWITCHES:
            if speed > above:
                return part
        if speed > 100.0:
            return _IB_NDR200 if radix > _IB_HDR.native_ports else _IB_HDR
        return _IB_EDR
    if speed > 400.0:
        return _ETH_800
    if speed > 200.0:
        return _ETH_400
    if speed > 100.0:
        return _ETH_200_SPLIT if radix > _ETH_200.native_ports else _ETH_200
    if speed > 25.0:
        return _ETH_100
    return _ETH_25


# ----------------------------------------------------------------------------------- NICs
@lru_cache(maxsize=256)
def nic_class(speed_gbps: float, plane: Plane | str, technology: Technology | str
              ) -> PartClass | None:
    """The adapter a server port of ``plane`` at ``speed_gbps`` needs; None for a management
    port at RJ45 rates (on the motherboard: BMC / LAN on motherboard).  Prices are per port."""
    plane = Plane(plane)
    if plane is Plane.MANAGEMENT and speed_gbps <= RJ45_MAX_GBPS:
        return None
    fam = family_of(technology, plane)
    ib = fam == "infiniband"
    tag = "ib" if ib else "eth"
    if speed_gbps > 400.0:
        return PartClass(f"nic-{tag}-800g", "ConnectX-8 SuperNIC, 800G single-port OSFP"
                         + (" (XDR)" if ib else " (800GbE)"), Cage("OSFP", 800.0))
    if speed_gbps > 200.0:
        return PartClass(f"nic-{tag}-400g", "ConnectX-7 adapter, 400G single-port OSFP (NDR)"
                         if ib else "ConnectX-7 / BlueField-3 SuperNIC, 400GbE single-port",
                         Cage("OSFP", 400.0))
    if speed_gbps > 100.0:
        return PartClass(f"nic-{tag}-200g", "ConnectX-7 / ConnectX-6 adapter port, 200G "
                         "QSFP56/112" + (" (HDR / NDR200)" if ib else " (200GbE)"),
                         Cage("QSFP56", 200.0))
    if speed_gbps > 25.0 or ib:
        return PartClass(f"nic-{tag}-100g", "ConnectX-6 adapter port, 100G QSFP28"
                         + (" (EDR)" if ib else " (100GbE)"), Cage("QSFP28", 100.0))
    if speed_gbps > RJ45_MAX_GBPS:
        return PartClass("nic-eth-25g", "ConnectX-6 Lx adapter port, 25GbE SFP28",
                         Cage("SFP28", 25.0))
    return PartClass("nic-eth-10g", "ConnectX-4 Lx adapter port, 10GbE SFP+", Cage("SFP+", 10.0))


# ----------------------------------------------------------------------------------- cages
_RJ45 = Cage("RJ45", 1.0)


_SWITCH_KIND_NAMES = frozenset(k.value for k in DeviceKind if k.is_switch)


def port_cage(device: Device, port: int | None, technology: Technology | str) -> Cage:
    """The cage port ``port`` of ``device`` sits in."""
    if device.kind in _SWITCH_KIND_NAMES:
        return switch_class(device, technology).cage
    plane = device.port_plane(port or 0) or Plane.COMPUTE
    nic = nic_class(device.speed_of_port(port or 0), plane, technology)
    return _RJ45 if nic is None else nic.cage


def cage_index(device: Device, port: int | None, technology: Technology | str) -> int:
    """Number of the cage (0-based) that port ``port`` of ``device`` sits in."""
    return (port or 0) // port_cage(device, port, technology).ports


def port_name(device: Device, port: int | None, technology: Technology | str) -> str:
    """The name an installer reads on the faceplate or in the OS.

    InfiniBand switches: ``cage/port`` from 1 (``1/1``, ``1/2`` of a twin-port cage);
    Ethernet switches: ``swpN`` or ``swpNsM`` for split cages (Cumulus / SONiC style);
    servers: ``mlx5_N`` for fabric adapters in port order, ``BMC`` / ``ethN`` for management.
    """
    port = port or 0
    if device.is_switch:
        cage = port_cage(device, port, technology)
        number, sub = port // cage.ports + 1, port % cage.ports
        if cage.form == "RJ45":
            return f"eth{port + 1}"
        if switch_class(device, technology).key.startswith("switch-ib-"):
            return f"{number}/{sub + 1}"
        return f"swp{number}" if cage.ports == 1 else f"swp{number}s{sub}"
    plane = device.port_plane(port)
    if plane is Plane.MANAGEMENT:
        first = device.ports_for_plane(Plane.MANAGEMENT)[0]
        return "BMC" if port == first else f"eth{port - first}"
    return f"mlx5_{port}"
