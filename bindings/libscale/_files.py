"""Files in and out of the Python layer: writing so that no reader ever sees half a file,
and never over something that is not a regular file (the HTML report, the watcher's
metrics file); reading a small JSON file bounded, from a regular file only (price files,
the sources the report quotes)."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from typing import Any

__all__ = ["check_target", "read_json", "write_atomic"]


def read_json(path: str, *, max_bytes: int, expected: str) -> Any:
    """A small JSON document: a regular file only (a FIFO or device is refused without being
    opened for a blocking read), at most max_bytes, UTF-8, no NaN / Infinity. ValueError
    naming the path and what was expected; FileNotFoundError when there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path}: not a regular file; expected {expected}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{path}: larger than {max_bytes:,} bytes; expected {expected}")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte offset {e.start})") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}: malformed JSON ({e.msg}, column {e.colno})") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply") from None
    except ValueError as e:  # NaN / Infinity, refused by _no_constant
        raise ValueError(f"{path}: {e}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def check_target(path: str | os.PathLike[str], what: str = "the file") -> str:
    """The file to write for ``path``: path itself, or the regular file a symbolic link
    points to (the link is kept). ValueError for an empty path, a directory, a FIFO, a
    device, a socket or a link to one (or to nothing)."""
    target = os.fspath(path)
    if not target:
        raise ValueError(f"the path of {what} is empty; give a file name")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(target)
        except FileNotFoundError:
            raise ValueError(f"{target}: is a symbolic link to nothing; refusing to write {what} through it") \
                from None
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{target}: is a symbolic link to something that is not a regular file; refusing to "
                             f"replace it with {what}")
        return os.path.realpath(target)
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ValueError(f"{target}: is {kind}; refusing to replace it with {what}")
    return target


def write_atomic(path: str | os.PathLike[str], data: bytes, *, what: str = "the file", mode: int | None = None,
                 sync: bool = True) -> None:
    """data written to path all at once: a temporary file in the same directory, then renamed
    over path, so a reader never sees half a file, and no temporary file is left behind on
    failure. A link to a regular file is written through (the link stays). mode: of a new
    file (an existing one keeps its own; default 0644). sync: flush to disk before and after
    the rename, so the file survives a crash (a file rewritten every second, such as the
    watcher's metrics, does without)."""
    target = check_target(path, what)
    directory = os.path.dirname(os.path.abspath(target))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o644 if mode is None else mode  # mkstemp's 0600 would hide a file meant to be read
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if sync:
        _sync_directory(directory)


def _sync_directory(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)  # the rename itself survives a crash
    except OSError:
        pass
    finally:
        os.close(dfd)
