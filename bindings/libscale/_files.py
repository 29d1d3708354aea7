"""Files in and out of the Python layer: writing so that no reader ever sees half a file,
and never over something that is not a regular file (the HTML report, the watcher's
metrics file); reading a small JSON file bounded, from a regular file only (price files,
the sources the report quotes)."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import secrets
import signal
import stat
import tempfile
from collections.abc import Iterator
from typing import Any, BinaryIO

__all__ = ["check_distinct", "check_target", "loads_json", "open_input", "read_bytes", "read_json", "write_atomic"]

#: Bytes read at a time by read_bytes: memory follows the file, never the limit.
_READ_CHUNK = 1 << 20


def check_distinct(paths: list[str], what: str) -> None:
    """ValueError when two of ``paths`` name the same file (a file given twice, under the
    same or another name, would count its records twice). Paths that do not exist are left
    to the reader."""
    seen: dict[tuple[int, int], str] = {}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            same = "twice" if seen[key] == p else f"twice ({seen[key]} and {p} are the same file)"
            raise ValueError(f"{p}: {what} given {same}; each is read once")
        seen[key] = p


def open_input(path: str | os.PathLike[str], expected: str) -> BinaryIO:
    """A file a user named, open for reading in binary: a regular file only. It is opened
    without blocking, so a FIFO with no writer is refused rather than waited on (open(2));
    a directory, device or socket is refused by name. FileNotFoundError when there is none;
    ValueError (naming the path and what was expected) otherwise. The core's counterpart is
    libscale/io/input_file.hpp."""
    name = os.fspath(path)
    if not name:
        raise ValueError(f"the path is empty; expected {expected}")
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file") from None
    except OSError as e:  # a link loop, permission denied, a path through a non-directory
        raise ValueError(f"{name}: {e.strerror}; expected {expected}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise ValueError(f"{name}: is {kind}; expected {expected}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bytes(path: str | os.PathLike[str], *, max_bytes: int, expected: str) -> bytes:
    """The whole of a regular file (open_input's rules), at most max_bytes (ValueError past it)."""
    # Read in chunks: f.read(max_bytes + 1) allocates max_bytes up front, which fails under an
    # address-space limit (batch schedulers set them) however small the file.
    parts: list[bytes] = []
    size = 0
    with open_input(path, expected) as f:
        try:
            while size <= max_bytes and (chunk := f.read(min(_READ_CHUNK, max_bytes + 1 - size))):
                parts.append(chunk)
                size += len(chunk)
        except OSError as e:
            raise ValueError(f"{os.fspath(path)}: read failed: {e.strerror}") from None
    if size > max_bytes:
        raise ValueError(f"{os.fspath(path)}: larger than {max_bytes:,} bytes; expected {expected}")
    return b"".join(parts)


def read_json(path: str, *, max_bytes: int, expected: str) -> Any:
    """A small JSON document: open_input's rules, at most max_bytes, UTF-8, no NaN /
    Infinity and no number beyond a float's range. ValueError naming the path and what was
    expected; FileNotFoundError when there is none."""
    data = read_bytes(path, max_bytes=max_bytes, expected=expected)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte offset {e.start})") from None
    return loads_json(text, path)


def loads_json(text: str, origin: str) -> Any:
    """JSON text as the core reads it: NaN, Infinity and numbers past a float's range (1e999,
    which Python's json would make inf) are refused, and so is nesting past what a
    recursive reader can walk. ValueError naming ``origin``."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                          object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as e:
        raise ValueError(f"{origin}:{e.lineno}: malformed JSON ({e.msg}, column {e.colno})") from None
    except RecursionError:
        raise ValueError(f"{origin}: JSON nested too deeply") from None
    except ValueError as e:  # NaN / Infinity / 1e999, refused below
        raise ValueError(f"{origin}: {e}") from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: a key given twice (a price file naming "h100"
    twice) would otherwise silently take the last value."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object; give each once")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is beyond the range of a 64-bit float")
    return value


def check_target(path: str | os.PathLike[str], what: str = "the file") -> str:
    """The file to write for ``path``: path itself, or the regular file a symbolic link
    points to (the link is kept). ValueError for an empty path, a directory, a FIFO, a
    device, a socket or a link to one (or to nothing), or a path in a directory that does
    not exist."""
    target = os.fspath(path)
    if not target:
        raise ValueError(f"the path of {what} is empty; give a file name")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        parent = os.path.dirname(target) or "."
        if not os.path.isdir(parent):
            raise ValueError(f"{target}: the folder {parent} does not exist; create it first, or write "
                             f"{what} elsewhere") from None
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
    watcher's metrics, does without).

    Interrupted (Ctrl-C, SIGTERM, even SIGKILL) while the data is written, it leaves nothing
    behind: the data goes to an unnamed file (O_TMPFILE, open(2)) that gets a name only for
    the instant between linkat(2) and the rename, with SIGINT, SIGTERM, SIGHUP and SIGQUIT
    held blocked in the calling thread around those two calls. Blocking alone would not do:
    another thread (numpy's OpenBLAS threads block nothing) takes a process-directed signal
    whose default action ends the process (signal(7)). Where the file system has no
    O_TMPFILE (e.g. NFS), a named temporary file (mkstemp) is written with those signals
    blocked; an exception then still removes it."""
    target = check_target(path, what)
    directory = os.path.dirname(os.path.abspath(target))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o644 if mode is None else mode  # mkstemp's 0600 would hide a file meant to be read
    if not _write_unnamed(target, directory, data, mode, sync):
        with _interrupts_blocked():
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


# The signals that ask a process to stop, held while a temporary file has a name.
_INTERRUPTS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT})


@contextlib.contextmanager
def _interrupts_blocked() -> Iterator[None]:
    """SIGINT, SIGTERM, SIGHUP, SIGQUIT blocked in the calling thread, then put back: one
    that arrives meanwhile is delivered when the block ends (pthread_sigmask(3))."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _write_unnamed(target: str, directory: str, data: bytes, mode: int, sync: bool) -> bool:
    """The O_TMPFILE way (see write_atomic); False, having named nothing, where the file
    system or kernel has no O_TMPFILE or there is no /proc (to link the file by)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return False
    try:
        fd = os.open(directory, flag | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    except OSError as e:
        # EOPNOTSUPP: the file system cannot; EISDIR / EINVAL: a kernel without O_TMPFILE
        if e.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return False
        raise
    dfd = -1
    try:
        with os.fdopen(fd, "wb", closefd=False) as f:
            f.write(data)
            if sync:
                f.flush()
                os.fsync(fd)
        os.fchmod(fd, mode)
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        with _interrupts_blocked():
            for _ in range(100):  # a name nobody has: random, retried on the rare clash
                name = f".{os.path.basename(target)}.{secrets.token_hex(4)}.tmp"
                try:
                    # linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/N: the way open(2) gives an
                    # O_TMPFILE file a name (a dir_fd makes os.link call linkat with the flag)
                    os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dfd, follow_symlinks=True)
                    break
                except FileExistsError:
                    continue
                except FileNotFoundError:  # no /proc: nothing has a name yet
                    return False
            else:
                raise FileExistsError(f"{directory}: no free temporary name for {os.path.basename(target)}")
            try:
                os.replace(os.path.join(directory, name), target)
            except BaseException:
                try:
                    os.unlink(name, dir_fd=dfd)
                except OSError:
                    pass
                raise
        return True
    finally:
        os.close(fd)
        if dfd >= 0:
            os.close(dfd)


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
