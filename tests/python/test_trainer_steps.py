"""libscale.trainer and `libscale trainer-steps`: the grid and its checks, the model cut to a
few layers, a run's result turned into step records and skipped cases, the file read back by
libscale's reader, `fit` and `validate`; without torch. With torch and transformers
importable (not in CI: they are several GB), real FSDP2 steps on the CPU with gloo."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import libscale
from conftest import ROOT, run_cli
from libscale import schemas, trainer
from libscale.cli import trainer_steps

DATA = ROOT / "tests" / "python" / "data" / "trainer_steps"
# A real run (trainer.run(...).to_dict()): qwen3-0.6b cut to 1 and 2 layers, 32 tokens, no
# and full checkpointing, 1 warm-up and 3 timed steps on a 2-core CPU with gloo, torch
# 2.15 and transformers 5.25. Records labelled h100 as given.
CPU_RUN = DATA / "cpu-qwen3-0.6b-run.json"

# PyTorch's CUDA caching allocator message (c10/cuda/CUDACachingAllocator.cpp), as a CUDA
# out-of-memory error reads, and the CPU allocator's (c10/core/impl/alloc_cpu.cpp).
CUDA_OOM = ("CUDA out of memory. Tried to allocate 18.55 GiB. GPU 0 has a total capacity of 139.80 GiB of which "
            "11.21 GiB is free. Including non-PyTorch memory, this process has 128.58 GiB memory in use. Of the "
            "allocated memory 117.71 GiB is allocated by PyTorch, and 9.43 GiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
CPU_OOM = ("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
           "allocate 549755813888 bytes. Error code 12 (Cannot allocate memory)")

TINY_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "max_window_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "head_dim": 16, "vocab_size": 256, "max_position_embeddings": 512, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000, "hidden_act": "silu", "attention_bias": False, "attention_dropout": 0.0,
    "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": None, "torch_dtype": "bfloat16"}


def _validator() -> Draft202012Validator:
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in map(schemas.load, schemas.names()))
    return Draft202012Validator(schemas.load("measurements-2"), registry=registry)


def _cpu_run() -> trainer.RunResult:
    return trainer.RunResult.from_dict(json.loads(CPU_RUN.read_text()))


def _cuda_run() -> trainer.RunResult:
    """A result shaped as a run on one H200 (hand-written, not measured: memory figures and
    a case that ran out of memory), for what only a CUDA run has."""
    env = trainer.Environment(device="cuda", device_name="NVIDIA H200", distributed_backend="nccl", world_size=1,
                              local_world_size=1, launcher="single process", torch="2.11.0+cu130",
                              transformers="5.17.0", cuda="13.0", cudnn=91900, nccl="2.28.9",
                              date="2026-12-04T14:00:00Z", hosts=("gpu-0",))
    settings = trainer.Settings(model="qwen3-32b", hardware="h200", warmup=2, steps=4)
    cut = {"num_hidden_layers": 8, "max_window_layers": 8}
    results = (
        trainer.CaseResult(trainer.Case(8, 8192, 1, "full"), cut, step_times_s=(0.7078, 0.7056, 0.7032, 0.7077),
                           memory_allocated_gib=89.49, memory_reserved_gib=96.25, parameters=5_456_616_448,
                           optimizer="fused"),
        trainer.CaseResult(trainer.Case(8, 2048, 4, "full"), cut, step_times_s=(0.7481, 0.7402, 0.7455, 0.7390),
                           memory_allocated_gib=88.12, memory_reserved_gib=94.0, parameters=5_456_616_448,
                           optimizer="fused"),
        trainer.CaseResult(trainer.Case(8, 16384, 1, "none"), cut, skipped=f"out of memory: {CUDA_OOM}"),
    )
    return trainer.RunResult(settings, "qwen3-32b", env, results)


def _fail_one_line(out: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("libscale: error: "), out.stderr
    for n in needles:
        assert n in lines[0], lines[0]


# --- without torch ----------------------------------------------------------------------


def test_importing_libscale_and_its_command_line_does_not_import_torch() -> None:
    code = ("import sys, libscale, libscale.cli, libscale.trainer; "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_grid_is_every_combination_in_order() -> None:
    cases = trainer.grid([4, 8], [2048, 8192], [1, 2], ["none", "full"], [1, 4])
    assert len(cases) == 2 * 2 * 2 * 2 * 2
    assert cases[0] == trainer.Case(4, 2048, 1, "none", 1) and cases[1] == trainer.Case(4, 2048, 1, "none", 4)
    assert cases[-1] == trainer.Case(8, 8192, 2, "full", 4)
    assert cases[-1].label == "L8-s8192-mb2-ga4-full"
    assert trainer.grid([4, 4], [2048], [1]) == [trainer.Case(4, 2048, 1, "full")]  # duplicates once


@pytest.mark.parametrize(("make", "message"), [
    (lambda: trainer.Case(0, 2048, 1, "full"), "layers = 0; expected an integer >= 1"),
    (lambda: trainer.Case(4, 2048, 1, "selective"), "activation_checkpointing = 'selective'; valid: none, full"),
    (lambda: trainer.Case(4, 2048, 1, "full", grad_accum=True), "grad_accum = True"),
    (lambda: trainer.Settings("qwen3-0.6b", "h100", reduce_dtype="fp16"), "reduce_dtype = 'fp16'; valid: fp32, bf16"),
    (lambda: trainer.Settings("qwen3-0.6b", "h100", warmup=0), "warmup = 0; expected an integer >= 1"),
    (lambda: trainer.Settings("qwen3-0.6b", "h100", attention_kernel="flash3"), "valid: flash2, cudnn, eager"),
    (lambda: trainer.Settings("", "h100"), "model = ''"),
    (lambda: trainer.grid([], [2048], [1]), "the grid is empty"),
])
def test_bad_cases_and_settings_say_what_is_valid(make: Any, message: str) -> None:
    with pytest.raises(ValueError) as e:
        make()
    assert message in str(e.value)


def test_catalog_models_are_cut_by_their_own_layer_key() -> None:
    qwen = trainer.model_config("Qwen3-32B")  # catalog names are case-insensitive
    assert qwen.name == "qwen3-32b" and qwen.num_layers == 64 and qwen.vocab_size == 151936
    assert "_libscale" not in qwen.config
    assert qwen.overrides(8) == {"num_hidden_layers": 8, "max_window_layers": 8}
    hf = qwen.hf_config(8)
    assert hf["num_hidden_layers"] == 8 and hf["use_cache"] is False and "torch_dtype" not in hf
    assert trainer.model_config("gpt2").overrides(3) == {"n_layer": 3}
    assert trainer.model_config("mpt-7b").overrides(2) == {"n_layers": 2}
    # libscale's reader sees the cut model: 8 of 64 layers, embeddings and head kept
    full, cut = libscale.count_parameters("qwen3-32b"), libscale.count_parameters(
        libscale._core.io.find_model("qwen3-32b", qwen.overrides(8)))
    assert cut.per_layer == full.per_layer and cut.layers == 8 * full.per_layer
    assert cut.embedding == full.embedding and cut.lm_head == full.lm_head
    with pytest.raises(ValueError, match="layers = 65 is more than qwen3-32b's 64 decoder layers"):
        qwen.overrides(65)


def test_a_config_json_path_is_read_and_named_by_its_absolute_path(tmp_path: Path) -> None:
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(TINY_CONFIG))
    m = trainer.model_config(str(tmp_path / "tiny"))  # the folder holding it
    assert m.name == str(tmp_path / "tiny" / "config.json") and m.num_layers == 2
    assert m.overrides(1) == {"num_hidden_layers": 1, "max_window_layers": 1}


# --- the command line: bad input is refused before any step runs --------------------------


SMALL = ["trainer-steps", "--model", "qwen3-0.6b", "--hardware", "h100", "--seq-len", "64", "--warmup", "1",
         "--steps", "1"]


@pytest.mark.parametrize(("extra", "needles"), [
    (["--layers", "0"], ["--layers: '0' is not a comma-separated list of positive integers"]),
    (["--activation-checkpointing", "none,selective"], ["--activation-checkpointing: 'selective' is not one of none,"
                                                        " full"]),
    (["--reduce-dtype", "fp16"], ["--reduce-dtype: invalid choice: 'fp16'"]),
    (["--warmup", "0"], ["--warmup: 0 is not a step count; give an integer >= 1"]),
    (["--steps", "-1"], ["--steps: -1 is not a step count"]),
    (["--layers", "29"], ["--layers 29: layers = 29 is more than qwen3-0.6b's 28 decoder layers"]),
    (["--seq-len", "65536"], ["case L4-s65536-mb1-ga1-full:", "longer than", "40960"]),
    (["--hardware", "h999"], ["--hardware h999:"]),
    (["--model", "./no-such-config.json"], ["--model ./no-such-config.json: ./no-such-config.json: no such file"]),
])
def test_bad_flags_exit_2_with_one_line(tmp_path: Path, extra: list[str], needles: list[str]) -> None:
    out_file = tmp_path / "steps.json"
    # each flag of `extra` replaces SMALL's (a flag given twice is an error of its own)
    args = list(SMALL)
    for flag, value in zip(extra[::2], extra[1::2], strict=True):
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    out = run_cli([*args, "-o", str(out_file)])
    _fail_one_line(out, *needles)
    assert not out_file.exists()


def test_an_output_folder_that_does_not_exist_is_refused_first(tmp_path: Path) -> None:
    out = run_cli([*SMALL, "-o", str(tmp_path / "no" / "steps.json")])
    _fail_one_line(out, f"-o {tmp_path / 'no' / 'steps.json'}: the folder {tmp_path / 'no'} does not exist")


def test_without_torch_the_command_says_what_to_install(tmp_path: Path) -> None:
    # sys.modules["torch"] = None makes `import torch` raise ImportError, as on a machine
    # without it (CI has none; this holds where it is installed too).
    out_file = tmp_path / "steps.json"
    code = ("import sys; sys.modules['torch'] = None; from libscale.cli import main; "
            f"sys.exit(main({[*SMALL, '-o', str(out_file)]!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    _fail_one_line(out, "trainer steps need torch and transformers", "pip install torch transformers")
    assert not out_file.exists()


def test_require_torch_names_the_missing_module_and_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(trainer.TorchMissingError) as e:
        trainer.require_torch()
    assert "transformers" in str(e.value) and str(e.value).endswith(": pip install torch transformers")
    assert isinstance(e.value, ImportError)


# --- a recorded result becomes a measurement file -----------------------------------------


def test_a_recorded_cpu_run_becomes_step_records() -> None:
    run = _cpu_run()
    raw = json.loads(CPU_RUN.read_text())
    doc = trainer.document(run, command="libscale trainer-steps ...")
    assert doc["schema"] == "libscale.measurements/2" and doc["skipped"] == []
    assert len(doc["records"]) == len(raw["results"]) == 4
    for rec, r in zip(doc["records"], raw["results"], strict=True):
        times = sorted(r["step_times_s"])
        assert rec["step_time_s"] == pytest.approx(times[1], abs=1e-6)  # the median of three
        assert rec["model"] == "qwen3-0.6b" and rec["hardware"] == "h100" and rec["gpus"] == 1
        assert rec["model_overrides"] == {"num_hidden_layers": r["case"]["layers"],
                                          "max_window_layers": r["case"]["layers"]}
        assert (rec["seq_len"], rec["micro_batch"], rec["grad_accum"]) == (32, 1, 1)
        assert rec["activation_checkpointing"] == r["case"]["activation_checkpointing"]
        # the CPU has no allocator statistics, and its times are not an H100's
        assert "memory_gib" not in rec and "memory_reserved_gib" not in rec
        assert rec["validation_exclude"].startswith("measured on the CPU")
        assert f"{r['parameters']:,} parameters" in rec["source"]
        # the parameter count of the real transformers model is libscale's of the cut model
        spec = libscale._core.io.find_model("qwen3-0.6b", rec["model_overrides"])
        assert r["parameters"] == libscale.count_parameters(spec).total
    assert doc["provenance"]["torch"] == raw["environment"]["torch"]
    assert doc["provenance"]["distributed_backend"] == "gloo" and "backend" not in doc["provenance"]
    assert {r["series"] for r in doc["records"]} == {"cpu-as-h100-fsdp2-transformers-qwen3-0.6b"}
    assert list(_validator().iter_errors(doc)) == []
    read = trainer.check(doc)
    assert len(read.steps) == 4
    assert [s.step_time_s for s in read.steps] == [r["step_time_s"] for r in doc["records"]]


def test_a_cuda_run_has_memory_and_its_out_of_memory_case_is_skipped() -> None:
    run = _cuda_run()
    doc = trainer.document(run)
    assert [r["seq_len"] for r in doc["records"]] == [8192, 2048]
    first = doc["records"][0]
    assert first["step_time_s"] == pytest.approx((0.7056 + 0.7077) / 2)  # median of four: mean of the middle two
    assert (first["memory_gib"], first["memory_kind"], first["memory_reserved_gib"]) == (89.49, "allocated", 96.25)
    assert "validation_exclude" not in first and first["series"] == "h200-fsdp2-transformers-qwen3-32b"
    assert first["attention_kernel"] == "flash2" and first["reduce_dtype"] == "fp32"
    assert "5,456,616,448 parameters" in first["source"] and "max_memory_reserved" in first["source"]
    [skip] = doc["skipped"]
    assert (skip["phase"], skip["case"], skip["rank"]) == ("trainer_steps", "L8-s16384-mb1-ga1-none", 0)
    assert skip["why"].startswith("out of memory: CUDA out of memory. Tried to allocate 18.55 GiB")
    assert len(skip["why"]) <= 400 and skip["why"].endswith("...")
    # the configuration that did not fit, as a record would carry it (no time)
    assert skip["config"]["seq_len"] == 16384 and skip["config"]["activation_checkpointing"] == "none"
    assert "step_time_s" not in skip["config"]
    assert list(_validator().iter_errors(doc)) == []
    rows = trainer.table_rows(run)
    assert [r["status"] for r in rows] == ["measured", "measured", "skipped: out of memory"]
    assert rows[1]["tokens_per_s_per_gpu"] == pytest.approx(4 * 2048 / ((0.7402 + 0.7455) / 2))
    assert rows[2]["step_time_s"] is None


def test_out_of_memory_messages_are_recognized() -> None:
    for message in (CUDA_OOM, CPU_OOM, "CUDA error: out of memory", "CUBLAS_STATUS_ALLOC_FAILED when calling "
                    "cublasCreate(handle)"):
        assert trainer.is_out_of_memory_message(message), message
    for message in ("No available kernel. Aborting execution.", "NCCL error: unhandled system error"):
        assert not trainer.is_out_of_memory_message(message), message


def test_a_result_survives_to_dict_and_back() -> None:
    run = _cuda_run()
    back = trainer.RunResult.from_dict(json.loads(json.dumps(run.to_dict())))
    assert back == run and trainer.document(back) == trainer.document(run)


def test_a_case_without_times_must_say_why() -> None:
    with pytest.raises(ValueError, match="no step times and no reason"):
        trainer.CaseResult(trainer.Case(4, 2048, 1, "full"), {"num_hidden_layers": 4})
    with pytest.raises(ValueError, match=r"step_times_s = 0\.0; expected a finite number > 0"):
        trainer.CaseResult(trainer.Case(4, 2048, 1, "full"), {}, step_times_s=(0.0,))


def test_the_file_is_read_fitted_and_validated_by_libscale(tmp_path: Path) -> None:
    doc = trainer.document(_cuda_run())
    path = tmp_path / "steps.json"
    path.write_text(json.dumps(doc))
    m = libscale.read_measurements(path)
    assert m.step_count == 2 and m.hardware == ["h200"]
    back = m.to_json()["records"]
    for written, read in zip(doc["records"], back, strict=True):
        for key in ("model", "model_overrides", "seq_len", "micro_batch", "activation_checkpointing",
                    "reduce_dtype", "attention_kernel", "memory_gib", "memory_kind", "step_time_s"):
            assert read[key] == written[key], key
    fitted = tmp_path / "fitted.json"
    out = run_cli(["fit", str(path), "-o", str(fitted), "--json"])
    assert out.returncode == 0, out.stderr
    fit = json.loads(out.stdout)
    assert fit["hardware"] == "h200" and fit["records_used"] == 2
    assert json.loads(fitted.read_text())["kind"] == "fitted"
    out = run_cli(["validate", str(path), "--json"])
    assert out.returncode == 0, out.stderr
    v = json.loads(out.stdout)
    # one series: calibrated on its first row (category x), the second predicted (c: another
    # sequence length / batch); the measured memory is shown beside the estimate
    assert [(s["series"], s["rows"]) for s in v["series"]] == [("h200-fsdp2-transformers-qwen3-32b", 2)]
    assert [r["category"] for r in v["rows"]] == ["x", "c"]
    assert [(r["published_memory_gib"], r["published_memory_kind"]) for r in v["rows"]] == [
        (89.49, "allocated"), (88.12, "allocated")]


def test_the_commands_output_formats(capsys: pytest.CaptureFixture[str]) -> None:
    run = _cuda_run()
    doc, rows = trainer.document(run), trainer.table_rows(run)
    trainer_steps.emit(doc, rows, "json", "out.json")
    assert json.loads(capsys.readouterr().out) == doc
    trainer_steps.emit(doc, rows, "csv", "out.json")
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["status"] for r in table] == ["measured", "measured", "skipped: out of memory"]
    assert float(table[0]["memory_reserved_gib"]) == 96.25
    trainer_steps.emit(doc, rows, "table", "out.json")
    text = capsys.readouterr().out
    assert "reserved GiB" in text and "wrote out.json: 2 step records, 1 cases skipped" in text


# --- with torch: real FSDP2 steps on the CPU (gloo) -----------------------------------------


def _need_torch() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")


def test_cpu_steps_of_a_tiny_model_through_the_command(tmp_path: Path) -> None:
    _need_torch()
    (tmp_path / "tiny").mkdir()
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(TINY_CONFIG))
    out_file = tmp_path / "steps.json"
    out = run_cli(["trainer-steps", "--model", str(tmp_path / "tiny" / "config.json"), "--hardware", "h100",
                   "--layers", "1,2", "--seq-len", "32", "--micro-batch", "1,2", "--activation-checkpointing",
                   "none,full", "--warmup", "1", "--steps", "3", "-o", str(out_file), "--json"])
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert json.loads(out_file.read_text()) == doc
    assert len(doc["records"]) == 8 and doc["skipped"] == []
    assert len(out.stderr.strip().splitlines()) == 8  # one progress line per case
    import torch

    cuda = torch.cuda.is_available()
    for rec in doc["records"]:
        assert 0 < rec["step_time_s"] < 60
        assert rec["model_overrides"]["num_hidden_layers"] in (1, 2)
        assert ("memory_gib" in rec) == cuda and ("memory_reserved_gib" in rec) == cuda
        spec = libscale._core.io.find_model(rec["model"], rec["model_overrides"])
        assert f"{libscale.count_parameters(spec).total:,} parameters" in rec["source"]
    assert doc["provenance"]["device"] == ("cuda" if cuda else "cpu")
    assert list(_validator().iter_errors(doc)) == []
    assert len(libscale.read_measurements(out_file).raw.steps) == 8
    fitted = run_cli(["fit", str(out_file), "-o", str(tmp_path / "fitted.json"), "--json"])
    assert fitted.returncode == 0, fitted.stderr
    assert json.loads(fitted.stdout)["records_used"] == 8


def test_cpu_steps_of_a_catalog_model_with_accumulation_and_an_out_of_memory_case() -> None:
    """qwen3-0.6b cut to one layer; a micro-batch whose token tensor alone is 8 PiB (more
    than any 64-bit process can map, whatever the overcommit policy) is refused by the
    allocator (CPU or GPU), recorded as skipped, and the run goes on."""
    _need_torch()
    settings = trainer.Settings(model="qwen3-0.6b", hardware="h100", warmup=1, steps=1, grad_sync="last_micro_batch",
                                reduce_dtype="bf16")
    cases = [trainer.Case(1, 1024, 1 << 40, "none"), trainer.Case(1, 16, 1, "full", grad_accum=2)]
    lines: list[str] = []
    run = trainer.run(settings, cases, progress=lines.append)
    skipped, measured = run.results
    assert skipped.skipped is not None and trainer.is_out_of_memory_message(skipped.skipped)
    assert "9007199254740992 bytes" in skipped.skipped or "8388608.00 GiB" in skipped.skipped
    assert measured.skipped is None and len(measured.step_times_s) == 1 and measured.step_times_s[0] > 0
    assert measured.optimizer.startswith(("fused", "foreach"))
    spec = libscale._core.io.find_model("qwen3-0.6b", measured.model_overrides)
    assert measured.parameters == libscale.count_parameters(spec).total
    assert len(lines) == 2 and lines[0].startswith("L1-s1024-mb1099511627776-ga1-none: skipped (out of memory")
    doc = trainer.document(run)
    [rec] = doc["records"]
    assert (rec["grad_accum"], rec["grad_sync"], rec["reduce_dtype"]) == (2, "last_micro_batch", "bf16")
    assert doc["skipped"][0]["case"] == "L1-s1024-mb1099511627776-ga1-none"
    assert len(trainer.check(doc).steps) == 1
