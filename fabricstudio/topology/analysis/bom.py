"""Bill of materials: servers, switches by kind/radix/speed, NICs, cables and transceivers."""

from __future__ import annotations

from collections import Counter

from fabricstudio.model import DeviceKind, GpuServer, Plane
from fabricstudio.model.devices import SWITCH_TYPES
from fabricstudio.topology.analysis.report import BillOfMaterials, CableGroup, NicGroup, SwitchGroup
from fabricstudio.topology.analysis.view import DesignView
from fabricstudio.topology.cables import CABLE_CLASSES, cable_class, transceivers_for


def bill_of_materials(view: DesignView) -> BillOfMaterials:
    """Count what the design needs."""
    switch_groups: dict[tuple[str, int, float], list[int]] = {}
    nic_groups: dict[tuple[str, float], list[int]] = {}
    gpu_servers = gpus = storage = 0
    for device in view.devices.values():
        kind = DeviceKind(device.kind)
        used = view.used_ports.get(device.id, set())
        if isinstance(device, SWITCH_TYPES):
            key = (kind.value, device.radix, device.port_speed_gbps)
            entry = switch_groups.setdefault(key, [0, 0, 0])
            entry[0] += 1
            entry[1] += len(used)
            entry[2] += device.radix - len(used)
            continue
        if isinstance(device, GpuServer):
            gpu_servers += 1
            gpus += device.gpus
        else:
            storage += 1
        for plane in Plane:
            ports = device.ports_for_plane(plane)
            if not len(ports):
                continue
            nic_key = (plane.value, device.speed_of_port(ports[0]))
            entry = nic_groups.setdefault(nic_key, [0, 0])
            entry[0] += len(ports)
            entry[1] += sum(1 for p in ports if p in used)
    cables: Counter[tuple[str, str, float]] = Counter()
    optics: Counter[tuple[str, str, float]] = Counter()
    for link in view.links:
        cable_key = (link.plane.value, cable_class(link), link.speed_gbps)
        cables[cable_key] += 1
        optics[cable_key] += transceivers_for(link)
    by_class: Counter[str] = Counter()
    for (_, cls, _), n in cables.items():
        by_class[cls] += n
    order = {k.value: n for n, k in enumerate(DeviceKind)}
    return BillOfMaterials(
        gpu_servers=gpu_servers, gpus=gpus, storage_servers=storage,
        switches=[SwitchGroup(kind=k, radix=r, port_speed_gbps=s, count=c, ports_used=u,
                              ports_free=f)
                  for (k, r, s), (c, u, f) in sorted(switch_groups.items(),
                                                     key=lambda i: (order[i[0][0]], i[0][1:]))],
        nics=[NicGroup(plane=p, speed_gbps=s, count=c, connected=u)
              for (p, s), (c, u) in sorted(nic_groups.items())],
        cables=[CableGroup(plane=p, cable=cls, speed_gbps=s, count=n, transceivers=optics[k])
                for k, n in sorted(cables.items()) for p, cls, s in [k]],
        cables_by_class={cls: by_class.get(cls, 0) for cls in CABLE_CLASSES},
        transceivers=sum(optics.values()),
        switch_ports_used=sum(v[1] for v in switch_groups.values()),
        switch_ports_free=sum(v[2] for v in switch_groups.values()),
    )
