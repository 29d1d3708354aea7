"""Model names from the Hugging Face Hub: find a repo's config.json in the local Hub cache.

``find_config("Qwen/Qwen3-32B")`` returns the path of the cached ``config.json`` of that
repository, downloading it through ``huggingface_hub`` when that is installed, online and
allowed. The core's loader then reads it like any other config.json.

Cache location and layout follow huggingface_hub:
  https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables
  https://huggingface.co/docs/huggingface_hub/guides/manage-cache
  https://huggingface.co/docs/hub/local-cache
"""

from __future__ import annotations

import importlib
import os
import pathlib
import re
import stat

__all__ = [
    "MAX_CONFIG_BYTES",
    "HubCacheError",
    "HubConfigNotFoundError",
    "find_config",
    "hub_cache_dir",
    "looks_like_repo_id",
]

# A config.json is a few KiB; anything this large is not one.
MAX_CONFIG_BYTES = 16 * 1024 * 1024

# Hub naming rules (the Hub's own message: "Only regular characters and '-', '_', '.' are
# accepted. '--' and '..' are forbidden. '-' and '.' cannot start or end the name. The name
# cannot end with ".git". Max length is 96."; huggingface_hub.utils.validate_repo_id).
_PART = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?", re.ASCII)
_COMMIT = re.compile(r"[0-9a-f]{40}", re.ASCII)
# Branch, tag or refs/pr/N names: no '..', no empty component, no leading '-', '.' or '/'.
_REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+/-]{0,254}", re.ASCII)
_REPO_ID_RULES = ("'org/name', each part 1-96 characters among letters, digits, '-', '_' and "
                  "'.', not starting or ending with '-' or '.', with no '--' or '..', and the "
                  "name not ending in '.git'")
# huggingface_hub.constants: ENV_VARS_TRUE_VALUES, HF_HUB_OFFLINE.
_TRUE_VALUES = frozenset({"1", "ON", "YES", "TRUE"})


class HubCacheError(OSError):
    """The cached config.json (or its ref) is unusable: not a regular file, outside the
    cache, too large, or a corrupt ref."""


class HubConfigNotFoundError(HubCacheError, FileNotFoundError):
    """The repo's config.json is not in the cache and could not be downloaded."""


def _repo_id_problem(repo_id: object) -> str | None:
    if not isinstance(repo_id, str):
        return f"expected a string, got {type(repo_id).__name__}"
    parts = repo_id.split("/")
    if len(parts) != 2:
        return "expected exactly one '/'"
    for part in parts:
        if not _PART.fullmatch(part):
            return f"part {part!r} breaks the character or length rules"
        if "--" in part or ".." in part:
            return f"part {part!r} contains '--' or '..'"
    if parts[1].endswith(".git"):
        return "the name ends in '.git'"
    return None


def _validate_repo_id(repo_id: str) -> None:
    problem = _repo_id_problem(repo_id)
    if problem is not None:
        raise ValueError(f"{repo_id!r} is not a Hugging Face model repo id ({problem}); "
                         f"expected {_REPO_ID_RULES}, e.g. 'Qwen/Qwen3-32B'")


def _validate_revision(revision: object) -> None:
    # object, not str: callers outside mypy's reach pass anything, and this is the check.
    if (not isinstance(revision, str) or not _REVISION.fullmatch(revision) or ".." in revision
            or "//" in revision or revision.endswith("/")):
        raise ValueError(f"revision {revision!r} is not a branch, tag or commit name; expected "
                         "letters, digits, '-', '_', '.', '+' and '/' (e.g. 'main', 'v1.0', "
                         "'refs/pr/1' or a 40-hex commit), no '..' and no empty path component")


def looks_like_repo_id(name: str) -> bool:
    """True for an ``org/name`` Hub repo id that is not an existing filesystem path."""
    if _repo_id_problem(name) is not None:
        return False
    try:
        return not os.path.lexists(name)
    except (OSError, ValueError):
        return False


def _is_true(value: str | None) -> bool:
    return value is not None and value.upper() in _TRUE_VALUES


def _offline() -> bool:
    """HF_HUB_OFFLINE as huggingface_hub.constants reads it (TRANSFORMERS_OFFLINE too)."""
    return _is_true(os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE"))


def _expand(path: str) -> str:
    return os.path.expandvars(os.path.expanduser(path))


def hub_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """The Hub cache directory, resolved as huggingface_hub does (absolute).

    cache_dir, else $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (legacy), else $HF_HOME/hub,
    else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub. An empty variable
    counts as unset. See
    https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables
    """
    if cache_dir is not None:
        return pathlib.Path(os.path.abspath(os.fspath(cache_dir)))
    env = os.environ
    path = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if not path:
        xdg = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        home = _expand(env.get("HF_HOME") or os.path.join(xdg, "huggingface"))
        path = os.path.join(home, "hub")
    return pathlib.Path(os.path.abspath(_expand(path)))


def _read_ref(ref: pathlib.Path) -> str:
    """The commit a refs/<revision> file names (opened non-blocking: a FIFO cannot hang us)."""
    try:
        fd = os.open(ref, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise HubCacheError(f"cannot read the ref {ref}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise HubCacheError(f"{ref} is not a regular file; refusing to read it as a ref")
        data = os.read(fd, 256)
    finally:
        os.close(fd)
    commit = data.decode("ascii", "replace").strip()
    if not _COMMIT.fullmatch(commit):
        raise HubCacheError(f"{ref} does not hold a 40-hex commit hash (corrupt cache?); "
                            "delete it and download again")
    return commit


def _check_file(path: pathlib.Path, cache: pathlib.Path, repo_id: str) -> pathlib.Path:
    """path, once its target proves to be a regular file of sane size inside the cache."""
    try:
        target = path.resolve(strict=True)
        root = cache.resolve()
        st = os.stat(target)
    except (OSError, RuntimeError) as exc:  # a symlink loop is RuntimeError before 3.13
        raise HubCacheError(f"{repo_id}: cannot resolve {path}: {exc}") from None
    if not target.is_relative_to(root):
        raise HubCacheError(f"{repo_id}: {path} points to {target}, outside the Hugging Face "
                            f"cache {root}; refusing it")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO"
                if stat.S_ISFIFO(st.st_mode) else "not a regular file")
        raise HubCacheError(f"{repo_id}: {path} is {kind}; expected a regular config.json file")
    if st.st_size > MAX_CONFIG_BYTES:
        raise HubCacheError(f"{repo_id}: {path} is {st.st_size} bytes, more than the "
                            f"{MAX_CONFIG_BYTES} a config.json may have; refusing it")
    return path


def _cached(repo_dir: pathlib.Path, revision: str) -> tuple[pathlib.Path | None, str]:
    """(snapshot config.json path or None, why it is missing), as try_to_load_from_cache."""
    ref = repo_dir / "refs" / revision
    if os.path.lexists(ref) and not ref.is_dir():
        commit = _read_ref(ref)
    elif _COMMIT.fullmatch(revision):
        commit = revision
    else:
        return None, f"no refs/{revision} in {repo_dir}"
    snap = repo_dir / "snapshots" / commit / "config.json"
    if not os.path.lexists(snap):
        return None, f"no snapshots/{commit}/config.json in {repo_dir}"
    if not snap.exists():  # dangling symlink: the blob is gone; a download repairs it
        return None, f"{snap} is a broken symlink"
    return snap, ""


def _download_error(exc: BaseException) -> str:
    names = {cls.__name__ for cls in type(exc).__mro__}
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    if "GatedRepoError" in names:
        why = ("the repository is gated: accept its terms on its Hub page, then log in "
               "(`hf auth login`) or set HF_TOKEN")
    elif "RepositoryNotFoundError" in names:
        why = "no such repository on the Hub, or it is private (log in or set HF_TOKEN)"
    elif "RevisionNotFoundError" in names:
        why = "the repository has no such revision"
    elif "LocalEntryNotFoundError" in names or "OfflineModeIsEnabled" in names:
        why = "the Hub could not be reached (offline or network failure)"
    elif "EntryNotFoundError" in names or "RemoteEntryNotFoundError" in names:
        why = "the repository has no config.json at that revision"
    else:
        why = f"download failed ({type(exc).__name__}: {first})"
    return why


def find_config(repo_id: str, *, revision: str | None = None,
                cache_dir: str | os.PathLike[str] | None = None,
                download: bool = True) -> pathlib.Path:
    """The path of the regular ``config.json`` of Hub model ``repo_id`` (``org/name``).

    Looks in the Hugging Face cache (see hub_cache_dir) at ``revision`` (default "main"; a
    40-hex commit is used directly); when it is missing and download is allowed, not
    offline (HF_HUB_OFFLINE) and huggingface_hub is importable, downloads it into the cache.

    Raises ValueError (bad repo id or revision), HubConfigNotFoundError (a FileNotFoundError:
    neither the cache nor the Hub gave it) or HubCacheError (the cached file is refused).
    """
    _validate_repo_id(repo_id)
    rev = "main" if revision is None else revision
    _validate_revision(rev)
    cache = hub_cache_dir(cache_dir)
    org, name = repo_id.split("/")
    repo_dir = cache / f"models--{org}--{name}"
    snap, missing = _cached(repo_dir, rev)
    if snap is not None:
        return _check_file(snap, cache, repo_id)

    where = f"{repo_id} (revision {rev}) is not in the Hugging Face cache {cache} ({missing})"
    fetch = (f"`hf download {repo_id} config.json --revision {rev}` (older huggingface_hub: "
             f"`huggingface-cli download ...`)")
    if not download:
        raise HubConfigNotFoundError(f"{where}; downloading is off: run {fetch}, or pass the "
                                     "path of a config.json")
    if _offline():
        raise HubConfigNotFoundError(f"{where}; HF_HUB_OFFLINE is set: unset it to download, "
                                     f"or run {fetch} while online")
    try:
        hub = importlib.import_module("huggingface_hub")
    except ImportError:
        raise HubConfigNotFoundError(f"{where}; install huggingface_hub (`pip install "
                                     f"huggingface_hub`) and libscale downloads it, or run "
                                     f"{fetch}, or pass the path of a config.json") from None
    try:
        got = hub.hf_hub_download(repo_id, "config.json", revision=rev, cache_dir=str(cache))
    except Exception as exc:  # any failure (network, auth, 404): one clear message
        raise HubConfigNotFoundError(f"{repo_id} (revision {rev}): cannot get config.json from "
                                     f"the Hugging Face Hub into {cache}: {_download_error(exc)}"
                                     ) from None
    return _check_file(pathlib.Path(os.path.abspath(os.fspath(got))), cache, repo_id)
