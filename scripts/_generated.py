"""What the scripts that write generated files share (make_option_types.py,
make_result_fields.py, make_schemas.py): the compiled module without the package around it,
and writing a file atomically only when its text changed (or, with --check, saying it is
stale)."""

from __future__ import annotations

import importlib
import os
import pathlib
import sys
import tempfile
import types


def compiled_module() -> types.ModuleType:
    """libscale._core without running libscale/__init__.py, which imports files these
    scripts write (a stale one would stop the script that fixes it)."""
    if "libscale" not in sys.modules:
        package = types.ModuleType("libscale")
        folders = [pathlib.Path(p) / "libscale" for p in sys.path]
        package.__path__ = [str(f) for f in folders if f.is_dir()]
        sys.modules["libscale"] = package
    return importlib.import_module("libscale._core")


def write_generated(target: pathlib.Path, text: str, *, check: bool) -> int:
    """Write text to target through a temporary file and a rename, unless it is there
    already. check: write nothing, return 1 when the file is stale. Returns the exit status."""
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return 0
    if check:
        print(f"{target} is stale: run scripts/regenerate.sh", file=sys.stderr)
        return 1
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
    print(f"wrote {target}")
    return 0
