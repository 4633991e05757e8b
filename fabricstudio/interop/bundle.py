"""What an exporter produces (named files and notes for the user) and how it is written:
one file, one file of several picked by its suffix, a folder, or a zip."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fabricstudio.formats.output import OutputError, PathLike, check_output, write_output
from fabricstudio.interop.registry import InteropError

#: Fixed time stamp of zip entries, so the same design gives the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


@dataclass
class Bundle:
    """Files by relative name (in writing order) and notes about what was left out or
    changed on the way."""

    files: dict[str, bytes] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add_text(self, name: str, text: str) -> None:
        """Add a UTF-8 text file."""
        self.files[name] = text.encode("utf-8")


def write_bundle(bundle: Bundle, target: str | Path, fmt: str = "", *,
                 inputs: Iterable[PathLike] = (), force: bool = False) -> list[Path]:
    """Write ``bundle`` to ``target``; returns the paths written.

    One file goes to ``target`` (or into it when it is a folder).  Several files go into the
    folder ``target`` (created when missing), into a zip when ``target`` ends in ``.zip``, or,
    when ``target``'s suffix names exactly one of them (``.dot``), that one file alone.
    Every file goes through :func:`~fabricstudio.formats.output.write_output` (atomic, never
    over one of ``inputs`` unless ``force``).
    """
    inputs = tuple(inputs)

    def write(path: Path, data: bytes) -> None:
        write_output(path, data, inputs=inputs, force=force)

    target = Path(target)
    names = list(bundle.files)
    if not names:
        raise InteropError(f"{fmt or 'export'}: nothing to write")
    try:
        if len(names) == 1:
            path = target / names[0] if target.is_dir() else target
            write(path, bundle.files[names[0]])
            return [path]
        if target.suffix.lower() == ".zip":
            write(target, _zip(bundle))
            return [target]
        matching = [n for n in names if target.suffix and n.endswith(target.suffix)]
        if len(matching) == 1 and not target.is_dir():
            write(target, bundle.files[matching[0]])
            return [target]
        if target.suffix and not target.is_dir():
            kinds = ", ".join(sorted({Path(n).suffix for n in names}))
            raise InteropError(f"{target}: {fmt} writes several files ({kinds}): give a folder, "
                               "a .zip, or a file name ending in one of those suffixes")
        if target.is_dir():  # refuse a bad file inside before writing any (no half sets)
            for name in names:
                if (target / name).parent.is_dir():
                    check_output(target / name, inputs=inputs, force=force)
        elif not target.exists():
            if not target.parent.is_dir():
                raise InteropError(f"{target}: folder {target.parent} does not exist")
            target.mkdir()
        written = []
        for name in names:
            path = target / name
            path.parent.mkdir(parents=True, exist_ok=True)
            write(path, bundle.files[name])
            written.append(path)
        return written
    except OutputError as exc:
        raise InteropError(str(exc)) from None
    except OSError as exc:
        raise InteropError(f"{target}: cannot write: {exc.strerror or exc}") from None


def _zip(bundle: Bundle) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in bundle.files.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()
