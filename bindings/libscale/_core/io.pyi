"""The shipped catalog: models, hardware profiles, data files."""

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

def supported_model_types() -> list[str]:
    """The Hugging Face model_type values the config.json reader supports, sorted."""
