"""Models, hardware profiles and calibrations by name or path.

A model is a shipped catalog name (``libscale.models()``), a path to a Hugging Face
``config.json``, or a Hub id (``Qwen/Qwen3-32B``) whose ``config.json`` is in the local
Hugging Face cache or can be fetched with ``huggingface_hub`` (:mod:`libscale.hub`).
"""

from __future__ import annotations

import os
from typing import Union

from . import hub
from ._core import calibrate as _calibrate
from ._core import io as _io
from ._core import spec as _spec

__all__ = ["ModelLike", "HardwareLike", "CalibrationLike", "model", "models", "hardware", "hardware_names",
           "default_calibration", "calibration_file", "read_calibration"]

ModelLike = Union[str, "os.PathLike[str]", _spec.ModelSpec]
HardwareLike = Union[str, "os.PathLike[str]", _spec.HardwareProfile]
CalibrationLike = Union[None, str, "os.PathLike[str]", _calibrate.Calibration, _calibrate.CalibrationFile]


def _text(what: str, value: object, expected: str) -> str:
    """A name or path argument as text (paths, str or bytes, decoded as the OS does)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, os.PathLike)):
        return os.fsdecode(value)
    raise TypeError(f"{what}: expected {expected}, got {type(value).__name__}")


def model(name_or_path: ModelLike) -> _spec.ModelSpec:
    """A shipped model by name (case-insensitive; see models()), a Hugging Face config.json,
    or a Hub id such as ``Qwen/Qwen3-32B`` (read from the local Hugging Face cache, or
    downloaded with huggingface_hub when it is installed and online).

    Raises UnknownNameError (with .suggestions), ParseError (file and line), or
    FileNotFoundError naming the Hub id and the cache searched."""
    if isinstance(name_or_path, _spec.ModelSpec):
        return name_or_path
    name = _text("model", name_or_path, "a catalog name, a path to a config.json, a Hub id or a ModelSpec")
    if not isinstance(name_or_path, os.PathLike) and name.lower() not in _io.model_names() \
            and hub.looks_like_repo_id(name):
        spec = _io.find_model(str(hub.find_config(name)))
        spec.name = name  # the core names a config.json after its folder: here a commit hash
        return spec
    return _io.find_model(name)


def models() -> list[str]:
    """Names of the shipped models."""
    return list(_io.model_names())


def hardware(name_or_path: HardwareLike) -> _spec.HardwareProfile:
    """A shipped hardware profile by name (see hardware_names()) or a libscale.hardware/1 JSON file."""
    if isinstance(name_or_path, _spec.HardwareProfile):
        return name_or_path
    return _io.find_hardware(_text("hardware", name_or_path, "a catalog name, a hardware JSON file or a "
                                                             "HardwareProfile"))


def hardware_names() -> list[str]:
    """Names of the shipped hardware profiles."""
    return list(_io.hardware_names())


def default_calibration(hardware_: HardwareLike) -> _calibrate.Calibration:
    """The shipped default (uncalibrated) calibration of a hardware profile."""
    return _calibrate.default_calibration(hardware(hardware_))


def read_calibration(path_or_name: str | os.PathLike[str], hardware_: HardwareLike) -> _calibrate.CalibrationFile:
    """A calibration file (default, derived or fitted) or a shipped one by name, such as
    "derived-b300-qwen3-32b", checked against the hardware."""
    return _calibrate.read_calibration_file(_text("calibration", path_or_name, "a calibration file path or "
                                                                               "shipped name"), hardware(hardware_))


def calibration_file(value: CalibrationLike, hw: _spec.HardwareProfile) -> _calibrate.CalibrationFile:
    """A CalibrationFile from None (the hardware's default), a Calibration, a CalibrationFile
    or a path / shipped name (read and checked against hw by the core)."""
    if value is None:
        return _calibrate.default_calibration_file(hw)
    if isinstance(value, _calibrate.CalibrationFile):
        return value  # made for hw? Scenario.validate checks, in every estimate
    if isinstance(value, _calibrate.Calibration):
        return _calibrate.CalibrationFile(calibration=value)
    return _calibrate.read_calibration_file(
        _text("calibration", value, "a Calibration, a CalibrationFile, a calibration file path or shipped name, or "
                                    "None (the hardware's default)"), hw)
