"""JSON Schemas (draft 2020-12) of the files libscale reads and writes and of the CLI's
JSON output, shipped as data files in the package's ``schemas/`` directory.

A schema is named by its file's stem (``"calibration-2"``, ``"projection-1"``) or by the tag
its documents carry in their ``"schema"`` field (``"libscale.calibration/2"``,
``"libscale.projection/1"``). Each schema's ``$id`` (``https://libscale.dev/schemas/<file>``)
is a stable identifier, not a URL to fetch; the output schemas refer to ``common.json`` by
it, so a validator needs all of them registered::

    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from libscale import schemas

    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in map(schemas.load, schemas.names()))
    Draft202012Validator(schemas.load(doc["schema"]), registry=registry).validate(doc)

jsonschema is not a dependency of libscale: this module only finds and reads the files.
"""

from __future__ import annotations

import json
import pathlib
import re
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

__all__ = ["load", "names", "path"]

_TAG = re.compile(r"libscale\.([a-z0-9_]+)/([0-9]+)")


def _directory() -> Traversable:
    """The package's schemas/ directory."""
    return resources.files(__package__ or "libscale").joinpath("schemas")


def names() -> list[str]:
    """Every shipped schema's name (file stem), sorted: "calibration-2", "common", ..."""
    return sorted(p.name[: -len(".json")] for p in _directory().iterdir() if p.name.endswith(".json"))


def _file_name(name: str) -> str:
    tag = _TAG.fullmatch(name)
    stem = f"{tag.group(1)}-{tag.group(2)}" if tag else name.removesuffix(".json")
    if stem not in names():
        raise ValueError(f"no libscale schema named {name!r}; shipped: {', '.join(names())} "
                         "(or their tags, e.g. 'libscale.calibration/2')")
    return stem + ".json"


def path(name: str) -> pathlib.Path:
    """The schema's file: name is a stem ("calibration-2"), a file name ("calibration-2.json")
    or a tag ("libscale.calibration/2"). Raises ValueError for any other."""
    file = _directory().joinpath(_file_name(name))
    if isinstance(file, pathlib.Path):
        return file
    # a package imported from a zip archive has no file path
    raise RuntimeError(f"schema {name!r}: libscale is not installed as files; use load()")


def load(name: str) -> dict[str, Any]:
    """The schema as a dict (see path() for the names accepted)."""
    value = json.loads(_directory().joinpath(_file_name(name)).read_text(encoding="utf-8"))
    if not isinstance(value, dict):
        raise TypeError(f"schema {name!r}: expected a JSON object")
    return value
