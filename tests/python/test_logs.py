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


# --- large logs: the whole-log scans give what reading line by line gives ---------------
# No timing here: bench/bench_logs.py measures the speed.


def _torchtitan_lines(n: int, seed: int = 0) -> tuple[list[str], list[int]]:
    """A torchtitan run of N logged steps (log_freq 10) as the trainer prints it, and the
    tps it printed for each."""
    rng = np.random.default_rng(seed)
    tps = rng.integers(5000, 6500, n).tolist()
    head = ["[rank0]:[titan] 2025-06-03 14:02:12,640 - root - INFO - Building 1-D device mesh with ['dp_shard'], [8]",
            "[rank0]:[titan] 2025-06-03 14:02:16,131 - root - INFO - Applied selective activation checkpointing "
            "to the model",
            "[rank0]:[titan] 2025-06-03 14:02:16,302 - root - INFO - Applied FSDP to the model",
            "[rank0]:[titan] 2025-06-03 14:02:16,545 - root - INFO - Trainer is initialized with local batch size 1, "
            "global batch size 8, gradient accumulation steps 1, sequence length 8192, total steps 80"]
    prefix = "[rank0]:[titan] 2025-06-03 14:02:29,970 - root - INFO - "
    lines = head + [f"{prefix}step: {10 * i + 1:2}  loss: {7 + i % 3:7.4f}  grad_norm:  1.2000  "
                    f"memory: {50 + i % 7:5.2f}GiB(55.65%)  tps: {t:,}  tflops: {t / 20:,.2f}  mfu: {t / 200:.2f}%"
                    for i, t in enumerate(tps)]
    return lines, tps


def test_torchtitan_large_log_gives_every_step(tmp_path):
    lines, tps = _torchtitan_lines(200_000)
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    r = logs.parse_log(path, **CFG)[0]
    kept = tps[2:]
    assert r["samples"] == len(kept) == 199_998
    assert r["tokens_per_s_per_gpu"] == pytest.approx(np.median(kept))
    assert r["p10_tokens_per_s_per_gpu"] == pytest.approx(np.percentile(kept, 10))
    assert r["p90_tokens_per_s_per_gpu"] == pytest.approx(np.percentile(kept, 90))
    assert r["reported_mfu"] == pytest.approx(np.median([t / 200 for t in kept]) / 100, abs=1e-4)
    assert r["memory_gib"] == 56.0 and r["step_range"] == [21, 10 * 199_999 + 1]
    assert (r["gpus"], r["seq_len"], r["strategy"], r["activation_checkpointing"]) == (8, 8192, "fsdp", "selective")
    assert r["source"].endswith(f"train.log: lines 7-{len(lines)}, median tps of 199998 logged steps")
    recs = logs.parse_log(path, per_step=True, **CFG)
    assert [x["tokens_per_s_per_gpu"] for x in recs] == kept
    assert recs[-1]["source"].endswith(f"train.log:{len(lines)}: step {10 * 199_999 + 1} tps")
    assert all(x.keys() == recs[0].keys() for x in recs)


def test_torchtitan_scan_agrees_with_the_line_by_line_reading(monkeypatch):
    # Lines the compiled scanner reads and lines it leaves to Python, mixed: colours, other
    # ranks, a restart, validation steps, non-ASCII, a step line with an odd field, CRLF
    # and form-feed line breaks, and a cut last line.
    lines, _ = _torchtitan_lines(3000, seed=1)
    rng = np.random.default_rng(2)
    odd = ["[rank1]:[titan] x - root - INFO - step: 5  loss:  7.0000  memory: 10.00GiB(10.00%)  tps: 1,234  mfu: 1.00%",
           "[rank0]:[titan] x - root - INFO - \x1b[31mstep: 7  \x1b[32mloss:  7.0000  "
           "\x1b[33mmemory: 10.00GiB(10.00%)  \x1b[34mtps: 2,345  \x1b[35mmfu: 1.00%\x1b[39m",
           "[rank0]:[titan] x - root - INFO - validate step: 40  loss:  6.9911  memory: 52.91GiB(55.69%)  tps: 17,340",
           "[rank0]:[titan] x - root - INFO - step: 8  loss: 7.0  memory: 1.5GB  tps: 3,456  tflops: 1,2.5",
           "[rank0]:[titan] x - root - INFO - step: 9  loss: 7.0  mémoire  tps: 4,567",
           "[rank0]:[titan] x - root - INFO - step: 1  loss: 9.0  memory: 1.00GiB(1.00%)  TPS: 999  tflops: nan",
           "[rank0]:[titan] x - root - INFO - substep: 3  loss: 1.0  tps: 1"]
    for at in sorted(rng.choice(len(lines), 60, replace=False).tolist(), reverse=True):
        lines.insert(at, odd[at % len(odd)])
    text = "\r\n".join(lines[:1500]) + "\f" + "\n".join(lines[1500:]) + "\n" + lines[-1][:80]
    fast = [logs.parse_torchtitan(text, per_step=p, skip_first=s, **CFG) for p in (False, True) for s in (0, 2)]
    monkeypatch.setattr(libscale._core.io, "scan_torchtitan_log", None, raising=False)
    slow = [logs.parse_torchtitan(text, per_step=p, skip_first=s, **CFG) for p in (False, True) for s in (0, 2)]
    for a, b in zip(fast, slow, strict=True):
        assert list(a) == list(b) and a.notes == b.notes
    assert any("half-written" in n for n in fast[0].notes) and any("ranks [0, 1]" in n for n in fast[0].notes)


def test_torchtitan_error_in_a_large_log_names_its_line():
    lines, _ = _torchtitan_lines(50_000)
    bad = 31_337
    lines[bad - 1] = lines[bad - 1].replace("tps: ", "tps: -")
    with pytest.raises(libscale.ParseError, match=rf"<text>:{bad}: tps = '-[\d,]+'; a time or rate must be"):
        logs.parse_log("\n".join(lines) + "\n", **CFG)


def _hf_tqdm_log(steps: int) -> str:
    """A Trainer run printed through tqdm: a carriage-return redraw of the bar per step, a
    metrics dict (cleared bar first, as tqdm.write does) every 10 steps, the final dict."""
    bar = "{p:3d}%|{b:<10}| {n}/{t} [00:{n:02d}<01:00,  2.00s/it]"
    out = ["[INFO|trainer.py:2405] >> ***** Running training *****",
           "[INFO|trainer.py:2408] >>   Instantaneous batch size per device = 2",
           "[INFO|trainer.py:2411] >>   Total train batch size (w. parallel, distributed & accumulation) = 64",
           "[INFO|trainer.py:2412] >>   Gradient Accumulation steps = 4",
           f"[INFO|trainer.py:2413] >>   Total optimization steps = {steps:,}\n"]
    for n in range(1, steps + 1):
        b = bar.format(p=100 * n // steps, b="█" * (10 * n // steps), n=n % 60, t=steps)
        out.append("\r" + b)
        if n % 10 == 0:
            out.append("\r" + " " * len(b) + "\r" + str({"loss": f"{1 + 1 / n:.4g}", "grad_norm": "0.5",
                                                         "learning_rate": "1e-05", "epoch": f"{n / steps:.4g}"}) + "\n")
    final = {"train_runtime": f"{2.0 * steps:.4g}", "train_steps_per_second": "0.5", "epoch": "1"}
    out.append("\r" + str(final) + "\n")
    return "\n".join(out[:5]) + "".join(out[5:])


def test_hf_large_tqdm_log(tmp_path):
    text = _hf_tqdm_log(100_000)
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    r = logs.parse_log(path, seq_len=4096, **CFG)[0]
    assert r["step_time_s"] == pytest.approx(2.0 * 100_000 / 100_000) and r["steps"] == 100_000
    assert (r["gpus"], r["micro_batch"], r["grad_accum"]) == (64 // (2 * 4), 2, 4)
    # str.splitlines() numbering: every carriage return starts a line
    assert r["source"] == f"{path}:{len(text.splitlines())}"
    # a malformed dict deep in the file names its line; cut at the end, it is skipped
    at = text.index("{'loss'", len(text) // 2)
    broken = text[:at] + "{'loss': 1.2, 'lear" + text[text.index("\n", at):]
    with pytest.raises(libscale.ParseError, match=rf"<text>:{len(text[:at].splitlines()) + 1}: a Trainer metrics line"):
        logs.parse_hf(broken, seq_len=4096, **CFG)
    unfinished = text[:text.rindex("{'train_runtime'")]
    with pytest.raises(libscale.ParseError, match="10000 logging-step lines but no final"):
        logs.parse_hf(unfinished, seq_len=4096, **CFG)
    recs = logs.parse_hf(text + "{'loss': 1.2, 'lear", seq_len=4096, **CFG)
    assert len(recs) == 1 and any("skipped the half-written last line" in n for n in recs.notes)


def test_csv_large_file_column_by_column_agrees_with_row_by_row():
    rng = np.random.default_rng(3)
    rows = ["gpus,micro_batch,step_time_s,tokens_per_s_per_gpu,source"]
    for i in range(20_000):
        timing = f"{rng.uniform(1, 3):.4f}," if i % 3 else f",{rng.uniform(4000, 6000):.1f}"
        rows.append(f"{8 << (i % 4)},{1 + i % 2},{timing},{'' if i % 5 else f'run-{i}'}")
    text = "\n".join(rows) + "\n"
    bulk = logs.parse_csv(text, seq_len=8192, **CFG)
    # a quote anywhere sends every row through the csv module, one row at a time
    by_row = logs.parse_csv(text + '# "quoted" comment\n', seq_len=8192, **CFG)
    assert len(bulk) == 20_000 and list(bulk) == list(by_row)
    assert bulk[1]["source"] == "<text>:3" and bulk[5]["source"] == "run-5"
    assert [list(r) for r in bulk[:3]] == [list(r) for r in by_row[:3]]  # same key order
    rows[12_345] = rows[12_345].replace(",", ",,", 1)
    with pytest.raises(libscale.ParseError, match="<text>:12346: 6 fields, the header has 5"):
        logs.parse_csv("\n".join(rows) + "\n", seq_len=8192, **CFG)


def test_reading_a_large_log_reports_progress(tmp_path, monkeypatch):
    from libscale.logs import _common

    bars = []

    class Bar:  # records what _read_file tells the bar
        active = True

        def __init__(self, total, what, *, unit=""):
            self.total, self.what, self.unit, self.done = total, what, unit, 0
            bars.append(self)

        def update(self, n):
            self.done += n

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    monkeypatch.setattr(_common, "Progress", Bar)
    lines, tps = _torchtitan_lines(60_000)
    path = tmp_path / "big.log"
    path.write_text("\n".join(lines) + "\n")
    size = path.stat().st_size
    assert size > 8 << 20  # more than one chunk
    assert logs.parse_log(path, **CFG)[0]["samples"] == len(tps) - 2
    assert [(b.total, b.done, b.unit, b.what) for b in bars] == [(size, size, "B", "reading big.log")]


def test_reading_in_chunks_checks_utf8_as_one_read_does(tmp_path, monkeypatch):
    from libscale.logs import _common

    chunk = _common._CHUNK
    # a BOM, a 3-byte character across the first chunk boundary, then a stray byte
    data = "\ufeff".encode() + b"x" * (chunk - 4) + "█".encode() + b"\n" * 1000 + b"ok \xff\n" + b"y" * chunk
    path = tmp_path / "mixed.log"
    path.write_bytes(data)
    with pytest.raises(libscale.ParseError) as whole:
        logs.parse_log(path, **CFG)

    class Bar:
        active = True

        def __init__(self, *args, **kwargs):
            pass

        def update(self, n):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    monkeypatch.setattr(_common, "Progress", Bar)
    with pytest.raises(libscale.ParseError) as chunked:
        logs.parse_log(path, **CFG)
    at = data.index(b"\xff")
    assert str(chunked.value) == str(whole.value) == (
        f"{path}:1001: not UTF-8 text (byte 0xff at offset {at}); expected {logs._ALL_EXPECTED}")
    path.write_bytes(data.replace(b"\xff", b"!"))  # valid: the character split by the chunks is fine
    with pytest.raises(libscale.ParseError, match="not a recognised trainer log"):
        logs.parse_log(path, **CFG)


@pytest.mark.parametrize("rate", ["5,7", "12,3456", "1234,567"])
def test_torchtitan_rate_with_broken_thousands_separators_is_an_error_in_both_readers(monkeypatch, rate):
    lines, _ = _torchtitan_lines(40)
    text = "\n".join(lines) + "\n" + lines[-1].split("tps: ")[0] + f"tps: {rate}"
    with pytest.raises(libscale.ParseError, match=rf"<text>:45: tps = '{rate}' is not a number: its thousands"):
        logs.parse_torchtitan(text, **CFG)
    monkeypatch.setattr(libscale._core.io, "scan_torchtitan_log", None, raising=False)
    with pytest.raises(libscale.ParseError, match=rf"<text>:45: tps = '{rate}' is not a number: its thousands"):
        logs.parse_torchtitan(text, **CFG)
