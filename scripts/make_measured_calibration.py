"""Rewrite calibration/data/calibrations/fitted-h200-harness.json: `libscale fit` of the
harness's measurements of one H200 (calibration/data/measured/h200-2026-12-04/), with the
harness run's provenance (GPU, driver, CUDA, cuBLASLt, cuDNN, NCCL versions, date) kept
beside the refit's. Run after a change to the laws or the fitter, then review the diff:

    PYTHONPATH=<build>/bindings:bindings .venv/bin/python scripts/make_measured_calibration.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import libscale

ROOT = Path(__file__).resolve().parents[1]
RUN = Path("calibration/data/measured/h200-2026-12-04")
OUT = ROOT / "calibration/data/calibrations/fitted-h200-harness.json"


def with_utilization(measurements: dict, report: dict) -> dict:
    """The run's power records with each phase's median utilization from its report: the
    harness of that day wrote utilization to the report only, and the spin-wait phase is
    told from idle by it (it drew idle watts at 100 %)."""
    by_phase = {p["triage_phase"]: p["median_utilization_pct"] for p in report["power"].values()}
    for r in measurements["records"]:
        if r.get("kind") == "power" and "utilization_pct" not in r:
            r["utilization_pct"] = by_phase[r["phase"]]
    return measurements


def main() -> None:
    measured = ROOT / RUN / "harness-measurements.json"
    data = json.loads(measured.read_text())
    harness = data["provenance"]
    data = with_utilization(data, json.loads((ROOT / RUN / "harness-report.json").read_text()))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "harness-measurements.json"
        path.write_text(json.dumps(data))
        fit = libscale.fit(path)
    provenance = {
        "source": f"libscale fit {RUN / 'harness-measurements.json'}: libscale-calibrate (cuda backend, full mode, "
                  "--model qwen3-32b --hardware h200) on one NVIDIA H200, 2026-12-04",
        "command": f"libscale fit {RUN / 'harness-measurements.json'} (scripts/make_measured_calibration.py)",
        "harness": harness,
        "notes": "One GPU: no collective was measured (the intra_node and inter_node coefficients are the "
                 "h200 default's) and no communication power phase (the bands' communication edges are "
                 "interpolated and say so). The spin-wait phase drew the idle watts at 100 % utilization, so "
                 "the power records carry each phase's median utilization from harness-report.json of the "
                 "same run and the bands separate a hang from idle by it. The harness's own fit of that day "
                 "is harness-calibration.json beside the measurements; this one refits them with the "
                 "attention law read as cuDNN's (the kernel the CUDA backend times) and copies below 64 MiB "
                 "and launch-bound GEMMs set aside.",
    }
    fit.write(OUT, provenance=provenance)
    print(f"wrote {OUT.relative_to(ROOT)}: {fit.records_used} records, rms {100 * fit.rms_relative_error:.1f} %")


if __name__ == "__main__":
    main()
