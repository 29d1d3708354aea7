"""Every example in README.md runs, and the main job's output shown there is what
scripts/main.sh prints today."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    return e


def test_readme_opens_with_the_two_commands():
    first = blocks("bash")[0].strip().splitlines()
    commands = [line.split("#")[0].strip() for line in first]
    assert commands == ["bash scripts/main.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci


def test_build_example_is_what_the_test_command_runs():
    # The README's CMake example is the build that scripts/test.sh (and so CI) runs.
    build = next(b for b in blocks("bash") if b.startswith("cmake -S"))
    script = (ROOT / "scripts" / "test.sh").read_text()
    for line in build.strip().splitlines():
        words = line.split()
        assert words[0] in script and all(w in script for w in words if w.startswith("-D") or w == "--test-dir"), line


def test_main_job_output_matches_readme():
    # scripts/main.sh is the README's first command; its set-up is a no-op here
    # (the package is installed), so this runs the main job itself.
    out = subprocess.run(["bash", str(ROOT / "scripts" / "main.sh")], cwd=ROOT, env=env(),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    shown = re.search(r"<!-- main-output -->\n```text\n(.*?)```", README, flags=re.S)
    assert shown, "README lacks the <!-- main-output --> block"
    printed = [ln for ln in out.stdout.splitlines() if not ln.startswith("setup:")]
    assert "\n".join(printed).strip() == shown.group(1).strip()


@pytest.mark.parametrize("code", blocks("python"), ids=lambda c: c.strip().splitlines()[-1][:40])
def test_python_examples_run(code: str):
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env(),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip(), "the example printed nothing"


# The calibration harness is a C++ program of the C++ build (scripts/test.sh builds it
# before pytest runs), not of the package.
CALIBRATE = "build/cpp/calibration/libscale-calibrate"


def require_calibrate() -> None:
    if not (ROOT / CALIBRATE).exists():
        pytest.skip(f"{CALIBRATE} is not built (scripts/test.sh builds it before the Python suite)")


def console_commands() -> list[tuple[str, bool]]:
    """Each command, and whether its block runs the calibration harness (whose files the
    block's later commands read)."""
    cmds = []
    for block in blocks("console"):
        harness = CALIBRATE in block
        cmds += [(line[2:], harness) for line in block.splitlines() if line.startswith("$ ")]
    return cmds


@pytest.mark.parametrize(("cmd", "harness"), console_commands(), ids=lambda c: str(c)[:50])
def test_console_examples_run(cmd: str, harness: bool):
    if harness:
        require_calibrate()
    out = subprocess.run(cmd, shell=True, cwd=ROOT, env=env(), capture_output=True,
                         text=True, timeout=300, executable="/bin/bash")
    assert out.returncode == 0, f"{cmd!r} exited {out.returncode}: {out.stderr}"
    assert out.stdout.strip()


# The ```sh blocks are what to run on a GPU node (torchrun, NVML). There is no GPU, no
# driver and no torch here, so each runs with two stand-ins: tests/cpp/fake_nvml.cpp as
# libnvidia-ml.so.1 (a loader test double with fixed readings) and a `torchrun` on PATH
# that ignores its arguments and exits after a second. What is checked: the command line
# as printed parses, launches the job, watches it through the NVML code path and ends
# with the job's status.
def gpu_node_commands() -> list[str]:
    return [line.strip() for block in blocks("sh") for line in block.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("cmd", gpu_node_commands(), ids=lambda c: c[:50])
def test_gpu_node_examples_run_with_stand_ins(cmd: str, fake_nvml: Path, tmp_path: Path):
    stand_in = tmp_path / "bin" / "torchrun"
    stand_in.parent.mkdir()
    stand_in.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import time; time.sleep(1)'\n")
    stand_in.chmod(0o755)
    e = env()
    e["PATH"] = f"{stand_in.parent}{os.pathsep}{e['PATH']}"
    e["LIBSCALE_NVML_LIBRARY"] = str(fake_nvml)
    out = subprocess.run(cmd, shell=True, cwd=tmp_path, env=e, capture_output=True, text=True, timeout=120,
                         executable="/bin/bash")
    assert out.returncode == 0, f"{cmd!r} exited {out.returncode}: {out.stderr}"
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert events[0]["event"] == "start" and events[0]["source"].startswith("NVML")
    assert any(ev["event"] == "phase" for ev in events)
    assert events[-1]["event"] == "exit" and events[-1]["job_status"] == 0


# The ```shell blocks are the calibration harness on GPU nodes: one node, then two with
# mpirun and with srun. There is no GPU and no second node here, so each runs with
# stand-ins: `mpirun` and `srun` on PATH start four local ranks with the real mpirun
# (their own options are dropped), and the program gets `--backend simulated --hardware
# h200`. What is checked: the command line as printed parses, its ranks run every phase
# (through MPI when launched so) and rank 0 writes the calibration file.
def calibration_commands() -> list[str]:
    return [line.strip() for block in blocks("shell") for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("cmd", calibration_commands(), ids=lambda c: c[:40])
def test_calibration_commands_run_with_stand_ins(cmd: str, tmp_path: Path):
    require_calibrate()
    mpirun = subprocess.run(["sh", "-c", "command -v mpirun"], capture_output=True, text=True).stdout.strip()
    if cmd.split()[0] in ("mpirun", "srun") and not mpirun:
        pytest.skip("no MPI installed (scripts/setup.sh installs OpenMPI)")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    root_flag = " --allow-run-as-root" if os.geteuid() == 0 else ""
    for launcher in ("mpirun", "srun"):
        # Everything before the program is the launcher's; the rest is the program's.
        (bindir / launcher).write_text(
            "#!/bin/sh\nwhile [ $# -gt 0 ] && [ \"${1#build/}\" = \"$1\" ]; do shift; done\n"
            f"exec {mpirun} -np 4 --oversubscribe{root_flag} \"$@\"\n")
        (bindir / launcher).chmod(0o755)
    e = env()
    e["PATH"] = f"{bindir}{os.pathsep}{e['PATH']}"
    (tmp_path / "build").symlink_to(ROOT / "build")
    out = subprocess.run(cmd + " --backend simulated --hardware h200 --quiet", shell=True, cwd=tmp_path, env=e,
                         capture_output=True, text=True, timeout=300, executable="/bin/bash")
    assert out.returncode == 0, f"{cmd!r} exited {out.returncode}: {out.stdout}{out.stderr}"
    out_dir = tmp_path / cmd.split("--out ")[1].split()[0]
    report = json.loads((out_dir / "report.json").read_text())
    launched = cmd.split()[0] in ("mpirun", "srun")
    assert report["provenance"]["launcher"] == ("mpi" if launched else "local")
    assert report["provenance"]["gpus"] == (4 if launched else 1)
    cal = json.loads((out_dir / "calibration.json").read_text())
    assert cal["kind"] == "fitted" and cal["provenance"]["backend"] == "simulated"


def test_example_trace_is_what_its_script_writes(tmp_path: Path):
    # examples/traces/nccl-hang.csv is generated; a hand edit would make the README lie
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_traces", ROOT / "examples" / "traces" / "make_traces.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.write(tmp_path / "x.csv", mod.NCCL_HANG)
    assert (tmp_path / "x.csv").read_text() == (ROOT / "examples" / "traces" / "nccl-hang.csv").read_text()


def test_readme_figures_are_what_make_figures_draws(tmp_path: Path):
    # every image the README shows is drawn by scripts/make_figures.py from today's code
    pytest.importorskip("matplotlib")
    linked = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", README)
    assert linked, "the README shows no figure"
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_figures.py"), str(tmp_path)], cwd=ROOT,
                         env=env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    drawn = {Path(line).name for line in out.stdout.split()}
    for link in linked:
        shipped = ROOT / link
        assert shipped.is_file(), link
        assert shipped.name in drawn, f"{link} is not drawn by scripts/make_figures.py"
        # the same picture size: PNG's IHDR width and height
        assert shipped.read_bytes()[16:24] == (tmp_path / shipped.name).read_bytes()[16:24]
