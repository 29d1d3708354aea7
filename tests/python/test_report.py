"""`libscale report` / libscale.report: one self-contained HTML page of a plan.

Unit tests check what the page says (the figures of the tables, the calibration, the prices),
that it loads nothing from outside, that its images are real PNGs and that it is written
atomically; the browser tests open the page the CLI wrote in headless Chromium (Debian's
/usr/bin/chromium; skipped without it) and check that it renders without console errors."""

from __future__ import annotations

import base64
import html
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import zlib
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest

import libscale
from conftest import ROOT, UNCALIBRATED, run_cli
from libscale import _format, cli

pytest.importorskip("matplotlib", reason="the report draws its figures with matplotlib (pip install 'libscale[plot]')")

import libscale.report as report

CONFIG = dict(gpus_per_node=8, global_batch_tokens=1_048_576, activation_checkpointing="full")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: (model, hardware, GPU counts) of the report the CLI writes for the browser tests.
CLI_ARGS = ["report", "--model", "qwen3-32b", "--hardware", "b300,h200", "--gpus", "4,8,16,32",
            "--gpus-per-node", "8", "--global-batch-tokens", "1048576", "--tokens", "1e9",
            "--calibration", "b300=derived-b300-qwen3-32b"]


# --- what the page is made of -------------------------------------------------------------


class Page(HTMLParser):
    """The tags, image sources, links and text of a page; whether every element is closed."""

    VOID = frozenset({"meta", "img", "br", "hr", "link", "input", "source", "wbr", "col", "area", "base"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []
        self.images: list[str] = []
        self.headings: list[str] = []
        self.text: list[str] = []
        self.stack: list[str] = []
        self.errors: list[str] = []
        self._heading: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            self.attrs.append((tag, k, v))
        if tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        if tag in ("h1", "h2", "h3"):
            self._heading = []
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
            return
        self.stack.pop()
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None

    def handle_data(self, data):
        self.text.append(data)
        if self._heading is not None:
            self._heading.append(data)


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == PNG_MAGIC, "not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def check_self_contained(text: str) -> Page:
    page = Page(text)
    assert page.errors == [] and page.stack == [], (page.errors, page.stack)
    assert text.startswith("<!DOCTYPE html>")
    assert re.search(r"<meta charset=\"utf-8\">", text, re.I)
    text.encode("utf-8")  # a lone surrogate would raise
    # Nothing is loaded from elsewhere: every URL attribute is a data: URI, there is no
    # script, no link element, no CSS import or url().
    for tag, name, value in page.attrs:
        if name in ("src", "href", "srcset", "poster", "data", "action", "background"):
            assert (value or "").startswith("data:"), f"<{tag} {name}={(value or '')[:60]!r}>"
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    for forbidden in ("script", "link", "iframe", "object", "embed"):
        assert forbidden not in page.tags, f"<{forbidden}> in the page"
    assert not re.search(r"@import|url\s*\(", text, re.I)
    for src in page.images:
        assert src.startswith("data:image/png;base64,"), src[:40]
        data = base64.b64decode(src.split(",", 1)[1], validate=True)
        width, height = png_size(data)
        assert width >= 400 and height >= 250 and len(data) > 10_000, (width, height, len(data))
    return page


def has(text: str, shown: str) -> bool:
    """Is `shown`, as the reader sees it, in the page's source?"""
    return html.escape(shown, quote=True) in text


# --- fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def projection() -> libscale.ProjectionResult:
    return libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16, 32], tokens=1e9, quantiles=True,
                            calibration="derived-b300-qwen3-32b", **CONFIG)


@pytest.fixture(scope="module")
def projection_html(projection) -> str:
    return report.html_report(projection)


@pytest.fixture(scope="module")
def comparison() -> libscale.Comparison:
    return libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8, 16], tokens=2e9, epochs=2, quantiles=True,
                            calibration={"b300": "derived-b300-qwen3-32b"}, prices={"b300": 5.1, "h200": 2.8},
                            **CONFIG)


@pytest.fixture(scope="module")
def comparison_html(comparison) -> str:
    return report.html_report(comparison, title="Q3 fine-tune <budget> & plan")


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory) -> tuple[Path, str]:
    """The report the command line writes (a subprocess, as a user runs it) and its stdout."""
    path = tmp_path_factory.mktemp("cli") / "plan.html"
    out = run_cli(CLI_ARGS + ["-o", str(path)])
    assert out.returncode == 0, out.stderr
    return path, out.stdout


# --- the page of a projection -------------------------------------------------------------


def test_projection_page_shows_the_computed_figures(projection, projection_html):
    text = projection_html
    page = check_self_contained(text)
    assert len(page.images) == 3  # scaling, costs, breakdown
    assert page.headings[0] == "Training plan: qwen3-32b on b300"
    for heading in ("Figures", "Projection", "Time per step by part", "Assumptions", "Training configuration",
                    "The job", "Hardware", "Calibration", "Model"):
        assert heading in page.headings
    rows = projection.rows_dicts()
    for r in rows:
        ranged = _format.quantile_ranges(r)
        for shown in (_format.fixed(0)(r["tokens_per_s"]), ranged["tokens_per_s_range"], ranged["cost_usd_range"],
                      _format.fixed(2)(r["wall_time_h"]), _format.fixed(1)(r["gpu_hours"]),
                      _format.fixed(2)(r["cost_usd"]), _format.fixed(3)(r["gemm_s"])):
            assert f">{html.escape(shown)}</td>" in text, shown
    # The answer: the largest count that fits and scales above 90 %, with its interval.
    best = max((r for r in rows if r["fits"] and r["scaling_efficiency"] >= 0.9), key=lambda r: r["gpus"])
    assert best["gpus"] == 32
    answer = report._projection_answer(projection)
    assert answer.startswith(f"qwen3-32b on 32 × b300: {best['wall_time_h']:.1f} h wall, {best['gpu_hours']:,.1f} "
                             f"GPU-h, ${best['cost_usd']:,.0f} for 1e9 tokens (80% interval "
                             f"${best['cost_usd_p10']:,.0f}–${best['cost_usd_p90']:,.0f}")
    assert "scaling stays above 99% to 32 GPUs" in answer
    assert f"<p class=\"answer\">{html.escape(answer)}</p>" in text
    # The uncertainty, the calibration, the price, the model and the hardware's sources.
    assert has(text, _format.uncertainty_sentence(projection.to_dict()))
    assert has(text, "b300: derived") and has(text, "calibration/data/calibrations/derived-b300-qwen3-32b.json")
    assert has(text, "$6.00") and has(text, "the hardware profile's price (calibration/data/hardware/b300.json)")
    assert has(text, "32,762,123,264") and has(text, "NVIDIA B300 SXM6 288GB (HGX B300, Blackwell Ultra)")
    assert has(text, "ASSUMPTION, unsourced: no public on-demand B300 list price was found")
    # Each fitted coefficient with its sd; the provenance's figure.
    sd = projection.plan.calibration.quality["coefficients"][0]
    assert sd["name"] == "gemm.eta_max"
    assert has(text, f"{sd['value']:.4g}") and has(text, f"± {sd['std_error']:.3g}")
    assert has(text, "per-step NFS reading matches a pretokenized local cache")
    # Every training option with its value and unit.
    for o in libscale.options.options("training"):
        if o.name not in ("data", "checkpoint"):
            assert f">{html.escape(o.name)}</td>" in text, o.name
    assert has(text, "4, 8, 16, 32 (one row each)") and has(text, "data.corpus_in_page_cache")
    assert f"libscale {libscale.__version__}" in text


def test_projection_without_quantiles_says_so_and_a_title_is_escaped(projection):
    plain = libscale.project("qwen3-32b", "h100", gpus=[4, 8, 16], tokens=1e9, price_per_gpu_hour_usd=2.5, **CONFIG)
    text = report.html_report(plain, title="<script>alert('x')</script> & co", command="libscale report --x '<y>'")
    page = check_self_contained(text)
    assert "script" not in page.tags and "<script>" not in text
    assert page.headings[0] == "<script>alert('x')</script> & co"
    assert "No P10–P90 interval was computed" in text and "P10–P90</th>" not in text
    assert has(text, "$2.50") and has(text, "set for this job (price_per_gpu_hour_usd)")
    assert has(text, "libscale report --x '<y>'")
    # 4 H100s do not fit and 8 may not (within the margin, not counted as fitting): the answer
    # says so, the table shows it.
    rows = plain.rows_dicts()
    assert not rows[0]["fits"] and rows[1]["fit_status"] == "uncertain" and not rows[1]["fits"]
    answer = report._projection_answer(plain)
    assert "4 GPUs does not fit in memory" in answer and "8 GPUs does not surely fit in memory" in answer
    assert has(text, _format.fit_text(rows[0]))


def test_the_report_takes_only_results():
    with pytest.raises(TypeError, match="Projection or Comparison"):
        report.html_report("qwen3-32b")  # type: ignore[arg-type]


# --- the page of a comparison -------------------------------------------------------------


def test_comparison_page_names_each_hardware_and_the_fastest_and_cheapest(comparison, comparison_html):
    text = comparison_html
    page = check_self_contained(text)
    assert len(page.images) == 2 + 2  # scaling, costs, one breakdown per hardware
    assert page.headings[0] == "Q3 fine-tune <budget> & plan"
    assert "<budget>" not in text
    for line in comparison.summary():
        assert f"<li>{html.escape(line)}</li>" in text
    for hw, p in comparison.projections.items():
        assert f"<h4>{hw}" in text
        for r in p.rows_dicts():
            assert f">{_format.fixed(0)(r['tokens_per_s'])}</td>" in text
            assert f">{_format.fixed(2)(r['cost_usd'])}</td>" in text
    assert has(text, "$5.10") and has(text, "$2.80") and has(text, "given per hardware (prices=)")
    assert has(text, "b300: derived") and has(text, f"h200: {UNCALIBRATED}")
    assert has(text, "tokens in all") and ">4,000,000,000</td>" in text  # 2e9 tokens × 2 epochs
    lead = report._headline(comparison)
    assert lead.startswith("qwen3-32b on b300 vs h200 for 2e9 tokens × 2 epochs: cheapest ")


def test_comparison_with_a_price_file_names_the_file_and_its_source(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text('{"schema": "libscale.prices/1", "source": "our contract, 2026-11", '
                      '"price_per_gpu_hour_usd": {"h200": 2.8}}')
    c = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], tokens=1e9, prices=str(prices), **CONFIG)
    text = report.html_report(c)
    assert has(text, f"price file {prices} (our contract, 2026-11)")
    assert has(text, "the hardware profile's price (calibration/data/hardware/b300.json)")


# --- writing the file ---------------------------------------------------------------------


def leftovers(directory: Path, keep: Sequence[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_write_report_is_atomic_and_leaves_nothing_behind(tmp_path, projection, monkeypatch):
    path = tmp_path / "plan.html"
    report.write_report(projection, path)
    first = path.read_bytes()
    assert first.decode("utf-8").startswith("<!DOCTYPE html>")
    assert leftovers(tmp_path, ["plan.html"]) == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    # Replacing keeps the file's mode; a failed rename leaves the old page and no temp file.
    path.chmod(0o600)
    report.write_report(projection, str(path), title="again")
    assert "again" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    before = path.read_bytes()

    def refuse(src, dst):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="simulated"):
        report.write_report(projection, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert leftovers(tmp_path, ["plan.html"]) == []
    assert not list(tmp_path.glob("*.tmp*")) and not list(tmp_path.glob(".*tmp*"))


def test_write_report_refuses_what_is_not_a_regular_file(tmp_path, projection):
    directory = tmp_path / "dir.html"
    directory.mkdir()
    fifo = tmp_path / "fifo.html"
    os.mkfifo(fifo)
    to_dir = tmp_path / "link-to-dir.html"
    to_dir.symlink_to(directory)
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "nowhere")
    for target, what in ((directory, "is a directory"), (fifo, "is not a regular file"),
                         (to_dir, "is a symbolic link to something that is not a regular file"),
                         (dangling, "is a symbolic link to nothing")):
        with pytest.raises(ValueError, match=re.escape(f"{target}: {what}")):
            report.write_report(projection, target)
    with pytest.raises(ValueError, match="empty"):
        report.write_report(projection, "")
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and directory.is_dir() and not any(directory.iterdir())
    # A link to a regular file: the page is written where it points, the link stays.
    real = tmp_path / "real.html"
    real.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    report.write_report(projection, link)
    assert link.is_symlink() and real.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if "tmp" in p.name]


# --- the command line ---------------------------------------------------------------------


def test_cli_writes_the_page_and_says_so(cli_report):
    path, stdout = cli_report
    lines = stdout.splitlines()
    assert len(lines) == 1
    size = path.stat().st_size
    assert lines[0].startswith(f"wrote {path} ({round(size / 1024):,} KiB): qwen3-32b on b300 vs h200 for 1e9 "
                               "tokens: cheapest ")
    text = path.read_text(encoding="utf-8")
    page = check_self_contained(text)
    assert len(page.images) == 4
    # Quantiles by default; the command line in the footer.
    assert "P10–P90</th>" in text and has(text, "2000 samples")
    assert has(text, "libscale report --model qwen3-32b --hardware b300,h200")
    assert not [p for p in path.parent.iterdir() if p.name != "plan.html"]


def run_main(args: Sequence[str], capsys) -> tuple[int, str, str]:
    try:
        status = cli.main(list(args))
    except SystemExit as e:
        status = int(e.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


BASE = ["report", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "8", "--tokens", "1e9"]


def test_cli_bad_input_is_one_line_and_status_2(tmp_path, capsys):
    bad_json = tmp_path / "prices.json"
    bad_json.write_text("{not json")
    out = tmp_path / "plan.html"
    for args, message in (
            (BASE + ["-o", ""], "-o/--output: the path is empty"),
            (BASE + ["-o", "  "], "-o/--output: the path is empty"),
            (BASE + ["-o", str(out), "--prices", str(tmp_path / "missing.json")], "missing.json: no such file"),
            (BASE + ["-o", str(out), "--prices", str(bad_json)], "malformed JSON"),
            (BASE + ["-o", str(tmp_path)], "is a directory"),
            (BASE + ["-o", str(out), "--no-quantiles", "--seed", "3"], "--no-quantiles"),
            (BASE[:-2] + ["--tokens", "-1", "-o", str(out)], "--tokens"),
            (["report", "-o", str(out)], "required")):
        status, stdout, stderr = run_main(args, capsys)
        assert status == 2, (args, stderr)
        assert stdout == ""
        assert stderr.count("\n") == 1 and stderr.startswith("libscale: error: "), stderr
        assert message in stderr, (message, stderr)
    assert leftovers(tmp_path, ["prices.json"]) == []


def test_cli_without_matplotlib_says_what_to_install(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "libscale.plot", None)
    monkeypatch.delattr(libscale, "plot", raising=False)  # else `from . import plot` finds the attribute
    status, _, stderr = run_main(BASE + ["-o", str(tmp_path / "plan.html")], capsys)
    assert status == 2 and stderr.count("\n") == 1
    assert "pip install 'libscale[plot]'" in stderr
    assert leftovers(tmp_path, []) == []


def test_cli_report_is_documented():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "## report\n" in text and "<!-- flags: report -->" in text
    assert [c.__name__.rsplit(".", 1)[1] for c in cli.COMMANDS][:2] == ["project", "report"]


# --- in a browser -------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless browser check needs chromium "
                                                              "(Debian: apt-get install chromium)")
WIDTH, HEIGHT = 1280, 2400
#: What Chromium logs for a page's console messages and failed loads (our page has none).
CONSOLE = re.compile(r"CONSOLE|Uncaught|Failed to load resource|net::ERR_|Not allowed to load", re.I)


def chromium(args: Sequence[str], profile: Path, *, timeout: float = 60) -> subprocess.CompletedProcess:
    """Headless Chromium (as root too: --no-sandbox) with a private profile; killed with its
    children after `timeout` seconds."""
    assert CHROMIUM is not None
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--hide-scrollbars", "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
               "--enable-logging=stderr", "--v=0", *args]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"chromium did not finish within {timeout:g} s: {' '.join(command)}")
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def console_problems(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if CONSOLE.search(line)]


def png_pixels(data: bytes) -> tuple[int, float]:
    """(distinct colours, share of pixels that are not white) of an 8-bit RGB(A) PNG."""
    from io import BytesIO

    import matplotlib.image
    import numpy as np

    pixels = matplotlib.image.imread(BytesIO(data), format="png")
    rgb = np.round(np.asarray(pixels)[..., :3] * 255).astype(np.uint32)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    return int(np.unique(packed).size), float(np.mean(packed != 0xFFFFFF))


@needs_chromium
def test_console_check_catches_an_erring_page(tmp_path):
    # The check below is only as good as this: a page with a script error and a missing
    # image must trip it.
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><meta charset=\"utf-8\"><h1>x</h1><script>undefinedFunction();</script>")
    run = chromium(["--dump-dom", bad.as_uri()], tmp_path / "profile")
    assert console_problems(run.stderr), run.stderr[-2000:]


@needs_chromium
def test_the_cli_report_renders_in_chromium(cli_report, tmp_path):
    path, _ = cli_report
    shot = Path(os.environ.get("LIBSCALE_REPORT_SCREENSHOT") or tmp_path / "report.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    if shot.exists():
        shot.unlink()
    run = chromium([f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}", path.as_uri()], tmp_path / "profile")
    assert run.returncode == 0, run.stderr[-2000:]
    assert console_problems(run.stderr) == [], console_problems(run.stderr)
    data = shot.read_bytes()
    assert png_size(data) == (WIDTH, HEIGHT)
    colours, inked = png_pixels(data)
    # A blank or failed page is one colour; this one has text, tables and four figures.
    assert colours > 500 and inked > 0.05, (colours, inked)
    assert len(zlib.compress(data)) > 50_000
    # The DOM as Chromium parsed it: the headings and one <img> per figure, each decoded.
    dom = chromium(["--dump-dom", path.as_uri()], tmp_path / "profile")
    assert dom.returncode == 0 and console_problems(dom.stderr) == []
    page = Page(dom.stdout)
    for heading in ("Figures", "Projection", "Time and cost of the job", "Time per step by part", "Assumptions",
                    "Hardware", "Calibration", "Model"):
        assert heading in page.headings, (heading, page.headings)
    assert page.headings[0] == "Training plan: qwen3-32b on b300 vs h200"
    assert len(page.images) == 2 + 2 and all(s.startswith("data:image/png;base64,") for s in page.images)


def test_memory_section_shows_each_count_peak_and_its_phase():
    from libscale.report import html_report

    p = libscale.project("qwen3-32b", "h200", gpus=[4, 8])
    section = html_report(p).split('id="memory"')[1].split("</section>")[0]
    assert "peak GiB" in section
    for r in p.rows_dicts():
        mem = r["memory"]
        assert f"{mem['allocated_gib']:.1f}" in section and mem["peak_phase"] in section
        assert mem["allocated_gib"] == max(mem["phase_gib"].values())
