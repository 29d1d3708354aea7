"""Rewrite calibration/data/calibrations/fitted-h200-harness.json: `libscale fit` of the
harness's measurements of one H200 (calibration/data/measured/h200-2026-12-04/), with the
harness run's provenance (GPU, driver, CUDA, cuBLASLt, cuDNN, NCCL versions, date) kept
beside the refit's. Run after a change to the laws or the fitter, then review the diff:

    PYTHONPATH=<build>/bindings:bindings .venv/bin/python scripts/make_measured_calibration.py
"""

from __future__ import annotations

import json
from pathlib import Path

import libscale

ROOT = Path(__file__).resolve().parents[1]
RUN = Path("calibration/data/measured/h200-2026-12-04")
OUT = ROOT / "calibration/data/calibrations/fitted-h200-harness.json"


def main() -> None:
    measured = ROOT / RUN / "harness-measurements.json"
    harness = json.loads(measured.read_text())["provenance"]
    fit = libscale.fit(measured)
    provenance = {
        "source": f"libscale fit {RUN / 'harness-measurements.json'}: libscale-calibrate (cuda backend, full mode, "
                  "--model qwen3-32b --hardware h200) on one NVIDIA H200, 2026-12-04",
        "command": f"libscale fit {RUN / 'harness-measurements.json'} (scripts/make_measured_calibration.py)",
        "harness": harness,
        "notes": "One GPU: no collective was measured (the intra_node and inter_node coefficients are the "
                 "h200 default's), and the harness wrote no power bands (its spin-wait phase drew the idle "
                 "watts). The harness's own fit of that day is harness-calibration.json beside the "
                 "measurements; this one refits them with the attention law read as cuDNN's (the kernel the "
                 "CUDA backend times) and copies below 64 MiB and launch-bound GEMMs set aside.",
    }
    fit.write(OUT, provenance=provenance)
    print(f"wrote {OUT.relative_to(ROOT)}: {fit.records_used} records, rms {100 * fit.rms_relative_error:.1f} %")


if __name__ == "__main__":
    main()
