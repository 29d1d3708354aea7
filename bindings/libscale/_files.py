"""Writing a file so that no reader ever sees half of it, and never over something that is
not a regular file: what every file libscale writes goes through (the HTML report, the
watcher's metrics file)."""

from __future__ import annotations

import os
import stat
import tempfile

__all__ = ["check_target", "write_atomic"]


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
