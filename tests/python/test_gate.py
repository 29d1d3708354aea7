"""The packing gate from Python and the command line: readers, the verdict object, a
constructed imbalanced dataset that FAILs (exit 1, the right ranks named), PASS after the
equalize-to-minimum remedy (exit 0), and exit 2 with one stderr line for each bad input.
Every input file is written under tmp_path."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import libscale
from conftest import run_cli
from libscale import _core, cli


def gate_cli(capsys, *args):
    """libscale gate ARGS in-process: (status, stdout, stderr)."""
    try:
        status = cli.main(["gate", *map(str, args)])
    except SystemExit as e:
        status = e.code
    out = capsys.readouterr()
    return status, out.out, out.err


def assert_bad(capsys, *args, match):
    status, out, err = gate_cli(capsys, *args)
    assert status == 2, (out, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("libscale: error: "), err
    assert match in err, err


# Rank r of 2 (DistributedSampler, unshuffled) gets samples r, r+2, ...: rank 0 the 10s
# (one row each at seq_len 10), rank 1 the 1s (all in one row): 4 vs 1 micro-batches.
IMBALANCED = np.array([10, 1] * 4, dtype=np.int32)


def imbalanced_args(path):
    return ["--lengths", path, "--world-size", 2, "--seq-len", 10, "--packing", "multipack",
            "--no-runtime-equalize", "--watchdog-s", 1800]


# --- readers -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["<u2", "<u4", "<u8", "<i4", "<i8"])
def test_read_npy_every_dtype(tmp_path, dtype):
    p = tmp_path / "l.npy"
    np.save(p, np.array([3, 1, 4, 1, 5], dtype=dtype))
    a = libscale.read_lengths(p)
    assert a.dtype == np.uint32 and a.tolist() == [3, 1, 4, 1, 5]
    assert a.flags.owndata is False  # the C++ vector, handed over without a copy


def test_read_raw_and_jsonl(tmp_path):
    raw = tmp_path / "l.bin"
    np.array([7, 8, 9], dtype="<u2").tofile(raw)
    assert libscale.read_lengths(raw, dtype="uint16").tolist() == [7, 8, 9]
    js = tmp_path / "l.jsonl"
    js.write_text('{"n": 5, "x": "a"}\n\n{"n": 6}\n')
    assert libscale.read_lengths(js, field="n").tolist() == [5, 6]
    with pytest.raises(libscale.ParseError, match="no field 'length'"):
        libscale.read_lengths(js)


def test_numpy_uint32_is_not_copied_and_other_dtypes_are_checked():
    a = np.array([5, 3, 8, 2, 7], dtype=np.uint32)
    r = libscale.pack(a, seq_len=10)
    assert libscale.pack(a.astype(np.int64), seq_len=10).samples.tolist() == r.samples.tolist()
    assert libscale.pack([5, 3, 8, 2, 7], seq_len=10).samples.tolist() == r.samples.tolist()
    with pytest.raises(ValueError, match=r"lengths\[2\] = -4: negative length"):
        libscale.gate(np.array([1, 2, -4], dtype=np.int16), world_size=1, seq_len=8)
    with pytest.raises(ValueError, match=r"lengths\[1\] = 0"):
        libscale.gate(np.array([1, 0], dtype=np.uint32), world_size=1, seq_len=8)
    with pytest.raises(TypeError, match="not an integer dtype"):
        libscale.gate(np.array([1.5, 2.0]), world_size=1, seq_len=8)
    with pytest.raises(TypeError, match=r"lengths\[1\]"):
        libscale.gate([1, 2.5], world_size=1, seq_len=8)


# --- the verdict object ----------------------------------------------------------------


def test_pass_result_and_conversions():
    g = libscale.gate(np.full(64, 10, dtype=np.uint32), world_size=4, seq_len=10, micro_batch=2, grad_accum=3)
    assert g.passed and bool(g)
    assert g.micro_batches.tolist() == [8] * 4 and g.optimizer_steps.tolist() == [3] * 4
    assert g.sequences.dtype == np.int64 and g.padding_efficiency.tolist() == [1.0] * 4
    assert g.cost_at_risk_gpu_hours == 0 and g.gpu_hours_saved == 0
    d = g.to_dict()
    json.dumps(libscale.to_jsonable(d), allow_nan=False)
    assert d["passed"] is True and len(d["ranks"]) == 4 and d["ranks"][0]["micro_batches"] == 8
    df = g.to_pandas()
    assert list(df.index) == [0, 1, 2, 3] and df["micro_batches"].tolist() == [8] * 4
    assert "<table>" in g._repr_html_() and "PASS: all 4 ranks run 8 micro-batches" in g._repr_html_()
    assert repr(g).startswith("GateResult(passed=True, ranks=4")


def test_aliases_and_bad_packing():
    lens = np.arange(1, 50, dtype=np.uint32)
    for alias, name in [("bfd", "trl_bfd"), ("ffd", "nemo_ffd"), ("greedy", "torchtune"),
                        ("knapsack", "llamafactory"), ("multipack", "axolotl_multipack"), ("none", "none")]:
        assert libscale.gate(lens, world_size=2, seq_len=64, packing=alias).packer == name
    with pytest.raises(ValueError, match="packing = 'bestfit'"):
        libscale.gate(lens, world_size=2, seq_len=64, packing="bestfit")


def test_imbalanced_fails_and_remedy_passes():
    g = libscale.gate(IMBALANCED, world_size=2, seq_len=10, packing="multipack", runtime_equalize=False,
                      watchdog_s=1800)
    assert not g.passed
    assert (g.min_rank, g.max_rank, g.difference) == (1, 0, 3)
    assert g.micro_batches.tolist() == [4, 1]
    assert (g.micro_batches_dropped, g.steps_dropped, g.tokens_dropped, g.total_tokens) == (3, 3, 30, 44)
    assert g.tokens_dropped_pct == pytest.approx(100 * 30 / 44)
    assert g.cost_at_risk_gpu_hours == pytest.approx(2 * 1800 / 3600) == g.gpu_hours_saved
    # The remedy applied: every rank keeps min(micro-batches) rows -> PASS, and it drops
    # exactly what the verdict said.
    cfg = _core.gate.GateConfig(packer="axolotl_multipack", seq_len=10, world_size=2, runtime_equalize=False)
    # the repr rebuilds it: the options that differ from their defaults, as keywords
    assert repr(cfg) == "GateConfig(packer='axolotl_multipack', seq_len=10, world_size=2, runtime_equalize=False)"
    assert repr(eval(repr(cfg), {"GateConfig": _core.gate.GateConfig})) == repr(cfg)
    rows = _core.gate.shard_and_pack(IMBALANCED, cfg)
    fixed = _core.gate.judge(_core.gate.equalize_to_minimum(rows, cfg), cfg)
    assert fixed.passed and fixed.micro_batches.tolist() == [1, 1]
    assert g.total_tokens - fixed.total_tokens == g.tokens_dropped
    # the same through the public call
    public = libscale.gate(IMBALANCED, world_size=2, seq_len=10, packing="multipack", runtime_equalize=False,
                           remedy=True)
    assert public.passed and public.micro_batches.tolist() == [1, 1] and public.total_tokens == fixed.total_tokens
    with pytest.raises(TypeError, match="remedy"):
        libscale.gate(IMBALANCED, world_size=2, seq_len=10, remedy="yes")
    # Axolotl's own run-time equalization: no hang (PASS), the same drop.
    a = libscale.gate(IMBALANCED, world_size=2, seq_len=10, packing="multipack")
    assert a.passed and a.trainer_equalizes and a.tokens_dropped == 30


# --- the command line ------------------------------------------------------------------


def test_cli_pass_exit_0(tmp_path, capsys):
    p = tmp_path / "l.npy"
    np.save(p, np.full(160, 8192, dtype=np.uint32))
    status, out, err = gate_cli(capsys, "--lengths", p, "--world-size", 16, "--seq-len", 8192,
                                "--packing", "bfd", "--micro-batch", 1, "--grad-accum", 4)
    assert status == 0 and err == ""
    assert out.strip().splitlines()[-1] == "PASS: all 16 ranks run 10 micro-batches (3 optimizer steps) per epoch"
    status, out, _ = gate_cli(capsys, "--lengths", p, "--world-size", 16, "--seq-len", 8192, "--json")
    d = json.loads(out)
    assert status == 0 and d["passed"] and d["ranks"][15]["micro_batches"] == 10


def test_cli_fail_exit_1_names_ranks_then_remedy_passes(tmp_path, capsys):
    p = tmp_path / "imbalanced.npy"
    np.save(p, IMBALANCED)
    status, out, err = gate_cli(capsys, *imbalanced_args(p))
    assert status == 1 and err == ""
    verdict = out.strip().splitlines()[-1]
    assert verdict.startswith("FAIL: ranks 1 and 0 differ by 3 micro-batches (1 vs 4): rank 1 would stop "
                              "calling collectives"), verdict
    assert "1800 s watchdog: 1.0 GPU-hours at risk" in verdict
    assert "drops 3 micro-batches, 3 optimizer steps, 30 tokens, 68.18 %" in verdict
    status, out, _ = gate_cli(capsys, *imbalanced_args(p), "--json")
    d = json.loads(out)
    assert status == 1 and d["passed"] is False and (d["min_rank"], d["max_rank"]) == (1, 0)
    # The equalized dataset: what each rank keeps under the remedy (rank 0 its first row,
    # the 10; rank 1 its one row of four 1-token samples, written as one 4-token sample),
    # interleaved as DistributedSampler deals it out: 14 = 44 - 30 tokens.
    eq = tmp_path / "equalized.npy"
    np.save(eq, np.array([10, 4], dtype=np.int32))
    status, out, _ = gate_cli(capsys, *imbalanced_args(eq))
    assert status == 0
    assert out.strip().splitlines()[-1] == "PASS: all 2 ranks run 1 micro-batches (1 optimizer steps) per epoch"


def test_cli_guards_a_launch(tmp_path):
    p = tmp_path / "imbalanced.npy"
    np.save(p, IMBALANCED)
    out = run_cli(["gate", *map(str, imbalanced_args(p))])
    assert out.returncode == 1 and out.stdout.strip().splitlines()[-1].startswith("FAIL: ")


def test_cli_many_ranks_summarized(tmp_path, capsys):
    p = tmp_path / "l.npy"
    rng = np.random.default_rng(1)
    np.save(p, rng.integers(1, 300, 4000).astype(np.uint32))
    status, out, _ = gate_cli(capsys, "--lengths", p, "--world-size", 64, "--seq-len", 512,
                              "--packing", "multipack", "--no-runtime-equalize")
    lines = out.strip().splitlines()
    assert any(line.strip().startswith("min of 64") for line in lines)
    assert len(lines) < 16
    assert status in (0, 1) and lines[-1].startswith("PASS" if status == 0 else "FAIL")


def test_cli_bad_inputs_exit_2(tmp_path, capsys):
    def npy(name, arr):
        p = tmp_path / name
        np.save(p, arr)
        return p

    common = ["--world-size", 2, "--seq-len", 16]
    assert_bad(capsys, "--lengths", npy("zero.npy", np.array([3, 0, 2], dtype=np.uint32)), *common,
               match="lengths[1] = 0")
    assert_bad(capsys, "--lengths", npy("neg.npy", np.array([3, 4, -2], dtype=np.int64)), *common,
               match="lengths[2] = -2: negative length")
    assert_bad(capsys, "--lengths", npy("empty.npy", np.zeros(0, dtype=np.uint32)), *common,
               match="empty dataset")
    assert_bad(capsys, "--lengths", npy("few.npy", np.array([16, 16, 16], dtype=np.uint32)),
               "--world-size", 4, "--seq-len", 16, match="world_size = 4 exceeds the 3 packed sequences")
    good = npy("good.npy", np.arange(1, 100, dtype=np.uint32))
    trunc = tmp_path / "trunc.npy"
    trunc.write_bytes(good.read_bytes()[:-7])
    assert_bad(capsys, "--lengths", trunc, *common, match="truncated")
    foreign = tmp_path / "foreign.npy"
    foreign.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    assert_bad(capsys, "--lengths", foreign, *common, match="not a .npy file")
    unknown = tmp_path / "lengths.dat"
    unknown.write_bytes(bytes(64))
    assert_bad(capsys, "--lengths", unknown, *common, match="give the dtype")
    assert_bad(capsys, "--lengths", npy("float.npy", np.array([1.0, 2.0], dtype=np.float32)), *common,
               match="is not supported")
    raw = tmp_path / "l.bin"
    np.arange(1, 10, dtype="<u4").tofile(raw)
    assert_bad(capsys, "--lengths", raw, "--dtype", "float32", *common, match="dtype = 'float32'")
    assert_bad(capsys, "--lengths", raw, "--dtype", "uint64", *common, match="not a multiple")
    js = tmp_path / "l.jsonl"
    js.write_text('{"length": 3}\n{"len": 4}\n')
    assert_bad(capsys, "--lengths", js, *common, match="no field 'length'")
    assert_bad(capsys, "--lengths", tmp_path / "missing.npy", *common, match="cannot open")
    assert_bad(capsys, "--lengths", good, "--world-size", 0, "--seq-len", 16, match="world_size = 0")
    assert_bad(capsys, "--lengths", good, *common, "--packing", "bestfit", match="packing = 'bestfit'")
    assert_bad(capsys, "--lengths", good, *common, "--dtype", "uint32", match="is a .npy file")
    assert_bad(capsys, "--lengths", good, "--world-size", 2, "--seq-len", 8, "--packing", "greedy",
               match="> seq_len = 8")
    # The raw reader and the CLI agree on a good raw file.
    status, _, _ = gate_cli(capsys, "--lengths", raw, "--dtype", "uint32", *common)
    assert status == 0


def test_per_rank_packing_fails_where_global_packing_passes(tmp_path):
    # Same dataset as the C++ test: packed globally, BFD gives 4 rows, 2 per rank; each
    # rank packing its own sampler shard gives 3 and 2 rows: rank 1 runs out first.
    path = tmp_path / "lengths.npy"
    np.save(path, np.array([5, 5, 5, 5, 9, 1, 9, 1], dtype=np.uint32))
    g = libscale.gate(path, world_size=2, seq_len=10, packing="bfd")
    assert g.passed and list(g.micro_batches) == [2, 2]
    g = libscale.gate(path, world_size=2, seq_len=10, packing="bfd", shard_before_packing=True)
    assert not g.passed and list(g.micro_batches) == [3, 2]
    assert g.tokens_dropped == 10
    base = [sys.executable, "-m", "libscale", "gate", "--lengths", str(path), "--world-size", "2",
            "--seq-len", "10", "--packing", "bfd"]
    assert subprocess.run(base, capture_output=True, text=True).returncode == 0
    out = subprocess.run(base + ["--shard-before-packing"], capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    assert "FAIL" in out.stdout.splitlines()[-1]


def test_gate_flags_come_from_the_option_schema(tmp_path, capsys):
    # Every option of the core's gate group is a flag (packer through --packing, its
    # short-name shorthand), and a refused value is reported with the flag that set it.
    from libscale import options
    from libscale.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["gate"]
    flags = {s for a in sub._actions for s in a.option_strings}
    for o in options.options("gate"):
        if o.name != "packer":
            stem = o.name.replace("_", "-")
            assert f"--{stem}" in flags or f"--no-{stem}" in flags, o.name
    path = tmp_path / "l.npy"
    np.save(path, np.array([10, 4, 7], dtype=np.int32))
    status, _, err = gate_cli(capsys, "--lengths", path, "--world-size", 2, "--seq-len", 10, "--micro-batch", 0)
    assert status == 2 and "--micro-batch" in err and "micro_batch = 0" in err
    status, _, err = gate_cli(capsys, "--lengths", path, "--world-size", 2, "--seq-len", 10,
                              "--shuffle-seed", 3, "--seed", 4)
    assert status == 2 and "shuffle_seed" in err
