"""Hostile input: every class of input that used to crash, hang, print a
traceback or silently change a value now gets one line on stderr and exit status 2 from
the CLI, or a Python exception from the API. One test per class; the C++ side of the
same classes is in tests/cpp/test_input_file.cpp and the fuzzers' corpora (fuzz/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import libscale
from libscale import cli

PROJECT = ["project", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "16"]
GATE = ["gate", "--world-size", "8", "--seq-len", "4096"]


def one_line_error(capsys, args: list[str]) -> str:
    """Runs the CLI in process; asserts exit status 2, no output and one error line."""
    with pytest.raises(SystemExit) as exc:
        cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert exc.value.code == 2, (out, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("libscale: error: "), err
    assert "Traceback" not in err
    return err


def subprocess_error(args: list[str], timeout_s: float = 60) -> str:
    """The same, in a child process: for inputs that used to hang (a FIFO) or to kill
    the interpreter; a hang fails with TimeoutExpired instead of stalling the suite."""
    out = subprocess.run([sys.executable, "-m", "libscale", *map(str, args)], capture_output=True, text=True,
                         timeout=timeout_s, stdin=subprocess.DEVNULL)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("libscale: error: "), out.stderr
    return out.stderr


def llama_config(tmp_path: Path, **over) -> Path:
    config = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
              "max_position_embeddings": 32768}
    config.update(over)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


# --- silent wrong answers -------------------------------------------------------------


@pytest.mark.parametrize("flag, value, match", [
    ("--global-batch-tokens", "-5", "global_batch_tokens = -5"),
    ("--price-per-gpu-hour-usd", "nan", "price_per_gpu_hour_usd = nan"),
    ("--price-per-gpu-hour-usd", "1e999", "price_per_gpu_hour_usd"),
    ("--seq-len", "99999999999999999999999", "beyond the 64-bit integer range"),
])
def test_bad_numbers_are_refused_not_replaced(capsys, flag, value, match):
    assert match in one_line_error(capsys, PROJECT + [flag, value])


def test_a_job_whose_totals_overflow_is_refused(capsys):
    err = one_line_error(capsys, PROJECT + ["--tokens", "1e9", "--epochs", "1e308"])
    assert "tokens × epochs" in err and "overflows" in err
    # Finite inputs whose products overflow (here the cost) are refused too.
    err = one_line_error(capsys, PROJECT + ["--tokens", "1e300", "--price-per-gpu-hour-usd", "1e300"])
    assert "cost_usd overflows" in err


def test_a_job_far_beyond_any_real_one_prints_in_scientific_notation(capsys):
    assert cli.main(PROJECT + ["--tokens", "1e300"]) == 0
    out = capsys.readouterr().out
    assert "e+29" in out and "inf" not in out and ",000,000,000,000,000,000" not in out


def test_absurd_model_sizes_are_refused(capsys, tmp_path):
    err = one_line_error(capsys, ["project", "--model", llama_config(tmp_path, num_hidden_layers=2**40),
                                  "--hardware", "b300", "--gpus", "16"])
    assert "parameter count" in err


def test_a_step_faster_than_a_kernel_launch_is_not_a_measurement(capsys, tmp_path):
    record = {"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8, "gpus_per_node": 8,
              "seq_len": 8192, "micro_batch": 2, "activation_checkpointing": "selective",
              "tokens_per_s_per_gpu": 1e308}
    path = tmp_path / "m.json"
    path.write_text(json.dumps([record]))
    out = tmp_path / "cal.json"
    err = one_line_error(capsys, ["fit", path, "--model", "llama-3.1-8b", "--hardware", "h100", "-o", out])
    assert "tokens_per_s_per_gpu" in err and "1e-05 to 1e+07 s" in err
    assert not out.exists()


def test_an_npy_shape_must_be_integers(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(1, 5001, dtype="<u4"))
    raw = (tmp_path / "x.npy").read_bytes().replace(b"(5000,)", b"(5e3,) ")
    (tmp_path / "bad.npy").write_bytes(raw)
    with pytest.raises(libscale.ParseError, match="shape"):
        libscale.read_lengths(tmp_path / "bad.npy")


# --- writing: never over something that is not a regular file --------------------------


def fit_args(out: object) -> list[object]:
    log = Path(__file__).parent / "data" / "logs" / "torchtitan.log"
    return ["fit", log, "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8", "-o", out]


def test_fit_output_refuses_devices_directories_and_links_to_them(capsys, tmp_path):
    assert "refusing" in one_line_error(capsys, fit_args("/dev/null"))
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    assert "symbolic link to a device" in one_line_error(capsys, fit_args(link))
    assert link.is_symlink()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    assert "link to nothing" in one_line_error(capsys, fit_args(dangling))
    assert "is a directory" in one_line_error(capsys, fit_args(tmp_path))
    assert "empty" in one_line_error(capsys, fit_args(""))


def test_fit_output_writes_through_a_link_and_leaves_no_temporary_file(capsys, tmp_path):
    target = tmp_path / "cal.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert cli.main([str(a) for a in fit_args(link)]) == 0
    capsys.readouterr()
    assert link.is_symlink() and json.loads(target.read_text())["schema"].startswith("libscale.calibration")
    assert (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json", "link.json"]


# --- reading: only regular files, bounded, one line for every failure ------------------


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "fifo.json"
    os.mkfifo(path)
    return path


def test_a_fifo_with_no_writer_is_refused_not_waited_on(fifo):
    for args in (["project", "--model", fifo, "--hardware", "b300", "--gpus", "16"],
                 ["project", "--model", "qwen3-32b", "--hardware", fifo, "--gpus", "16"],
                 PROJECT + ["--calibration", fifo],
                 PROJECT + ["--data", fifo],
                 GATE + ["--lengths", fifo],
                 ["fit", fifo, "--model", "qwen3-32b", "--hardware", "h100", "-o", fifo.parent / "c.json"]):
        err = subprocess_error(args)
        assert "FIFO" in err or "not a regular file" in err, (args, err)


def test_triage_reads_a_fifo_to_its_end(fifo):
    # A trace through a FIFO is a supported use (`nvidia-smi ... > fifo`); with no writer it is empty.
    err = subprocess_error(["triage", fifo])
    assert "no samples" in err


@pytest.mark.parametrize("args", [
    ["project", "--model", "/dev/zero", "--hardware", "b300", "--gpus", "16"],
    GATE + ["--lengths", "/dev/zero", "--dtype", "uint32"],
    ["triage", "/dev/zero"],
])
def test_a_device_is_refused_before_it_is_read(args):
    assert "character device" in subprocess_error(args)


def test_directories_link_loops_and_missing_files_are_named(capsys, tmp_path):
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    hw = ["project", "--model", "qwen3-32b", "--gpus", "16", "--hardware"]
    assert "is a directory; expected a libscale.hardware/1" in one_line_error(capsys, hw + [tmp_path / "dir.json"])
    assert "symbolic links" in one_line_error(capsys, hw + [tmp_path / "a"])
    assert "symbolic links" in one_line_error(capsys, ["project", "--model", tmp_path / "a", "--hardware",
                                                        "b300", "--gpus", "16"])
    assert "is a directory" in one_line_error(capsys, ["triage", tmp_path / "dir.json"])
    assert "is a directory" in one_line_error(capsys, GATE + ["--lengths", tmp_path / "dir.json"])
    assert "no such file" in one_line_error(capsys, ["triage", tmp_path / "missing.csv"])


@pytest.mark.parametrize("text, match", [
    ('{"hidden_size": 1e999}', "1e999"),
    ("[" * 100_000, "nested deeper than 256"),
    ("[" * 300 + "]" * 300, "nested deeper than 256"),
    ('{"hidden_size": \xff}', "malformed JSON"),
])
def test_malformed_json_is_one_line(capsys, tmp_path, text, match):
    path = tmp_path / "config.json"
    path.write_bytes(text.encode("latin-1"))
    for args in (["project", "--model", path, "--hardware", "b300", "--gpus", "16"],
                 ["project", "--model", "qwen3-32b", "--hardware", path, "--gpus", "16"]):
        assert match in one_line_error(capsys, args)


def test_invalid_utf8_in_a_message_is_escaped_not_a_unicode_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(libscale.ParseError, match=r"\\xff"):
        libscale.hardware(path)


@pytest.mark.parametrize("value, match", [
    ("{dir}/missing.json", "no such file, and not inline JSON"),
    ("{dir}/dir.json", "is a directory"),
    ("{dir}/dir.json/x.json", "not a directory"),
    ('{{"pretokenized": 1e999}}', "beyond the range"),
    ("[1, 2]", "no such file, and not inline JSON"),
])
def test_data_is_inline_json_or_a_regular_file(capsys, tmp_path, value, match):
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "dir.json" / "x.json").mkdir()
    (tmp_path / "file.json").write_text("{}")
    arg = value.format(dir=tmp_path).replace("dir.json/x.json", "file.json/x.json")
    assert match.lower() in one_line_error(capsys, PROJECT + ["--data", arg]).lower()


def test_a_huge_world_size_is_refused_before_anything_is_allocated(capsys, tmp_path):
    np.save(tmp_path / "l.npy", np.full(100, 1000, dtype="<u4"))
    err = one_line_error(capsys, ["gate", "--lengths", tmp_path / "l.npy", "--seq-len", "4096",
                                  "--world-size", str(2**40)])
    assert "world_size" in err and "1048576" in err


def test_a_path_with_a_nul_byte_is_refused(tmp_path):
    good = tmp_path / "hw.json"
    good.write_text("{}")
    with pytest.raises(libscale.ParseError, match="NUL"):
        libscale.hardware(f"{good}\0.x")
    with pytest.raises(libscale.ParseError, match="NUL"):
        libscale.read_trace(f"{good}\0.x")


# --- Python objects -----------------------------------------------------------------------


def test_recursive_and_deep_objects_raise_instead_of_crashing():
    # In a child: before the fix, the C stack overflowed and took the interpreter with it.
    code = """
import libscale
loop = []
loop.append(loop)
record = {"kind": "step"}
record["self"] = record
for value in ([loop], [record], [{"kind": "step", "gpus": 2**64}]):
    try:
        libscale.read_measurements(value)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    assert "nested deeper than 256" in lines[1]
    assert "beyond the 64-bit integer range" in lines[2]


def test_bool_fields_take_only_bools():
    spec = libscale.model("qwen3-32b")
    for bad in (2.5, float("nan"), "yes", None):
        with pytest.raises(TypeError, match="expected True or False"):
            spec.qkv_bias = bad
    spec.qkv_bias = np.bool_(True)
    assert spec.qkv_bias is True


def test_counting_a_spec_no_model_has_raises_instead_of_overflowing():
    spec = libscale.model("qwen3-8b")
    spec.hidden_size = 2**40
    spec.intermediate_size = 2**40
    with pytest.raises(ValueError, match="over 1e15"):
        libscale.count_parameters(spec)
    with pytest.raises(ValueError, match="over 1e15"):
        _ = spec.parameters


def test_a_message_quoting_a_newline_or_an_escape_stays_one_line(tmp_path):
    # A file name is the user's to choose: one with a newline and an ANSI escape in it
    # must not split the message or colour the terminal.
    weird = tmp_path / "hw\n\x1b[31m.json"
    weird.write_text('{"schema": "libscale.hardware/1"}')
    with pytest.raises(libscale.ParseError) as e:
        libscale.hardware(str(weird))
    text = str(e.value)
    assert "\n" not in text and "\x1b" not in text, text
    assert "hw\\n\\x1b[31m.json" in text, text
    assert "missing field 'name'" in text, text


# --- the live triage ------------------------------------------------------------------


def test_live_triage_drops_a_sample_at_a_huge_time_and_goes_on():
    # Before the fix: a heap overflow (the smoothing window emptied itself), and
    # `libscale watch` died with SIGSEGV beside the job it guarded.
    code = """
import numpy as np, libscale
from libscale import _core
s = _core.triage.TriageStream(libscale.default_power_bands("h100"))
up = s.push(np.array([1e308, 10.0]), np.array([0, 0], dtype=np.int32), np.array([600.0, 600.0]),
            np.array([100.0, 100.0]))
later = s.push(np.array([11.0]), np.array([0], dtype=np.int32), np.array([610.0]), np.array([100.0]))
print(up["dropped_samples"], later["dropped_samples"], s.last_time_s)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "0", "11.0"]


def test_fit_reads_its_inputs_under_an_address_space_limit(tmp_path):
    # Batch schedulers cap a job's address space; a read sized by the 8 GiB limit instead
    # of the file (f.read(max + 1) allocates it up front) died there with MemoryError.
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    out = tmp_path / "cal.json"
    measured = Path(__file__).resolve().parents[2] / "calibration/data/measurements/field-report-qwen3-32b-b300.json"
    run = subprocess.run([sys.executable, "-m", "libscale", "fit", str(measured), "-o", str(out)], capture_output=True,
                         text=True, timeout=120, stdin=subprocess.DEVNULL, preexec_fn=limit)
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text())["kind"] == "fitted"


@pytest.mark.parametrize("pid, match", [(2147483648, "at most 4,194,304"), (1 << 70, "at most 4,194,304"),
                                        (1, "above 1")])
def test_watch_refuses_a_pid_no_process_can_have(capsys, pid, match):
    trace = Path(__file__).resolve().parents[2] / "examples/traces/nccl-hang.csv"
    err = one_line_error(capsys, ["watch", "--pid", pid, "--nvidia-smi-csv", trace])
    assert match in err and str(pid) in err


def test_a_watcher_does_not_attach_to_itself():
    from libscale.watch.job import Job

    with pytest.raises(ValueError, match="this watcher's own process"):
        Job(pid=os.getpid())


def test_names_from_files_are_not_formulas_in_csv_nor_escapes_on_a_terminal(tmp_path, capsys):
    # A series name from a measurement file reaches the CSV and the terminal: a spreadsheet
    # must not run it as a formula (OWASP "CSV Injection"), a terminal must not act on it.
    root = Path(__file__).resolve().parents[2]
    d = json.loads((root / "calibration/data/measurements/torchtitan-llama3.1-8b-h200.json").read_text())
    for r in d["records"]:
        r["series"] = '=HYPERLINK("http://x")\x1b[2J'
    path = tmp_path / "m.json"
    path.write_text(json.dumps(d))
    run = [sys.executable, "-m", "libscale", "validate", str(path), "--rows"]
    csv_out = subprocess.run([*run, "--format", "csv"], capture_output=True, text=True, timeout=120, check=True).stdout
    rows = list(__import__("csv").DictReader(csv_out.splitlines()))
    assert rows and all(r["series"].startswith("'=HYPERLINK") for r in rows)

    class Named:  # any result whose text quotes a name from a file
        def text(self) -> str:
            return 'series =HYPERLINK("http://x")\x1b[2J\x9b\tkept\nkept'

    from libscale.cli._common import emit

    emit(Named(), "table")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out
    assert out == 'series =HYPERLINK("http://x")\\x1b[2J\\x9b\tkept\nkept\n'


def test_a_sweep_of_millions_of_combinations_is_refused_naming_the_count(capsys):
    gpus = ",".join(str(8 * i) for i in range(1, 101))
    batches = ",".join(str(i) for i in range(1, 101))
    lengths = ",".join(str(512 * i) for i in range(1, 201))
    err = one_line_error(capsys, ["sweep", "--model", "qwen3-8b", "--hardware", "h100", "--gpus", gpus,
                                  "--micro-batch", batches, "--seq-len", lengths])
    assert "2,000,000 combinations" in err and "100 gpus × 100 micro_batch × 200 seq_len" in err


@pytest.mark.parametrize("flag, value, valid", [("--interval-s", "1e9", "(0, 60]"),
                                                ("--speed", "1e-300", "[0.001, 1000000]")])
def test_watch_refuses_an_interval_that_leaves_the_job_unwatched(capsys, flag, value, valid):
    trace = Path(__file__).resolve().parents[2] / "examples/traces/nccl-hang.csv"
    err = one_line_error(capsys, ["watch", "--nvidia-smi-csv", trace, flag, value, "--", "true"])
    assert flag in err and valid in err


def test_a_key_or_flag_given_twice_is_refused_not_last_wins(capsys, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text('{"schema": "libscale.prices/1", "prices": {"h100": 2.0, "h100": 3.0}}')
    err = one_line_error(capsys, [*PROJECT[:4], "h100", "--gpus", "8", "--prices", prices])
    assert "'h100' appears twice" in err
    err = one_line_error(capsys, ["project", "--model", "qwen3-8b", "--hardware", "h100,b300", "--gpus", "8",
                                  "--calibration", "h100=a.json,H100=b.json"])
    assert "H100 is given twice" in err


# --- measurements no GPU can produce, and cut or deep input ------------------------------


def test_a_torchtitan_line_cut_mid_number_is_named_not_fitted(capsys, tmp_path):
    good = (Path(__file__).resolve().parent / "data" / "logs" / "torchtitan.log").read_text()
    last = good.rindex("tps: ")  # the last step line, cut mid-number as a log being written is
    log = tmp_path / "cut.log"
    log.write_text(good[:last] + "tps: 5,7")
    with pytest.raises(ValueError, match=r"tps = '5,7' is not a number: its thousands separators are broken"):
        libscale.logs.parse_torchtitan(log, model="llama-3.1-8b", hardware="h100")
    err = one_line_error(capsys, ["fit", log, "--model", "llama-3.1-8b", "--hardware", "h100",
                                  "-o", tmp_path / "cal.json"])
    assert "thousands separators" in err and not (tmp_path / "cal.json").exists()


def test_a_step_beyond_the_gpus_peak_is_refused(capsys, tmp_path):
    record = {"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8, "gpus_per_node": 8,
              "seq_len": 8192, "micro_batch": 2, "activation_checkpointing": "selective"}
    path = tmp_path / "m.json"
    path.write_text(json.dumps([dict(record, tokens_per_s_per_gpu=8000)]))  # about 40 % MFU
    assert libscale.fit(path).records_used == 1
    path.write_text(json.dumps([dict(record, tokens_per_s_per_gpu=800_000)]))  # 100x
    err = one_line_error(capsys, ["fit", path, "-o", tmp_path / "cal.json"])
    assert "step record 0 (llama-3.1-8b, 8 GPUs" in err and "no trainer beats the GPU's peak" in err


def test_watts_no_board_draws_are_skipped_and_counted(tmp_path):
    lines = ["timestamp, index, power.draw [W], utilization.gpu [%]"]
    lines += [f"2026/05/07 22:00:{t:02d}.000, 0, {1e300 if t == 30 else 650.0} W, 100 %" for t in range(60)]
    path = tmp_path / "spike.csv"
    path.write_text("\n".join(lines) + "\n")
    trace = libscale.read_trace(path)
    assert trace.report.skipped_lines == 1 and trace.report.first_skipped_line == 32
    assert "[0, 10000]" in trace.report.first_skipped_reason
    assert max(trace.power_w) == 650.0


@pytest.mark.parametrize("text", [
    '{"log_history": ' + "[" * 100_000,
    '{"log_history": ' + "[" * 5_000 + "]" * 5_000 + ', "train_runtime": 1}',
])
def test_deep_json_in_a_trainer_log_is_an_error_not_a_recursion_error(tmp_path, text):
    path = tmp_path / "trainer_state.json"
    path.write_text(text)
    with pytest.raises(ValueError):
        libscale.logs.parse_log(path, model="llama-3.1-8b", hardware="h100")


def test_a_sparse_64_gib_lengths_file_is_refused_by_count_not_by_memory(capsys, tmp_path):
    path = tmp_path / "lengths.bin"
    with path.open("wb") as f:
        f.truncate(64 << 30)  # sparse: no disk used
    err = one_line_error(capsys, GATE + ["--lengths", path, "--dtype", "uint32"])
    assert "17179869184 lengths; at most 1073741824" in err and "gate a shard" in err


def test_an_empty_kill_on_list_is_refused_not_read_as_none(capsys):
    trace = Path(__file__).resolve().parents[2] / "examples" / "traces" / "nccl-hang.csv"
    err = one_line_error(capsys, ["watch", "--nvidia-smi-csv", trace, "--speed", "1000", "--kill-on", "", "--",
                                  "sleep", "1"])
    assert "kill_on = ''" in err and "none" in err


def test_an_output_is_never_one_of_the_inputs_nor_a_file_named_dash(capsys, tmp_path):
    log = tmp_path / "steps.csv"
    log.write_bytes((Path(__file__).resolve().parent / "data" / "logs" / "steps.csv").read_bytes())
    before = log.read_bytes()
    fit = ["fit", "--hardware", "h100", "--model", "llama-3.1-8b", "--seq-len", "8192"]
    assert "is also an input of this command" in one_line_error(capsys, fit + ["-o", log, log])
    assert log.read_bytes() == before
    assert "a file named '-'" in one_line_error(capsys, fit + ["-o", "-", log])
    model = tmp_path / "config.json"
    model.write_bytes((Path(__file__).resolve().parents[2] / "calibration/data/models/qwen3-32b.json").read_bytes())
    err = one_line_error(capsys, ["report", "--model", model, "--hardware", "h100", "--gpus", "8", "-o", model])
    assert "is also an input of this command" in err and json.loads(model.read_text())


def test_a_checkpoint_schedule_does_not_hide_a_hang(capsys):
    """Windows every 50 s for 5 s used to restart the hang clock each time: the 600 s NCCL
    hang of the example went unreported."""
    trace = Path(__file__).resolve().parents[2] / "examples" / "traces" / "nccl-hang.csv"
    r = libscale.triage(trace, hardware="h100", checkpoint_first_start_s=1778191200, checkpoint_interval_s=50,
                        checkpoint_duration_s=5)
    hangs = [a for a in r.alerts if a.kind == "deadlock"]
    assert hangs and hangs[-1].time_s > 1778191470  # the hang that starts at +270 s is caught


def test_quantile_draws_are_bounded_over_all_gpu_counts(capsys):
    err = one_line_error(capsys, ["project", "--model", "llama-3.1-8b", "--hardware", "h100", "--gpus", "8,16",
                                  "--quantiles", "--samples", "10000000"])
    assert "20000000 draws; at most 10000000" in err and "5000000 at these counts" in err


def test_api_arguments_out_of_range_are_value_errors():
    with pytest.raises(ValueError, match="more than 100,000 GPU counts"):
        libscale.project("llama-3.1-8b", "h100", gpus=range(1, 10**12))
    with pytest.raises(ValueError, match=r"lengths\[0\] = 1208925819614629174706176; a token count must be in"):
        libscale.gate([2**80], world_size=8, seq_len=4096)
    for seed in (-1, 2**70):
        with pytest.raises(ValueError, match=r"seed = .*; it must be an integer in \[0, 2\^64\)"):
            libscale.project("llama-3.1-8b", "h100", gpus=8, quantiles=True, samples=10, seed=seed)


def test_validate_without_step_records_is_refused(capsys, tmp_path):
    path = tmp_path / "empty.json"
    path.write_text('{"schema": "libscale.measurements/1", "records": []}')
    assert "nothing to validate: no step record in empty.json" in one_line_error(capsys, ["validate", path])


def test_the_gate_says_when_packing_cut_most_of_the_tokens(capsys, tmp_path):
    lengths = tmp_path / "l.jsonl"
    lengths.write_text("".join(f'{{"length": {n}}}\n' for n in range(10, 2010)))
    assert cli.main(["gate", "--lengths", str(lengths), "--seq-len", "1", "--world-size", "8"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "2,000 samples longer than seq_len 1 truncated" in header and "99.9 % of the tokens" in header


@pytest.mark.parametrize("flag, value, match", [
    ("--seq-len", "", "--seq-len: the list is empty"),
    ("--gpus", "8,8,16", "--gpus lists 8 more than once"),
])
def test_a_sweep_list_that_is_empty_or_repeats_is_refused(capsys, flag, value, match):
    args = ["sweep", "--model", "llama-3.1-8b", "--hardware", "h100", *(["--gpus", "8"] if flag != "--gpus" else []),
            flag, value]
    assert match in one_line_error(capsys, args)


@pytest.mark.parametrize("field", ["name", "display_name"])
def test_a_hardware_name_with_a_newline_is_refused(capsys, tmp_path, field):
    hw = json.loads((Path(__file__).resolve().parents[2] / "calibration/data/hardware/h100.json").read_text())
    hw[field] = "h100\nGPUs  fits"
    path = tmp_path / "hw.json"
    path.write_text(json.dumps(hw))
    err = one_line_error(capsys, ["project", "--model", "qwen3-32b", "--hardware", path, "--gpus", "8"])
    assert f"hardware {field} has a control character (byte 0xa)" in err


def test_a_step_holding_more_than_its_gpus_memory_is_refused(capsys, tmp_path):
    # 80 GiB H100: 1.1 x (88 GiB) is the plausible edge (a GB figure read as GiB is 7 % over).
    record = {"kind": "step", "model": "llama-3.1-8b", "hardware": "h100", "gpus": 8, "gpus_per_node": 8,
              "seq_len": 8192, "micro_batch": 2, "activation_checkpointing": "selective",
              "tokens_per_s_per_gpu": 8000}
    path = tmp_path / "m.json"
    path.write_text(json.dumps([dict(record, memory_gib=85.0)]))
    assert libscale.fit(path).records_used == 1
    path.write_text(json.dumps([dict(record, memory_gib=1e300)]))
    err = one_line_error(capsys, ["fit", path, "-o", tmp_path / "cal.json"])
    assert "step record 0 (llama-3.1-8b, 8 GPUs): memory_gib = 1e+300 is 1.25e+298 x the 80 GiB of h100" in err
    assert not (tmp_path / "cal.json").exists()
    err = one_line_error(capsys, ["validate", path])
    assert "memory_gib = 1e+300" in err and "check the figure and its unit (GiB per GPU)" in err


def test_huge_numbers_are_shown_short(capsys, tmp_path):
    # A negative variance or softcap is printed as 1e+300, not as its 301 digits; an integer
    # past 100 bits by its size (str() refuses past 4300 digits).
    cal = json.loads((Path(__file__).resolve().parents[2] /
                      "calibration/data/calibrations/fitted-h200-harness.json").read_text())
    cal["uncertainty"]["covariance"][0][0] = -1e300
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal))
    with pytest.raises(libscale.ParseError, match=r"covariance\[0\]\[0\]' = -1e\+300; a variance must be >= 0$"):
        libscale.read_calibration(path, "h200")
    config = llama_config(tmp_path, model_type="gemma2", final_logit_softcapping=-1e300)
    err = one_line_error(capsys, ["project", "--model", config, "--hardware", "h100", "--gpus", "8"])
    assert "final_logit_softcap = -1e+300; it must be a finite number >= 0 (0: none)\n" in err
    for gpus in (10**400, 10**5000):
        with pytest.raises(ValueError, match=r"gpus\[0\] = an integer of \d+ bits; it is beyond the 64-bit"):
            libscale.project("llama-3.1-8b", "h100", gpus=[gpus])
    with pytest.raises(ValueError, match=r"micro_batch = an integer of 16610 bits"):
        libscale.project("llama-3.1-8b", "h100", gpus=8, micro_batch=10**5000)
    with pytest.raises(ValueError, match=r"gpus\[0\] = 99999999999999999999999; it is beyond"):  # exact, no float
        libscale.project("llama-3.1-8b", "h100", gpus=[99999999999999999999999])


def test_a_spread_wider_than_its_coefficient_is_refused(tmp_path):
    cal = json.loads((Path(__file__).resolve().parents[2] /
                      "calibration/data/calibrations/fitted-h200-harness.json").read_text())
    i = cal["uncertainty"]["parameters"].index("hbm_efficiency")
    cal["uncertainty"]["covariance"][i][i] = 1e6  # a variance of 10^6: an sd of 1000 on a fraction
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal))
    with pytest.raises(libscale.ParseError, match=rf"covariance\[{i}\]\[{i}\]' \(hbm_efficiency\): a standard "
                       r"deviation of 1000 is wider than the whole valid range \[0.001, 1\]"):
        libscale.read_calibration(path, "h200")
    with pytest.raises(ValueError, match=r"prior_log_sd\[hbm_efficiency\] = -1; it must be a finite number > 0"):
        libscale.fit(Path(__file__).resolve().parents[2] / "calibration/data/measurements/"
                     "torchtitan-llama3.1-8b-h100.json", prior_log_sd={"hbm_efficiency": -1.0})


def test_a_log_that_is_not_a_regular_file_is_named_as_what_it_is(capsys, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    err = one_line_error(capsys, ["watch", "--nvidia-smi-csv", fifo, "--follow", "--", "true"])
    assert f"--nvidia-smi-csv {fifo}: is a FIFO (named pipe); expected an nvidia-smi CSV log" in err
    err = one_line_error(capsys, ["watch", "--dcgm", tmp_path, "--", "true"])
    assert f"--dcgm {tmp_path}: is a directory" in err
    err = one_line_error(capsys, ["watch", "--dcgm", tmp_path / "none", "--", "true"])
    assert "no such file" in err


def test_an_uppercase_dtype_is_named_with_its_spelling(capsys, tmp_path):
    lengths = tmp_path / "l.bin"
    lengths.write_bytes(np.array([5, 6], dtype=np.uint32).tobytes())
    err = one_line_error(capsys, [*GATE, "--lengths", lengths, "--dtype", "UINT32"])
    assert "dtype = 'UINT32' is not a dtype name (numpy's are lower case): write 'uint32'" in err


def test_a_report_into_a_missing_folder_names_the_flag(capsys, tmp_path):
    out = tmp_path / "no" / "plan.html"
    err = one_line_error(capsys, ["report", *PROJECT[1:], "-o", out])
    assert f"-o/--output: {out}: the folder {tmp_path / 'no'} does not exist" in err


def test_an_overflow_from_an_absurd_hardware_figure_blames_the_figure(capsys, tmp_path):
    hw = json.loads((Path(__file__).resolve().parents[2] / "calibration/data/hardware/h200.json").read_text())
    hw.update(name="slow", hbm_tbps=1e-300)
    path = tmp_path / "hw.json"
    path.write_text(json.dumps(hw))
    err = one_line_error(capsys, ["project", "--model", "qwen3-32b", "--hardware", path, "--gpus", "16",
                                  "--tokens", "1e9"])
    assert "overflows a 64-bit float" in err and "implausible hardware or calibration figure" in err
    assert "smaller job" not in err


def test_a_trace_with_no_usable_sample_says_why(capsys, tmp_path):
    trace = tmp_path / "bad.dcgm"
    trace.write_text('DCGM_FI_DEV_POWER_USAGE{gpu="x"} 100 1000\nDCGM_FI_DEV_POWER_USAGE{gpu="y"} 100 2000\n')
    err = one_line_error(capsys, ["triage", trace])
    assert "0 samples from 2 lines; 2 unparseable lines skipped, first line 1 (bad gpu label)" in err
    assert "no samples to triage" in err
    err = one_line_error(capsys, ["watch", "--dcgm", trace, "--", "true"])
    assert "(bad gpu label)" in err and "no samples to replay" in err


def test_a_sweep_shows_the_global_batch_it_ran_when_none_was_set(capsys):
    assert cli.main(["sweep", "--model", "qwen3-32b", "--hardware", "h200", "--gpus", "8,16",
                     "--seq-len", "4096"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[4:6]]
    assert [r[:4] for r in rows] == [["8", "1", "4,096", "32,768"], ["16", "1", "4,096", "65,536"]]


def test_fit_advice_at_a_micro_batch_whose_doubled_batch_overflows_is_no_crash():
    # gpus x micro_batch x seq_len fits in 64 bits at 1 GPU, not at the doubled GPU counts the
    # advice tries: their product wrapped to 0 and divided by it (SIGFPE, the interpreter gone).
    out = subprocess.run([sys.executable, "-m", "libscale", "memory", "--model", "gpt2", "--hardware", "h200",
                          "--gpus", "1", "--seq-len", "1024", "--micro-batch", str(2**38)],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 1, out.stderr  # it does not fit: exit 1 with the advice
    assert "largest micro-batch that fits at seq_len 1,024:" in out.stdout


def test_last_micro_batch_sync_without_accumulation_costs_no_memory(capsys):
    # One micro-batch per step: syncing on the last one is syncing on every one.
    base = libscale.estimate_step("qwen3-32b", "h100", gpus=8)
    last = libscale.estimate_step("qwen3-32b", "h100", gpus=8, grad_sync="last_micro_batch")
    assert last.memory.total_gib == base.memory.total_gib
    accum = libscale.estimate_step("qwen3-32b", "h100", gpus=8, grad_sync="last_micro_batch",
                                   global_batch_tokens=2 * 8 * 8192)
    assert accum.memory.buffers_gib > base.memory.buffers_gib


@pytest.mark.parametrize("flags, match", [
    (["--max-gpu-hours", "1000", "--max-cost-usd", "nan"], "max_cost_usd = nan; give a number > 0, or None"),
    (["--max-cost-usd", "nan"], "max_cost_usd = nan"),
    (["--max-gpu-hours", "inf"], "max_gpu_hours = inf; it must be a finite number > 0"),
    (["--deadline-h", "inf"], "deadline_h = inf; it must be a finite number of hours > 0"),
])
def test_a_budget_of_nan_or_inf_is_refused_not_dropped(capsys, flags, match):
    assert match in one_line_error(capsys, ["solve", "--model", "qwen3-0.6b", "--hardware", "h100", *flags])


def test_a_relative_error_no_timing_has_is_refused(capsys, tmp_path):
    meas = Path(__file__).resolve().parents[2] / "calibration/data/measurements/torchtitan-llama3.1-8b-h100.json"
    err = one_line_error(capsys, ["fit", meas, "--relative-error", "1e-10", "-o", tmp_path / "c.json"])
    assert "relative_error = 1e-10; it must be a relative error in [0.001, 1]" in err
    assert not (tmp_path / "c.json").exists()


def test_gpus_per_node_in_a_hardware_file_is_bounded(capsys, tmp_path):
    hw = json.loads((Path(__file__).resolve().parents[2] / "calibration/data/hardware/h100.json").read_text())
    hw["gpus_per_node"] = 2**63 - 1
    path = tmp_path / "hw.json"
    path.write_text(json.dumps(hw))
    err = one_line_error(capsys, ["project", "--model", "qwen3-0.6b", "--hardware", path, "--gpus", "8"])
    assert "gpus_per_node" in err and "1..1048576" in err


def test_a_file_given_twice_is_refused_not_counted_twice(capsys, tmp_path):
    meas = Path(__file__).resolve().parents[2] / "calibration/data/measurements/torchtitan-llama3.1-8b-h100.json"
    link = tmp_path / "same.json"
    link.symlink_to(meas)
    err = one_line_error(capsys, ["fit", meas, link, "-o", tmp_path / "c.json"])
    assert "given twice" in err and "are the same file" in err
    assert "given twice" in one_line_error(capsys, ["validate", meas, meas])
    with pytest.raises(ValueError, match="given twice"):
        libscale.read_measurements(meas, str(meas))


@pytest.mark.parametrize("flags, match", [
    (["--checkpoint-interval-s", "60", "--checkpoint-duration-s", "60"], "shorter than interval_s"),
    (["--checkpoint-interval-s", "1e-300", "--checkpoint-duration-s", "1e-301"], "in [1, 604800] seconds"),
    (["--expected-checkpoint-s", "1e308"], "expected_checkpoint_s = 1e+308; valid: a finite number in (0, 86400]"),
    (["--smoothing-window-s", "1e308"], "smoothing_window_s = 1e+308"),
    (["--smoothing-window-s", "700"], "smoothing_window_s = 700 s; it must be at most the deadlock threshold"),
    (["--deadlock-after-s", "1e-300"], "min_dwell_s = 2 s; it must be below the deadlock threshold T = 1e-300 s"),
])
def test_options_that_would_silence_the_hang_detector_are_refused(capsys, flags, match):
    assert match in one_line_error(capsys, ["triage", "examples/traces/nccl-hang.csv", *flags])


def test_a_json_key_given_twice_is_refused_in_every_file_the_core_reads(capsys, tmp_path):
    hw = (Path(__file__).resolve().parents[2] / "calibration/data/hardware/h100.json").read_text()
    path = tmp_path / "hw.json"
    path.write_text(hw.replace('"hbm_gib":', '"hbm_gib": 8000, "hbm_gib":', 1))
    err = one_line_error(capsys, ["project", "--model", "qwen3-0.6b", "--hardware", path, "--gpus", "8"])
    assert 'key "hbm_gib" appears twice in one object' in err
    config = llama_config(tmp_path)
    config.write_text(config.read_text().replace('"vocab_size":', '"vocab_size": 7, "vocab_size":', 1))
    assert 'key "vocab_size" appears twice' in one_line_error(capsys, [*PROJECT[:2], config, *PROJECT[3:]])
    lengths = tmp_path / "l.jsonl"
    lengths.write_text('{"length": 5}\n{"length": 5, "length": 9}\n')
    assert 'l.jsonl:2: key "length" appears twice' in one_line_error(capsys, [*GATE, "--lengths", lengths])
    # the same key in two objects is no repeat
    lengths.write_text('{"length": 5}\n{"length": 9}\n')
    assert cli.main([*GATE, "--lengths", str(lengths)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("args, match", [
    (["--gpus", "8", "--gpus", "16"], "--gpus: --gpus is given twice; give it once"),
    (["--gpus", "8", "--format", "csv", "--json"], "--json: --format and --json set the same value"),
    (["--gpus=8", "--gpus", "16"], "--gpus: --gpus is given twice"),
])
def test_a_flag_given_twice_is_refused(capsys, args, match):
    assert match in one_line_error(capsys, ["project", "--model", "qwen3-0.6b", "--hardware", "h100", *args])


def test_a_path_that_is_not_utf8_is_named_not_a_binding_error(capsys):
    err = one_line_error(capsys, ["project", "--model", "qwen3-0.6b", "--hardware", "h\udcff.json", "--gpus", "8"])
    assert "argument 5 'h\\xff.json' is not UTF-8 (byte 0xff)" in err


def test_small_api_edges(tmp_path):
    advice = libscale.fit_advice("qwen3-32b", "h100", gpus=4, seq_len=4096)
    with pytest.raises(TypeError, match="index: expected an integer, got bool"):
        advice.plan_with(True)
    with pytest.raises(TypeError, match="got str '0'"):
        advice.plan_with("0")
    with pytest.raises(ValueError, match=r"title has a control character \(byte 0x1b\)"):
        libscale.report.write_report(libscale.project("qwen3-0.6b", "h100", gpus=[8]), tmp_path / "r.html",
                                     title="plan \x1b[31m")
    assert not (tmp_path / "r.html").exists()
    lengths = tmp_path / "l.jsonl"
    lengths.write_text('{"length": 99999999999999999999999}\n')
    with pytest.raises(libscale.ParseError, match="longer than 4294967295 tokens"):
        libscale.read_lengths(lengths)


def test_a_job_of_less_than_a_token_and_a_watchdog_past_a_week_are_refused(capsys, tmp_path):
    assert "job option tokens = 0.5; valid: a finite number >= 1" in one_line_error(capsys, [*PROJECT, "--tokens",
                                                                                          "0.5"])
    lengths = tmp_path / "l.jsonl"
    lengths.write_text('{"length": 5}\n')
    err = one_line_error(capsys, [*GATE, "--lengths", lengths, "--watchdog-s", "1e308"])
    assert "watchdog_s = 1e+308; valid: a finite number in (0, 604800]" in err


def test_a_binary_trace_is_one_skipped_line_shown_printable(capsys, tmp_path):
    # 1 MiB of NULs, no newline: skipped as one overlong line (not copied whole, twice), and
    # its bytes shown as \x00 in the one-line error (the terminal saw raw NULs before).
    zeros = tmp_path / "zeros.csv"
    zeros.write_bytes(b"\0" * (1 << 20))
    err = one_line_error(capsys, ["triage", zeros])
    assert "line 1 (a line longer than 64 KiB: not a trace line): '\\x00\\x00" in err and "\0" not in err


def test_a_pasted_blob_as_a_name_is_not_echoed_whole(capsys):
    err = one_line_error(capsys, [*PROJECT[:4], "h" * 150, "--gpus", "8"])
    assert "unknown hardware '" + "h" * 100 + "... (150 characters)'; closest: h100" in err
    err = one_line_error(capsys, [*PROJECT[:4], "h" * 100_000, "--gpus", "8"])
    assert "... (100000 characters): the path is too long" in err and len(err) < 400
