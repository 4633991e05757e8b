"""THE way FabricStudio writes a file: :func:`write_output` (every writer goes through it).

What it guarantees, whatever the output path points at:

* a regular file (or a new name) is replaced atomically: the data goes to a temporary file in
  the same folder (named ``.<name>.<pid>-<random>.fabricstudio-tmp``), is flushed to disk and
  renamed over the target, so a crash or a full disk never leaves a truncated file; the
  target's permission bits (and owner, where allowed) are kept, a new file gets the usual
  ``0666 & ~umask`` (the kernel applies the umask; the process umask is never touched);
* a symbolic link is followed: the real file is updated, the link stays a link;
* a file with several hard links is updated in place (the data is first written completely
  to a temporary file, so a full disk fails before the target is touched), so every link
  sees the new contents, as editors do;
* an existing character device or FIFO (``/dev/null``, a terminal, a named pipe) is
  written into directly (a FIFO without a reader is refused instead of blocking); block
  devices, sockets and folders are refused;
* ``/dev/stdout``, ``/dev/stderr`` and ``/dev/fd/N`` (``/proc/self/fd/N``) write into the
  process's own open descriptor, whatever it is (a pipe, a terminal, a file opened by the
  shell with ``>`` or ``>>``), at its position and in its mode, as other tools do;
* an output that is one of the run's input files (same device and inode, whatever the
  spelling, through links too) is refused unless ``force`` is given;
* the temporary file is removed on any failure (including Ctrl+C), and temporary files left
  by crashed runs for the same target (their process is gone, or they are a day old) are
  removed before writing.

Failures raise :class:`OutputError`, whose ``str()`` is one line naming the path and the
problem.  :func:`check_output` runs the same checks without writing, so a command can refuse a
bad output path before a long computation.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

#: Suffix of the temporary files (recognisable, so stale ones can be found and removed).
TEMP_SUFFIX = ".fabricstudio-tmp"
#: A temporary file older than this is stale even when its process id is in use again.
STALE_AFTER_S = 24 * 3600.0
#: Longest part of the target's name kept in a temporary file's name (names are <= 255 bytes).
_NAME_KEEP = 120
_CHUNK = 1 << 20
#: Names of the standard descriptors, and the paths that name any open descriptor.
_STD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_FD_PATH = re.compile(r"/(?:dev/fd|proc/(self|thread-self|\d+)/fd)/(\d+)")

PathLike = str | os.PathLike[str]
#: What can be written: bytes, text (UTF-8), or a function that writes bytes to a binary file.
Payload = bytes | bytearray | memoryview | str | Callable[[BinaryIO], None]


class OutputError(ValueError):
    """An output file could not (or must not) be written; ``str()`` is the user message."""

    def __init__(self, path: PathLike, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def write_output(path: PathLike, data: Payload, *, inputs: Iterable[PathLike] = (),
                 force: bool = False) -> Path:
    """Write ``data`` to ``path`` safely (see the module docstring); returns the path written
    (the real file behind a symbolic link).  ``inputs`` are the files the output was made
    from; writing over one of them needs ``force``."""
    fd = inherited_fd(path)
    if fd is not None:
        _check_inherited(path, fd, inputs, force)
        _write_inherited(path, fd, data)
        return Path(os.fspath(path))
    real, info = _prepare(path, inputs, force)
    if info is not None and not stat.S_ISREG(info.st_mode):
        _write_special(path, real, info, data)
    elif info is not None and info.st_nlink > 1:
        _write_in_place(path, real, info, data)
    else:
        _write_atomic(path, real, info, data)
    return real


def check_output(path: PathLike, *, inputs: Iterable[PathLike] = (), force: bool = False) -> Path:
    """Refuse an output path :func:`write_output` would refuse, without writing anything;
    returns the real path.  Call it before long work so a bad path fails at once."""
    fd = inherited_fd(path)
    if fd is not None:
        _check_inherited(path, fd, inputs, force)
        return Path(os.fspath(path))
    real, info = _prepare(path, inputs, force)
    if info is not None and stat.S_ISFIFO(info.st_mode):
        _open_fifo(path, real).close()  # refuses a FIFO nobody reads
    return real


def inherited_fd(path: PathLike) -> int | None:
    """The descriptor number ``path`` names when it is ``/dev/stdout``, ``/dev/stderr``,
    ``/dev/stdin``, ``/dev/fd/N`` or ``/proc/self/fd/N`` (also with this process's id);
    None for any other path."""
    text = os.fspath(path)
    if not text.startswith("/"):
        return None
    text = os.path.normpath(text)
    if text in _STD_NAMES:
        return _STD_NAMES[text]
    match = _FD_PATH.fullmatch(text)
    if match is None or match.group(1) not in (None, "self", "thread-self", str(os.getpid())):
        return None
    return int(match.group(2))


def distinct_outputs(named: Iterable[tuple[str, PathLike]]) -> None:
    """OutputError when two outputs of one command are the same file (same spelling after
    following links, or the same existing file): the second would silently replace the
    first.  ``named`` pairs an option (``--json``) with its path."""
    seen: list[tuple[str, PathLike, str, tuple[int, int] | None]] = []
    for option, path in named:
        text = os.fspath(path)
        if not text or text == "-":
            continue
        fd = inherited_fd(text)
        real = f"fd:{fd}" if fd is not None else os.path.realpath(text)
        try:
            info = os.stat(text)
            inode: tuple[int, int] | None = (info.st_dev, info.st_ino)
            if not stat.S_ISREG(info.st_mode):
                inode = None  # /dev/null may take several outputs
                real = ""
        except OSError:
            inode = None
        for other_option, other_path, other_real, other_inode in seen:
            if (real and real == other_real) or (inode is not None and inode == other_inode):
                raise OutputError(path, f"is named by both {other_option} and {option} "
                                        f"({os.fspath(other_path)}); the second would replace "
                                        "the first: give each output its own file")
        seen.append((option, path, real, inode))


def temp_files_for(path: PathLike) -> list[Path]:
    """Temporary files of :func:`write_output` for ``path`` that exist now (any process)."""
    real = Path(os.path.realpath(path))
    folder = real.parent
    pattern = re.compile(re.escape(f".{real.name[:_NAME_KEEP]}.") + r"(\d+)-[0-9a-f]{8}"
                         + re.escape(TEMP_SUFFIX) + "$")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [folder / n for n in sorted(names) if pattern.match(n)]


def remove_stale_temp_files(path: PathLike) -> list[Path]:
    """Remove temporary files left for ``path`` by runs that crashed; returns those removed."""
    removed = []
    now = time.time()
    for temp in temp_files_for(path):
        pid = _temp_pid(temp)
        try:
            age = now - temp.lstat().st_mtime
        except OSError:
            continue
        if pid == os.getpid() and age < STALE_AFTER_S:
            continue
        if pid is not None and _alive(pid) and age < STALE_AFTER_S:
            continue
        try:
            temp.unlink()
            removed.append(temp)
        except OSError:
            pass
    return removed


# ------------------------------------------------------------------------ checks
def _prepare(path: PathLike, inputs: Iterable[PathLike], force: bool
             ) -> tuple[Path, os.stat_result | None]:
    text = os.fspath(path)
    if not text:
        raise OutputError(path, "no file name given")
    real = Path(os.path.realpath(text))
    try:
        info: os.stat_result | None = os.stat(real)
    except FileNotFoundError:
        info = _magic_link(text)
        if info is not None:  # /proc/PID/fd/N of a pipe: realpath gives 'pipe:[123]'
            real = Path(text)
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None
    if info is None:
        folder = real.parent
        if not folder.is_dir():
            what = "does not exist" if not folder.exists() else "is not a folder"
            raise OutputError(path, f"cannot write: the folder {folder} {what}")
    else:
        _refuse_kind(path, info)
        if not force:
            _refuse_inputs(path, info, inputs)
    return real, info


def _magic_link(text: str) -> os.stat_result | None:
    """The status of a special file reached through a link ``realpath`` cannot spell (a
    ``/proc`` descriptor link of a pipe or socket); None otherwise."""
    try:
        info = os.stat(text)
    except OSError:
        return None
    return None if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode) else info


def _check_inherited(path: PathLike, fd: int, inputs: Iterable[PathLike], force: bool) -> None:
    try:
        info = os.fstat(fd)
    except OSError:
        raise OutputError(path, f"file descriptor {fd} is not open") from None
    _refuse_kind(path, info)
    if not force:
        _refuse_inputs(path, info, inputs)


def _refuse_kind(path: PathLike, info: os.stat_result) -> None:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise OutputError(path, "is a folder; give a file name")
    if stat.S_ISBLK(mode):
        raise OutputError(path, "is a block device (a disk); refusing to write into it")
    if stat.S_ISSOCK(mode):
        raise OutputError(path, "is a socket, not a file")


def _refuse_inputs(path: PathLike, info: os.stat_result, inputs: Iterable[PathLike]) -> None:
    if not stat.S_ISREG(info.st_mode):
        return
    for source in inputs:
        if source is None or os.fspath(source) in ("", "-"):
            continue
        try:
            other = os.stat(source)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            raise OutputError(path, f"is the input file {os.fspath(source)} (the same file); "
                                    "writing would replace it: choose another output file or "
                                    "add --force")


# ----------------------------------------------------------------------- writing
def _write_atomic(path: PathLike, real: Path, info: os.stat_result | None,
                  data: Payload) -> None:
    remove_stale_temp_files(real)
    fd, temp = _create_temp(path, real, existing=info)
    try:
        with os.fdopen(fd, "wb") as handle:
            _emit(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, real)
    except BaseException as exc:
        _discard(temp)
        if isinstance(exc, OSError):
            raise OutputError(path, _reason(exc)) from None
        raise
    _sync_folder(real.parent)


def _write_in_place(path: PathLike, real: Path, info: os.stat_result, data: Payload) -> None:
    """Update a hard-linked file in place (all links see the new data)."""
    remove_stale_temp_files(real)
    fd, temp = _create_temp(path, real, existing=info)
    try:
        with os.fdopen(fd, "w+b") as staged:
            _emit(staged, data)
            staged.flush()
            os.fsync(staged.fileno())
            staged.seek(0)
            with open(real, "r+b") as target:
                while chunk := staged.read(_CHUNK):
                    target.write(chunk)
                target.truncate()
                target.flush()
                os.fsync(target.fileno())
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None
    finally:
        _discard(temp)


def _write_inherited(path: PathLike, fd: int, data: Payload) -> None:
    """Write into this process's open descriptor ``fd`` (a duplicate, so closing it leaves
    ``fd`` open); the descriptor's position and mode (append) are the shell's."""
    try:
        with open(os.dup(fd), "wb", closefd=True) as handle:
            _emit(handle, data)
            handle.flush()
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None


def _write_special(path: PathLike, real: Path, info: os.stat_result, data: Payload) -> None:
    """Write straight into a character device or FIFO (never replace it by a file)."""
    try:
        if stat.S_ISFIFO(info.st_mode):
            handle = _open_fifo(path, real)
        else:
            handle = open(os.open(real, os.O_WRONLY | os.O_NOCTTY), "wb", closefd=True)
        with handle:
            _emit(handle, data)
            handle.flush()
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None


def _open_fifo(path: PathLike, real: Path) -> BinaryIO:
    try:
        fd = os.open(real, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(path, "is a FIFO (named pipe) that nobody reads; start the "
                                    "reader first") from None
        raise OutputError(path, _reason(exc)) from None
    os.set_blocking(fd, True)
    return open(fd, "wb", closefd=True)


def _emit(handle: BinaryIO, data: Payload) -> None:
    if isinstance(data, str):
        handle.write(data.encode("utf-8"))
    elif isinstance(data, (bytes, bytearray, memoryview)):
        handle.write(data)
    else:
        data(handle)


def _create_temp(path: PathLike, real: Path, existing: os.stat_result | None
                 ) -> tuple[int, Path]:
    """A new temporary file beside ``real``: the target's mode when it exists, else the
    kernel's default for new files (0666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    if existing is not None:
        flags = (flags & ~os.O_WRONLY) | os.O_RDWR
    for _attempt in range(16):
        temp = real.parent / (f".{real.name[:_NAME_KEEP]}.{os.getpid()}-"
                              f"{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            fd = os.open(temp, flags, 0o600 if existing is not None else 0o666)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(path, _reason(exc)) from None
    else:  # pragma: no cover - 16 random collisions
        raise OutputError(path, "cannot create a temporary file")
    if existing is not None:
        try:
            os.fchmod(fd, stat.S_IMODE(existing.st_mode) & 0o777)
            if (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
                os.fchown(fd, existing.st_uid, existing.st_gid)
        except OSError:
            pass  # keeping the owner needs privileges; the mode is what matters
    return fd, temp


def _discard(temp: Path) -> None:
    try:
        temp.unlink()
    except OSError:
        pass


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_pid(temp: Path) -> int | None:
    match = re.search(r"\.(\d+)-[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$", temp.name)
    return int(match.group(1)) if match else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _reason(exc: OSError) -> str:
    return f"cannot write: {exc.strerror or exc}"
