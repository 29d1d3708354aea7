"""Writes the seed inputs of the fuzz targets into a folder (default: build/fuzz-seeds),
one subfolder per target: small real files from the repository
(calibration/data, tests/python/data, examples/traces) plus hand-made edge cases. The
committed corpus (fuzz/corpus) is these seeds, the findings, and what the fuzzing runs
added, merged with -merge=1 (fuzz/README.md).

Usage: python fuzz/make_seeds.py [OUT_DIR]
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "calibration" / "data"


def npy(descr: str, values: list[int], *, version: int = 1, fmt: str | None = None,
        shape: str | None = None) -> bytes:
    """A .npy file as numpy.lib.format writes it (header padded to 64 bytes)."""
    shape = shape if shape is not None else f"({len(values)},)"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    pre = 10 if version == 1 else 12
    header += " " * ((64 - (pre + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    item = fmt or {"<u2": "<H", "<u4": "<I", "<u8": "<Q", "<i4": "<i", "<i8": "<q"}.get(descr, "<I")
    body = b"".join(struct.pack(item, v) for v in values)
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin-1") + body


def seeds() -> dict[str, dict[str, bytes]]:
    out: dict[str, dict[str, bytes]] = {}

    def add(target: str, name: str, content: str | bytes) -> None:
        out.setdefault(target, {})[name] = content.encode() if isinstance(content, str) else content

    for f in sorted((DATA / "models").glob("*.json")):
        add("hf_config", f.name, f.read_bytes())
    add("hf_config", "llama-no-model-type.json", json.dumps({
        "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "vocab_size": 100, "max_position_embeddings": 128}))
    add("hf_config", "moe.json", json.dumps({"model_type": "mixtral", "num_local_experts": 8}))
    add("hf_config", "huge-sizes.json", json.dumps({
        "model_type": "llama", "hidden_size": 2**62, "intermediate_size": 2**62, "num_hidden_layers": 2**62,
        "num_attention_heads": 1, "vocab_size": 2**62, "max_position_embeddings": 2**62}))

    for f in sorted((DATA / "hardware").glob("*.json")):
        add("hardware_json", f.name, f.read_bytes())
    h100 = json.loads((DATA / "hardware" / "h100.json").read_text())
    add("hardware_json", "unsigned-gpus-per-node.json", json.dumps({**h100, "gpus_per_node": 2**64 - 1}))
    add("hardware_json", "idle-null.json", json.dumps({**h100, "idle_power_w": None}))

    for f in sorted((DATA / "calibrations").glob("*.json")):
        add("calibration_json", f.name, f.read_bytes())
    add("calibration_json", "v1-power-bands.json", json.dumps({
        "schema": "libscale.calibration/1", "kind": "fitted", "hardware": "h100",
        "coefficients": {"eta_max": 0.55},
        "power_bands": {"basis": "fraction_of_power_limit", "power_limit_w": 700, "idle_max": 0.12,
                        "checkpoint_max": 0.3, "starvation_max": 0.45, "communication_max": 0.65}}))
    add("calibration_json", "v2-power-bands-watts.json", json.dumps({
        "schema": "libscale.calibration/2", "hardware": "generic",
        "power_bands": {"basis": "watts", "power_limit_w": 1100, "idle_max": 120, "checkpoint_max": 280,
                        "starvation_max": 450, "communication_max": 700, "idle_util_max_pct": 50}}))

    # Spreads no coefficient can have: a variance where an sd was meant, a negative one.
    fitted = json.loads((DATA / "calibrations" / "fitted-h200-harness.json").read_text())
    for name, value in (("wide-variance.json", 1e6), ("negative-variance.json", -1e300)):
        doc = json.loads(json.dumps(fitted))
        doc["uncertainty"]["covariance"][0][0] = value
        add("calibration_json", name, json.dumps(doc))

    # Measurement files: the small ones whole, the large ones cut to their first records.
    for f in sorted((DATA / "measurements").glob("*.json")):
        doc = json.loads(f.read_text())
        if len(f.read_bytes()) > 16384 and isinstance(doc, dict):
            doc["records"] = doc["records"][:8]
        add("measurements_json", f.name, json.dumps(doc, indent=1))
    h = {"hardware": "h100"}
    add("measurements_json", "every-kind.json", json.dumps({"schema": "libscale.measurements/2", "records": [
        {"kind": "gemm", **h, "m": 4096, "n": 4096, "k": 1024, "seconds": 0.02, "dtype": "fp8"},
        {"kind": "attention", **h, "batch": 2, "seq_len": 4096, "heads": 32, "head_dim": 128, "pass": "backward",
         "causal": True, "seconds": 0.003},
        {"kind": "bandwidth", **h, "bytes": 4e9, "seconds": 0.0014},
        {"kind": "collective", **h, "op": "all_reduce", "ranks": 16, "ranks_per_node": 8, "bytes": 1e8,
         "seconds": 0.004},
        {"kind": "step", "model": "llama-3.1-8b", **h, "gpus": 8, "gpus_per_node": 8, "seq_len": 8192,
         "micro_batch": 2, "grad_accum": 1, "activation_checkpointing": "selective",
         "tokens_per_s_per_gpu": 5762, "memory_gib": 60, "memory_kind": "reserved"},
        {"kind": "step_microrun", "model": "qwen3-32b", "hardware": "h200", "gpus": 4, "seq_len": 4096,
         "micro_batch": 1, "layers": 2, "step_time_s": 0.2, "activation_checkpointing": "none"},
        {"kind": "power", **h, "phase": "compute", "watts": 650}]}, indent=1))
    add("measurements_json", "memory-beyond-the-gpu.json", json.dumps([
        {"kind": "step", "model": "llama-3.1-8b", **h, "gpus": 8, "gpus_per_node": 8, "seq_len": 8192,
         "micro_batch": 2, "activation_checkpointing": "selective", "tokens_per_s_per_gpu": 5762,
         "memory_gib": 1e300}]))
    add("measurements_json", "power-utilization.json", json.dumps([
        {"kind": "power", **h, "phase": "idle", "watts": 122.5, "utilization_pct": 0},
        {"kind": "power", **h, "phase": "checkpoint_or_deadlock", "watts": 122.4, "utilization_pct": 100},
        {"kind": "power", **h, "phase": "data_starvation", "watts": 354, "utilization_pct": 101},
        {"kind": "power", **h, "phase": "compute", "watts": 1e300, "utilization_pct": None}]))

    logs = ROOT / "tests" / "python" / "data" / "logs"
    for name in ("torchtitan.log", "torchtitan_wps.log", "torchtitan_truncated.log"):
        add("torchtitan_log", name, (logs / name).read_bytes())
    add("torchtitan_log", "color-and-breaks.log",
        "[rank3]:[titan] 2025-06-03 14:02:44,209 - root - INFO - \x1b[31mstep: 10  \x1b[32mloss:  9.8741  "
        "\x1b[33mmemory: 52.87GiB(55.65%)  \x1b[34mtps: 5,731  \x1b[36mtflops: 278.62  \x1b[35mmfu: 28.17%\x1b[39m"
        "\r\nstep: 11  loss: nan  tps: 0\u2028step: 12  loss: 1e400  wps: 1,2,3\x0bvalidate step: 3 loss: 2\n")
    add("torchtitan_log", "cut-mid-number.log",
        "[rank0]:[titan] x - root - INFO - step: 10  loss:  9.8741  tps: 5,731\n"
        "[rank0]:[titan] x - root - INFO - step: 11  loss:  9.8741  tps: 12,3456\n"
        "[rank0]:[titan] x - root - INFO - step: 12  loss:  9.8741  tps: 1234,567\n"
        "[rank0]:[titan] x - root - INFO - step: 13  loss:  9.8741  tps: 5,7")

    trace = (ROOT / "examples" / "traces" / "nccl-hang.csv").read_text().splitlines(keepends=True)
    add("nvidia_smi_csv", "nccl-hang-head.csv", "".join(trace[:40]))
    add("nvidia_smi_csv", "units-crlf.csv",
        "timestamp, index, power.draw [W], utilization.gpu [%]\r\n2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\r\n"
        "2026/05/07 22:08:19.005, 1, [N/A], [Not Supported]\r\n2026/05/07 22:08:19.505, 0, 80.00 W, 5 %\r\n")
    add("nvidia_smi_csv", "impossible-readings.csv",
        "timestamp, index, power.draw [W], utilization.gpu [%]\n2026/05/07 22:08:19.005, 0, 1e300 W, 100 %\n"
        "2026/05/07 22:08:19.505, 0, 10000.5 W, 100 %\n2026/05/07 22:08:20.005, 0, 650 W, 250 %\n"
        "2026/05/07 22:08:20.505, 0, 10000 W, 100 %\n")
    add("nvidia_smi_csv", "noheader-nounits.csv", "2026/05/07 22:08:19.005, 0, 75.20, 0\n1778191700, 0, 300, 80\n")
    add("nvidia_smi_csv", "reordered-header.csv",
        "name, utilization.gpu [%], index, temperature.gpu, power.draw.average [W], timestamp\n"
        "NVIDIA H100 80GB HBM3, 97 %, 3, 61, 655.10 W, 2026/05/07 22:08:19.005\n"
        "timestamp, index, power.draw.instant [W]\n2026-05-07T22:08:20.5, 3, 10 W")

    add("dcgm_prometheus", "scrapes.prom",
        "# scrape t=100.0\n# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
        "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
        'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",device="nvidia0",Hostname="n1"} 312.5\n'
        'DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",device="nvidia1"} 640\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa",device="nvidia0"} 100\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbbb",device="nvidia1"} 99\n'
        'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"} 123456789\n'
        '# scrape t=100.5\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} 72.0\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 100\n')
    add("dcgm_prometheus", "own-timestamps.prom",
        'DCGM_FI_DEV_POWER_USAGE{gpu="2"} 300 1700000000000\nDCGM_FI_DEV_GPU_UTIL{gpu="2"} 50 1700000000000\n'
        'DCGM_FI_DEV_POWER_USAGE{gpu="2"} 301 1700000000500\n\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} 310\n')
    add("dcgm_prometheus", "impossible-readings.prom",
        '# scrape t=1\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} 1e300\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 250\n'
        '# scrape t=2\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} 650\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 100\n')
    add("dcgm_prometheus", "bad-lines.prom",
        '# scrape t=1\nDCGM_FI_DEV_POWER_USAGE{gpu="0"} abc\ngarbage { here\n'
        'DCGM_FI_DEV_POWER_USAGE{UUID="x"} 100\nDCGM_FI_DEV_POWER_USAGE{gpu="1"} NaN\n'
        'DCGM_FI_DEV_GPU_UTIL{gpu="2"} 100\nDCGM_FI_DEV_POWER_USAGE{gpu="3"} 200\n'
        'DCGM_FI_DEV_POWER_USAGE{gpu="3"} 201\n# scrape t=0.5\nDCGM_FI_DEV_POWER_USAGE{gpu="3"} 202\n')

    add("triage_stream", "csv-watch.txt", "".join(trace[:24]) + "!advance 1778191300\n")
    add("triage_stream", "commands.txt",
        "!expect 0 1\n!limit 0 500\n!checkpoint 10 20\n!push 1 0 650 100\n!push 2 1 60 0\n!push 3 0 60 90\n"
        "!now 9\n!advance 40\n!push 41 0 300 100\n!push 41 1 nan 100\n!advance 400\n")
    add("triage_stream", "huge-time.txt", "!push 1e308 0 600 100\n!push 1 0 600 100\n!advance 1e308\n")

    for descr in ("<u2", "<u4", "<u8", "<i4", "<i8"):
        add("lengths_npy", f"v1{descr[1:]}.npy", npy(descr, [1, 7, 4096, 65535]))
    add("lengths_npy", "v2u4.npy", npy("<u4", [3, 9, 27], version=2))
    add("lengths_npy", "zero-length.npy", npy("<u4", [5, 0, 2]))
    add("lengths_npy", "negative.npy", npy("<i8", [5, -1]))
    add("lengths_npy", "2d.npy", npy("<u4", [1, 2, 3, 4], shape="(2, 2)"))
    add("lengths_npy", "truncated.npy", npy("<u4", [1, 2, 3], shape="(4,)"))
    add("lengths_npy", "big-endian.npy", npy(">u4", [1, 2], fmt=">I"))

    add("lengths_raw", "u32.bin", struct.pack("<4I", 1, 2, 3, 4096))
    add("lengths_raw", "u64-huge.bin", struct.pack("<2Q", 7, 2**40))
    add("lengths_raw", "odd.bin", b"\x01\x00\x02")

    add("lengths_jsonl", "lengths.jsonl", '{"length": 12}\n\n{"length": 4096, "text": "x"}\r\n{"length": 1}')
    add("lengths_jsonl", "bad.jsonl",
        '{"length": 0}\n{"length": -3}\n{"length": 1.5}\n[1]\n{"length": 18446744073709551615}\n')
    return out


def main() -> int:
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "fuzz-seeds"
    for target, files in seeds().items():
        d = dest / target
        d.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            (d / name).write_bytes(content)
        print(f"{target}: {len(files)} seeds in {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
