#!/usr/bin/env python3
"""Strip the notebooks' outputs before committing: outputs, execution counts, execution
timings and widget state go; cells, their ids and tags stay.

    .venv/bin/python scripts/strip_notebooks.py                 # every notebooks/*.ipynb
    .venv/bin/python scripts/strip_notebooks.py --check         # exit 1 if any is not stripped
    .venv/bin/python scripts/strip_notebooks.py notebooks/01-capacity-planning.ipynb

tests/python/test_notebooks.py checks that the stored notebooks are stripped, and runs them.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Cell metadata that records a run, not the notebook: nbclient / JupyterLab timings,
# collapsed or scrolled output state.
RUN_CELL_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime")
# Notebook metadata of the same kind.
RUN_NOTEBOOK_METADATA = ("widgets",)


def strip(nb: dict[str, Any]) -> dict[str, Any]:
    """The notebook without outputs, execution counts and run metadata (in place; returned)."""
    for key in RUN_NOTEBOOK_METADATA:
        nb.get("metadata", {}).pop(key, None)
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {})
        for key in RUN_CELL_METADATA:
            meta.pop(key, None)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return nb


def text_of(nb: dict[str, Any]) -> str:
    """The file's text as Jupyter writes it (nbformat's layout: indent 1, sorted keys)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: notebooks/*.ipynb)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook is not stripped")
    args = parser.parse_args(argv)
    paths = args.paths or sorted((ROOT / "notebooks").glob("*.ipynb"))
    unstripped = []
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        stripped = strip(copy.deepcopy(nb))
        if stripped == nb:
            continue
        unstripped.append(path)
        if not args.check:
            path.write_text(text_of(stripped), encoding="utf-8")
            print(f"stripped {path}")
    if args.check and unstripped:
        print("not stripped (run scripts/strip_notebooks.py): " + ", ".join(map(str, unstripped)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
