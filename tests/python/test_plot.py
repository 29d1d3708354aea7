"""libscale.plot: every figure rendered to a PNG from real results (a projection with
quantiles, a fit of shipped measurements, a triage of the shipped hang trace, a failing
packing gate), with what it draws checked against the result's numbers. Set
LIBSCALE_PLOT_DIR to keep every PNG there for a person to look at."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import libscale
from conftest import ROOT, UNCALIBRATED

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

import libscale.plot as lp  # noqa: E402

MEASUREMENTS = ROOT / "calibration" / "data" / "measurements" / "torchtitan-llama3.1-8b-h100.json"
HANG = ROOT / "examples" / "traces" / "nccl-hang.csv"
QWEN = dict(gpus_per_node=8, global_batch_tokens=1_048_576)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def save(fig, tmp_path: Path, name: str) -> Path:
    """The figure as a PNG under tmp_path (and under LIBSCALE_PLOT_DIR when set)."""
    out = tmp_path / f"{name}.png"
    fig.savefig(out, dpi=80)
    assert out.stat().st_size > 10_000
    keep = os.environ.get("LIBSCALE_PLOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        fig.savefig(Path(keep) / f"{name}.png", dpi=100)
    return out


def by_gid(ax: Axes, gid: str) -> list:
    return ax.findobj(lambda a: a.get_gid() == gid)


def one(ax: Axes, gid: str):
    found = by_gid(ax, gid)
    assert len(found) == 1, (gid, found)
    return found[0]


def legend_texts(ax: Axes) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None, "no legend"
    return [t.get_text() for t in legend.get_texts()]


def assert_labelled(ax: Axes, *units: str) -> None:
    assert ax.get_title().strip()
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip()
    labels = ax.get_xlabel() + " " + ax.get_ylabel()
    for u in units:
        assert u in labels, (u, labels)


# --- results --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def proj():
    """The main job's calibration carries a covariance, so the P10–P90 band has a width."""
    return libscale.Plan("qwen3-32b", "b300", calibration="derived-b300-qwen3-32b", **QWEN).project(
        [4, 8, 16, 32], quantiles=True, samples=200, seed=1)


@pytest.fixture(scope="module")
def bend():
    """A small model whose communication stops hiding from 32 GPUs (README)."""
    p = libscale.Plan("qwen3-0.6b", "h100", seq_len=1024, global_batch_tokens=131072, torch_compile=True).project(
        [4, 8, 16, 32, 64])
    assert p.raw.comm_exposed_from_gpus == 32
    return p


@pytest.fixture(scope="module")
def unfit():
    """Qwen3-32B on 4 H100s does not fit in memory, on 8 it may not (uncertain: not
    fitting), on 16 it does."""
    p = libscale.Plan("qwen3-32b", "h100", **QWEN).project([4, 8, 16], quantiles=True, samples=100, seed=1)
    assert [r["fits"] for r in p.rows_dicts()] == [False, False, True]
    return p


@pytest.fixture(scope="module")
def comparison():
    return libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8, 16, 32], quantiles=True, samples=100, seed=1,
                            **QWEN)


@pytest.fixture(scope="module")
def fitted():
    return libscale.fit(MEASUREMENTS)


@pytest.fixture(scope="module")
def triaged():
    return libscale.triage(HANG, hardware="h100")


@pytest.fixture(scope="module")
def gate_fail():
    lengths = np.random.default_rng(0).lognormal(7, 1, 40_000).clip(1, 8192).astype(np.uint32)
    g = libscale.gate(lengths, world_size=16, seq_len=8192, packing="bfd", grad_accum=4, shard_before_packing=True)
    assert not g.passed and g.difference > 0
    return g


# --- scaling --------------------------------------------------------------------------


def test_scaling_curve_ideal_band_on_given_ax(proj, tmp_path):
    fig, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    assert lp.scaling(proj, ax=ax) is ax
    rows = proj.rows_dicts()
    gpus = np.array([r["gpus"] for r in rows], dtype=float)
    tps = np.array([r["tokens_per_s"] for r in rows])
    line = one(ax, "scaling:b300:projected")
    np.testing.assert_array_equal(line.get_xdata(), gpus)
    np.testing.assert_allclose(line.get_ydata(), tps, rtol=1e-12)
    np.testing.assert_allclose(one(ax, "scaling:b300:ideal").get_ydata(), tps[0] * gpus / gpus[0], rtol=1e-12)
    assert one(ax, "scaling:b300:ideal").get_linestyle() == "--"
    # the band's outline runs along P10 and back along P90
    verts = one(ax, "scaling:b300:band").get_paths()[0].vertices
    p10 = [r["tokens_per_s_p10"] for r in rows]
    p90 = [r["tokens_per_s_p90"] for r in rows]
    assert min(p90[i] - p10[i] for i in range(len(rows))) > 0
    for g, lo, hi in zip(gpus, p10, p90, strict=True):
        ys = verts[np.isclose(verts[:, 0], g), 1]
        np.testing.assert_allclose([ys.min(), ys.max()], [lo, hi], rtol=1e-12)
    # log2 axis, ticks at the counts themselves
    assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4", "8", "16", "32"]
    assert "strong scaling" in ax.get_title() and "b300" in ax.get_title()
    assert_labelled(ax, "tokens/s", "GPUs")
    texts = legend_texts(ax)
    assert any("P10–P90" in t for t in texts) and any("ideal" in t for t in texts)
    assert any("communication hidden" in t for t in texts)  # none exposed here
    save(fig, tmp_path, "scaling")


def test_scaling_marks_exposed_comm_and_efficiency(bend, tmp_path):
    ax = lp.scaling(bend, metric="scaling_efficiency")
    eff = [100 * r["scaling_efficiency"] for r in bend.rows_dicts()]
    np.testing.assert_allclose(one(ax, "scaling:h100:projected").get_ydata(), eff, rtol=1e-12)
    np.testing.assert_array_equal(one(ax, "scaling:h100:ideal").get_ydata(), 100.0)
    exposed = one(ax, "scaling:h100:comm_exposed")
    assert list(exposed.get_xdata()) == [32, 32]
    assert any("communication exposed" in t and "32 GPUs" in t for t in legend_texts(ax))
    assert_labelled(ax, "%")
    assert by_gid(ax, "scaling:h100:band") == []  # no quantiles asked for
    save(ax.figure, tmp_path, "scaling_efficiency_comm_exposed")


def test_scaling_hollow_markers_where_it_does_not_fit(unfit, tmp_path):
    ax = lp.scaling(unfit, metric="tokens_per_s_per_gpu")
    rows = unfit.rows_dicts()
    hollow = one(ax, "scaling:h100:does_not_fit")
    assert list(hollow.get_xdata()) == [4, 8]  # 8: uncertain, not counted as fitting
    assert hollow.get_ydata()[0] == pytest.approx(rows[0]["tokens_per_s_per_gpu"], rel=1e-12)
    assert matplotlib.colors.to_hex(hollow.get_markerfacecolor()) == "#ffffff"
    assert list(one(ax, "scaling:h100:fits").get_xdata()) == [16]
    np.testing.assert_allclose(one(ax, "scaling:h100:ideal").get_ydata(), rows[0]["tokens_per_s_per_gpu"])
    texts = legend_texts(ax)
    assert any("does not surely fit" in t for t in texts)
    # the default carries the shipped measurements' spread: a band with width, said in the title
    assert not any("zero width" in t for t in texts)
    title = ax.get_title() + "".join(t.get_text() for t in ax.figure.texts)
    assert UNCALIBRATED.removeprefix("default (").removesuffix(")") in title
    assert_labelled(ax, "tokens/s/GPU")
    save(ax.figure, tmp_path, "scaling_per_gpu_does_not_fit")


def test_scaling_weak_title_and_bad_metric(proj):
    weak = libscale.Plan("llama-3.1-8b", "h100", seq_len=8192, micro_batch=2,
                         activation_checkpointing="selective").project([8, 16, 32], scaling="weak")
    assert "weak scaling" in lp.scaling(weak).get_title()
    with pytest.raises(ValueError, match="metric"):
        lp.scaling(proj, metric="mfu")
    with pytest.raises(TypeError, match="Projection, a Comparison or a dict"):
        lp.scaling(object())


def test_scaling_comparison_one_curve_per_hardware(comparison, tmp_path):
    ax = lp.scaling(comparison)
    for hw, p in comparison.projections.items():
        line = one(ax, f"scaling:{hw}:projected")
        np.testing.assert_allclose(line.get_ydata(), [r["tokens_per_s"] for r in p.rows_dicts()], rtol=1e-12)
        assert matplotlib.colors.to_hex(line.get_color()) == lp.hardware_color(hw).lower()
        assert len(by_gid(ax, f"scaling:{hw}:band")) == 1
    texts = legend_texts(ax)
    assert texts[:2] == ["b300", "h200"]
    assert "b300 vs h200" in ax.get_title()
    save(ax.figure, tmp_path, "scaling_comparison")


# --- breakdown ------------------------------------------------------------------------


def _stacks(ax: Axes) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for patch in ax.patches:
        gid = patch.get_gid() or ""
        if gid.startswith("breakdown:"):
            out.setdefault(gid.split(":", 1)[1], []).append(patch.get_height())
    return out


def test_breakdown_stacks_sum_to_the_step(proj, tmp_path):
    ax = lp.breakdown(proj)
    rows = proj.rows_dicts()
    stacks = _stacks(ax)
    for key, heights in stacks.items():
        # stacked bars: heights are differences of cumulative sums, exact to rounding
        np.testing.assert_allclose(heights, [r[key] for r in rows], rtol=1e-10)
    totals = np.sum(list(stacks.values()), axis=0)
    np.testing.assert_allclose(totals, [r["step_time_s"] for r in rows], rtol=1e-9)
    assert {"gemm_s", "attention_s", "memory_bound_s", "exposed_comm_s", "optimizer_s"} <= set(stacks)
    texts = legend_texts(ax)
    assert any(t.startswith("GEMM") for t in texts)
    assert any("not drawn" in t and "checkpoint" in t for t in texts)  # 0 s at every count
    assert_labelled(ax, "(s)", "GPUs")
    save(ax.figure, tmp_path, "breakdown")


def test_breakdown_normalized_is_percent(bend, tmp_path):
    fig, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    assert lp.breakdown(bend, normalized=True, ax=ax) is ax
    np.testing.assert_allclose(np.sum(list(_stacks(ax).values()), axis=0), 100.0, rtol=1e-9)
    assert_labelled(ax, "(%)")
    save(fig, tmp_path, "breakdown_normalized")


# --- costs ----------------------------------------------------------------------------


def _bars(ax: Axes, gid: str) -> list[float]:
    return [p.get_height() for p in ax.patches if p.get_gid() == gid]


def _error_spans(ax: Axes, label: str) -> list[tuple[float, float]]:
    container = next(c for c in ax.containers if c.get_label() == label)
    segments = container.lines[2][0].get_segments()
    return [(s[:, 1].min(), s[:, 1].max()) for s in segments]


def test_costs_one_panel_per_metric_with_intervals(proj, tmp_path):
    axes = lp.costs(proj)
    assert isinstance(axes, np.ndarray) and len(axes) == 3
    rows = proj.rows_dicts()
    for ax, metric, unit in zip(axes, ("gpu_hours", "cost_usd", "energy_kwh"), ("GPU·h", "USD", "kWh"), strict=True):
        np.testing.assert_allclose(_bars(ax, f"costs:{metric}:b300"), [r[metric] for r in rows], rtol=1e-12)
        np.testing.assert_allclose(_error_spans(ax, "b300 P10–P90"),
                                   [(r[f"{metric}_p10"], r[f"{metric}_p90"]) for r in rows], rtol=1e-12)
        assert unit in ax.get_ylabel() and ax.get_xlabel() and ax.get_title()
    assert any("P10–P90" in t for t in legend_texts(axes[-1]))
    assert axes[0].figure.get_suptitle()
    save(axes[0].figure, tmp_path, "costs")


def test_costs_on_a_given_ax_takes_one_metric(proj, comparison, tmp_path):
    fig, ax = plt.subplots(figsize=(9, 5), layout="constrained")
    with pytest.raises(ValueError, match="metrics"):
        lp.costs(proj, ax=ax)
    with pytest.raises(ValueError, match="metrics"):
        lp.costs(proj, metrics=("gpu_hours", "flops"))
    assert lp.costs(comparison, metrics=("cost_usd",), ax=ax) is ax
    for hw, p in comparison.projections.items():
        bars = [b for b in ax.patches if b.get_gid() == f"costs:cost_usd:{hw}"]
        np.testing.assert_allclose([b.get_height() for b in bars], [r["cost_usd"] for r in p.rows_dicts()])
        assert {matplotlib.colors.to_hex(b.get_facecolor()) for b in bars} == {lp.hardware_color(hw).lower()}
    assert "cost" in ax.get_title() and "USD" in ax.get_ylabel()
    assert any(t.startswith("b300 ($") for t in legend_texts(ax))
    save(fig, tmp_path, "costs_comparison_cost")


def test_costs_comparison_figure(comparison, tmp_path):
    axes = lp.costs(comparison)
    assert len(axes) == 3
    save(axes[0].figure, tmp_path, "costs_comparison")


# --- fit residuals --------------------------------------------------------------------


def test_residuals_per_record(fitted, tmp_path):
    ax = lp.residuals(fitted)
    res = 100 * fitted.relative_residuals
    bars = [p for p in ax.patches if p.get_gid() == "residuals:bars"]
    np.testing.assert_allclose([b.get_width() for b in bars], res, rtol=1e-12)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == fitted.records_used == 11
    # the file's step records by what tells them apart: GPUs, precision, compile...
    # labelled by kind and index in the measurements
    assert [lab.split(":")[0] for lab in labels] == [f"step #{i}" for i in fitted.record_indices]
    assert labels[0] == "step #0: llama-3.1-8b, 8 GPUs, seq 8,192, mb 2, TP 1, CP 1, AC selective, bf16, eager"
    assert labels[-1] == "step #10: llama-3.1-70b, 256 GPUs, seq 8,192, mb 16, TP 8, CP 1, AC full, fp8, compile"
    assert labels[6].startswith("step #6: llama-3.1-8b, 8 GPUs, seq 32,768, mb 1, TP 1, CP 1, AC full, fp8, compile")
    # each record's leave-one-out error, a hollow diamond on its bar
    each = 100 * fitted.loo_relative_errors
    finite = np.isfinite(each)
    assert finite.any()
    markers = one(ax, "residuals:loo_records")
    np.testing.assert_allclose(markers.get_xdata(), each[finite], rtol=1e-12)
    np.testing.assert_array_equal(markers.get_ydata(), np.arange(len(each))[finite])
    assert markers.get_marker() == "D" and markers.get_markerfacecolor() == "none"
    loo = 100 * fitted.loo_relative_error
    assert one(ax, "residuals:loo+").get_xdata()[0] == pytest.approx(loo)
    assert one(ax, "residuals:loo-").get_xdata()[0] == pytest.approx(-loo)
    assert one(ax, "residuals:zero").get_xdata()[0] == 0
    assert any("leave-one-out" in t for t in legend_texts(ax))
    assert_labelled(ax, "%")
    save(ax.figure, tmp_path, "residuals")


def test_residual_labels_fall_back_when_the_order_is_unknown(fitted, monkeypatch):
    monkeypatch.setattr(lp._fit, "record_labels", lambda _fit: None)
    ax = lp.residuals(fitted)
    assert ax.get_yticklabels()[0].get_text() == "#0 record 0"


def test_residuals_say_which_kinds_have_no_leave_one_out():
    kernels = [{"kind": "bandwidth", "hardware": "h100", "bytes": b, "seconds": b / 3.0e12 * (1 + e)}
               for b, e in ((1e9, 0.01), (4e9, -0.02), (16e9, 0.005))]
    fit = libscale.fit(kernels)
    ax = lp.residuals(fit)
    assert not by_gid(ax, "residuals:loo_records")
    assert "bandwidth records: no leave-one-out error" in legend_texts(ax)
    assert [t.get_text() for t in ax.get_yticklabels()][1] == "bandwidth #1: 3.81e+03 MiB"


# --- power triage ---------------------------------------------------------------------


def test_power_timeline(triaged, tmp_path):
    ax = lp.power_timeline(triaged)
    tr = triaged.trace
    t0 = triaged.first_start_s
    sel = tr.gpu == 0
    order = np.argsort(tr.time_s[sel], kind="stable")
    line = one(ax, "triage:gpu:0")
    np.testing.assert_allclose(line.get_xdata(), tr.time_s[sel][order] - t0)
    np.testing.assert_allclose(line.get_ydata(), tr.power_w[sel][order])
    assert line.get_xdata()[0] == 0
    spans = [a for a in ax.patches if (a.get_gid() or "").startswith("triage:phase:")]
    assert len(spans) == len(triaged.job_segments["start_s"])
    assert {s.get_gid() for s in spans} == {"triage:phase:compute", "triage:phase:checkpoint_or_deadlock"}
    (alert,) = triaged.alerts
    vline = one(ax, "triage:alert:deadlock")
    assert vline.get_xdata()[0] == pytest.approx(alert.time_s - t0)
    for key, w in triaged.bands.thresholds_w().items():
        assert one(ax, f"triage:band:{key}").get_ydata()[0] == pytest.approx(w)
    texts = legend_texts(ax)
    assert any(t.startswith("alert: deadlock at +871 s") for t in texts)
    assert any(t.startswith("compute (180 s)") for t in texts)
    assert "deadlock" in ax.get_title()
    assert_labelled(ax, "(W)", "(s)")
    save(ax.figure, tmp_path, "power_timeline")


def test_power_timeline_many_gpus_as_mean_and_envelope(tmp_path):
    gpus = lp._triage.MAX_GPU_LINES + 4
    lines = ["timestamp, index, power.draw [W], utilization.gpu [%]"]
    for t in range(240):
        watts = 650.0 if t < 120 or t >= 180 else 350.0  # compute, communication, compute
        lines += [f"2024/05/01 12:{t // 60:02d}:{t % 60:02d}.000, {g}, {watts + 2 * g:.1f} W, 100 %"
                  for g in range(gpus)]
    trace = tmp_path / "many.csv"
    trace.write_text("\n".join(lines) + "\n")
    r = libscale.triage(trace, hardware="h100")
    ax = lp.power_timeline(r)
    assert by_gid(ax, "triage:gpu:0") == []
    mean = one(ax, "triage:mean")
    assert list(mean.get_xdata()[:2]) == [0.0, 1.0]
    assert mean.get_ydata()[0] == pytest.approx(650.0 + (gpus - 1))
    envelope = one(ax, "triage:envelope").get_paths()[0].vertices
    ys = envelope[np.isclose(envelope[:, 0], 0.0), 1]
    assert (ys.min(), ys.max()) == pytest.approx((650.0, 650.0 + 2 * (gpus - 1)))
    assert {p.get_gid() for p in ax.patches if (p.get_gid() or "").startswith("triage:phase:")} == {
        "triage:phase:compute", "triage:phase:communication"}
    assert ax.get_title().endswith("no alerts")
    save(ax.figure, tmp_path, "power_timeline_many_gpus")


# --- packing gate ---------------------------------------------------------------------


def test_gate_ranks_fail(gate_fail, tmp_path):
    fig, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    assert lp.gate_ranks(gate_fail, ax=ax) is ax
    bars = [p for p in ax.patches if p.get_gid() == "gate:bars"]
    np.testing.assert_array_equal([b.get_height() for b in bars], gate_fail.micro_batches)
    lo, hi = gate_fail.min_micro_batches, gate_fail.max_micro_batches
    assert one(ax, "gate:min").get_ydata()[0] == lo and one(ax, "gate:max").get_ydata()[0] == hi
    fewest = bars[gate_fail.min_rank].get_facecolor()
    assert fewest != bars[gate_fail.max_rank].get_facecolor()
    assert ax.get_title().startswith(f"Packing gate FAIL: ranks differ by {gate_fail.difference}")
    assert f"{gate_fail.difference} micro-batches" in one(ax, "gate:difference").get_text()
    # zoomed so that the difference shows; the axis label says where it starts
    assert 0 < ax.get_ylim()[0] < lo and "axis starts at" in ax.get_ylabel()
    assert any("GPU-h at risk" in t for t in legend_texts(ax))
    assert_labelled(ax, "count", "rank")
    save(fig, tmp_path, "gate_fail")


def test_gate_ranks_pass(tmp_path):
    g = libscale.gate(np.full(64, 100, dtype=np.uint32), world_size=4, seq_len=100)
    assert g.passed
    ax = lp.gate_ranks(g)
    assert ax.get_title().startswith("Packing gate PASS")
    assert ax.get_ylim()[0] == 0 and by_gid(ax, "gate:max") == []
    save(ax.figure, tmp_path, "gate_pass")


# --- .plot() on the results -----------------------------------------------------------


def test_plot_methods(proj, fitted, triaged, gate_fail, comparison):
    for kind, gid in (("scaling", "scaling:b300:projected"), ("breakdown", "breakdown:gemm_s")):
        assert by_gid(proj.plot(kind), gid)
    _, ax = plt.subplots()
    assert proj.plot("costs", ax=ax, metrics=("gpu_hours",)) is ax
    assert len(proj.plot("costs")) == 3
    assert proj.plot("breakdown", normalized=True).get_ylabel().endswith("(%)")
    with pytest.raises(ValueError, match="kind"):
        proj.plot("pie")
    assert by_gid(fitted.plot(), "residuals:bars")
    assert by_gid(triaged.plot(), "triage:gpu:0")
    assert by_gid(gate_fail.plot(), "gate:bars")
    assert by_gid(comparison.plot("scaling"), "scaling:h200:projected")


def test_import_libscale_does_not_import_matplotlib():
    code = ("import sys, libscale; assert 'matplotlib' not in sys.modules, 'matplotlib imported'; "
            "sys.modules['matplotlib'] = None\n"
            "p = libscale.project('qwen3-32b', 'b300', gpus=[8])\n"
            "try:\n    p.plot()\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert "pip install 'libscale[plot]'" in out.stdout


def test_names_with_dollar_signs_are_drawn_as_written(tmp_path):
    """A name from a file is text, not TeX: "$^$" raised a ValueError at save time and a
    pair of prices would have been typeset as math."""
    hw = json.loads((ROOT / "calibration" / "data" / "hardware" / "h100.json").read_text())
    hw["name"], hw["display_name"] = "h100-dollar", "H100 $^$ lab"
    hw_path = tmp_path / "h100-dollar.json"
    hw_path.write_text(json.dumps(hw))
    p = libscale.project("qwen3-32b", hw_path, gpus=[8, 16], gpus_per_node=8)
    for ax in (lp.scaling(p), lp.breakdown(p), *np.ravel(lp.costs(p))):
        save(ax.figure, tmp_path, "dollar")
    trace = ROOT / "examples" / "traces" / "nccl-hang.csv"
    odd = tmp_path / "run $\\frac{1}{0$.csv"
    odd.write_bytes(trace.read_bytes())
    ax = lp.power_timeline(libscale.triage(odd, hardware="h100"))
    assert "run $\\frac{1}{0$.csv" in ax.get_title()
    save(ax.figure, tmp_path, "dollar-trace")


def test_a_solution_draws_its_candidates_and_marks_the_chosen_count(tmp_path: Path):
    s = libscale.solve_deadline("qwen3-32b", "b300", deadline_h=100, gpus=[4, 8, 16], **QWEN)
    assert s.found and s.row.step.gpus == 4
    axes = s.plot()  # costs: GPU-hours, cost, energy of each candidate
    for ax in np.atleast_1d(axes).ravel():
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == ["4\nchosen", "8", "16"], labels
        bold = [t.get_fontweight() for t in ax.get_xticklabels()]
        assert bold[0] == "bold" and bold[1] != "bold"
    # The bars are the candidates' own GPU-hours.
    heights = sorted(p.get_height() for p in np.atleast_1d(axes).ravel()[0].patches)
    assert heights == pytest.approx(sorted(r.gpu_hours for r in s.raw.candidates))
    save(np.atleast_1d(axes).ravel()[0].figure, tmp_path, "solution")
    scaling = s.plot("scaling")
    assert isinstance(scaling, Axes) and scaling.get_xticklabels()[0].get_text() == "4\nchosen"
