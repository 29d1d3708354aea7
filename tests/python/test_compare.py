"""libscale.compare / Plan.compare / `project --hardware A,B`: the same job on several hardware."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import libscale
from conftest import UNCALIBRATED, run_cli

CONFIG = dict(gpus_per_node=8, global_batch_tokens=1_048_576, activation_checkpointing="full")


def test_each_hardware_is_its_own_projection():
    c = libscale.compare("qwen3-32b", ["b300", "h200", "h100"], gpus=[8, 16], tokens=1e9,
                         calibration={"b300": "derived-b300-qwen3-32b"}, **CONFIG)
    assert c.hardware_names == ["b300", "h200", "h100"]
    for hw, calibration in (("b300", "derived-b300-qwen3-32b"), ("h200", None), ("h100", None)):
        alone = libscale.Plan("qwen3-32b", hw, calibration=calibration, **CONFIG).project([8, 16], job={"tokens": 1e9})
        assert [r["tokens_per_s"] for r in c[hw].rows_dicts()] == [r["tokens_per_s"] for r in alone.rows_dicts()]
        assert c[hw].raw.price_per_gpu_hour_usd == libscale.hardware(hw).price_per_gpu_hour_usd
    rows = c.records()
    assert [(r["hardware"], r["gpus"]) for r in rows] == [(h, g) for h in ("b300", "h200", "h100") for g in (8, 16)]
    assert [r["calibration"] for r in rows[::2]] == ["derived", "default", "default"]
    frame = c.to_pandas()
    assert list(frame.columns[:4]) == ["hardware", "calibration", "price_per_gpu_hour_usd", "gpus"]


def test_summary_names_the_fastest_and_cheapest_per_gpu_count():
    c = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[16], tokens=1e9, **CONFIG)
    rows = {r["hardware"]: r for r in c.records()}
    fast = max(rows.values(), key=lambda r: r["tokens_per_s"])
    cheap = min(rows.values(), key=lambda r: r["cost_usd"])
    line = c.summary()[0]
    assert line.startswith(f"16 GPUs: fastest {fast['hardware']}")
    slow = min(rows.values(), key=lambda r: r["tokens_per_s"])
    assert f"{fast['tokens_per_s'] / slow['tokens_per_s']:.2f}× {slow['hardware']}" in line
    assert f"cheapest {cheap['hardware']} (${cheap['cost_usd']:,.2f})" in line
    text = c.text()
    assert f"b300: calibration {UNCALIBRATED}, $6.00/GPU-h" in text
    # the job is stated once, without one price for all
    assert text.splitlines()[0].endswith("job 1,000,000,000 tokens × 1 epoch")


def test_prices_from_a_file_change_cost_only(tmp_path: Path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"schema": "libscale.prices/1", "source": "quote 2026-11",
                                "price_per_gpu_hour_usd": {"H200": 2.5}}))
    base = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], tokens=1e9, **CONFIG)
    priced = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], tokens=1e9, prices=path, **CONFIG)
    b, p = {r["hardware"]: r for r in base.records()}, {r["hardware"]: r for r in priced.records()}
    assert p["h200"]["cost_usd"] == pytest.approx(p["h200"]["gpu_hours"] * 2.5)
    assert p["h200"]["gpu_hours"] == b["h200"]["gpu_hours"]
    assert p["b300"]["cost_usd"] == b["b300"]["cost_usd"]  # not in the file: the catalog's price
    assert priced.prices_source == str(path)
    assert f"prices from {path}" in priced.text()


def test_plan_compare_keeps_the_plans_calibration():
    plan = libscale.Plan("qwen3-32b", "b300", calibration="derived-b300-qwen3-32b", **CONFIG)
    c = plan.compare(["b300", "b200"], [16], job={"tokens": 1e9})
    assert c["b300"].plan.calibration.calibration.kind == "derived"
    assert c["b200"].plan.calibration.calibration.kind == "default"
    assert c["b300"].rows_dicts()[0]["tokens_per_s"] == plan.project([16]).rows_dicts()[0]["tokens_per_s"]
    assert any("calibrations differ in kind" in s for s in c.summary())


@pytest.mark.parametrize("prices,message", [
    ({"h200": float("nan")}, "price_per_gpu_hour_usd = nan"),
    ({"h200": float("inf")}, "price_per_gpu_hour_usd = inf"),
    ({"h200": -1.0}, "price_per_gpu_hour_usd = -1"),
    ({"h200": "3"}, "expected a number"),
    ({"h2000": 3.0}, "no hardware named 'h2000'"),
    ({}, "non-empty object"),
])
def test_bad_prices_are_refused_by_name(prices: dict, message: str):
    with pytest.raises((ValueError, TypeError), match=message.replace("(", r"\(").replace(")", r"\)")):
        libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], prices=prices, **CONFIG)


@pytest.mark.parametrize("content,message", [
    ('{"price_per_gpu_hour_usd": {"h200": 1e999}}', "1e999 is beyond the range of a 64-bit float"),
    ('{"price_per_gpu_hour_usd": {"h200": NaN}}', "NaN is not a number JSON allows"),
    ('{"price_per_gpu_hour_usd": {"h200": 1, "H200": 2}}', "'H200' is given twice"),
    ('{"prices": {"h200": 1}}', "unknown field 'prices'"),
    ('{"schema": "libscale.prices/2", "price_per_gpu_hour_usd": {"h200": 1}}', "expected 'libscale.prices/1'"),
    ('[1, 2]', "expected a JSON object"),
    ('{"price_per_gpu_hour_usd": ', "malformed JSON"),
    ("[" * 100_000, "malformed JSON|nested too deeply"),
])
def test_bad_price_files_are_refused_with_the_file_named(tmp_path: Path, content: str, message: str):
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message) as e:
        libscale.read_prices(path)
    assert str(path) in str(e.value)


def test_price_files_must_be_regular_and_small(tmp_path: Path):
    with pytest.raises(ValueError, match="is a directory"):
        libscale.read_prices(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):  # no writer: must not block
        libscale.read_prices(fifo)
    big = tmp_path / "big.json"
    big.write_text(" " * (2 << 20) + "{}")
    with pytest.raises(ValueError, match="larger than"):
        libscale.read_prices(big)


def test_one_price_for_all_or_per_hardware_not_both():
    with pytest.raises(ValueError, match="not both"):
        libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], prices={"h200": 2.0},
                         price_per_gpu_hour_usd=3.0, **CONFIG)
    with pytest.raises(ValueError, match="given twice"):
        libscale.compare("qwen3-32b", ["b300", "B300"], gpus=[8], **CONFIG)
    with pytest.raises(ValueError, match="no compared hardware is named 'a100'"):
        libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], calibration={"a100": "x"}, **CONFIG)


def test_cli_hardware_list_table_csv_and_errors(tmp_path: Path):
    args = ["project", "--model", "qwen3-32b", "--hardware", "b300,h200", "--gpus", "8,16", "--gpus-per-node", "8",
            "--global-batch-tokens", "1048576", "--tokens", "1e9"]
    table = run_cli(args)
    assert table.returncode == 0, table.stderr
    assert "hardware  $/GPU-h  GPUs" in table.stdout and "16 GPUs: fastest" in table.stdout
    csv = run_cli(args + ["--format", "csv"])
    lines = csv.stdout.splitlines()
    assert lines[0].startswith("hardware,calibration,price_per_gpu_hour_usd,gpus,") and len(lines) == 5
    expected = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8, 16], tokens=1e9, gpus_per_node=8,
                                global_batch_tokens=1_048_576).records()
    assert float(lines[3].split(",")[lines[0].split(",").index("cost_usd")]) == pytest.approx(expected[2]["cost_usd"])
    for extra, message in ((["--calibration", "derived-b300-qwen3-32b"], "must be HARDWARE=CALIBRATION"),
                           (["--prices", str(tmp_path)], "is a directory"),
                           (["--hardware", "b300,,h200"], "has an empty name")):
        # a flag of `extra` replaces the one in args (a flag given twice is an error of its own)
        given = list(args)
        if extra[0] in given:
            given[given.index(extra[0]) + 1] = extra[1]
        else:
            given += extra
        bad = run_cli(given)
        assert bad.returncode == 2 and message in bad.stderr and bad.stderr.count("\n") == 1, bad.stderr


def test_header_without_gpus_per_node_gives_each_hardware_its_own():
    # Without gpus_per_node each hardware runs its own node size: said on its own line,
    # never "None GPUs/node".
    c = libscale.compare("qwen3-32b", ["h100", "b200"], gpus=[8])
    header = c.header()
    assert "None" not in header and "each hardware's GPUs/node" in header.splitlines()[0]
    for name in ("h100", "b200"):
        line = next(ln for ln in header.splitlines() if ln.strip().startswith(name + ":"))
        assert f"{libscale.hardware(name).gpus_per_node} GPUs/node" in line
    given = libscale.compare("qwen3-32b", ["h100", "b200"], gpus=[8], gpus_per_node=4).header()
    assert "4 GPUs/node" in given.splitlines()[0] and "GPUs/node" not in given.splitlines()[1]


def test_a_winner_inside_the_uncertainty_is_called_a_tie():
    from libscale._comparison import _ties

    # B300 and B200 differ by 2 % in speed at 8 GPUs, well inside B300's P10-P90.
    c = libscale.compare("qwen3-32b", ["b300", "b200"], gpus=[8], gpus_per_node=8, global_batch_tokens=1_048_576,
                         tokens=1e9, quantiles=True)
    tie = r"fastest b300 \(10\.\d\d h\), 1\.02× b200, a tie with b200 \(inside its P10-P90\)"
    assert re.search(tie, c.summary()[0])
    # Without quantiles: within 1 % is a tie, 2 % is not.
    winner = {"hardware": "a", "cost_usd": 100.0}
    assert _ties(winner, [{"hardware": "b", "cost_usd": 100.9}], "cost_usd") == ", a tie with b (within 1 %)"
    assert _ties(winner, [{"hardware": "b", "cost_usd": 102.0}], "cost_usd") == ""
    # H200 is 2.14× slower: no tie.
    far = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8], gpus_per_node=8, global_batch_tokens=1_048_576,
                           tokens=1e9, quantiles=True)
    assert "tie" not in far.summary()[0].split(";")[0]
