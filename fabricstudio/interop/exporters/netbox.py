"""NetBox import set: a folder (or zip) of CSV files in the columns of NetBox's bulk import
(manufacturers, device roles, device types, site, racks, devices with rack and position,
interfaces, cables with status ``planned``, type and length), device types also as YAML with
their interface templates, and a README with the import order."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence

import yaml

from fabricstudio.formats.csv_safe import spreadsheet_safe
from fabricstudio.interop.bundle import Bundle
from fabricstudio.interop.naming import KIND_COLOURS, ROLE_NAMES, interface_name
from fabricstudio.interop.netbox_schema import (
    COLUMNS,
    INTERFACE_TERMINATION,
    MANUFACTURER,
    STATUS,
    cable_type,
    interface_type,
    slug,
)
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ExportFormat, Option
from fabricstudio.model import Design, Device, DeviceKind, Plane
from fabricstudio.model.cabling import cable_for
from fabricstudio.model.devices import SWITCH_TYPES, GpuServer
from fabricstudio.model.text import printable
from fabricstudio.topology.racks import RACK_UNITS, device_height, rack_plan

#: Fields that make two devices the same hardware (everything but identity and placement).
_PLACEMENT = ("id", "name", "x", "y", "planes")
COMMENT_TAG = "fabricstudio"

README = """NetBox import set exported by FabricStudio: {name}

Import in this order (each page's Import button; CSV unless said):
  1. manufacturers.csv      Devices > Manufacturers
  2. device_roles.csv       Devices > Device Roles
  3. device_types.yaml      Devices > Device Types (YAML: creates the interface templates)
     or device_types.csv    (CSV: device types without templates; then step 7 adds them)
  4. sites.csv              Organization > Sites
  5. racks.csv              Racks > Racks
  6. devices.csv            Devices > Devices (rack and position set)
  7. interfaces.csv         Devices > Interfaces (only after device_types.csv; the YAML
                            templates already created them)
  8. cables.csv             Connections > Cables (status planned, type, length in m)
"""


def _table(columns: Sequence[str], rows: Iterable[dict]) -> str:
    """CSV text; text cells without control characters and formula-safe (a name such as
    ``=HYPERLINK(...)`` gets a leading apostrophe, which the importer removes again)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n",
                            extrasaction="raise")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: object) -> object:
    if value is None:
        return ""
    return spreadsheet_safe(printable(value)) if isinstance(value, str) else value


def _hardware(device: Device) -> tuple:
    data = device.model_dump(mode="json")
    return tuple(sorted((k, str(v)) for k, v in data.items() if k not in _PLACEMENT))


def _model_name(device: Device) -> str:
    role = ROLE_NAMES[DeviceKind(device.kind)]
    if isinstance(device, SWITCH_TYPES):
        return f"{role} {device.radix}x{device.port_speed_gbps:g}G"
    text = f"{role} "
    if isinstance(device, GpuServer):
        text += f"{device.gpus} GPU "
    parts = []
    if device.nics:
        parts.append(f"{device.nics}x{device.nic_speed_gbps:g}G")
    if device.storage_nics:
        parts.append(f"{device.storage_nics}x{device.storage_nic_speed_gbps:g}G storage")
    if device.mgmt_ports:
        parts.append(f"{device.mgmt_ports}x{device.mgmt_speed_gbps:g}G mgmt")
    return text + " + ".join(parts)


def device_types(design: Design) -> tuple[dict[tuple, str], dict[str, Device]]:
    """A model name per distinct hardware, and one example device per model."""
    names: dict[tuple, str] = {}
    examples: dict[str, Device] = {}
    for device in design.devices.values():
        key = _hardware(device)
        if key in names:
            continue
        base = _model_name(device)
        name, n = base, 2
        while name in examples:
            name = f"{base} ({n})"
            n += 1
        names[key] = name
        examples[name] = device
    return names, examples


def _interfaces(design: Design, device: Device) -> list[dict]:
    rows = []
    for port in range(device.port_count()):
        plane = device.port_plane(port) or (device.planes[0] if device.planes else Plane.COMPUTE)
        speed = device.speed_of_port(port)
        rows.append({"name": interface_name(device, port),
                     "type": interface_type(speed, plane, design.fabric.technology),
                     "speed": int(round(speed * 1_000_000)),
                     "mgmt_only": "true" if plane is Plane.MANAGEMENT and not device.is_switch
                     else "false",
                     "description": plane.value})
    return rows


def _hardware_comment(device: Device) -> str:
    data = {k: v for k, v in device.model_dump(mode="json").items()
            if k not in _PLACEMENT and v is not None}
    return f"{COMMENT_TAG} {json.dumps(data, sort_keys=True)}"


def _placement_comment(device: Device) -> str:
    data = {"x": device.x, "y": device.y, "planes": [p.value for p in device.planes],
            "kind": device.kind}
    if device.name:
        data["name"] = device.name
    return f"{COMMENT_TAG} {json.dumps(data, sort_keys=True)}"


def export(design: Design, options: Options) -> Bundle:
    """The CSV set (and device types as YAML)."""
    site = options.get("site") or design.name or "FabricStudio"
    model_of, examples = device_types(design)
    plan = rack_plan(design)
    bundle = Bundle()
    bundle.add_text("README.txt", README.format(name=design.name))
    bundle.add_text("manufacturers.csv", _table(COLUMNS["manufacturers.csv"], [
        {"name": MANUFACTURER, "slug": slug(MANUFACTURER),
         "description": "Placeholder: FabricStudio designs do not name vendors"}]))
    kinds = list(dict.fromkeys(DeviceKind(d.kind) for d in design.devices.values()))
    bundle.add_text("device_roles.csv", _table(COLUMNS["device_roles.csv"], [
        {"name": ROLE_NAMES[k], "slug": slug(ROLE_NAMES[k]), "color": KIND_COLOURS[k].lower(),
         "description": f"FabricStudio kind {k.value}"} for k in kinds]))
    type_rows, yaml_docs = [], []
    for model, example in examples.items():
        row = {"manufacturer": MANUFACTURER, "model": model, "slug": slug(model),
               "part_number": "", "u_height": device_height(example),
               "is_full_depth": "true", "description": ROLE_NAMES[DeviceKind(example.kind)],
               "comments": _hardware_comment(example)}
        type_rows.append(row)
        doc = {k: row[k] for k in ("manufacturer", "model", "slug", "u_height", "comments")}
        doc["is_full_depth"] = True
        doc["interfaces"] = [{"name": i["name"], "type": i["type"],
                              "mgmt_only": i["mgmt_only"] == "true"}
                             for i in _interfaces(design, example)]
        yaml_docs.append(doc)
    bundle.add_text("device_types.csv", _table(COLUMNS["device_types.csv"], type_rows))
    bundle.add_text("device_types.yaml", yaml.safe_dump_all(yaml_docs, sort_keys=False))
    bundle.add_text("sites.csv", _table(COLUMNS["sites.csv"], [
        {"name": site, "slug": slug(site), "status": STATUS,
         "description": design.description[:200],
         "comments": f"{COMMENT_TAG} " + json.dumps(
             {"name": design.name, "description": design.description,
              "fabric": design.fabric.model_dump(mode="json"),
              "groups": [g.model_dump(mode="json") for g in design.groups.values()]},
             sort_keys=True)}]))
    bundle.add_text("racks.csv", _table(COLUMNS["racks.csv"], [
        {"site": site, "name": rack, "status": STATUS, "width": 19,
         "u_height": plan.heights.get(rack, RACK_UNITS)} for rack in plan.racks]))
    device_rows, interface_rows = [], []
    for device in design.devices.values():
        slot = plan.slots[device.id]
        device_rows.append({
            "name": device.id, "role": ROLE_NAMES[DeviceKind(device.kind)],
            "manufacturer": MANUFACTURER, "device_type": model_of[_hardware(device)],
            "status": STATUS, "site": site, "rack": slot.rack, "position": slot.position,
            "face": "front", "description": device.label,
            "comments": _placement_comment(device)})
        for row in _interfaces(design, device):
            interface_rows.append({"device": device.id, "enabled": "true", **row})
    bundle.add_text("devices.csv", _table(COLUMNS["devices.csv"], device_rows))
    bundle.add_text("interfaces.csv", _table(COLUMNS["interfaces.csv"], interface_rows))
    bundle.add_text("cables.csv", _table(COLUMNS["cables.csv"], [
        {"side_a_device": link.a, "side_a_type": INTERFACE_TERMINATION,
         "side_a_name": interface_name(design.devices[link.a], link.a_port or 0),
         "side_b_device": link.b, "side_b_type": INTERFACE_TERMINATION,
         "side_b_name": interface_name(design.devices[link.b], link.b_port or 0),
         "type": cable_type(cable_for(design, link).media), "status": STATUS,
         "label": link.id, "length": f"{link.length_m:g}", "length_unit": "m",
         "description": f"{link.plane.value} {link.speed_gbps:g}G"}
        for link in design.links.values()]))
    bundle.notes.append(f"{len(plan.racks)} racks derived from the wiring (one per "
                        "management switch or top-of-rack leaf; network racks for the rest)")
    return bundle


FORMAT = ExportFormat(
    name="netbox",
    summary="NetBox import CSVs (folder or .zip): device types, site, racks, devices, "
            "interfaces, planned cables",
    suffixes=(".zip",),
    export=export,
    options=(Option("site", "NetBox site name (default: the design's name)"),),
    multi_file=True,
)
