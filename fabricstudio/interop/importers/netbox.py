"""NetBox CSV set import (a folder, a .zip, or any CSV file of the set): devices.csv and
cables.csv in NetBox's bulk-import columns, with interfaces.csv (speeds, networks) and
device_types.csv (hardware) when present.  Headers are matched without regard to case or
spaces, so NetBox's own CSV exports ("Device Type", "Role") read too."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from fabricstudio.formats.csv_safe import from_spreadsheet_safe
from fabricstudio.interop.imported import ImportedLink, ImportedNode, ImportedTopology
from fabricstudio.interop.importers._common import read_file
from fabricstudio.interop.naming import safe_name
from fabricstudio.interop.netbox_schema import LENGTH_UNITS, speed_of_type
from fabricstudio.interop.options import Options
from fabricstudio.interop.registry import ImportFormat, InteropError
from fabricstudio.interop.safety import MAX_IMPORT_BYTES, decode
from fabricstudio.model.groups import MAX_RACK_U, STANDARD_RACK_U

FILES = ("devices.csv", "cables.csv", "interfaces.csv", "device_types.csv", "sites.csv",
         "racks.csv")
MAX_ZIP_ENTRIES = 1000
MAX_ROWS = 2_000_000
COMMENT_TAG = "fabricstudio "
ALIASES = {"type": "device_type", "device_role": "role", "termination_a_device":
           "side_a_device", "termination_b_device": "side_b_device"}


def _tables(path: Path) -> dict[str, bytes]:
    """The CSV files of the set by name."""
    if path.is_dir():
        folder = path
    elif path.suffix.lower() == ".zip":
        return _zip_tables(path)
    else:
        folder = path.parent
    out = {}
    for name in FILES:
        candidate = folder / name
        if candidate.is_file():
            out[name] = read_file(candidate)
    return out


def _zip_tables(path: Path) -> dict[str, bytes]:
    data = read_file(path)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InteropError(f"{path}: not a readable zip file ({exc})") from None
    if len(entries) > MAX_ZIP_ENTRIES:
        raise InteropError(f"{path}: more than {MAX_ZIP_ENTRIES} files in the zip")
    wanted = [e for e in entries if not e.is_dir() and Path(e.filename).name in FILES]
    total = sum(e.file_size for e in wanted)
    if total > MAX_IMPORT_BYTES:
        raise InteropError(f"{path}: the CSV files unpack to {total / 2**20:.1f} MiB (the "
                           f"limit is {MAX_IMPORT_BYTES / 2**20:.0f} MiB)")
    out: dict[str, bytes] = {}
    budget = MAX_IMPORT_BYTES
    for entry in wanted:
        try:
            with archive.open(entry) as handle:
                content = handle.read(budget + 1)
        except (zipfile.BadZipFile, OSError, RuntimeError, ValueError) as exc:
            raise InteropError(f"{path}: cannot unpack {entry.filename}: {exc}") from None
        budget -= len(content)
        if budget < 0:
            raise InteropError(f"{path}: the CSV files unpack to more than "
                               f"{MAX_IMPORT_BYTES / 2**20:.0f} MiB")
        out.setdefault(Path(entry.filename).name, content)
    return out


def _rows(data: bytes, name: str, source: str) -> list[dict[str, str]]:
    text = decode(data, f"{source}/{name}")
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
        keys = [ALIASES.get(_key(h), _key(h)) for h in header]
        rows = []
        for number, raw in enumerate(reader, start=2):
            if number > MAX_ROWS:
                raise InteropError(f"{source}/{name}: more than {MAX_ROWS:,} rows")
            if None in raw:
                raise InteropError(f"{source}/{name} line {number}: more cells than headers")
            rows.append({k: from_spreadsheet_safe((raw.get(h) or "").strip())
                         for k, h in zip(keys, header, strict=True)})
    except csv.Error as exc:
        raise InteropError(f"{source}/{name}: not valid CSV ({exc})") from None
    return rows


def _key(header: str) -> str:
    return header.strip().lower().replace(" ", "_").replace("-", "_")


def _comment(text: str, where: str) -> dict[str, Any]:
    if not text.startswith(COMMENT_TAG):
        return {}
    try:
        value = json.loads(text[len(COMMENT_TAG):])
    except (ValueError, RecursionError):
        raise InteropError(f"{where}: comments: FabricStudio data is not valid JSON") from None
    return value if isinstance(value, dict) else {}


def read(path: Path, options: Options) -> ImportedTopology:
    """The topology of a NetBox CSV set."""
    source = str(path)
    tables = _tables(path)
    if "devices.csv" not in tables:
        raise InteropError(f"{source}: no devices.csv (a NetBox set needs devices.csv and "
                           "cables.csv)")
    types = {}
    for row in _rows(tables.get("device_types.csv", b"model\n"), "device_types.csv", source):
        types[row.get("model", "")] = _comment(row.get("comments", ""),
                                               f"{source}/device_types.csv {row.get('model')}")
    topo = ImportedTopology(source=source)
    for row in _rows(tables.get("sites.csv", b"name\n"), "sites.csv", source)[:1]:
        site = _comment(row.get("comments", ""), f"{source}/sites.csv {row.get('name')}")
        topo.name = str(site.get("name") or row.get("name") or "")
        topo.attrs["description"] = site.get("description") or row.get("description", "")
        if isinstance(site.get("fabric"), dict):
            topo.attrs["fabric"] = json.dumps(site["fabric"])
        if isinstance(site.get("groups"), list):
            topo.attrs["groups"] = site["groups"]
    for number, row in enumerate(_rows(tables["devices.csv"], "devices.csv", source), start=2):
        name = row.get("name", "")
        if not name:
            raise InteropError(f"{source}/devices.csv line {number}: a device has no name")
        where = f"{source}/devices.csv {name}"
        attrs: dict[str, Any] = dict(types.get(row.get("device_type", ""), {}))
        attrs.update(_comment(row.get("comments", ""), where))
        if isinstance(attrs.get("planes"), list):
            attrs["planes"] = ",".join(str(p) for p in attrs["planes"])
        hints = [(f"its {key}", row[key]) for key in ("role", "device_type") if row.get(key)]
        topo.add_node(ImportedNode(id=name, attrs=attrs, hints=hints,
                                   x=_float(attrs.get("x")), y=_float(attrs.get("y"))))
        if not topo.name and row.get("site"):
            topo.name = row["site"]
    if "groups" not in topo.attrs:
        _rack_groups(topo, tables, source)
    interfaces = {}
    for row in _rows(tables.get("interfaces.csv", b"device,name\n"), "interfaces.csv", source):
        interfaces[(row.get("device", ""), row.get("name", ""))] = row
    for number, row in enumerate(_rows(tables.get("cables.csv", b"side_a_device\n"),
                                       "cables.csv", source), start=2):
        topo.add_link(_cable(row, number, interfaces, source))
    if "cables.csv" not in tables:
        topo.notes.append("no cables.csv: devices imported without links")
    return topo


def _rack_groups(topo: ImportedTopology, tables: dict[str, bytes], source: str) -> None:
    """Rack groups from the devices' rack and position columns (heights from racks.csv)."""
    heights: dict[str, int] = {}
    for row in _rows(tables.get("racks.csv", b"name\n"), "racks.csv", source):
        height = _float(row.get("u_height"))
        if row.get("name") and height and 1 <= height <= MAX_RACK_U:
            heights[row["name"]] = int(height)
    racks: dict[str, list[tuple[str, float | None]]] = {}
    for row in _rows(tables["devices.csv"], "devices.csv", source):
        if row.get("rack") and row.get("name") in topo.nodes:
            racks.setdefault(row["rack"], []).append((row["name"], _float(row.get("position"))))
    if not racks:
        return
    used = set(topo.nodes)
    groups = []
    for rack, members in racks.items():
        ident = safe_name(rack)
        while ident in used:
            ident = f"rack-{ident}"
        used.add(ident)
        height = heights.get(rack)
        top = height or STANDARD_RACK_U
        positions = {device: int(u) for device, u in members
                     if u is not None and u == int(u) and 1 <= u <= top}
        groups.append({"id": ident, "kind": "rack", "name": rack if ident != rack else "",
                       "members": [device for device, _ in members], "height_u": height,
                       "u_positions": positions})
    topo.attrs["groups"] = groups
    topo.notes.append(f"{len(groups)} rack(s) from the devices' rack and position columns")


def _cable(row: dict[str, str], number: int, interfaces: dict, source: str) -> ImportedLink:
    where = f"{source}/cables.csv line {number}"
    ends = []
    for side in ("a", "b"):
        device, name = row.get(f"side_{side}_device", ""), row.get(f"side_{side}_name", "")
        kind = row.get(f"side_{side}_type", "dcim.interface") or "dcim.interface"
        if not device or not name:
            raise InteropError(f"{where}: side {side.upper()} needs a device and an interface")
        if kind != "dcim.interface":
            raise InteropError(f"{where}: side {side.upper()} ends on a {kind}, not an "
                               "interface")
        ends.append((device, name))
    attrs: dict[str, Any] = {}
    speeds, planes = [], []
    for device, name in ends:
        info = interfaces.get((device, name), {})
        speed = _float(info.get("speed"))
        if speed:
            speeds.append(speed / 1_000_000)
        elif (typed := speed_of_type(info.get("type", ""))) is not None:
            speeds.append(typed)
        if info.get("mgmt_only", "").lower() == "true":
            planes.append("management")
        elif info.get("description", "").lower() in ("compute", "storage", "management"):
            planes.append(info["description"].lower())
    if speeds:
        attrs["speed_gbps"] = min(speeds)
    if planes:
        attrs["plane"] = planes[0]
    length = _float(row.get("length"))
    if length is not None:
        unit = (row.get("length_unit") or "m").lower()
        if unit not in LENGTH_UNITS:
            raise InteropError(f"{where}: unknown length unit {unit!r}")
        attrs["length_m"] = length * LENGTH_UNITS[unit]
    (a, a_if), (b, b_if) = ends
    return ImportedLink(a=a, b=b, id=row.get("label") or None, a_interface=a_if,
                        b_interface=b_if, attrs=attrs)


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) < 1e12 else None


def sniff(path: Path) -> bool:
    """A folder or zip holding devices.csv, or one CSV file of such a set."""
    if path.is_dir():
        return (path / "devices.csv").is_file()
    if path.suffix.lower() == ".zip":
        return True
    return path.suffix.lower() == ".csv" and (path.parent / "devices.csv").is_file()


FORMAT = ImportFormat(
    name="netbox",
    summary="NetBox CSV set (folder or .zip: devices.csv, cables.csv, interfaces.csv, "
            "device_types.csv)",
    suffixes=(".zip", ".csv"),
    read=read,
    sniff=sniff,
)
