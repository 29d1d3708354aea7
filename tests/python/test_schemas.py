"""The JSON Schemas shipped in libscale/schemas/ (libscale.schemas): each is a valid
draft 2020-12 schema; every shipped data file validates against its format's schema; a
document the core's reader rejects fails its schema too, and one it accepts passes (each
variant is fed to both, so schema and reader are seen to agree), and the few checks a
schema cannot express are listed as known gaps, each shown to be the reader's alone; the
JSON output of every CLI command, and each line `libscale watch` writes, validates against
its output schema."""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

import libscale
from conftest import load_script
from libscale import _core, schemas

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "calibration" / "data"
TRACE = ROOT / "examples" / "traces" / "nccl-hang.csv"

REGISTRY: Registry = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in map(schemas.load, schemas.names()))


@functools.cache
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schemas.load(name), registry=REGISTRY)


def errors(name: str, doc: Any) -> list[str]:
    """Every way doc fails schema `name`, one line each (empty: it validates)."""
    v = validator(name)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in v.iter_errors(doc)]


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# --- the schemas themselves ------------------------------------------------------------------


@pytest.mark.parametrize("name", schemas.names())
def test_schema_is_valid(name: str):
    s = schemas.load(name)
    Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["$id"] == f"https://libscale.dev/schemas/{name}.json"
    assert s["title"] and s["description"]
    assert schemas.path(name).name == f"{name}.json"
    assert read(schemas.path(name)) == s


def test_names_tags_and_paths():
    assert schemas.path("libscale.calibration/2") == schemas.path("calibration-2")
    assert schemas.path("calibration-2.json") == schemas.path("calibration-2")
    assert schemas.load("libscale.watch_event/1")["$id"].endswith("/watch_event-1.json")
    assert schemas.path("calibration-2").parent.name == "schemas"
    assert schemas.path("calibration-2").parent.parent == Path(libscale.__file__).parent
    for bad in ("calibration-3", "libscale.calibration/3", "../README", ""):
        with pytest.raises(ValueError, match="no libscale schema"):
            schemas.load(bad)


OUTPUT_TAGS = ["projection", "sweep", "solution", "layouts", "fit_advice", "gate", "fit", "validation", "triage",
               "models", "hardware_list", "watch_event", "pack", "calibration_report", "comparison"]
FILE_FORMATS = ["calibration-2", "calibration-1", "measurements-2", "hardware-1", "hf_config", "power_bands",
                "lengths_record", "prices-1"]


def test_every_format_and_output_has_a_schema_and_a_line_in_the_docs():
    expected = set(FILE_FORMATS) | {f"{t}-1" for t in OUTPUT_TAGS} | {"common"}
    assert set(schemas.names()) == expected
    docs = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    for name in expected:
        assert f"{name}.json" in docs, f"docs/formats.md does not name {name}.json"
    for t in OUTPUT_TAGS:  # every output schema requires its tag
        s = schemas.load(f"{t}-1")
        assert s["properties"]["schema"]["const"] == f"libscale.{t}/1" and "schema" in s["required"]


# --- the schemas agree with the core's own tables -------------------------------------------


def _leaves(node: dict[str, Any], prefix: str = "") -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key, sub in node["properties"].items():
        if sub.get("type") == "object":
            out.update(_leaves(sub, prefix + key + "."))
        else:
            out[prefix + key] = sub
    return out


def test_coefficient_names_and_ranges_are_the_cores():
    s = schemas.load("calibration-2")
    leaves = _leaves(s["$defs"]["absolute"]["properties"]["coefficients"])
    table = {c["name"]: c for c in _core.calibrate.calibration_coefficients()}
    assert list(leaves) == list(table)
    for name, c in table.items():
        leaf = leaves[name]
        assert leaf[("exclusiveMinimum" if c["min_exclusive"] else "minimum")] == c["min"], name
        assert leaf.get("maximum", float("inf")) == c["max"], name
    names = s["$defs"]["absolute"]["properties"]["prior"]["propertyNames"]["enum"]
    assert names == list(table) == schemas.load("common")["$defs"]["coefficient_name"]["enum"]


# Some schemas are partly generated from the core's tables by scripts/make_schemas.py (its
# GENERATED names them; scripts/regenerate.sh runs it): each must be what the script writes.
make_schemas = load_script("make_schemas")


def _assert_generated(name: str) -> None:
    path = make_schemas.SCHEMAS / name
    text = path.read_text(encoding="utf-8")
    want = make_schemas.render(name, text)
    if text == want:
        return
    have, expected = json.loads(text), json.loads(want)
    parts = [f"$defs/{k}" for k, v in expected["$defs"].items() if have["$defs"].get(k) != v]
    parts += [k for k, v in expected.items() if k != "$defs" and have.get(k) != v]
    pytest.fail(f"{path.relative_to(ROOT)} differs from what scripts/make_schemas.py generates from the core's "
                f"tables ({', '.join(parts) or 'its layout'}): run scripts/regenerate.sh")


@pytest.mark.parametrize("name", sorted(make_schemas.GENERATED))
def test_generated_schema_is_the_scripts(name: str):
    # Every output's "config" and "job" (common.json) and a step record's training options
    # (measurements-2.json) are the core's option tables, and so on: the schema of each
    # option or output is derived from its declaration, so a new one needs no hand edit here.
    assert name.removesuffix(".json") in schemas.names()
    doc = json.loads((make_schemas.SCHEMAS / name).read_text(encoding="utf-8"))
    assert doc["$comment"].startswith("Partly generated by scripts/regenerate.sh"), name
    _assert_generated(name)


def test_model_types_and_phases_are_the_cores():
    types = list(_core.io.supported_model_types())
    hf = schemas.load("hf_config")
    assert hf["properties"]["model_type"]["enum"] == types + [""]
    assert sorted(t for t in hf["$defs"] if t in types) == types
    common = schemas.load("common")["$defs"]
    assert common["model_spec"]["properties"]["model_type"]["enum"] == types
    assert common["phase"]["enum"] == list(_core.triage.PHASE_NAMES)


# --- every shipped data file validates --------------------------------------------------------

SHIPPED = {"calibrations": "calibration-2", "hardware": "hardware-1", "models": "hf_config",
           "measurements": "measurements-2"}
SHIPPED_FILES = [(p, name) for sub, name in SHIPPED.items() for p in sorted((DATA / sub).glob("*.json"))]


def test_shipped_files_are_found():
    assert {name for _, name in SHIPPED_FILES} == set(SHIPPED.values())
    assert len(SHIPPED_FILES) >= 40


@pytest.mark.parametrize("path,name", SHIPPED_FILES, ids=[str(p.relative_to(DATA)) for p, _ in SHIPPED_FILES])
def test_shipped_file_validates(path: Path, name: str):
    assert errors(name, read(path)) == []


# --- the readers, as the mutations meet them --------------------------------------------------


def _hardware_for(doc: Any) -> Any:
    hw = doc.get("hardware") if isinstance(doc, dict) else None
    return libscale.hardware(hw if isinstance(hw, str) and hw and hw.lower() != "generic" else "h100")


def read_calibration(doc: Any, tmp: Path) -> None:
    _core.calibrate.calibration_from_json(doc, _hardware_for(doc))


def read_hardware(doc: Any, tmp: Path) -> None:
    p = tmp / "hw.json"
    p.write_text(json.dumps(doc))
    _core.io.find_hardware(str(p))


def read_model(doc: Any, tmp: Path) -> None:
    _core.spec.model_from_hf_config(doc, "m")


def read_measurements(doc: Any, tmp: Path) -> None:
    _core.calibrate.measurements_from_json(doc)


def read_bands(doc: Any, tmp: Path) -> None:
    p = tmp / "cal.json"
    p.write_text(json.dumps(doc))
    _core.triage.read_power_bands(str(p), _hardware_for(doc))


def read_lengths(doc: Any, tmp: Path) -> None:
    p = tmp / "lengths.jsonl"
    p.write_text(json.dumps(doc) + "\n")
    libscale.read_lengths(p)


# Base documents: shipped files, and small ones for what is not shipped.
FALCON = {"model_type": "falcon", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
          "vocab_size": 1000}
STEP = {"kind": "step", "model": "qwen3-0.6b", "hardware": "h100", "gpus": 8, "seq_len": 4096, "micro_batch": 1,
        "grad_accum": 2, "step_time_s": 1.2, "memory_gib": 40, "memory_kind": "reserved", "source": "a paper"}
MEASUREMENTS = {"schema": "libscale.measurements/2", "description": "one record of each kind", "records": [
    {"kind": "gemm", "hardware": "h100", "m": 4096, "n": 4096, "k": 4096, "dtype": "bf16", "seconds": 2e-4},
    {"kind": "attention", "hardware": "h100", "batch": 1, "seq_len": 4096, "heads": 32, "head_dim": 128,
     "causal": True, "pass": "forward", "seconds": 1e-3},
    {"kind": "bandwidth", "hardware": "h100", "bytes": 1e9, "seconds": 4e-4},
    {"kind": "collective", "hardware": "h100", "op": "all_gather", "ranks": 8, "ranks_per_node": 8,
     "bytes": 1e8, "seconds": 5e-4},
    STEP,
    {"kind": "power", "hardware": "h100", "phase": "idle", "watts": 70, "note": "kept, ignored"},
    {"kind": "step_microrun", "model": "qwen3-0.6b", "hardware": "h100", "gpus": 4, "seq_len": 4096,
     "micro_batch": 1, "layers": 2, "activation_checkpointing": "none", "step_time_s": 0.05},
]}
MICRO_I = ("records", 6)
BANDS = {"schema": "libscale.calibration/1", "hardware": "h100", "coefficients": {"eta_max": 0.5},
         "power_bands": {"basis": "fraction_of_power_limit", "power_limit_w": 700, "idle_max": 0.12,
                         "checkpoint_max": 0.25, "starvation_max": 0.4, "communication_max": 0.6,
                         "idle_util_max_pct": 50, "source": "micro-runs"}}
BANDS_W = dict(read(DATA / "calibrations" / "default-h100.json"),
               power_bands={"basis": "watts", "power_limit_w": 700, "idle_max": 80, "checkpoint_max": 175,
                            "starvation_max": 280, "communication_max": 420})

Reader = Callable[[Any, Path], None]
BASES: dict[str, tuple[str, Any, Reader]] = {
    "default": ("calibration-2", read(DATA / "calibrations" / "default-h100.json"), read_calibration),
    "generic": ("calibration-2", read(DATA / "calibrations" / "default-generic.json"), read_calibration),
    "derived": ("calibration-2", read(DATA / "calibrations" / "derived-b300-qwen3-32b.json"), read_calibration),
    "hardware": ("hardware-1", read(DATA / "hardware" / "h100.json"), read_hardware),
    "llama": ("hf_config", read(DATA / "models" / "llama-3.1-8b.json"), read_model),
    "qwen3": ("hf_config", read(DATA / "models" / "qwen3-0.6b.json"), read_model),
    "gemma2": ("hf_config", read(DATA / "models" / "gemma-2-9b.json"), read_model),
    "mpt": ("hf_config", read(DATA / "models" / "llm-foundry-mpt-7b.json"), read_model),
    "gpt2": ("hf_config", read(DATA / "models" / "gpt2.json"), read_model),
    "opt": ("hf_config", read(DATA / "models" / "opt-125m.json"), read_model),
    "falcon": ("hf_config", FALCON, read_model),
    "measurements": ("measurements-2", MEASUREMENTS, read_measurements),
    "bands": ("calibration-1", BANDS, read_bands),
    "bands_watts": ("calibration-2", BANDS_W, read_bands),
    "length": ("lengths_record", {"length": 4096, "text": "ignored"}, read_lengths),
}

_DELETE = object()
Change = Callable[[Any], Any]


def at(path: tuple[Any, ...], value: Any) -> Change:
    """The change that replaces the value at path (or deletes it: _DELETE)."""
    def change(doc: Any) -> Any:
        node = doc
        for key in path[:-1]:
            node = node[key]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
        return doc
    return change


def both(*changes: Change) -> Change:
    def change(doc: Any) -> Any:
        for c in changes:
            doc = c(doc)
        return doc
    return change


D = _DELETE
R = ("records",)
GEMM, ATT, BW, COLL, STEP_I, POWER = (R + (i,) for i in range(6))
PB = ("power_bands",)
COEF = ("coefficients",)

# (id, base, change): documents the reader rejects; the schema must reject them too.
REJECTED: list[tuple[str, str, Change]] = [
    # calibration, default form
    ("default: missing gemm.eta_max", "default", at(("compute", "gemm", "eta_max"), D)),
    ("default: gemm.eta_max a string", "default", at(("compute", "gemm", "eta_max"), "0.8")),
    ("default: gemm.eta_max above 1", "default", at(("compute", "gemm", "eta_max"), 1.5)),
    ("default: gemm.eta_max 0 (exclusive)", "default", at(("compute", "gemm", "eta_max"), 0)),
    ("default: tile_m 0", "default", at(("compute", "gemm", "tile_m"), 0)),
    ("default: framework_efficiency 2.5", "default", at(("compute", "framework_efficiency"), 2.5)),
    ("default: kernel overhead 2 s", "default", at(("compute", "overhead", "kernel_s"), 2)),
    ("default: busbw_fraction 0", "default", at(("comm", "intra_node", "busbw_fraction"), 0)),
    ("default: busbw_fraction 1.2", "default", at(("comm", "inter_node", "busbw_fraction"), 1.2)),
    ("default: alpha_us negative", "default", at(("comm", "inter_node", "alpha_us"), -1)),
    ("default: memory margin 0.95", "default", at(("memory", "margin"), 0.95)),
    ("default: idle_fraction 1.5", "default", at(("power", "idle_fraction"), 1.5)),
    ("default: missing compute", "default", at(("compute",), D)),
    ("default: kind left out and no compute", "default", both(at(("kind",), D), at(("compute",), D))),
    ("default: missing power section", "default", at(("power",), D)),
    ("default: comm not an object", "default", at(("comm",), [1, 2])),
    ("default: schema /3", "default", at(("schema",), "libscale.calibration/3")),
    ("default: schema /1", "default", at(("schema",), "libscale.calibration/1")),
    ("default: schema of another format", "default", at(("schema",), "libscale.hardware/1")),
    ("default: missing schema", "default", at(("schema",), D)),
    ("default: kind unknown", "default", at(("kind",), "measured")),
    ("default: kind fitted without coefficients", "default", at(("kind",), "fitted")),
    ("default: prior of an unknown coefficient", "default", at(("prior", "gemm.eta_mx"), 0.1)),
    ("default: prior sd 0", "default", at(("prior", "gemm.eta_max"), 0)),
    ("default: prior not an object", "default", at(("prior",), [0.1])),
    ("default: sources not an object", "default", at(("sources",), "text")),
    ("default: hardware not a string", "default", at(("hardware",), 5)),
    ("generic: missing memory.hbm_efficiency", "generic", at(("memory", "hbm_efficiency"), D)),
    # calibration, absolute form
    ("derived: missing hbm_efficiency", "derived", at(COEF + ("hbm_efficiency",), D)),
    ("derived: missing the gemm group", "derived", at(COEF + ("gemm",), D)),
    ("derived: unknown coefficient in a group", "derived", at(COEF + ("gemm", "eta_mx"), 0.8)),
    ("derived: unknown coefficient", "derived", at(COEF + ("bogus",), 1)),
    ("derived: a group given as a number", "derived", at(COEF + ("gemm",), 0.8)),
    ("derived: framework_efficiency 2.5", "derived", at(COEF + ("framework_efficiency",), 2.5)),
    ("derived: busbw 0 (exclusive)", "derived", at(COEF + ("intra_node", "busbw_bytes_per_s"), 0)),
    ("derived: power.idle_w a string", "derived", at(COEF + ("power", "idle_w"), "160")),
    ("derived: power.compute_w above 1e5", "derived", at(COEF + ("power", "compute_w"), 2e5)),
    ("derived: coefficients not an object", "derived", at(COEF, [])),
    ("derived: missing coefficients", "derived", at(COEF, D)),
    ("derived: hardware empty", "derived", at(("hardware",), "")),
    ("derived: missing hardware", "derived", at(("hardware",), D)),
    ("derived: uncertainty of an unknown parameter", "derived", at(("uncertainty", "parameters", 0), "bogus")),
    ("derived: uncertainty parameter twice", "derived", at(("uncertainty", "parameters", 1), "gemm.eta_max")),
    ("derived: uncertainty without covariance", "derived", at(("uncertainty", "covariance"), D)),
    ("derived: covariance entry a string", "derived", at(("uncertainty", "covariance", 0, 0), "x")),
    ("derived: uncertainty not an object", "derived", at(("uncertainty",), "x")),
    ("derived: quality not an object", "derived", at(("quality",), [])),
    ("derived: provenance not an object", "derived", at(("provenance",), "x")),
    ("derived: prior of an unknown coefficient", "derived", at(("prior", "eta_max"), 0.1)),
    # hardware
    ("hardware: missing gpus_per_node", "hardware", at(("gpus_per_node",), D)),
    ("hardware: peak a string", "hardware", at(("peak_bf16_tflops",), "989")),
    ("hardware: peak 0", "hardware", at(("peak_bf16_tflops",), 0)),
    ("hardware: fp8 peak null", "hardware", at(("peak_fp8_tflops",), None)),
    ("hardware: fp8 peak negative", "hardware", at(("peak_fp8_tflops",), -1)),
    ("hardware: gpus_per_node 0", "hardware", at(("gpus_per_node",), 0)),
    ("hardware: gpus_per_node fractional", "hardware", at(("gpus_per_node",), 8.5)),
    ("hardware: sm_count fractional", "hardware", at(("sm_count",), 1.5)),
    ("hardware: sm_count negative", "hardware", at(("sm_count",), -1)),
    ("hardware: sm_count too large", "hardware", at(("sm_count",), 200000)),
    ("hardware: idle_power_w negative", "hardware", at(("idle_power_w",), -1)),
    ("hardware: idle_power_w a string", "hardware", at(("idle_power_w",), "70")),
    ("hardware: price negative", "hardware", at(("price_per_gpu_hour_usd",), -1)),
    ("hardware: missing price", "hardware", at(("price_per_gpu_hour_usd",), D)),
    ("hardware: name empty", "hardware", at(("name",), "")),
    ("hardware: nvlink 0", "hardware", at(("nvlink_gbps_bidir",), 0)),
    ("hardware: schema /2", "hardware", at(("schema",), "libscale.hardware/2")),
    ("hardware: missing schema", "hardware", at(("schema",), D)),
    # model config.json
    ("llama: missing hidden_size", "llama", at(("hidden_size",), D)),
    ("llama: hidden_size null", "llama", at(("hidden_size",), None)),
    ("llama: hidden_size a string", "llama", at(("hidden_size",), "4096")),
    ("llama: hidden_size 0", "llama", at(("hidden_size",), 0)),
    ("llama: hidden_size fractional", "llama", at(("hidden_size",), 4096.5)),
    ("llama: num_key_value_heads 0", "llama", at(("num_key_value_heads",), 0)),
    ("llama: max_position_embeddings 0", "llama", at(("max_position_embeddings",), 0)),
    ("llama: head_dim a string", "llama", at(("head_dim",), "128")),
    ("llama: unsupported activation", "llama", at(("hidden_act",), "tanh")),
    ("llama: tie_word_embeddings a string", "llama", at(("tie_word_embeddings",), "yes")),
    ("llama: attention_bias a number", "llama", at(("attention_bias",), 1)),
    ("llama: unsupported model_type", "llama", at(("model_type",), "bert")),
    ("llama: mixture-of-experts model_type not read", "llama", at(("model_type",), "deepseek_v3")),
    ("llama: model_type not a string", "llama", at(("model_type",), 5)),
    ("llama: model_type null", "llama", at(("model_type",), None)),
    ("llama: no model_type and no vocab_size", "llama", both(at(("model_type",), D), at(("vocab_size",), D))),
    ("llama: eight local experts", "llama", at(("num_local_experts",), 8)),
    ("llama: 64 routed experts", "llama", at(("n_routed_experts",), 64)),
    ("qwen3: use_sliding_window a string", "qwen3", at(("use_sliding_window",), "no")),
    ("qwen3: sliding_window fractional", "qwen3", at(("sliding_window",), 4096.5)),
    ("gemma2: negative soft-cap", "gemma2", at(("attn_logit_softcapping",), -1)),
    ("gemma2: hidden_activation unsupported", "gemma2", at(("hidden_activation",), "tanh")),
    ("gemma2: layer_types with an unknown entry", "gemma2", at(("layer_types",), ["local_attention"] * 42)),
    ("mpt: missing d_model", "mpt", at(("d_model",), D)),
    ("mpt: mixture-of-experts ffn_type", "mpt", at(("ffn_config", "ffn_type"), "mb_moe")),
    ("mpt: ffn_config a string", "mpt", at(("ffn_config",), "mptmlp")),
    ("mpt: unknown attn_type", "mpt", at(("attn_config", "attn_type"), "sparse_attention")),
    ("mpt: grouped-query attention with 0 kv heads", "mpt",
     both(at(("attn_config", "attn_type"), "grouped_query_attention"), at(("attn_config", "kv_n_heads"), 0))),
    ("mpt: q/k GroupNorm", "mpt", at(("attn_config", "qk_gn"), True)),
    ("mpt: unknown norm_type", "mpt", at(("norm_type",), "batchnorm")),
    ("mpt: no position signal", "mpt", at(("learned_pos_emb",), False)),
    ("gpt2: cross-attention", "gpt2", at(("add_cross_attention",), True)),
    ("gpt2: n_inner 0", "gpt2", at(("n_inner",), 0)),
    ("gpt2: missing n_positions", "gpt2", at(("n_positions",), D)),
    ("opt: word_embed_proj_dim negative", "opt", at(("word_embed_proj_dim",), -1)),
    ("opt: missing ffn_dim", "opt", at(("ffn_dim",), D)),
    ("falcon: three norms in parallel attention", "falcon", at(("num_ln_in_parallel_attn",), 3)),
    ("falcon: no hidden size", "falcon", at(("hidden_size",), D)),
    ("falcon: n_embed a string", "falcon", at(("n_embed",), "x")),
    ("falcon: new architecture with 0 kv heads", "falcon",
     both(at(("new_decoder_architecture",), True), at(("num_kv_heads",), 0))),
    ("falcon: multi_query a string", "falcon", at(("multi_query",), "yes")),
    # measurements
    ("measurements: schema /3", "measurements", at(("schema",), "libscale.measurements/3")),
    ("measurements: missing schema", "measurements", at(("schema",), D)),
    ("measurements: missing records", "measurements", at(R, D)),
    ("measurements: records an object", "measurements", at(R, {})),
    ("measurements: a record not an object", "measurements", at(GEMM, "gemm")),
    ("measurements: unknown kind", "measurements", at(GEMM + ("kind",), "matmul")),
    ("measurements: missing kind", "measurements", at(GEMM + ("kind",), D)),
    ("measurements: gemm without seconds", "measurements", at(GEMM + ("seconds",), D)),
    ("measurements: gemm seconds null", "measurements", at(GEMM + ("seconds",), None)),
    ("measurements: gemm seconds 0", "measurements", at(GEMM + ("seconds",), 0)),
    ("measurements: gemm seconds a string", "measurements", at(GEMM + ("seconds",), "2e-4")),
    ("measurements: gemm dtype fp16", "measurements", at(GEMM + ("dtype",), "fp16")),
    ("measurements: GEMM-chain record of /1", "measurements",
     both(at(GEMM + ("m",), D), at(GEMM + ("tokens",), 4096), at(GEMM + ("flops",), 1e12))),
    ("measurements: hardware empty", "measurements", at(GEMM + ("hardware",), "")),
    ("measurements: attention pass both", "measurements", at(ATT + ("pass",), "both")),
    ("measurements: attention causal a string", "measurements", at(ATT + ("causal",), "yes")),
    ("measurements: bandwidth bytes negative", "measurements", at(BW + ("bytes",), -1)),
    ("measurements: collective over one rank", "measurements", at(COLL + ("ranks",), 1)),
    ("measurements: collective ranks fractional", "measurements", at(COLL + ("ranks",), 8.5)),
    ("measurements: collective broadcast", "measurements", at(COLL + ("op",), "broadcast")),
    ("measurements: collective without op", "measurements", at(COLL + ("op",), D)),
    ("measurements: step with two throughputs", "measurements", at(STEP_I + ("tokens_per_s",), 1e5)),
    ("measurements: step without a throughput", "measurements", at(STEP_I + ("step_time_s",), D)),
    ("measurements: step gpus 0", "measurements", at(STEP_I + ("gpus",), 0)),
    ("measurements: step micro-run without layers", "measurements", at(MICRO_I + ("layers",), D)),
    ("measurements: step micro-run layers 0", "measurements", at(MICRO_I + ("layers",), 0)),
    ("measurements: step micro-run strategy tp", "measurements", at(MICRO_I + ("strategy",), "tp")),
    ("measurements: step gpus fractional", "measurements", at(STEP_I + ("gpus",), 1.5)),
    ("measurements: step model empty", "measurements", at(STEP_I + ("model",), "")),
    ("measurements: step relative_error 2", "measurements", at(STEP_I + ("relative_error",), 2)),
    ("measurements: step relative_error 1e-4", "measurements", at(STEP_I + ("relative_error",), 1e-4)),
    ("measurements: step memory_kind peak", "measurements", at(STEP_I + ("memory_kind",), "peak")),
    ("measurements: step source empty", "measurements", at(STEP_I + ("source",), "")),
    ("measurements: step strategy tp", "measurements", at(STEP_I + ("strategy",), "tp")),
    ("measurements: step checkpointing some", "measurements", at(STEP_I + ("activation_checkpointing",), "some")),
    ("measurements: step torch_compile a string", "measurements", at(STEP_I + ("torch_compile",), "yes")),
    ("measurements: step model_overrides a list", "measurements", at(STEP_I + ("model_overrides",), [1])),
    ("measurements: step gpus_per_node negative", "measurements", at(STEP_I + ("gpus_per_node",), -8)),
    ("measurements: power phase busy", "measurements", at(POWER + ("phase",), "busy")),
    ("measurements: power watts 0", "measurements", at(POWER + ("watts",), 0)),
    # power bands (read by triage and watch)
    ("bands: unknown key", "bands", at(PB + ("compute_max",), 0.9)),
    ("bands: unknown basis", "bands", at(PB + ("basis",), "percent")),
    ("bands: missing idle_max", "bands", at(PB + ("idle_max",), D)),
    ("bands: idle_max a string", "bands", at(PB + ("idle_max",), "0.1")),
    ("bands: communication_max at 1.2 of the limit", "bands", at(PB + ("communication_max",), 1.2)),
    ("bands: power_limit_w 0", "bands", at(PB + ("power_limit_w",), 0)),
    ("bands: idle_util_max_pct 100", "bands", at(PB + ("idle_util_max_pct",), 100)),
    ("bands: no power_bands section", "bands", at(PB, D)),
    ("bands: power_bands a list", "bands", at(PB, [])),
    ("bands: schema /3", "bands", at(("schema",), "libscale.calibration/3")),
    ("bands_watts: idle_max 0", "bands_watts", at(PB + ("idle_max",), 0)),
    # lengths JSONL
    ("hardware: display_name not a string", "hardware", at(("display_name",), 5)),
    ("bands: hardware not a string", "bands", at(("hardware",), 5)),
    ("bands_watts: hardware not a string", "bands_watts", at(("hardware",), 5)),
    ("default: a misspelt key in a section", "default", at(("memory", "margn"), 0.2)),
    ("default: an unknown key in a nested section", "default", at(("comm", "inter_node", "alpha_s"), 1e-5)),
    ("default: description not a string", "default", at(("description",), 5)),
    ("llama: _libscale.name not a string", "llama", at(("_libscale",), {"name": 7})),
    ("llama: _libscale not an object", "llama", at(("_libscale",), "qwen")),
    ("gemma2: negative sliding_window", "gemma2", at(("sliding_window",), -4096)),
    ("qwen3: negative sliding_window", "qwen3", at(("sliding_window",), -1)),
    ("length: negative", "length", at(("length",), -3)),
    ("length: a string", "length", at(("length",), "5")),
    ("length: fractional", "length", at(("length",), 3.5)),
    ("length: over 2^32 - 1", "length", at(("length",), 2**32)),
    ("length: missing", "length", at(("length",), D)),
]

# (id, base, change): documents both accept (variants the schema must not refuse).
ACCEPTED: list[tuple[str, str, Change]] = [
    ("default: kind left out", "default", at(("kind",), D)),
    ("default: unknown top-level key", "default", at(("notes",), "kept")),
    ("default: prior null", "default", at(("prior",), None)),
    ("derived: uncertainty null", "derived", at(("uncertainty",), None)),
    ("derived: provenance of any shape", "derived", at(("provenance",), {"x": [1, {"y": None}]})),
    ("derived: gemm.fp8_eta_max 0", "derived", at(COEF + ("gemm", "fp8_eta_max"), 0)),
    ("hardware: no idle power", "hardware", at(("idle_power_w",), None)),
    ("hardware: no sm_count", "hardware", at(("sm_count",), None)),
    ("hardware: no fp8 peak", "hardware", at(("peak_fp8_tflops",), D)),
    ("hardware: display_name null", "hardware", at(("display_name",), None)),
    ("llama: no model_type", "llama", at(("model_type",), D)),
    ("llama: empty model_type", "llama", at(("model_type",), "")),
    ("llama: one expert", "llama", at(("num_experts",), 1)),
    ("llama: kv heads null", "llama", at(("num_key_value_heads",), None)),
    ("mpt: no position table with ALiBi", "mpt",
     both(at(("attn_config", "alibi"), True), at(("learned_pos_emb",), False))),
    ("mpt: rmsnorm", "mpt", at(("norm_type",), "low_precision_rmsnorm")),
    ("falcon: legacy n_embed", "falcon", both(at(("hidden_size",), D), at(("n_embed",), 256))),
    ("falcon: multi_query unread with the new architecture", "falcon",
     both(at(("new_decoder_architecture",), True), at(("multi_query",), "ignored"))),
    ("measurements: a bare list", "measurements", lambda d: d["records"]),
    ("measurements: schema /1", "measurements", at(("schema",), "libscale.measurements/1")),
    ("measurements: integers written 8.0", "measurements", at(STEP_I + ("gpus",), 8.0)),
    ("measurements: null reads as missing", "measurements", at(STEP_I + ("strategy",), None)),
    ("measurements: memory_kind unread without memory_gib", "measurements",
     both(at(STEP_I + ("memory_gib",), D), at(STEP_I + ("memory_kind",), "peak"))),
    ("measurements: step in tokens/s per GPU", "measurements",
     both(at(STEP_I + ("step_time_s",), D), at(STEP_I + ("tokens_per_s_per_gpu",), 4000.0))),
    ("bands: source of any type", "bands", at(PB + ("source",), 3)),
    ("length: the largest", "length", at(("length",), 2**32 - 1)),
    ("length: 0 (a 0-token sample: each packer applies its trainer's rule)", "length", at(("length",), 0)),
]


def _case(base: str, change: Change) -> tuple[str, Any, Reader]:
    name, doc, reader = BASES[base]
    return name, change(copy.deepcopy(doc)), reader


@pytest.mark.parametrize("base", list(BASES))
def test_base_documents_pass_both(base: str, tmp_path: Path):
    name, doc, reader = BASES[base]
    assert errors(name, doc) == []
    reader(copy.deepcopy(doc), tmp_path)


@pytest.mark.parametrize("case", REJECTED, ids=[c[0] for c in REJECTED])
def test_what_the_reader_rejects_the_schema_rejects(case: tuple[str, str, Change], tmp_path: Path):
    name, doc, reader = _case(case[1], case[2])
    with pytest.raises((ValueError, TypeError)):
        reader(doc, tmp_path)
    assert errors(name, doc), "the reader rejects it, the schema accepts it"


@pytest.mark.parametrize("case", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_what_the_reader_accepts_the_schema_accepts(case: tuple[str, str, Change], tmp_path: Path):
    name, doc, reader = _case(case[1], case[2])
    reader(doc, tmp_path)
    assert errors(name, doc) == []


def _asymmetric(doc: Any) -> Any:
    cov = doc["uncertainty"]["covariance"]
    cov[0][1] = cov[1][0] + 0.01
    return doc


def _row_short(doc: Any) -> Any:
    doc["uncertainty"]["covariance"].pop()
    return doc


def _contradiction(doc: Any) -> Any:
    doc["records"].append(dict(doc["records"][0], seconds=1.0))
    return doc


# (id, base, change): what no JSON Schema can say (arithmetic between fields, whole-file
# checks, how a JSON number is spelt). The reader rejects it; the schema lets it through
# and its description says so.
GAPS: list[tuple[str, str, Change]] = [
    ("covariance not symmetric", "derived", _asymmetric),
    ("covariance with a row short", "derived", _row_short),
    ("heads not a multiple of kv heads", "llama", at(("num_key_value_heads",), 5)),
    ("an integer written 4096.0", "llama", at(("hidden_size",), 4096.0)),
    ("layer_types not one per layer", "qwen3", at(("layer_types",), ["full_attention"])),
    ("idle power above board power", "hardware", at(("idle_power_w",), 800)),
    ("global_batch_tokens not a multiple", "measurements",
     both(at(STEP_I + ("grad_accum",), D), at(STEP_I + ("global_batch_tokens",), 12345))),
    ("contradictory duplicate records", "measurements", _contradiction),
    ("power bands not increasing", "bands", at(PB + ("checkpoint_max",), 0.1)),
    ("a length written 5.0", "length", at(("length",), 5.0)),
]


@pytest.mark.parametrize("case", GAPS, ids=[g[0] for g in GAPS])
def test_known_gaps_are_the_readers_alone(case: tuple[str, str, Change], tmp_path: Path):
    """A schema that learns to reject one of these moves it to REJECTED."""
    name, doc, reader = _case(case[1], case[2])
    with pytest.raises((ValueError, TypeError)):
        reader(doc, tmp_path)
    assert errors(name, doc) == []


def test_power_bands_are_checked_by_triage_not_by_projections(tmp_path: Path):
    """A v2 file's power_bands section is read only by triage and watch: the schema checks
    it as they do, stricter than the projection reader, which ignores it."""
    _, doc, _ = _case("bands_watts", at(PB + ("basis",), "percent"))
    read_calibration(doc, tmp_path)  # projections: fine
    with pytest.raises(ValueError, match="basis"):
        read_bands(doc, tmp_path)
    assert errors("calibration-2", doc)


# --- the CLI's JSON output ----------------------------------------------------------------------

_WAIT = "import time; time.sleep(30)"


def _gap_trace(path: Path) -> Path:
    """Two GPUs; GPU 1 silent from 10 s to 20 s (lost, then back)."""
    lines = ["timestamp, index, power.draw [W], utilization.gpu [%]"]
    for t in range(40):
        for g in (0, 1):
            if g == 1 and 10 <= t < 20:
                continue
            lines.append(f"2024/05/01 12:00:{t:02d}.000, {g}, 650 W, 100 %")
    path.write_text("\n".join(lines) + "\n")
    return path


def _prices(path: Path) -> Path:
    path.write_text(json.dumps({"schema": "libscale.prices/1", "source": "a test",
                                "price_per_gpu_hour_usd": {"B300": 5.5, "h200": 3.25}}))
    assert errors("prices-1", json.loads(path.read_text())) == []
    return path


def _commands(tmp: Path) -> dict[str, tuple[str, list[str], int]]:
    """name -> (schema, arguments, expected exit status)."""
    lengths = tmp / "lengths.jsonl"
    lengths.write_text("".join(json.dumps({"length": (i * 37) % 500 + 1}) + "\n" for i in range(200)))
    marker = tmp / "marker"
    marker.touch()
    meas = str(DATA / "measurements" / "torchtitan-llama3.1-8b-h100.json")
    small = ["--model", "qwen3-0.6b", "--hardware", "h100"]
    watch = ["watch", "--speed", "20000", "--deadlock-after-s", "60"]
    return {
        "project": ("projection", ["project", *small, "--gpus", "1,8"], 0),
        "project --quantiles": ("projection", ["project", "--model", "qwen3-32b", "--hardware", "b300", "--gpus",
                                               "8,16", "--calibration", "derived-b300-qwen3-32b", "--quantiles",
                                               "--samples", "100"], 0),
        "project, hardware list": ("comparison", ["project", "--model", "qwen3-32b", "--hardware", "b300,h200",
                                                  "--gpus", "8,16", "--prices", str(_prices(tmp / "prices.json")),
                                                  "--calibration", "b300=derived-b300-qwen3-32b"], 0),
        "sweep": ("sweep", ["sweep", *small, "--gpus", "3,4", "--micro-batch", "1,2", "--seq-len", "8192",
                            "--global-batch-tokens", "65536"], 0),
        "solve deadline": ("solution", ["solve", *small, "--gpus", "1,8", "--deadline-h", "1000"], 0),
        "solve budget, none": ("solution", ["solve", *small, "--gpus", "1,8", "--max-gpu-hours", "0.001"], 1),
        "layouts": ("layouts", ["layouts", *small, "--gpus", "16", "--seq-len", "8192", "--intervals", "2",
                                "--samples", "50"], 0),
        "layouts, none fits": ("layouts", ["layouts", "--model", "llama-3.1-70b", "--hardware", "h100", "--gpus",
                                           "2", "--micro-batch", "1"], 1),
        "memory, fits": ("fit_advice", ["memory", *small, "--gpus", "8"], 0),
        "memory, does not fit": ("fit_advice", ["memory", "--model", "qwen3-32b", "--hardware", "h100", "--gpus", "4",
                                                "--seq-len", "4096"], 1),
        "models": ("models", ["models"], 0),
        "hardware": ("hardware_list", ["hardware"], 0),
        "hardware h100": ("hardware_list", ["hardware", "h100"], 0),
        "gate": ("gate", ["gate", "--lengths", str(lengths), "--world-size", "4", "--seq-len", "1024"], 0),
        "fit": ("fit", ["fit", meas, "-o", str(tmp / "fitted.json")], 0),
        "validate": ("validation", ["validate", meas], 0),
        "triage": ("triage", ["triage", str(TRACE)], 0),
        "watch, monitor": ("watch_event", [*watch, "--nvidia-smi-csv", str(TRACE), "--dry-run",
                                           "--checkpoint-marker", str(marker), "--checkpoint-duration-s", "1"], 0),
        "watch, job": ("watch_event", [*watch, "--nvidia-smi-csv", str(TRACE), "--grace-s", "1", "--",
                                       sys.executable, "-c", _WAIT], 3),
        "watch, gap": ("watch_event", [*watch, "--nvidia-smi-csv", str(_gap_trace(tmp / "gap.csv")),
                                       "--stale-after-s", "2"], 0),
    }


# One interpreter runs the commands one after the other through the console script's own
# entry point, libscale.cli.main: a process per command would spend most of the test's
# time importing numpy and libscale again and again.
_DRIVER = r"""
import contextlib, io, json, sys
from libscale import cli
results = {}
for name, args in json.load(sys.stdin).items():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(args)
        except SystemExit as e:
            status = e.code
    results[name] = [status, out.getvalue(), err.getvalue()]
json.dump(results, sys.__stdout__)
"""


@pytest.fixture(scope="module")
def cli_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, int, int, str, str]]:
    """Every command: name -> (schema, status, expected status, stdout, stderr)."""
    tmp = tmp_path_factory.mktemp("cli")
    commands = _commands(tmp)
    argv = {}
    for name, (_, args, _) in commands.items():
        json_flag = [] if args[0] == "watch" else ["--json"]
        cut = args.index("--") if "--" in args else len(args)
        argv[name] = args[:cut] + json_flag + args[cut:]
    run = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(argv), capture_output=True, text=True,
                         timeout=120, cwd=tmp, check=False)
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout)
    out = {name: (commands[name][0], status, commands[name][2], stdout, stderr)
           for name, (status, stdout, stderr) in results.items()}
    out["fit: the file written"] = ("", 0, 0, (tmp / "fitted.json").read_text(), "")
    return out


CLI_CASES = ["project", "project --quantiles", "project, hardware list", "sweep", "solve deadline",
             "solve budget, none", "models", "hardware", "hardware h100", "gate", "fit", "validate", "triage"]
WATCH_CASES = ["watch, monitor", "watch, job", "watch, gap"]


@pytest.mark.parametrize("case", CLI_CASES)
def test_cli_json_output_validates(case: str, cli_outputs: dict[str, tuple[str, int, int, str, str]]):
    tag, status, expected, stdout, stderr = cli_outputs[case]
    assert status == expected, stderr
    doc = json.loads(stdout)
    assert errors(f"{tag}-1", doc) == []


@pytest.mark.parametrize("case", WATCH_CASES)
def test_watch_events_validate(case: str, cli_outputs: dict[str, tuple[str, int, int, str, str]]):
    _, status, expected, stdout, stderr = cli_outputs[case]
    assert status == expected, stderr
    events = [json.loads(line) for line in stdout.splitlines()]
    assert events and events[0]["event"] == "start" and events[-1]["event"] == "exit"
    bad = {f"line {i + 1} ({e.get('event')})": errs for i, e in enumerate(events)
           if (errs := errors("watch_event-1", e))}
    assert bad == {}


def test_watch_runs_cover_the_events(cli_outputs: dict[str, tuple[str, int, int, str, str]]):
    seen = {json.loads(line)["event"] for case in WATCH_CASES for line in cli_outputs[case][3].splitlines()}
    assert {"start", "phase", "alert", "signal", "checkpoint_declared", "gpu_lost", "gpu_returned",
            "source_ended", "exit"} <= seen


def test_fit_writes_a_file_its_schema_and_reader_accept(cli_outputs: dict[str, tuple[str, int, int, str, str]],
                                                        tmp_path: Path):
    doc = json.loads(cli_outputs["fit: the file written"][3])
    assert errors("calibration-2", doc) == []
    read_calibration(doc, tmp_path)


def test_output_schemas_are_closed(cli_outputs: dict[str, tuple[str, int, int, str, str]]):
    """An undocumented field fails the schema, at the top and in a row."""
    doc = json.loads(cli_outputs["project"][3])
    doc.setdefault("schema", "libscale.projection/1")
    assert any("surprise" in e for e in errors("projection-1", dict(doc, surprise=1)))
    row = dict(doc["rows"][0], surprise=1)
    assert any("surprise" in e for e in errors("projection-1", dict(doc, rows=[row])))
    assert any("schema" in e for e in errors("projection-1", {k: v for k, v in doc.items() if k != "schema"}))


@pytest.mark.parametrize("packing", ["bfd", "bfd_split", "ffd", "greedy_split", "knapsack", "none"])
def test_pack_output_validates(packing: str):
    # Lengths past seq_len too, so that the overflow counts are not all zero for every packer.
    lengths = [(i * 7919) % 5000 + 1 for i in range(300)]
    if packing == "ffd":  # NeMo's create_hist raises on a sample longer than seq_len
        lengths = [min(n, 4096) for n in lengths]
    doc = json.loads(libscale.pack(lengths, seq_len=4096, packing=packing).to_json())
    assert errors("pack-1", doc) == []
    assert doc["offsets"][-1] == len(doc["samples"]) == len(doc["entry_tokens"])
    assert len(doc["bin_tokens"]) == doc["num_bins"] == len(doc["offsets"]) - 1
    assert any("surprise" in e for e in errors("pack-1", dict(doc, surprise=1)))


# --- the calibration harness's files (a C++ program: scripts/test.sh builds it first) ---------

CALIBRATE = ROOT / "build" / "cpp" / "calibration" / "libscale-calibrate"
HARNESS_RUNS = {
    "four GPUs": ["--gpus", "4"],
    "two pretended nodes": ["--gpus", "4", "--nodes", "2"],
    "one GPU, interpolated bands": ["--gpus", "1"],
    "out of memory skips": ["--gpus", "2", "--fault", "oom@operations"],
    "an NCCL error": ["--gpus", "2", "--fault", "error@collectives:1"],
}


@pytest.mark.parametrize("case", list(HARNESS_RUNS))
def test_harness_files_validate(case: str, tmp_path: Path):
    if not CALIBRATE.exists():
        pytest.skip(f"{CALIBRATE.relative_to(ROOT)} is not built (scripts/test.sh builds it before the Python suite)")
    out = subprocess.run([str(CALIBRATE), "--model", "qwen3-0.6b", "--hardware", "h100", "--backend", "simulated",
                          "--quick", "--quiet", "--out", str(tmp_path), *HARNESS_RUNS[case]],
                         capture_output=True, text=True, timeout=120, check=False)
    failed = "error@" in " ".join(HARNESS_RUNS[case])
    assert out.returncode == (3 if failed else 0), out.stderr
    assert errors("measurements-2", read(tmp_path / "measurements.json")) == []
    if failed:  # rank 0 stops every rank: the records so far, no calibration, no report
        assert not (tmp_path / "calibration.json").exists()
        return
    report = read(tmp_path / "report.json")
    assert errors("calibration_report-1", report) == []
    assert errors("calibration-2", read(tmp_path / "calibration.json")) == []
    assert ("power_bands" in report) != ("power_bands_not_written" in report)
