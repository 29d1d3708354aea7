"""The notebooks in notebooks/ are stored without outputs and run top to bottom.

Each notebook is executed with nbclient on a kernel of the Python running the tests
(sys.executable, with the libscale this process imported on its PYTHONPATH, so a
development build works), from the notebooks/ folder as Jupyter would. A cell that raises
fails the test. Each notebook must draw at least its number of figures, and each of its
answer cells (markdown cells tagged "answer", whose sentence states the figures) must come
right after a cell that drew a figure and quote only numbers that the notebook printed.

With LIBSCALE_NOTEBOOK_OUT set, the executed notebooks and every figure (PNG) are written
there. The calibration notebook runs the harness (libscale-calibrate): the test points it
at LIBSCALE_CALIBRATE, else at build/cpp/calibration/libscale-calibrate when that exists.

After running a notebook by hand, strip it before committing:
    .venv/bin/python scripts/strip_notebooks.py
"""

from __future__ import annotations

import base64
import json
import os
import re
import site
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
HARNESS = ROOT / "build" / "cpp" / "calibration" / "libscale-calibrate"

# notebook: the fewest figures (image/png outputs) it must draw
FIGURES = {
    "01-capacity-planning.ipynb": 6,
    "02-calibrate-new-hardware.ipynb": 2,
    "03-run-safety.ipynb": 3,
}

# Numbers in an answer: digits not glued to a name (B300, qwen3-32b, P10, H100 are names).
NUMBER = re.compile(r"(?<![\w.\-])\d[\d,]*(?:\.\d+)?(?![\w\-])")


def _missing() -> list[str]:
    missing = []
    for name in ("nbclient", "nbformat", "ipykernel", "matplotlib"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    return missing


def test_notebooks_are_listed():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(FIGURES)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_notebook_is_stored_stripped(name: str):
    nb = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    assert "widgets" not in nb.get("metadata", {}), f"{name}: widget state in the metadata"
    for i, cell in enumerate(nb["cells"]):
        where = f"{name} cell {i}"
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{where} has outputs: run scripts/strip_notebooks.py"
            assert cell.get("execution_count") is None, f"{where} has an execution count"
        assert "execution" not in cell.get("metadata", {}), f"{where} has execution timings"
    assert any("answer" in c.get("metadata", {}).get("tags", []) for c in nb["cells"]), f"{name}: no answer cell"


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kernelspec for sys.executable in a temporary JUPYTER_PATH, its PYTHONPATH holding
    the folder this process imported libscale from (a development build: both halves; not
    an installed copy's site-packages, which the kernel has anyway), then the inherited
    PYTHONPATH, all absolute."""
    missing = _missing()
    if missing:
        pytest.skip(f"running the notebooks needs {', '.join(missing)} (not importable here)")
    import libscale

    installed = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]}
    folders = [str(Path(p).resolve().parent) for p in libscale.__path__ if Path(p).resolve().parent not in installed]
    inherited = [str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    path = list(dict.fromkeys(folders + inherited))
    name = "libscale-test"
    share = tmp_path_factory.mktemp("jupyter")
    spec = share / "kernels" / name
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "libscale (tests)", "language": "python",
        "env": {"PYTHONPATH": os.pathsep.join(path), "MPLBACKEND": "module://matplotlib_inline.backend_inline"},
    }))
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(share)] + ([old] if old else []))
    yield name
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


def _harness() -> str | None:
    given = os.environ.get("LIBSCALE_CALIBRATE")
    if given:
        return given
    return str(HARNESS) if HARNESS.exists() else None


def _text(outputs: list) -> str:
    """What the cells printed or showed as text."""
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        elif o.get("output_type") in ("execute_result", "display_data"):
            data = o.get("data", {})
            parts.append(data.get("text/plain", "") + data.get("text/html", ""))
    return "".join(parts)


def _pngs(cell) -> list[bytes]:
    return [base64.b64decode(o["data"]["image/png"]) for o in cell.get("outputs", [])
            if o.get("output_type") in ("display_data", "execute_result") and "image/png" in o.get("data", {})]


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_notebook_runs(name: str, kernel_name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("TMPDIR", str(tmp_path))  # what a notebook writes to tempfile goes here
    harness = _harness()
    if name.startswith("02-"):
        if harness:
            monkeypatch.setenv("LIBSCALE_CALIBRATE", harness)
        else:
            monkeypatch.delenv("LIBSCALE_CALIBRATE", raising=False)
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(nb, timeout=180, kernel_name=kernel_name,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()  # raises CellExecutionError on the first cell that fails
    finally:
        out = os.environ.get("LIBSCALE_NOTEBOOK_OUT")
        if out:
            _save(nb, name, Path(out))

    figures = sum(len(_pngs(c)) for c in nb.cells if c.cell_type == "code")
    assert figures >= FIGURES[name], f"{name}: {figures} figures, expected at least {FIGURES[name]}"

    printed = "".join(_text(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code").replace(",", "")
    answers = [i for i, c in enumerate(nb.cells) if "answer" in c.metadata.get("tags", [])]
    assert answers, f"{name}: no answer cell"
    for i in answers:
        cell = nb.cells[i]
        assert cell.cell_type == "markdown" and "**Answer" in cell.source, f"{name} cell {i}: not an answer"
        above = nb.cells[i - 1]
        assert above.cell_type == "code" and _pngs(above), f"{name} cell {i}: the answer is not under a figure"
        if name.startswith("02-") and not harness:
            continue  # the fallback's figures are not the harness run the sentences describe
        # every number the sentence quotes was printed by the notebook
        for number in NUMBER.findall(cell.source):
            plain = number.replace(",", "")
            assert re.search(rf"(?<![\d.]){re.escape(plain)}(?![\d])", printed), (
                f"{name} cell {i}: the answer quotes {number}, which no cell printed")

    if name.startswith("02-"):
        harness_ran = "harness: ran " in printed
        if harness:
            assert harness_ran, f"{name}: LIBSCALE_CALIBRATE={harness} but the notebook did not run the harness"
        else:
            assert not harness_ran


def _save(nb, name: str, out: Path) -> None:
    """The executed notebook, and each figure as <notebook>-cell<NN>-<k>.png."""
    import nbformat

    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out / name)
    stem = name.removesuffix(".ipynb")
    for i, cell in enumerate(nb.cells):
        for k, png in enumerate(_pngs(cell) if cell.cell_type == "code" else []):
            (out / f"{stem}-cell{i:02d}-{k}.png").write_bytes(png)
