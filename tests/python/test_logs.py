"""Trainer logs -> step records (bindings/libscale/logs/). Expected values are computed here
from the fixtures' own numbers (tests/python/data/logs), not copied from the parser's output."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import libscale
from libscale import logs

DATA = Path(__file__).resolve().parent / "data" / "logs"
CFG = dict(model="llama-3.1-8b", hardware="h100")
MB = dict(seq_len=8192, micro_batch=1)  # for inline texts that do not say


def test_errors_are_libscale_parse_errors():
    assert logs.ParseError is libscale.ParseError
    assert issubclass(logs.ParseError, ValueError)


# --- Hugging Face Trainer ---------------------------------------------------------------


def test_hf_console_log_old_float_style():
    recs = logs.parse_hf(DATA / "hf_trainer.log", seq_len=4096, **CFG)
    assert recs.format == "hf" and len(recs) == 1
    r = recs[0]
    # banner: 2 per device, accumulation 4, total 64 -> 64 / (2 x 4) GPUs; 800 steps
    assert r["kind"] == "step"
    assert (r["gpus"], r["micro_batch"], r["grad_accum"], r["seq_len"]) == (64 // (2 * 4), 2, 4, 4096)
    assert r["step_time_s"] == pytest.approx(11848.5225 / 800)
    assert "tokens_per_s" not in r and "tokens_per_s_per_gpu" not in r
    # train_tokens_per_second is per device in the Trainer: kept for reference only
    assert r["reported_tokens_per_s_per_gpu"] == pytest.approx(2212.462)
    # ... and it agrees with per-device tokens per optimisation step / step time
    assert 2 * 4 * 4096 / r["step_time_s"] == pytest.approx(2212.462, rel=1e-4)
    assert r["model"] == "llama-3.1-8b" and r["hardware"] == "h100"
    assert r["source"].endswith("hf_trainer.log:23")
    # the Trainer's own rounded train_steps_per_second agrees to its 3 decimals
    assert round(1 / r["step_time_s"], 3) == 0.068


def test_hf_console_log_new_string_style_with_progress_bars():
    with pytest.raises(libscale.ParseError,
                       match=r"hf_trainer_new\.log:\d+: seq_len: not found in the log; pass seq_len="):
        logs.parse_hf(DATA / "hf_trainer_new.log", **CFG)  # an HF log never says it
    recs = logs.parse_hf(DATA / "hf_trainer_new.log", seq_len=4096, **CFG)
    r = recs[0]
    assert (r["gpus"], r["micro_batch"], r["grad_accum"]) == (32 // (1 * 2), 1, 2)
    assert r["step_time_s"] == pytest.approx(5683 / 625)
    assert r["seq_len"] == 4096


def test_hf_trainer_state_json():
    recs = logs.parse_hf(DATA / "trainer_state.json", gpus=8, seq_len=2048, **CFG)
    r = recs[0]
    assert r["step_time_s"] == pytest.approx(3421.8804 / 400)
    assert r["micro_batch"] == 4 and r["gpus"] == 8
    assert "log_history[4]" in r["source"]


def test_hf_without_step_count_uses_steps_per_second():
    text = "{'train_runtime': 100.0, 'train_samples_per_second': 8.0, 'train_steps_per_second': 0.25, 'epoch': 1.0}\n"
    recs = logs.parse_hf(text, gpus=4, **CFG, **MB)
    assert recs[0]["step_time_s"] == pytest.approx(1 / 0.25)
    assert any("train_steps_per_second" in n for n in recs.notes)


def test_hf_tokens_only_is_per_gpu():
    text = "{'train_runtime': 100.0, 'train_tokens_per_second': 4321.5, 'epoch': 1.0}\n"
    r = logs.parse_hf(text, gpus=4, **CFG, **MB)[0]
    assert r["tokens_per_s_per_gpu"] == 4321.5 and "step_time_s" not in r


def test_hf_resumed_run_counts_only_steps_after_resume():
    text = ("  Total optimization steps = 1,000\n"
            "  Continuing training from global step 600\n"
            "{'train_runtime': 800.0, 'train_steps_per_second': 1.25, 'epoch': 1.0}\n")
    recs = logs.parse_hf(text, gpus=8, **CFG, **MB)
    assert recs[0]["step_time_s"] == pytest.approx(800.0 / (1000 - 600))
    assert any("resumed" in n for n in recs.notes)


def test_hf_given_value_conflicting_with_log_names_both():
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_hf(DATA / "hf_trainer.log", micro_batch=4, **CFG)
    assert "micro_batch" in str(e.value) and "2" in str(e.value) and "4" in str(e.value)


# --- torchtitan ------------------------------------------------------------------------


def test_torchtitan_current_format():
    recs = logs.parse_torchtitan(DATA / "torchtitan.log", **CFG)
    assert recs.format == "torchtitan" and len(recs) == 1
    r = recs[0]
    # logged steps 1, 10, 20, ..., 80; the first two are warm-up; 'validate step' is not a step
    kept_tps = [5762, 5755, 5790, 5748, 5771, 5702, 5769]
    kept_mfu = [28.32, 28.29, 28.46, 28.25, 28.37, 28.03, 28.36]
    assert r["tokens_per_s_per_gpu"] == pytest.approx(float(np.median(kept_tps)))
    assert r["samples"] == len(kept_tps)
    assert r["p10_tokens_per_s_per_gpu"] == pytest.approx(np.percentile(kept_tps, 10))
    assert r["p90_tokens_per_s_per_gpu"] == pytest.approx(np.percentile(kept_tps, 90))
    assert r["memory_gib"] == pytest.approx(52.91)
    assert r["reported_mfu"] == pytest.approx(np.median(kept_mfu) / 100)
    assert r["step_range"] == [20, 80]
    # configuration from the log: mesh [8], init line, AC and FSDP lines
    assert (r["gpus"], r["micro_batch"], r["grad_accum"], r["seq_len"]) == (8, 1, 1, 8192)
    assert r["activation_checkpointing"] == "selective" and r["strategy"] == "fsdp"
    assert "step_time_s" not in r and "tokens_per_s" not in r


def test_torchtitan_old_wps_format_with_colour_codes():
    r = logs.parse_torchtitan(DATA / "torchtitan_wps.log", **CFG)[0]
    assert r["gpus"] == 8 * 2  # 2-D mesh [8, 2]
    assert r["tokens_per_s_per_gpu"] == pytest.approx(float(np.median([3012, 2999, 3020])))
    assert (r["micro_batch"], r["seq_len"], r["activation_checkpointing"]) == (2, 4096, "full")
    assert "reported_tflops" not in r


def test_torchtitan_skip_first_is_configurable():
    all_tps = [812, 5731, 5762, 5755, 5790, 5748, 5771, 5702, 5769]
    r = logs.parse_torchtitan(DATA / "torchtitan.log", skip_first=0, **CFG)[0]
    assert r["samples"] == 9 and r["tokens_per_s_per_gpu"] == pytest.approx(np.median(all_tps))
    r = logs.parse_torchtitan(DATA / "torchtitan.log", skip_first=5, **CFG)[0]
    assert r["tokens_per_s_per_gpu"] == pytest.approx(np.median(all_tps[5:]))


def test_torchtitan_half_written_last_line_is_skipped_with_a_note():
    recs = logs.parse_torchtitan(DATA / "torchtitan_truncated.log", **CFG)
    kept = [5762, 5755, 5790, 5748, 5771, 5702]  # step 80's line was cut before tps
    assert recs[0]["tokens_per_s_per_gpu"] == pytest.approx(np.median(kept))
    assert any("half-written" in n and ":" in n for n in recs.notes)


def test_torchtitan_gpu_count_conflict_names_both():
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_torchtitan(DATA / "torchtitan.log", gpus=16, **CFG)
    msg = str(e.value)
    assert "gpus" in msg and "8" in msg and "16" in msg and "device mesh" in msg


def test_torchtitan_several_ranks_and_restart():
    line = ("[rank{r}]:[titan] x - root - INFO - step: {s:2}  loss:  7.0000  memory: 10.00GiB(10.00%)  "
            "tps: {t:,}  tflops: 1.00  mfu: 1.00%")
    rows = []
    for s, t in [(1, 100), (2, 900), (3, 1000), (4, 1100), (1, 50), (2, 800), (3, 1200)]:
        rows += [line.format(r=0, s=s, t=t), line.format(r=1, s=s, t=t + 7)]
    recs = logs.parse_torchtitan("\n".join(rows) + "\n", gpus=2, **CFG, **MB)
    # rank 0; each run's first two logged steps skipped -> 1000, 1100, 1200
    assert recs[0]["tokens_per_s_per_gpu"] == pytest.approx(1100)
    assert recs[0]["samples"] == 3
    assert any("ranks" in n for n in recs.notes) and any("restart" in n for n in recs.notes)


# --- CSV -------------------------------------------------------------------------------


def test_csv_rows():
    recs = logs.parse_csv(DATA / "steps.csv", seq_len=8192, activation_checkpointing="selective", **CFG)
    assert recs.format == "csv" and len(recs) == 3
    assert [r["gpus"] for r in recs] == [8, 16, 32]
    assert recs[0]["step_time_s"] == 2.84 and "tokens_per_s_per_gpu" not in recs[0]
    assert recs[1]["tokens_per_s_per_gpu"] == 5602 and "step_time_s" not in recs[1]
    assert recs[2]["step_time_s"] == 2.97
    assert all(r["seq_len"] == 8192 and r["gpus_per_node"] == 8 and r["micro_batch"] == 2 for r in recs)
    assert [r["source"] for r in recs[:2]] == ["run-0412", "run-0413"]
    assert recs[2]["source"].endswith("steps.csv:5")


def test_csv_with_model_and_hardware_columns():
    text = "model,hardware,gpus,tokens_per_s\nqwen3-32b,b300,16,53000\n"
    r = logs.parse_csv(text, **MB)[0]
    assert (r["model"], r["hardware"], r["gpus"], r["tokens_per_s"]) == ("qwen3-32b", "b300", 16, 53000)


def test_csv_unknown_column_names_it_and_the_valid_ones():
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_csv("gpus,step_time_s,nodes\n8,1.2,1\n", **CFG)
    msg = str(e.value)
    assert "'nodes'" in msg and "valid:" in msg and "tokens_per_s_per_gpu" in msg and ":1:" in msg


@pytest.mark.parametrize("row, what", [
    ("8,nan", "step_time_s"), ("8,-1.5", "step_time_s"), ("8,0", "step_time_s"),
    ("8,abc", "not a number"), ("0,1.0", "gpus"), ("8", "fields"),
])
def test_csv_bad_values_name_the_line(row, what):
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_csv(f"gpus,step_time_s\n8,1.0\n{row}\n8,1.1\n", **CFG, **MB)
    assert "<text>:3:" in str(e.value) and what in str(e.value)


def test_csv_exactly_one_timing_per_row():
    with pytest.raises(libscale.ParseError, match=r":2: more than one of"):
        logs.parse_csv("gpus,step_time_s,tokens_per_s\n8,1.0,5000\n", **CFG)
    with pytest.raises(libscale.ParseError, match=r":2: none of"):
        logs.parse_csv("gpus,step_time_s,tokens_per_s\n8,,\n", **CFG)


def test_csv_half_written_last_row_skipped_only_after_good_rows():
    recs = logs.parse_csv("gpus,step_time_s\n8,1.0\n16,", **CFG, **MB)
    assert len(recs) == 1 and any("half-written" in n for n in recs.notes)
    with pytest.raises(libscale.ParseError, match=":2:"):
        logs.parse_csv("gpus,step_time_s\n16,", **CFG, **MB)


def test_csv_bad_activation_checkpointing_value():
    # the core's check, with the file and line added
    with pytest.raises(libscale.ParseError, match=r"<text>:2: training option activation_checkpointing = 'most'; "
                                                  r"valid: none, selective, full"):
        logs.parse_csv("gpus,step_time_s,activation_checkpointing\n8,1.0,most\n", **CFG)


# --- configuration keywords: derived from the option schema ------------------------------


def test_config_keywords_are_the_step_records_training_options():
    step = libscale.schemas.load("measurements-2")["$defs"]["step"]["properties"]
    training = [n for n in libscale.options.names("training") if n in step]
    assert set(logs.CONFIG_KEYS) == {"model", "hardware", "grad_accum", *training}
    assert {"strategy", "activation_checkpointing", "precision", "torch_compile"} <= set(logs.CONFIG_KEYS)
    # the core's reader takes every training option by its table name, so a record carries each
    assert set(libscale.options.names("training")) <= set(logs.CONFIG_KEYS)
    assert logs.CSV_COLUMNS[:len(logs.CONFIG_KEYS)] == logs.CONFIG_KEYS
    # every parser documents them from the schema
    for parser in (logs.parse_hf, logs.parse_torchtitan, logs.parse_csv, logs.parse_log):
        assert "precision: " in (parser.__doc__ or "") and "valid: bf16, fp8" in (parser.__doc__ or "")


def test_choices_are_checked_by_the_core_and_keep_the_logs_spelling():
    text = "gpus,step_time_s,strategy,activation_checkpointing,precision,torch_compile\n8,1.0,FULL_SHARD,op,FP8,true\n"
    r = logs.parse_csv(text, **CFG, **MB)[0]
    # case folded and torchtitan's "op" mapped; full_shard is not rewritten to the core's fsdp
    assert (r["strategy"], r["activation_checkpointing"], r["precision"], r["torch_compile"]) == \
        ("full_shard", "selective", "fp8", True)
    r = logs.parse_log(DATA / "steps.csv", seq_len=8192, strategy="ZeRO3", grad_accum=1.0, **CFG)[0]
    assert r["strategy"] == "zero3" and r["grad_accum"] == 1 and isinstance(r["grad_accum"], int)
    with pytest.raises(ValueError, match=r"training option strategy = 'megatron'; valid: fsdp, hsdp"):
        logs.parse_csv(DATA / "steps.csv", strategy="megatron", seq_len=8192, **CFG)
    with pytest.raises(TypeError, match=r"training option precision: expected one of the names bf16, fp8"):
        logs.parse_hf(DATA / "hf_trainer.log", precision=8, seq_len=4096, **CFG)
    with pytest.raises(ValueError, match=r"training option seq_len = 0; valid: an integer in \[1, "):
        logs.parse_torchtitan(DATA / "torchtitan.log", seq_len=0, **CFG)
    with pytest.raises(libscale.ParseError, match=r"<text>:2: torch_compile = 'maybe'; valid: true or false"):
        logs.parse_csv("gpus,step_time_s,torch_compile\n8,1.0,maybe\n", **CFG, **MB)
    with pytest.raises(TypeError, match=r"parse_csv: unknown keyword 'nodes'; valid: activation_checkpointing"):
        logs.parse_csv(DATA / "steps.csv", nodes=2, **CFG)


# --- parse_log: auto-detection -----------------------------------------------------------


@pytest.mark.parametrize("name, fmt", [
    ("hf_trainer.log", "hf"), ("hf_trainer_new.log", "hf"), ("trainer_state.json", "hf"),
    ("torchtitan.log", "torchtitan"), ("torchtitan_wps.log", "torchtitan"),
    ("torchtitan_truncated.log", "torchtitan"), ("steps.csv", "csv"),
])
def test_auto_detection(name, fmt):
    extra = {"trainer_state.json": dict(gpus=8, seq_len=2048), "steps.csv": dict(seq_len=8192)}.get(
        name, dict(seq_len=4096) if fmt == "hf" else {})
    recs = logs.parse_log(DATA / name, **CFG, **extra)
    assert recs.format == fmt and len(recs) >= 1
    explicit = logs.parse_log(DATA / name, format=fmt, **CFG, **extra)
    assert list(explicit) == list(recs)


def test_auto_detection_accepts_str_paths_and_text():
    a = logs.parse_log(str(DATA / "torchtitan.log"), **CFG)
    b = logs.parse_log((DATA / "torchtitan.log").read_text(), **CFG)
    assert a[0]["tokens_per_s_per_gpu"] == b[0]["tokens_per_s_per_gpu"]


def test_parse_log_skip_first_and_bad_arguments():
    r = logs.parse_log(DATA / "torchtitan.log", skip_first=0, **CFG)[0]
    assert r["samples"] == 9
    with pytest.raises(ValueError, match="format"):
        logs.parse_log(DATA / "torchtitan.log", format="megatron", **CFG)
    with pytest.raises(TypeError, match="nodes"):
        logs.parse_log(DATA / "torchtitan.log", nodes=2, **CFG)
    with pytest.raises(TypeError, match="gpus"):
        logs.parse_log(DATA / "torchtitan.log", gpus="eight", model="m", hardware="h")
    with pytest.raises(FileNotFoundError):
        logs.parse_log(DATA / "missing.log", **CFG)


# --- bad input ------------------------------------------------------------------------


def test_foreign_binary_file(tmp_path):
    # The start of a JFIF file (SOI, APP0 "JFIF", quantization table marker), made here
    # rather than shipped as a binary fixture.
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(bytes.fromhex("ffd8ffe000104a46494600010101004800480000ffdb0043") + bytes(range(64)))
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_log(photo, **CFG)
    msg = str(e.value)
    assert "photo.jpg:1:" in msg and "JPEG" in msg and "expected" in msg


def test_empty_file():
    for fmt in logs.FORMATS:
        with pytest.raises(libscale.ParseError, match=r"empty\.log: the file is empty; expected"):
            logs.parse_log(DATA / "empty.log", format=fmt, **CFG)


def test_log_without_step_lines(tmp_path):
    p = tmp_path / "other.log"
    p.write_text("starting\nloading data\nepoch 1 done\n")
    with pytest.raises(libscale.ParseError, match=r"other\.log:1: not a recognised trainer log \(3 lines"):
        logs.parse_log(p, **CFG)
    with pytest.raises(libscale.ParseError, match=r"no training step lines in 3 lines; expected torchtitan"):
        logs.parse_log(p, format="torchtitan", **CFG)
    with pytest.raises(libscale.ParseError, match=r"no Trainer metrics lines"):
        logs.parse_log(p, format="hf", **CFG)


def test_hf_log_that_never_finished():
    text = ((DATA / "hf_trainer.log").read_text().split("[INFO|trainer.py:2584]")[0])
    with pytest.raises(libscale.ParseError, match=r"8 logging-step lines but no final"):
        logs.parse_log(text, **CFG)


def test_truncated_trainer_state_json(tmp_path):
    p = tmp_path / "trainer_state.json"
    p.write_text((DATA / "trainer_state.json").read_text()[:600])
    with pytest.raises(libscale.ParseError, match=r"trainer_state\.json:\d+: not valid JSON"):
        logs.parse_log(p, gpus=8, **CFG)


def test_trainer_state_from_a_checkpoint_has_no_train_runtime(tmp_path):
    import json
    doc = json.loads((DATA / "trainer_state.json").read_text())
    doc["log_history"] = doc["log_history"][:-1]
    p = tmp_path / "trainer_state.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(libscale.ParseError, match="no train_runtime entry"):
        logs.parse_log(p, gpus=8, **CFG)


@pytest.mark.parametrize("value", ["nan", "0.0", "-12.5", "'nan'", "'0'"])
def test_hf_bad_runtime_names_the_line(value):
    text = f"  Total optimization steps = 10\n{{'train_runtime': {value}, 'train_steps_per_second': 1.0}}\n"
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_hf(text, gpus=8, **CFG)
    assert "<text>:2:" in str(e.value) and "train_runtime" in str(e.value)


def test_hf_mangled_metrics_line_mid_file_is_an_error_but_last_line_is_skipped():
    good = "{'train_runtime': 10.0, 'train_steps_per_second': 1.0}\n"
    with pytest.raises(libscale.ParseError, match=r"<text>:1: a Trainer metrics line that does not parse"):
        logs.parse_hf("{'loss': 1.2, 'learn\n" + good, gpus=8, **CFG, **MB)
    recs = logs.parse_hf(good + "{'loss': 1.2, 'learn", gpus=8, **CFG, **MB)
    assert len(recs) == 1 and any("<text>:2: skipped the half-written" in n for n in recs.notes)


@pytest.mark.parametrize("tps", ["0", "nan", "-5"])
def test_torchtitan_bad_rate_names_the_line(tps):
    rows = [f"step: {s:2}  loss:  7.0000  memory: 10.00GiB(10.00%)  tps: {t}  mfu: 1.00%"
            for s, t in [(1, "100"), (10, "900"), (20, tps), (30, "1000")]]
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_torchtitan("\n".join(rows) + "\n", gpus=8, **CFG)
    assert "<text>:3:" in str(e.value) and "tps" in str(e.value)


def test_torchtitan_malformed_step_line_mid_file():
    text = (DATA / "torchtitan_truncated.log").read_text() + "\n" + \
        "[rank0]:[titan] x - root - INFO - step: 90  loss:  6.1 tps: 5,700\n"
    with pytest.raises(libscale.ParseError) as e:
        logs.parse_torchtitan(text, **CFG)
    assert "step line without tps/wps" in str(e.value)
    n = len((DATA / "torchtitan_truncated.log").read_text().splitlines())
    assert f"<text>:{n}:" in str(e.value)


def test_torchtitan_only_warmup_steps():
    text = ("step:  1  loss: 9.0  memory: 1.00GiB(1.00%)  tps: 100\n"
            "step: 10  loss: 8.0  memory: 1.00GiB(1.00%)  tps: 900\n")
    with pytest.raises(libscale.ParseError, match=r"2 step lines, all within the first skip_first=2"):
        logs.parse_torchtitan(text, gpus=8, **CFG)
    assert logs.parse_torchtitan(text, gpus=8, skip_first=1, **CFG, **MB)[0]["tokens_per_s_per_gpu"] == 900


def test_half_written_only_line_is_an_error():
    with pytest.raises(libscale.ParseError, match=r"<text>:1: a step line without tps"):
        logs.parse_torchtitan("step:  1  loss:  9.0  memo", gpus=8, **CFG)


def test_missing_required_configuration_is_named():
    with pytest.raises(libscale.ParseError, match=r"model: not found in the log; pass model="):
        logs.parse_torchtitan(DATA / "torchtitan.log", hardware="h100")
    with pytest.raises(libscale.ParseError, match=r"<text>:1: no gpus column \(and no gpus=... given\)"):
        logs.parse_csv("step_time_s\n1.0\n", **CFG)
    with pytest.raises(libscale.ParseError, match=r"<text>:3: gpus: not found in the log; pass gpus="):
        logs.parse_csv("gpus,step_time_s\n8,1.0\n,1.0\n", **CFG, **MB)
    with pytest.raises(libscale.ParseError, match=r"<text>:2: micro_batch: not found in the log; pass micro_batch="):
        logs.parse_csv("gpus,step_time_s\n8,1.0\n", **CFG, seq_len=4096)


def test_records_are_plain_json_dicts():
    import json
    for name in ["hf_trainer.log", "torchtitan.log", "steps.csv"]:
        for r in logs.parse_log(DATA / name, **CFG, seq_len=4096 if name.startswith("hf") else 8192):
            assert json.loads(json.dumps(r)) == r
            assert sum(k in r for k in ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu")) == 1
            assert all(math.isfinite(r[k]) for k in r if isinstance(r[k], float))


def test_torchtitan_per_step_gives_one_record_per_kept_step():
    recs = logs.parse_torchtitan(DATA / "torchtitan.log", per_step=True, **CFG)
    # steps 1 and 10 are warm-up; 20..80 remain, each with its own logged tps
    assert [r["tokens_per_s_per_gpu"] for r in recs] == [5762, 5755, 5790, 5748, 5771, 5702, 5769]
    assert all(r["gpus"] == 8 and r["seq_len"] == 8192 and r["micro_batch"] == 1 for r in recs)
    assert recs[0]["source"].endswith("torchtitan.log:19: step 20 tps")  # line 19 of the file


def test_errors_about_a_keyword_name_it_as_field():
    # what `libscale fit` turns into the flag to give (--seq-len)
    with pytest.raises(libscale.ParseError, match="seq_len: not found in the log") as missing:
        logs.parse_hf(DATA / "hf_trainer_new.log", **CFG)
    assert missing.value.field == "seq_len"
    with pytest.raises(ValueError, match="training option gpus = 0") as bad:
        logs.parse_log(DATA / "torchtitan.log", gpus=0, **CFG)
    assert bad.value.field == "gpus"
    with pytest.raises(libscale.ParseError, match="but activation_checkpointing='none' was given") as clash:
        logs.parse_torchtitan(DATA / "torchtitan.log", activation_checkpointing="off", **CFG)
    assert clash.value.field == "activation_checkpointing"
