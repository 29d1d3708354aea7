"""What the log parsers share: reading the input, the configuration keywords (derived
from the option schema and the measurements schema) and building step records."""

from __future__ import annotations

import math
import numbers
import os
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .. import options as _options
from .. import schemas as _schemas
from .._core import ParseError
from .._core import spec as _spec

FORMATS = ("auto", "hf", "torchtitan", "csv")

_TIMING_KEYS = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu")
_STEP = _schemas.load("measurements-2")["$defs"]["step"]

_TRAINING_KEYS = frozenset(_options.names("training")) & frozenset(_STEP["properties"])

#: A step record's configuration: what was measured (model, hardware), then, in the
#: measurements schema's order, every training option a step record carries (each typed
#: and checked as the core's training option table declares it) and grad_accum (a record
#: field; the core's option is global_batch_tokens).
CONFIG_KEYS: tuple[str, ...] = ("model", "hardware") + tuple(
    k for k in _STEP["properties"] if k in _TRAINING_KEYS or k == "grad_accum")
#: What the measurement loader needs in every record (the schema's required fields).
_REQUIRED = tuple(k for k in _STEP["required"] if k != "kind")

#: Columns a CSV may have.
CSV_COLUMNS = CONFIG_KEYS + _TIMING_KEYS + ("source",)

#: torchtitan's words for two activation checkpointing modes ("op": selective per operator).
_AC_ALIASES = {"off": "none", "op": "selective"}

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Records(list[dict[str, Any]]):
    """The records a parser found (a plain list of dicts) plus ``notes`` (what was skipped or
    assumed, one sentence each) and ``format`` ("hf", "torchtitan" or "csv")."""

    def __init__(self, items: Iterable[dict[str, Any]] = (), *, notes: list[str] | None = None,
                 format: str = "") -> None:
        super().__init__(items)
        self.notes: list[str] = notes if notes is not None else []
        self.format = format


# --- input --------------------------------------------------------------------------


class _Text:
    """A log's text, its name for messages, and whether it ended with a newline."""

    def __init__(self, text: str, origin: str) -> None:
        self.text = text
        self.origin = origin
        self.lines = text.splitlines()
        self.ends_with_newline = text.endswith(("\n", "\r"))

    def error(self, line: int | None, what: str) -> Exception:
        where = f"{self.origin}:{line}" if line else self.origin
        return ParseError(f"{where}: {what}")

    def is_half_written(self, lineno: int) -> bool:
        """Line LINENO (1-based) is the last one and the file stops without a newline."""
        return lineno == len(self.lines) and not self.ends_with_newline


_MAGIC = [
    (b"\xff\xd8\xff", "a JPEG image"), (b"\x89PNG", "a PNG image"), (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a zip archive"), (b"\x1f\x8b", "a gzip file"),
    (b"\x7fELF", "an ELF binary"), (b"\x93NUMPY", "a numpy array"), (b"BZh", "a bzip2 file"),
]


def _decode(data: bytes, origin: str, expected: str) -> str:
    if not data.strip():
        raise ParseError(f"{origin}: the file is empty; expected {expected}")
    head = data[:16]
    kind = next((name for magic, name in _MAGIC if data.startswith(magic)), None)
    if kind or b"\x00" in data[:65536]:
        what = kind or "binary data"
        raise ParseError(f"{origin}:1: this is {what} (starts with bytes {head[:8].hex(' ')}), "
                         f"not a text log; expected {expected}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ParseError(f"{origin}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                         f"{e.start}); expected {expected}") from None


def _read(text_or_path: Any, expected: str) -> _Text:
    """TEXT_OR_PATH: a path (str without a newline naming a file, or os.PathLike), the text
    itself (str with a newline), or bytes."""
    if isinstance(text_or_path, bytes):
        return _Text(_decode(text_or_path, "<text>", expected), "<text>")
    if isinstance(text_or_path, os.PathLike) or (
            isinstance(text_or_path, str) and "\n" not in text_or_path and "\r" not in text_or_path
            and (os.path.isfile(text_or_path) or os.sep in text_or_path
                 or re.search(r"\.(log|txt|out|err|csv|json|tsv)$", text_or_path, re.I))):
        path = os.fsdecode(text_or_path)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise ParseError(f"{path}: is a directory; expected {expected}") from None
        return _Text(_decode(data, path, expected), path)
    if isinstance(text_or_path, str):
        if not text_or_path.strip():
            raise ParseError(f"<text>: the text is empty; expected {expected}")
        return _Text(text_or_path, "<text>")
    raise TypeError(f"expected a path or the log's text, got {type(text_or_path).__name__}")


# --- configuration -------------------------------------------------------------------


def _config_value(name: str, value: Any) -> Any:
    """VALUE of configuration key NAME as a record holds it. A training option is checked
    by the core (TypeError for a value of the wrong kind, ValueError naming what is valid);
    a choice is matched case-insensitively, as logs spell them."""
    if name in ("model", "hardware", "source"):
        if not isinstance(value, str) or not value.strip():
            raise TypeError(f"{name}: expected a non-empty string, got {value!r}")
        return value.strip()
    if name == "grad_accum":
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value).is_integer():
            raise TypeError(f"{name}: expected a positive integer, got {value!r}")
        if float(value) <= 0:
            raise ValueError(f"{name} = {value!r}; it must be a positive integer")
        return int(float(value))
    kind = _options.option("training", name).type
    if kind == "choice" and isinstance(value, str):
        value = value.strip().lower()
        if name == "activation_checkpointing":
            value = _AC_ALIASES.get(value, value)
    _spec.make_options("training", {name: value})  # the core's check, the only one
    # the name as given, not the core's canonical one (full_shard stays full_shard)
    return int(value) if kind == "integer" else float(value) if kind == "number" else value


def _from_text(name: str, text: str) -> Any:
    """A CSV cell as its key's Python type; _config_value then checks it."""
    kind = "integer" if name == "grad_accum" else "text" if name in ("model", "hardware") else \
        _options.option("training", name).type
    if kind in ("integer", "number"):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{name} = {text!r} is not a number") from None
    if kind == "boolean":
        flag = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(text.lower())
        if flag is None:
            raise ValueError(f"{name} = {text!r}; valid: true or false")
        return flag
    return text


def _check_config(config: dict[str, Any], caller: str) -> dict[str, Any]:
    """The caller's keyword configuration, checked (None: not given)."""
    unknown = sorted(set(config) - set(CONFIG_KEYS) - {"source"})
    if unknown:
        raise TypeError(f"{caller}: unknown keyword {unknown[0]!r}; valid: "
                        f"{', '.join(sorted(CONFIG_KEYS + ('source',)))}")
    out: dict[str, Any] = {}
    for k, v in config.items():
        try:
            out[k] = None if v is None else _config_value(k, v)
        except (TypeError, ValueError) as e:
            raise _about(k, e) from None
    return out


def _about(field: str, error: Exception) -> Exception:
    """ERROR tagged with the configuration key it concerns (``error.field``), so a front end
    can name the flag that sets it (``libscale fit --seq-len``)."""
    setattr(error, "field", field)  # noqa: B010 (exceptions have no declared field attribute)
    return error


def _ac_mode(word: str) -> str | None:
    """An activation checkpointing mode as a log names it, or None when it is none we know."""
    mode = _AC_ALIASES.get(word.lower(), word.lower())
    return mode if mode in _options.option("training", "activation_checkpointing").choices else None


F = TypeVar("F", bound=Callable[..., Any])


def _with_config_doc(f: F) -> F:
    """Appends the configuration keywords, from the option schema, to F's docstring."""
    lines = ["    CONFIG (keywords; what the log lacks, and a value the log states must agree):",
             "      model, hardware: catalog names; grad_accum: micro-batches per optimizer step;",
             "      source: the record's provenance (default: the file and line)."]
    lines += [f"      {o.name}: {o.help}{f' ({o.unit})' if o.unit else ''}; valid: {o.valid()}"
              for o in _options.options("training") if o.name in _TRAINING_KEYS]
    f.__doc__ = (f.__doc__ or "").rstrip() + "\n\n" + "\n".join(lines) + "\n"
    return f


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return bool(a == b)


class _Found:
    """Configuration values found in a log, each with where it was found."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.where: dict[str, str] = {}

    def set(self, field: str, value: Any, where: str) -> None:
        self.values[field] = value
        self.where[field] = where

    def copy(self) -> _Found:
        c = _Found()
        c.values, c.where = dict(self.values), dict(self.where)
        return c


def _record(src: _Text, found: _Found, given: dict[str, Any], timing: tuple[str, float], source: str,
            extra: dict[str, Any] | None = None, line: int | None = None) -> dict[str, Any]:
    """One step record: the log's values, else the caller's; a disagreement is an error."""
    rec: dict[str, Any] = {"kind": "step"}
    for field in CONFIG_KEYS:
        logged, wanted = found.values.get(field), given.get(field)
        if logged is not None and wanted is not None and not _same(logged, wanted):
            raise _about(field, src.error(line, f"{field}: the log says {logged!r} ({found.where[field]}) "
                                                f"but {field}={wanted!r} was given"))
        value = logged if logged is not None else wanted
        if value is not None:
            rec[field] = value
    if "grad_accum" in rec and "global_batch_tokens" in rec:
        # The schema takes one of the two; keep grad_accum, check the other agrees.
        mb, sl, g = rec.get("micro_batch"), rec.get("seq_len"), rec.get("gpus")
        if mb and sl and g and mb * sl * g * rec["grad_accum"] != rec["global_batch_tokens"]:
            raise src.error(line, f"global_batch_tokens = {rec['global_batch_tokens']} disagrees "
                                  f"with gpus x micro_batch x seq_len x grad_accum = "
                                  f"{g} x {mb} x {sl} x {rec['grad_accum']}")
        del rec["global_batch_tokens"]
    for field in _REQUIRED:
        if field not in rec:
            raise _about(field, src.error(line, f"{field}: not found in the log; pass {field}=..."))
    key, value = timing
    rec[key] = value
    rec["source"] = given.get("source") or source
    if extra:
        rec.update(extra)
    return rec


def _time_value(src: _Text, line: int | None, name: str, value: Any) -> float:
    """A timing figure: a finite positive number, or an error naming the line."""
    try:
        x = float(str(value).replace(",", "")) if not isinstance(value, numbers.Real) else float(value)
    except ValueError:
        raise src.error(line, f"{name} = {value!r} is not a number") from None
    if math.isnan(x) or math.isinf(x) or x <= 0:
        raise src.error(line, f"{name} = {value!r}; a time or rate must be a finite number > 0")
    return x


def _int_text(s: str) -> int:
    return int(s.replace(",", "").replace("_", ""))


def _percentile(sorted_xs: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if len(sorted_xs) == 1:
        return sorted_xs[0]
    pos = (len(sorted_xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)
