"""libscale.hub: a Hub repo id's config.json from the local Hugging Face cache.

Every test lays out its own cache under tmp_path exactly as huggingface_hub does (blobs/,
refs/<revision>, snapshots/<commit>/config.json -> ../../blobs/<hash>), points HOME there,
and blocks the real huggingface_hub: no test reaches the network or the real ~/.cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import libscale

ROOT = Path(__file__).resolve().parents[2]

try:
    from libscale import hub
except ImportError:  # an installed libscale older than bindings/libscale/hub.py: load the tree's
    import importlib.util

    _spec = importlib.util.spec_from_file_location("libscale.hub",
                                                   ROOT / "bindings" / "libscale" / "hub.py")
    assert _spec is not None and _spec.loader is not None
    hub = importlib.util.module_from_spec(_spec)
    sys.modules["libscale.hub"] = hub
    _spec.loader.exec_module(hub)
MODELS = ROOT / "calibration" / "data" / "models"
REPO = "Qwen/Qwen3-32B"
COMMIT = "9216db5781bf21249d130ec9da846c4624c16137"
OTHER = "ba1f828c09458ab0ae83d42eaacc2cf8720c7957"
ENV = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HF_HUB_OFFLINE",
       "TRANSFORMERS_OFFLINE")


def shipped(name: str) -> tuple[str, bytes]:
    """(Hub repo id, config.json bytes as the Hub serves them) of a shipped catalog model."""
    config = json.loads((MODELS / f"{name}.json").read_text())
    repo_id = config.pop("_libscale")["hf_id"]
    return repo_id, json.dumps(config, indent=2).encode()


HUB_MODELS = sorted(p.stem for p in MODELS.glob("*.json")
                    if json.loads(p.read_text()).get("_libscale", {}).get("hf_id"))


def lay_out(cache: Path, repo_id: str = REPO, data: bytes | None = None, commit: str = COMMIT,
            ref: str | None = "main") -> Path:
    """Cache repo_id's config.json the way huggingface_hub does; return the snapshot path."""
    if data is None:
        data = shipped("qwen3-32b")[1]
    repo_dir = cache / ("models--" + repo_id.replace("/", "--"))
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # git blob etag
    (repo_dir / "blobs").mkdir(parents=True, exist_ok=True)
    (repo_dir / "blobs" / blob).write_bytes(data)
    if ref is not None:
        (repo_dir / "refs" / ref).parent.mkdir(parents=True, exist_ok=True)
        (repo_dir / "refs" / ref).write_text(commit)
    snap = repo_dir / "snapshots" / commit
    snap.mkdir(parents=True, exist_ok=True)
    (snap / "config.json").symlink_to(f"../../blobs/{blob}")
    return snap / "config.json"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails: never online
    return home


# --- cache location -----------------------------------------------------------------


def test_found_via_cache_dir(tmp_path: Path) -> None:
    snap = lay_out(tmp_path / "c")
    assert hub.find_config(REPO, cache_dir=tmp_path / "c") == snap
    assert hub.find_config(REPO, cache_dir=str(tmp_path / "c")) == snap


def test_found_via_hf_hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snap = lay_out(tmp_path / "c")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("HUGGINGFACE_HUB_CACHE", str(tmp_path / "legacy"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "c"))
    assert hub.find_config(REPO) == snap


def test_found_via_legacy_huggingface_hub_cache(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    snap = lay_out(tmp_path / "legacy")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("HUGGINGFACE_HUB_CACHE", str(tmp_path / "legacy"))
    assert hub.find_config(REPO) == snap


def test_found_via_hf_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snap = lay_out(tmp_path / "hfhome" / "hub")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hfhome"))
    assert hub.find_config(REPO) == snap


def test_found_via_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snap = lay_out(tmp_path / "xdg" / "huggingface" / "hub")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.find_config(REPO) == snap


def test_found_via_home_default(isolated: Path) -> None:
    snap = lay_out(isolated / ".cache" / "huggingface" / "hub")
    assert hub.hub_cache_dir() == isolated / ".cache" / "huggingface" / "hub"
    assert hub.find_config(REPO) == snap


# --- revisions ------------------------------------------------------------------------


def test_specific_revision_and_commit(tmp_path: Path) -> None:
    main = lay_out(tmp_path, commit=COMMIT)
    _, small = shipped("qwen3-0.6b")
    v1 = lay_out(tmp_path, data=small, commit=OTHER, ref="refs/pr/1")
    assert hub.find_config(REPO, cache_dir=tmp_path) == main
    assert hub.find_config(REPO, revision="main", cache_dir=tmp_path) == main
    assert hub.find_config(REPO, revision="refs/pr/1", cache_dir=tmp_path) == v1
    assert hub.find_config(REPO, revision=OTHER, cache_dir=tmp_path) == v1  # commit, no ref
    assert json.loads(v1.read_bytes())["hidden_size"] == 1024


def test_commit_not_cached(tmp_path: Path) -> None:
    lay_out(tmp_path)
    with pytest.raises(hub.HubConfigNotFoundError, match=f"snapshots/{'0' * 40}"):
        hub.find_config(REPO, revision="0" * 40, cache_dir=tmp_path, download=False)
    with pytest.raises(FileNotFoundError, match="no refs/v2"):
        hub.find_config(REPO, revision="v2", cache_dir=tmp_path, download=False)


def test_ref_to_missing_snapshot(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    snap.unlink()
    snap.parent.rmdir()
    with pytest.raises(hub.HubConfigNotFoundError) as err:
        hub.find_config(REPO, cache_dir=tmp_path, download=False)
    assert REPO in str(err.value) and COMMIT in str(err.value) and "hf download" in str(err.value)


def test_corrupt_ref(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    (snap.parents[2] / "refs" / "main").write_text("../../../etc")
    with pytest.raises(hub.HubCacheError, match="40-hex"):
        hub.find_config(REPO, cache_dir=tmp_path)


def test_fifo_ref_refused(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    ref = snap.parents[2] / "refs" / "main"
    ref.unlink()
    os.mkfifo(ref)
    with pytest.raises(hub.HubCacheError, match="not a regular file"):
        hub.find_config(REPO, cache_dir=tmp_path)


@pytest.mark.parametrize("revision", ["../main", "refs/../../x", "/etc/passwd", "", "a//b",
                                      "-rf", "main/"])
def test_invalid_revision(tmp_path: Path, revision: str) -> None:
    with pytest.raises(ValueError, match="revision"):
        hub.find_config(REPO, revision=revision, cache_dir=tmp_path)


# --- not in the cache -----------------------------------------------------------------


@pytest.mark.parametrize("value", ["1", "ON", "yes", "True"])
def test_offline_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", value)
    with pytest.raises(hub.HubConfigNotFoundError) as err:
        hub.find_config(REPO, cache_dir=tmp_path / "c")
    msg = str(err.value)
    assert REPO in msg and str(tmp_path / "c") in msg and "revision main" in msg
    assert "HF_HUB_OFFLINE" in msg and f"hf download {REPO} config.json" in msg


def test_not_offline_without_huggingface_hub(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # not a true value: goes on to the import
    with pytest.raises(FileNotFoundError) as err:
        hub.find_config(REPO, cache_dir=tmp_path)
    msg = str(err.value)
    assert REPO in msg and str(tmp_path) in msg and "pip install huggingface_hub" in msg
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_download_off(tmp_path: Path) -> None:
    with pytest.raises(hub.HubConfigNotFoundError, match="downloading is off"):
        hub.find_config(REPO, cache_dir=tmp_path, download=False)


# --- refused files --------------------------------------------------------------------


def test_symlink_outside_cache_refused(tmp_path: Path) -> None:
    snap = lay_out(tmp_path / "c")
    outside = tmp_path / "outside.json"
    outside.write_bytes(shipped("qwen3-32b")[1])
    snap.unlink()
    snap.symlink_to(outside)
    with pytest.raises(hub.HubCacheError, match="outside the Hugging Face cache"):
        hub.find_config(REPO, cache_dir=tmp_path / "c")


def test_directory_refused(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    snap.unlink()
    snap.mkdir()
    with pytest.raises(hub.HubCacheError, match="is a directory"):
        hub.find_config(REPO, cache_dir=tmp_path)


def test_fifo_refused(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    blob = snap.resolve()
    blob.unlink()
    os.mkfifo(blob)  # the symlink now points at a FIFO
    with pytest.raises(hub.HubCacheError, match="is a FIFO"):
        hub.find_config(REPO, cache_dir=tmp_path)


def test_too_large_refused(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    os.truncate(snap.resolve(), hub.MAX_CONFIG_BYTES + 1)  # sparse: no real disk use
    with pytest.raises(hub.HubCacheError, match="bytes, more than"):
        hub.find_config(REPO, cache_dir=tmp_path)


def test_broken_symlink_is_not_cached(tmp_path: Path) -> None:
    snap = lay_out(tmp_path)
    snap.resolve().unlink()
    with pytest.raises(hub.HubConfigNotFoundError, match="broken symlink"):
        hub.find_config(REPO, cache_dir=tmp_path, download=False)


# --- repo ids -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["qwen3-32b", "Qwen/Qwen3/32B", "/Qwen3-32B", "Qwen/",
                                 "-org/name", "org/.name", "org/name-", "org/na..me",
                                 "org/na--me", "org/name.git", "org/na me", "org/näme",
                                 "org/" + "a" * 97, "a" * 97 + "/name", "../etc", "org\\name"])
def test_invalid_repo_id(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError) as err:
        hub.find_config(bad, cache_dir=tmp_path)
    assert repr(bad) in str(err.value) and "org/name" in str(err.value)
    assert not hub.looks_like_repo_id(bad)


@pytest.mark.parametrize("good", ["Qwen/Qwen3-32B", "meta-llama/Llama-3.1-8B", "a/b",
                                  "_x/y_", "org/" + "a" * 96, "allenai/OLMo-2-1124-7B"])
def test_valid_repo_id(good: str) -> None:
    assert hub.looks_like_repo_id(good)


def test_existing_path_is_not_a_repo_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Qwen" / "Qwen3-32B").mkdir(parents=True)
    assert not hub.looks_like_repo_id("Qwen/Qwen3-32B")
    assert hub.looks_like_repo_id("Qwen/Qwen3-8B")


# --- the loader reads what find_config returns ------------------------------------------


@pytest.mark.parametrize("name", HUB_MODELS)
def test_loader_reads_cached_config(tmp_path: Path, name: str) -> None:
    repo_id, data = shipped(name)
    snap = lay_out(tmp_path, repo_id=repo_id, data=data)
    path = hub.find_config(repo_id, cache_dir=tmp_path)
    assert path == snap
    spec = libscale.model(str(path))
    assert isinstance(spec, libscale.ModelSpec)
    assert libscale.count_parameters(spec).total == libscale.count_parameters(name).total


# --- the download branch (a fake huggingface_hub; never the network) -------------------------


def fake_hub(monkeypatch: pytest.MonkeyPatch, download: Any) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def hf_hub_download(repo_id: str, filename: str, **kw: Any) -> str:
        calls.append({"repo_id": repo_id, "filename": filename, **kw})
        return str(download(repo_id, filename, **kw))

    module = types.ModuleType("huggingface_hub")
    module.hf_hub_download = hf_hub_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", module)
    return calls


def test_download_fills_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "c"))
    calls = fake_hub(monkeypatch, lambda repo_id, filename, revision, cache_dir:
                     lay_out(Path(cache_dir), repo_id=repo_id, ref=revision))
    path = hub.find_config(REPO)
    assert calls == [{"repo_id": REPO, "filename": "config.json", "revision": "main",
                      "cache_dir": str(tmp_path / "c")}]
    assert path == tmp_path / "c" / "models--Qwen--Qwen3-32B" / "snapshots" / COMMIT / "config.json"
    assert hub.find_config(REPO) == path and len(calls) == 1  # second call: from the cache
    assert libscale.count_parameters(str(path)).total == libscale.count_parameters("qwen3-32b").total


def test_download_outside_cache_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(shipped("qwen3-32b")[1])
    fake_hub(monkeypatch, lambda *a, **k: elsewhere)
    with pytest.raises(hub.HubCacheError, match="outside the Hugging Face cache"):
        hub.find_config(REPO, cache_dir=tmp_path / "c")


def _hub_error(name: str, base: type[Exception] = Exception) -> type[Exception]:
    return type(name, (base,), {})


_REPO_NOT_FOUND = _hub_error("RepositoryNotFoundError")
_ENTRY_NOT_FOUND = _hub_error("EntryNotFoundError")


@pytest.mark.parametrize(("error", "says"), [
    (_hub_error("GatedRepoError", _REPO_NOT_FOUND), "gated"),
    (_REPO_NOT_FOUND, "no such repository"),
    (_hub_error("RevisionNotFoundError"), "no such revision"),
    (_hub_error("LocalEntryNotFoundError", _ENTRY_NOT_FOUND), "could not be reached"),
    (_ENTRY_NOT_FOUND, "no config.json"),
    (ConnectionError, "download failed (ConnectionError: boom"),
])
def test_download_errors_are_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   error: type[Exception], says: str) -> None:
    def fail(*args: Any, **kw: Any) -> Path:
        raise error("boom\nTraceback-ish second line")

    fake_hub(monkeypatch, fail)
    with pytest.raises(hub.HubConfigNotFoundError) as err:
        hub.find_config(REPO, revision="v1", cache_dir=tmp_path)
    msg = str(err.value)
    assert REPO in msg and "revision v1" in msg and says in msg and "second line" not in msg
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_hub_id_reaches_plan_and_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--model Qwen/Qwen3-32B` and Plan("Qwen/Qwen3-32B", ...) read the cached config.json:
    the same model as the shipped catalog entry, named by its Hub id."""
    import subprocess

    import libscale

    if not hasattr(libscale, "Plan"):
        pytest.skip("needs the rebuilt package")
    lay_out(tmp_path)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    plan = libscale.Plan(REPO, "b300", gpus=16, gpus_per_node=8, global_batch_tokens=1_048_576)
    assert plan.model.name == REPO
    assert plan.step().tokens_per_s == libscale.Plan("qwen3-32b", "b300", gpus=16, gpus_per_node=8,
                                                     global_batch_tokens=1_048_576).step().tokens_per_s
    out = subprocess.run([sys.executable, "-m", "libscale", "project", "--model", REPO, "--hardware", "b300",
                          "--gpus", "8,16", "--json"], capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["model"]["name"] == REPO
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="Qwen/Qwen3-32B"):
        libscale.Plan(REPO, "b300")
