"""Result conversions: repr (from the C++ operator<<), to_dict, to_pandas, _repr_html_,
and the message when pandas is missing."""

from __future__ import annotations

import json
import sys
from html import escape as html_escape
from pathlib import Path

import pytest

import libscale
from conftest import UNCALIBRATED
from libscale.results import struct_to_dict


@pytest.fixture(scope="module")
def projection():
    return libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], gpus_per_node=8,
                            global_batch_tokens=1_048_576, tokens=1e9)


def test_repr_comes_from_the_cpp_stream_operators(qwen, b300, projection):
    assert repr(qwen).startswith("ModelSpec(name='qwen3-32b'")
    assert f"num_layers={qwen.num_layers}" in repr(qwen)
    assert repr(b300).startswith("HardwareProfile(name='b300'")
    s = projection.rows[0].step
    assert repr(s).startswith(f"StepBreakdown(gpus={s.gpus}, nodes={s.nodes}, grad_accum={s.grad_accum}")
    assert repr(s.memory).startswith("MemoryBreakdown(total_gib=")
    assert repr(projection).startswith("Projection(scaling='strong', rows=[ProjectionRow(gpus=4")
    assert repr(libscale.TrainingConfig(strategy="hsdp")).count("strategy='hsdp'") == 1
    assert repr(libscale.Job()) == "Job()"
    assert repr(libscale.Job(epochs=2.5, price_per_gpu_hour_usd=3)) == "Job(epochs=2.5, price_per_gpu_hour_usd=3.0)"
    assert repr(libscale.count_parameters(qwen)).startswith(f"ParameterCounts(total={qwen.parameters}")
    assert "FlopsPerToken(forward=" in repr(libscale.flops_per_token(qwen))
    cal = libscale.default_calibration(b300)
    assert repr(cal).startswith("Calibration(hardware='b300', kind='default'")
    assert repr(cal.gemm) == (f"GemmLaw(eta_max={cal.gemm.eta_max:g}, fp8_eta_max={cal.gemm.fp8_eta_max:g}, "
                              f"tile_m={cal.gemm.tile_m:g}, tile_n={cal.gemm.tile_n:g}, k_half={cal.gemm.k_half:g})")
    assert repr(cal.attention).startswith(f"AttentionLaw(forward_eta_max={cal.attention.forward_eta_max:g}, ")
    assert repr(s.memory).count("status='fits'") == 1


def test_step_to_dict_has_every_field_and_nested_memory():
    s = libscale.estimate_step("qwen3-32b", "b300", gpus=8)
    full = s.to_dict()  # one fixed shape: the schema tag, the plan's context, the step
    assert full["schema"] == "libscale.step/1" and full["config"]["gpus"] == 8 and full["model"]["name"] == "qwen3-32b"
    d = full["step"]
    assert d == s.fields()
    for k in ("gpus", "nodes", "grad_accum", "step_time_s", "tokens_per_s", "mfu", "hfu", "compute_s", "gemm_s",
              "attention_s", "memory_bound_s", "host_wait_s", "comm_s", "exposed_comm_s", "optimizer_s", "data_s",
              "checkpoint_s", "comm_hidden", "memory_gib"):
        assert d[k] == getattr(s, k), k
    assert "eta" not in d
    assert d["memory"]["total_gib"] == s.memory.total_gib and d["memory"]["status"] == "fits"
    assert d["memory"]["fragmentation_gib"] == s.memory.fragmentation_gib
    json.dumps(d)  # plain Python values only
    times = libscale._core.estimate.compute_times(libscale.model("qwen3-32b"), libscale.hardware("b300"), None,
                                                  libscale.training_config(gpus=8))
    assert struct_to_dict(times)["micro_batch_s"] == times.micro_batch_s and repr(times).startswith("ComputeTimes(")


def test_step_outputs_are_the_field_tables():
    # Every output the core declares is a typed property of the step, a key of its dict in
    # the table's order, and a line of its text form with the table's label.
    s = libscale.estimate_step("qwen3-32b", "b300", gpus=8)
    fields = libscale._core.estimate.step_fields()
    d = s.to_dict()["step"]
    assert [f["name"] for f in fields] == [k for k in d if k != "memory"]
    kinds = {"integer": int, "number": float, "boolean": bool}
    for f in fields:
        assert type(getattr(s, f["name"])) is kinds[f["type"]], f["name"]
    assert s.fits is s.memory.fits and s.memory_gib == s.memory.total_gib
    # an output derived in its table entry alone
    assert s.energy_per_token_j == pytest.approx(s.energy_per_step_j / s.tokens_per_step, rel=1e-15)
    text = s.text()
    for f in fields:
        assert libscale._format.field_header(f) in text, f["name"]
    # the memory breakdown's numbers and a projection row's, from their tables the same way
    memory = d["memory"]
    for f in libscale._core.estimate.memory_fields():
        value = getattr(s.memory, f["name"])
        assert type(value) is kinds[f["type"]] and memory[f["name"]] == value
    row = libscale.project("qwen3-32b", "b300", gpus=[8, 16]).rows[1]
    row_dict = row.to_dict()
    for f in libscale._core.estimate.row_fields():
        value = getattr(row, f["name"])
        assert type(value) is kinds[f["type"]] and row_dict[f["name"]] == value
    assert row.scaling_efficiency == pytest.approx(row.speedup / 2, rel=1e-12)


def test_default_global_batch_is_said_where_it_depends_on_the_counts():
    many = libscale.project("qwen3-8b", "h100", gpus=[8, 64])
    one = libscale.project("qwen3-8b", "h100", gpus=[8])
    # One micro-batch on each of lcm(8, 64) GPUs: 8 accumulation steps at 8 GPUs, and the
    # header says why; alone, 8 GPUs take one micro-batch each.
    assert many.rows[0].step.grad_accum == 8 and one.rows[0].step.grad_accum == 1
    assert "one micro-batch on each of 64 GPUs, the least common multiple" in many.text()
    assert "least common multiple" not in one.text()
    fixed = libscale.project("qwen3-8b", "h100", gpus=[8, 64], global_batch_tokens=524_288)
    assert "least common multiple" not in fixed.text()
    assert fixed.rows[0].step.step_time_s == many.rows[0].step.step_time_s


def test_projection_to_dict_carries_context(projection, qwen):
    d = projection.to_dict()
    assert d["model"]["name"] == "qwen3-32b" and d["model"]["parameters"] == qwen.parameters
    assert d["hardware"]["name"] == "b300" and d["calibration"]["kind"] == "default"
    assert d["config"]["gpus"] == [4, 8, 16] and d["config"]["global_batch_tokens"] == 1_048_576
    assert [r["gpus"] for r in d["rows"]] == [4, 8, 16]
    assert d["rows"][2]["gpu_hours"] == projection.rows[2].gpu_hours
    assert d["comm_exposed_from_gpus"] == projection.comm_exposed_from_gpus


def test_projection_to_pandas_one_row_per_gpu_count(projection):
    pd = pytest.importorskip("pandas")
    df = projection.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert df["gpus"].tolist() == [4, 8, 16]
    assert list(df.columns[:4]) == ["gpus", "nodes", "grad_accum", "step_time_s"]
    for col in ("tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu", "scaling_efficiency", "speedup",
                "memory_gib", "wall_time_h", "gpu_hours", "cost_usd", "energy_kwh", "memory_weights_gib"):
        assert col in df.columns, col
    assert (df["gpu_hours"] == [r.gpu_hours for r in projection.rows]).all()


def test_html_reprs(projection):
    html = projection._repr_html_()
    assert html.count("<tr>") == 4                      # header + 3 GPU counts
    assert UNCALIBRATED in html and "MFU %" in html
    step_html = libscale.estimate_step("qwen3-32b", "b300", gpus=8)._repr_html_()
    assert "<table>" in step_html and "GEMM s" in step_html and ">yes<" in step_html
    misfit = libscale.project("qwen3-32b", "h100", gpus=[4, 16], global_batch_tokens=1_048_576)._repr_html_()
    assert "NO (" in misfit and "to fit, try" in misfit
    s = libscale.solve_deadline("qwen3-32b", "b300", deadline_h=100, gpus=[4, 8], global_batch_tokens=1_048_576)
    assert "chosen: 4 GPUs" in s._repr_html_()
    # With quantiles Jupyter shows what text() shows: each figure with its P10-P90.
    q = libscale.project("qwen3-32b", "b300", gpus=[8, 16], quantiles=True)
    q_html = q._repr_html_()
    assert "P10" in q_html and q_html.count("<tr>") == 3
    for header in q.text().splitlines()[2].split("  "):
        if header.strip():
            assert html_escape(header.strip()) in q_html, header


def test_solution_to_dict_and_pandas():
    s = libscale.solve_budget("qwen3-32b", "b300", max_gpu_hours=1e6, gpus=[4, 8, 16], global_batch_tokens=1_048_576)
    d = s.to_dict()
    assert d["found"] and d["row"]["gpus"] == 16
    assert d["target"] == {"max_gpu_hours": 1e6, "max_cost_usd": None}
    assert [r["gpus"] for r in d["candidates"]] == [4, 8, 16]
    pytest.importorskip("pandas")
    df = s.to_pandas()
    assert df["chosen"].tolist() == [False, False, True]


def test_to_pandas_without_pandas_says_how_to_install(monkeypatch, projection):
    monkeypatch.setitem(sys.modules, "pandas", None)     # import pandas -> ImportError
    with pytest.raises(ImportError, match="pip install pandas"):
        projection.to_pandas()
    with pytest.raises(ImportError, match="pip install pandas"):
        libscale.sweep("qwen3-32b", "b300", gpus=8).to_pandas()


def test_to_jsonable_turns_nan_into_null():
    r = libscale.sweep("qwen3-32b", "b300", gpus=[8, 12], global_batch_tokens=1_048_576)
    text = json.dumps(libscale.to_jsonable(r.records()), allow_nan=False)
    rows = json.loads(text)
    assert rows[1]["step_time_s"] is None and rows[0]["step_time_s"] == r.step_time_s[0]


# --- fit, triage, gate and pack: wrappers over the compiled results ----------------------

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "calibration" / "data" / "measurements" / "torchtitan-llama3.1-8b-h100.json"
LENGTHS = [(i * 7919) % 3000 + 40 for i in range(600)]


def test_wrappers_hold_the_compiled_result_and_nothing_is_patched_onto_it():
    results = {libscale.FitResult: libscale.fit(MEASUREMENTS),
               libscale.TriageResult: libscale.triage(ROOT / "examples" / "traces" / "nccl-hang.csv"),
               libscale.GateResult: libscale.gate(LENGTHS, world_size=4, seq_len=4096),
               libscale.PackResult: libscale.pack(LENGTHS, seq_len=4096)}
    for cls, r in results.items():
        assert type(r) is cls and type(r.raw).__module__.startswith("libscale._core")
        for name in ("to_pandas", "_repr_html_", "write", "bins", "timeline_frame"):
            assert not hasattr(type(r.raw), name), f"{type(r.raw).__name__}.{name} patched on"
        # The compiled to_dict is the binding's, made from its field list: plain fields, no schema tag.
        if hasattr(type(r.raw), "_fields"):
            raw = r.raw.to_dict()
            assert "schema" not in raw and list(raw)[: len(type(r.raw)._fields)] == list(type(r.raw)._fields)
        with pytest.raises(AttributeError):   # no dynamic_attr: nothing can be stored on them
            r.raw.anything = 1
        assert r.to_dict()["schema"] == cls.SCHEMA and str(r) == r.text()
        assert json.loads(r.to_json())["schema"] == cls.SCHEMA and r.to_csv().count("\n") == len(r.records()) + 1


def test_fit_result_reads_through_and_records_what_it_wrote(tmp_path):
    r = libscale.fit(MEASUREMENTS)
    assert r.hardware.name == "h100" and r.sources == [str(MEASUREMENTS)] and r.notes == []
    assert r.records_used == 11 and r.coefficients[0].name == "gemm.eta_max"   # the compiled fields
    assert r.calibration.hardware == "h100" and r.output == "" and "wrote" not in r.text()
    r.write(tmp_path / "cal.json", provenance={"command": "test"})
    d = r.to_dict()
    assert d["output"] == str(tmp_path / "cal.json") and d["provenance"]["command"] == "test"
    assert d["provenance"]["source"] == [str(MEASUREMENTS)] and r.text().endswith("hardware h100)")
    assert libscale.read_calibration(tmp_path / "cal.json", "h100").calibration.gemm.eta_max == \
        pytest.approx(r.calibration.gemm.eta_max)
    assert [row["name"] for row in r.records()] == [c.name for c in r.coefficients]
    assert "<table>" in r._repr_html_() and "gemm.eta_max" in r._repr_html_()


def test_triage_result_tables():
    r = libscale.triage(ROOT / "examples" / "traces" / "nccl-hang.csv")
    rows = r.records()
    assert [x["phase"] for x in rows] == list(libscale.PHASE_NAMES)
    assert sum(x["percent"] for x in rows) == pytest.approx(100.0)
    assert [a.kind for a in r.alerts] == ["deadlock"] and r.bands.label.startswith("default")
    assert "alerts (1):" in r.text() and "deadlock" in r._repr_html_()
    pytest.importorskip("pandas")
    frame = r.to_pandas()
    assert list(frame["phase"].cat.categories) == list(libscale.PHASE_NAMES)
    assert len(frame) == len(r.to_dict()["timeline"])


def test_triage_options_are_the_schema_s_and_checked_by_the_core():
    o = libscale.triage_options(smoothing_window_s=3.0, checkpoint_interval_s=100, checkpoint_duration_s=10,
                                checkpoint_windows=[(5, 6)])
    # expected_checkpoint_s not set: the core takes the declared saves' 10 s (T = max(2 x 10 s, 60 s))
    assert o.classifier.smoothing_window_s == 3.0 and o.detector.expected_checkpoint_s == 0
    assert o.detector.deadlock_threshold_s == 60
    assert o.detector.checkpoints.windows == [(5.0, 6.0)]
    with pytest.raises(ValueError, match=r"unknown triage option 'smoothing'.*smoothing_window_s"):
        libscale.triage_options(smoothing=3.0)
    with pytest.raises(ValueError, match="checkpoint_interval_s needs checkpoint_duration_s"):
        libscale.triage_options(checkpoint_interval_s=100)


def test_gate_and_pack_results():
    g = libscale.gate(LENGTHS, world_size=4, seq_len=4096, micro_batch=2, shard_before_packing=True)
    assert not g.passed and g.text().splitlines()[-1].startswith("FAIL: ")
    assert [x["rank"] for x in g.records()] == [0, 1, 2, 3] and g.to_dict()["ranks"] == g.records()
    p = libscale.pack(LENGTHS, seq_len=4096)
    bins = p.bins()
    assert len(bins) == p.num_bins and sum(len(b) for b in bins) == len(LENGTHS)
    assert [x["tokens"] for x in p.records()] == p.bin_tokens.tolist() and p.to_dict()["num_bins"] == p.num_bins


def test_a_solver_says_which_counts_it_left_out_and_why():
    # 4,194,304 tokens are 512 sequences of 8,192: 72, 80 and 96 GPUs do not divide them.
    s = libscale.solve_deadline("llama-3.1-70b", "h100", deadline_h=100, gpus=[64, 72, 80, 96, 128],
                                seq_len=8192, global_batch_tokens=4_194_304, tokens=2e10)
    assert [r.step.gpus for r in s.raw.candidates] == [64, 128]
    said = ("left out: 72, 80, 96 GPUs (the global batch of 4,194,304 tokens is not a whole number of "
            "micro-batches of 1 x 8,192 tokens on each of them)")
    assert s.text().splitlines()[-1] == said
    assert said in s._repr_html_()
    assert s.left_out() == said
    every = libscale.solve_deadline("llama-3.1-70b", "h100", deadline_h=100, gpus=[64, 128], seq_len=8192,
                                    global_batch_tokens=4_194_304, tokens=2e10)
    assert every.left_out() == "" and "left out" not in every.text()


def test_a_missed_deadline_says_how_many_gpus_it_takes_at_least():
    s = libscale.solve_deadline("llama-3.1-70b", "h100", deadline_h=20, gpus=[64, 128], seq_len=8192,
                                global_batch_tokens=4_194_304, tokens=2e10)
    assert not s.found
    best = min(s.raw.candidates, key=lambda r: r.wall_time_h)
    at_least = -(-best.step.gpus * best.wall_time_h // 20)
    assert s.needed().startswith(f"the fastest that fits, {best.step.gpus} GPUs, needs {best.wall_time_h:,.1f} h: "
                                 f"20 h takes at least {int(at_least):,} GPUs")
    assert s.text().splitlines()[-1] == s.needed()
    # Strong scaling is at best linear in the model, so the bound holds: that many GPUs, or
    # the next count the global batch allows, are not enough below it.
    below = libscale.project("llama-3.1-70b", "h100", gpus=[256], seq_len=8192, global_batch_tokens=4_194_304,
                             tokens=2e10)
    assert below.rows[0].wall_time_h > 20
    assert libscale.solve_deadline("llama-3.1-70b", "h100", deadline_h=100, gpus=[128], seq_len=8192,
                                   global_batch_tokens=4_194_304, tokens=2e10).needed() == ""
