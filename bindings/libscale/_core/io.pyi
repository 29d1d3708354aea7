"""The shipped catalog: models, hardware profiles, data files; the torchtitan log scanner."""

from __future__ import annotations

import typing

from . import spec

def catalog_file(relative_path: str) -> str:
    """Raw text of a shipped data file, e.g. 'hardware/b300.json'."""

def catalog_files() -> list[str]:
    """Relative paths of the shipped data files."""

def find_hardware(name_or_path: str) -> spec.HardwareProfile:
    """A catalog hardware profile or a libscale.hardware/1 JSON file."""

def find_model(name_or_path: str, overrides: typing.Any = None) -> spec.ModelSpec:
    """A catalog model (case-insensitive) or a Hugging Face config.json (file or snapshot directory); overrides:
    config.json keys replaced first (e.g. {'max_position_embeddings': 65536}).
    """

def hardware_names() -> list[str]:
    """Names of the shipped hardware profiles."""

def model_names() -> list[str]:
    """Names of the shipped models."""

def scan_torchtitan_log(text: bytes) -> tuple[typing.Any, ...]:
    """The step lines of a torchtitan log (UTF-8 bytes), for libscale.logs: (lines, ints, floats, deferred) with lines =
    len(text.splitlines()); one row per parsed step line of ints (line, rank or -1, step, 1 for wps else 0) and floats
    (tps, memory GiB, mfu %, tflops; NaN when absent); and one row per line left to the caller, (line, begin, end) byte
    offsets: lines that name the configuration and step lines not read here. Lines are numbered from 1 as
    str.splitlines() splits them.
    """

def supported_model_types() -> list[str]:
    """The Hugging Face model_type values the config.json reader supports, sorted."""
