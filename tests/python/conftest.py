"""Shared fixtures: the catalog's Qwen3-32B / B300, and a runner for the CLI."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

import libscale
from libscale import _core, _format

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str) -> ModuleType:
    """A script of scripts/ imported as a module (scripts/ on the path for what the scripts
    share, _generated.py)."""
    folder = str(ROOT / "scripts")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

# Qwen3-32B's published parameter count (HF safetensors total; source in
# calibration/data/models/qwen3-32b.json).
QWEN3_32B_PARAMETERS = 32_762_123_264

# How tables label a shipped default: its P10-P90 half-width, from the spread every default
# file carries (scripts/centre_defaults.py writes one value for all of them).
UNCALIBRATED_PCT = _format.uncalibrated_spread_pct(_core.calibrate.default_calibration_file(libscale.hardware("b300")))
UNCALIBRATED = f"default (uncalibrated ±{UNCALIBRATED_PCT:.0f} %)"

# The budget-script contract command (without --json).
CONTRACT = ["project", "--model", "qwen3-32b", "--hardware", "b300", "--gpus", "4,8,16",
            "--gpus-per-node", "8", "--seq-len", "8192", "--micro-batch", "1",
            "--global-batch-tokens", "1048576", "--activation-checkpointing", "full", "--tokens", "1e9"]


@pytest.fixture(scope="session")
def qwen() -> libscale.ModelSpec:
    return libscale.model("qwen3-32b")


@pytest.fixture(scope="session")
def b300() -> libscale.HardwareProfile:
    return libscale.hardware("b300")


@pytest.fixture(scope="session")
def qwen_config_json() -> dict:
    """The shipped Qwen3-32B config.json, read as plain JSON (independent of the C++ parser)."""
    return json.loads((ROOT / "calibration" / "data" / "models" / "qwen3-32b.json").read_text())


def run_cli(args: Sequence[str], *, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m libscale ARGS` in a subprocess, as a user would run it."""
    return subprocess.run([sys.executable, "-m", "libscale", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=dict(os.environ))


@pytest.fixture(scope="session")
def contract_json() -> dict:
    out = run_cli(CONTRACT + ["--json"])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory) -> Path:
    """tests/cpp/fake_nvml.cpp built as a shared library: a loader test double (fixed,
    made-up readings) so the NVML path runs here without a GPU."""
    out = tmp_path_factory.mktemp("nvml") / "libnvidia-ml.so.1"
    cxx = os.environ.get("CXX", "c++")
    subprocess.run([cxx, "-std=c++20", "-shared", "-fPIC", "-O1", "-I", str(ROOT / "libscale" / "include"),
                    str(ROOT / "tests" / "cpp" / "fake_nvml.cpp"), "-o", str(out)], check=True, timeout=120)
    return out
