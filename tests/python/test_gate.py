"""The packing gate from Python and the command line: readers, the verdict object, a
constructed imbalanced dataset that FAILs (exit 1, the right ranks named), PASS after the
equalize-to-minimum remedy (exit 0), and exit 2 with one stderr line for each bad input.
Every input file is written under tmp_path."""

from __future__ import annotations

import io
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


#: Every integer dtype numpy writes to a .npy file, in both byte orders (dtype.str).
INTEGER_DTYPES = ["|u1", "|i1", "<u2", ">u2", "<i2", ">i2", "<u4", ">u4", "<i4", ">i4", "<u8", ">u8", "<i8", ">i8"]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@pytest.mark.parametrize("version", [None, (1, 0), (2, 0), (3, 0)])
def test_read_npy_every_dtype_and_byte_order_numpy_writes(tmp_path, dtype, version):
    info = np.iinfo(np.dtype(dtype))
    top = min(int(info.max), 2**32 - 1)
    values = np.array([3, 0, 1, 4, top], dtype=dtype)
    assert values.dtype.str == dtype  # numpy keeps the byte order it was given
    p = tmp_path / "l.npy"
    if version is None:
        np.save(p, values)
    else:
        with open(p, "wb") as f:
            np.lib.format.write_array(f, values, version=version)
    a = libscale.read_lengths(p)
    assert a.dtype == np.uint32 and a.tolist() == values.astype(np.int64).tolist() == [3, 0, 1, 4, top]
    assert a.flags.owndata is False  # the C++ vector, handed over without a copy
    assert libscale.read_lengths(p).tolist() == np.load(p).tolist()


def test_read_npy_fortran_order_one_dimension(tmp_path):
    # A 1-D array is laid out the same in either order; numpy writes fortran_order True
    # for an F-contiguous array that is not C-contiguous, so build that header by hand
    # with numpy's own writer of headers.
    p = tmp_path / "f.npy"
    data = np.array([5, 6, 7], dtype=">u2")
    with open(p, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": ">u2", "fortran_order": True, "shape": (3,)})
        f.write(data.tobytes())
    assert np.load(p).tolist() == libscale.read_lengths(p).tolist() == [5, 6, 7]


@pytest.mark.parametrize(("array", "says"), [
    (np.array([1.0, 2.0], dtype="<f4"), "dtype '<f4' is a floating-point type, not an integer type; valid: |u1, "),
    (np.array([1.0], dtype=">f8"), "dtype '>f8' is a floating-point type"),
    (np.array([1.0], dtype="<f2"), "dtype '<f2' is a floating-point type"),
    (np.array([True, False]), "dtype '|b1' is a boolean type"),
    (np.array([1 + 2j]), "dtype '<c16' is a complex type"),
    (np.array([1, "a"], dtype=object), "dtype '|O' is an object (pickled Python) type"),
    (np.array(["ab"]), "dtype '<U2' is a string type"),
    (np.array([np.datetime64("2024-01-01")]), "dtype '<M8[D]' is a date/time type"),
    (np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")]), "is a structured type (named fields), not an integer type"),
    (np.arange(6, dtype="<u4").reshape(2, 3), "shape (2, 3): 2 dimensions; the lengths must be a 1-D array"),
    (np.asfortranarray(np.arange(6, dtype="<u4").reshape(2, 3)),
     "shape (2, 3) (fortran_order True): 2 dimensions"),
    (np.array(5, dtype="<u4"), "shape (): a 0-d array (one scalar)"),
    (np.zeros(0, dtype="<u4"), "empty dataset (shape (0,))"),
])
def test_read_npy_refuses_what_is_not_lengths_by_name(tmp_path, array, says):
    p = tmp_path / "x.npy"
    np.save(p, array)
    with pytest.raises(libscale.ParseError) as e:
        libscale.read_lengths(p)
    assert says in str(e.value) and str(p) in str(e.value)
    assert "\n" not in str(e.value)


def test_read_npy_header_is_parsed_strictly(tmp_path):
    def npy_with_header(name, header, data):
        p = tmp_path / name
        buf = io.BytesIO()
        np.lib.format.write_array_header_1_0(buf, {"descr": "<u4", "fortran_order": False, "shape": (1,)})
        good = buf.getvalue()
        pad = len(good) - 10 - len(header) - 1
        h = (header + " " * max(pad, 0) + "\n").encode()
        p.write_bytes(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + data)
        return p

    data = np.arange(1, 6, dtype="<u4").tobytes()
    ok = npy_with_header("ok.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (5,), }", data)
    assert libscale.read_lengths(ok).tolist() == np.load(ok).tolist() == [1, 2, 3, 4, 5]
    # (5e3,) is not 5 samples: numpy refuses the header ("shape is not valid") and so does the reader.
    bad = npy_with_header("e.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (5e3,), }", data)
    with pytest.raises(ValueError, match="shape is not valid"):
        np.load(bad)
    with pytest.raises(libscale.ParseError, match=r"shape \(5e3,\): 5e3 is not a non-negative integer"):
        libscale.read_lengths(bad)
    extra = npy_with_header("k.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (5,), 'x': 1}", data)
    with pytest.raises(ValueError, match="Header does not contain the correct keys"):
        np.load(extra)
    with pytest.raises(libscale.ParseError, match="has the key 'x'; the format's keys are exactly descr"):
        libscale.read_lengths(extra)
    # The data must be exactly what the shape says: short or with trailing bytes, both named.
    short = npy_with_header("s.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (6,), }", data)
    with pytest.raises(libscale.ParseError, match=r"shape \(6,\) of <u4 needs 24 data bytes, the file holds 20 "
                                                  r"\(truncated\)"):
        libscale.read_lengths(short)
    long_ = npy_with_header("t.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }", data)
    with pytest.raises(libscale.ParseError, match=r"needs 16 data bytes, the file holds 20 \(trailing bytes"):
        libscale.read_lengths(long_)


def test_read_raw_and_jsonl(tmp_path):
    raw = tmp_path / "l.bin"
    np.array([7, 8, 9], dtype="<u2").tofile(raw)
    assert libscale.read_lengths(raw, dtype="uint16").tolist() == [7, 8, 9]
    for dtype in INTEGER_DTYPES:
        np.array([7, 0, 9], dtype=dtype).tofile(raw)
        assert libscale.read_lengths(raw, dtype=dtype).tolist() == [7, 0, 9], dtype
    np.array([7, 8], dtype=">u4").tofile(raw)
    assert libscale.read_lengths(raw, dtype="uint32").tolist() == [7 << 24, 8 << 24]  # read as what it is told
    for name, dtype in [("int8", "|i1"), ("uint8", "|u1"), ("int16", "<i2"), ("uint64", "<u8")]:
        np.array([5, 6], dtype=dtype).tofile(raw)
        assert libscale.read_lengths(raw, dtype=name).tolist() == [5, 6]
    with pytest.raises(ValueError, match=r"dtype = '<f4' is a floating-point type, not an integer type; valid: "
                                         r"uint8, int8"):
        libscale.read_lengths(raw, dtype="<f4")
    with pytest.raises(ValueError, match=r"dtype = '\|u4' has byte order '\|'"):
        libscale.read_lengths(raw, dtype="|u4")
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
    # A 0-token sample is the packer's to handle: TRL drops it (counted), NeMo packs it.
    assert libscale.gate(np.array([1, 0], dtype=np.uint32), world_size=1, seq_len=8).overflow.dropped_samples == 1
    assert libscale.gate(np.array([1, 0], dtype=">i8"), world_size=1, seq_len=8, packing="ffd").passed
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
    # The trainers' names, for their default packing.
    for alias, name in [("trl", "trl_bfd"), ("TRL", "trl_bfd"), ("llama-factory", "llamafactory"),
                        ("axolotl", "axolotl_multipack"), ("torchtune", "torchtune")]:
        assert libscale.gate(lens, world_size=2, seq_len=64, packing=alias).packer == name
    # NeMo's default is a shuffled first fit, which is not reproduced: said, with what is.
    with pytest.raises(ValueError, match=r"'first_fit_shuffle'.*packing='nemo_ffd'"):
        libscale.gate(lens, world_size=2, seq_len=64, packing="nemo")


def test_trl_deprecated_bfd_requeue_is_bfd_split_with_a_future_warning():
    # TRL v0.29 named bfd_split "bfd-requeue"; from v1.0.0 SFTConfig.__post_init__ maps the
    # old name to "bfd_split" with a FutureWarning
    # (https://github.com/huggingface/trl/blob/v1.0.0/trl/trainer/sft_config.py).
    lens = np.array([20, 3, 7, 12, 5], dtype=np.uint32)
    for name in ("bfd-requeue", "bfd_requeue", "BFD-Requeue"):
        with pytest.warns(FutureWarning, match="TRL renamed the 'bfd-requeue' packing strategy to 'bfd_split'"):
            g = libscale.gate(lens, world_size=2, seq_len=8, packing=name)
        assert g.packer == "trl_bfd_split"
        with pytest.warns(FutureWarning):
            p = libscale.pack(lens, seq_len=8, packing=name)
        assert p.samples.tolist() == libscale.pack(lens, seq_len=8, packing="bfd_split").samples.tolist()
        assert p.overflow.split_samples == 2


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
    assert_bad(capsys, "--lengths", npy("neg.npy", np.array([3, 4, -2], dtype=np.int64)), *common,
               match="lengths[2] = -2: negative length")
    assert_bad(capsys, "--lengths", npy("empty.npy", np.zeros(0, dtype=np.uint32)), *common,
               match="empty dataset")
    assert_bad(capsys, "--lengths", npy("zeros.npy", np.array([0, 0], dtype=np.uint32)), *common,
               match="trl_bfd packs the 2 samples into no sequence: the trainer drops all 2 (0 tokens)")
    assert_bad(capsys, "--lengths", npy("nemo.npy", np.array([3, 17], dtype=np.uint32)), *common, "--packing", "ffd",
               match="lengths[1] = 17 > seq_len = 16: NeMo's create_hist")
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
               match="dtype '<f4' is a floating-point type, not an integer type")
    raw = tmp_path / "l.bin"
    np.arange(1, 10, dtype="<u4").tofile(raw)
    assert_bad(capsys, "--lengths", raw, "--dtype", "float32", *common, match="dtype = 'float32'")
    assert_bad(capsys, "--lengths", raw, "--dtype", "uint64", *common, match="not a multiple")
    js = tmp_path / "l.jsonl"
    js.write_text('{"length": 3}\n{"len": 4}\n')
    assert_bad(capsys, "--lengths", js, *common, match="no field 'length'")
    assert_bad(capsys, "--lengths", tmp_path / "missing.npy", *common, match="no such file")
    assert_bad(capsys, "--lengths", good, "--world-size", 0, "--seq-len", 16, match="world_size = 0")
    assert_bad(capsys, "--lengths", good, *common, "--packing", "bestfit", match="packing = 'bestfit'")
    assert_bad(capsys, "--lengths", good, *common, "--dtype", "uint32", match="is a .npy file")
    assert_bad(capsys, "--lengths", good, "--world-size", 2, "--seq-len", 8, "--packing", "greedy",
               match="> seq_len = 8")
    # The raw reader and the CLI agree on a good raw file.
    status, _, _ = gate_cli(capsys, "--lengths", raw, "--dtype", "uint32", *common)
    assert status == 0


def test_cli_fewer_packed_sequences_than_ranks(tmp_path, capsys):
    # DistributedSampler pads by repeating rows: every rank gets one; with drop_last none,
    # and no rank runs a micro-batch: no hang (exit 0), and the verdict says nothing trains.
    p = tmp_path / "few.npy"
    np.save(p, np.array([16, 16, 16], dtype=np.uint32))
    status, out, err = gate_cli(capsys, "--lengths", p, "--world-size", 4, "--seq-len", 16)
    assert status == 0 and err == ""
    assert out.strip().splitlines()[-1] == "PASS: all 4 ranks run 1 micro-batches (1 optimizer steps) per epoch"
    status, out, _ = gate_cli(capsys, "--lengths", p, "--world-size", 4, "--seq-len", 16, "--drop-last")
    assert status == 0
    assert (out.strip().splitlines()[-1]
            == "PASS: all 4 ranks run 0 micro-batches per epoch: no rank hangs, but the epoch trains on nothing")
    d = json.loads(gate_cli(capsys, "--lengths", p, "--world-size", 4, "--seq-len", 16, "--drop-last", "--json")[1])
    assert d["verdict"] == "PASS: every rank runs 0 micro-batches: no rank hangs, but the epoch trains on nothing"
    assert [r["micro_batches"] for r in d["ranks"]] == [0] * 4 and d["global_bins"] == 3


def test_cli_rank_without_rows_fails_without_a_void_remedy(tmp_path, capsys):
    # Rank 1's shard holds only 0-token samples, which TRL drops: 0 micro-batches against
    # rank 0's 1. Equalizing to that minimum would train on nothing: not offered.
    p = tmp_path / "empties.npy"
    np.save(p, np.array([5, 0, 5, 0], dtype=np.uint16))
    status, out, _ = gate_cli(capsys, "--lengths", p, "--world-size", 2, "--seq-len", 10, "--shard-before-packing")
    assert status == 1
    verdict = out.strip().splitlines()[-1]
    assert verdict.startswith("FAIL: ranks 1 and 0 differ by 1 micro-batches (0 vs 1)"), verdict
    assert verdict.endswith("remedy: pack before sharding (equalizing to the minimum, 0, would train on nothing) "
                            "or torch Join"), verdict


def test_cli_deprecated_packing_name_warns_on_one_line(tmp_path, capsys):
    p = tmp_path / "l.npy"
    np.save(p, np.array([20, 3, 7, 12], dtype=np.uint32))
    status, out, err = gate_cli(capsys, "--lengths", p, "--world-size", 2, "--seq-len", 8, "--packing", "bfd-requeue",
                                "--json")
    assert status == 0 and json.loads(out)["packer"] == "trl_bfd_split"
    assert err.count("\n") == 1 and err.startswith("libscale: warning: packing = 'bfd-requeue': TRL renamed"), err


def test_judge_takes_integer_token_counts_only():
    cfg = _core.gate.GateConfig(seq_len=10, world_size=2)
    with pytest.raises(ValueError, match=r"rank_bin_tokens\[0\]\[1\] = -3: a packed row holds ≥ 0 tokens"):
        _core.gate.judge([np.array([5, -3]), np.array([4])], cfg)
    with pytest.raises(ValueError, match=r"rank_bin_tokens\[0\]\[1\] = -3"):
        _core.gate.equalize_to_minimum([np.array([5, -3]), np.array([4])], cfg)
    with pytest.raises(TypeError, match=r"rank_bin_tokens\[1\]: dtype float64 is not an integer dtype"):
        _core.gate.judge([np.array([5, 3]), np.array([4.5])], cfg)
    with pytest.raises(ValueError, match=r"rank_bin_tokens\[0\]\[0\] = 18446744073709551615: more tokens"):
        _core.gate.judge([np.array([2**64 - 1], dtype=np.uint64), np.array([4])], cfg)
    g = _core.gate.judge([[5, 3], np.array([4], dtype=np.uint8)], cfg)
    assert (g.tokens_dropped, g.micro_batches_dropped) == (3, 1)


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
