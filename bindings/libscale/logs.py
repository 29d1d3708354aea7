"""Trainer output -> end-to-end step records (schema ``libscale.measurements/2``).

    >>> from libscale import logs
    >>> recs = logs.parse_log("train.log", model="llama-3.1-8b", hardware="h100", gpus=8)
    >>> recs[0]["tokens_per_s_per_gpu"], recs.notes          # doctest: +SKIP

Each parser returns a list of dicts shaped like the measurement file's ``"kind": "step"``
records: ``model``, ``hardware``, ``gpus``, optional ``gpus_per_node``, ``seq_len``,
``micro_batch``, ``grad_accum`` (or ``global_batch_tokens``), ``activation_checkpointing``,
``strategy``, exactly one of ``step_time_s`` / ``tokens_per_s`` / ``tokens_per_s_per_gpu``,
and ``source``; a few extra keys (``samples``, ``p10_...``, ``memory_gib``,
``reported_mfu``, ...) are kept for reference. A configuration field is emitted only when
it is known (from the log or from the caller); model, hardware, gpus, seq_len and micro_batch
are required (the measurement loader needs them) and their absence is an error naming the
keyword to pass; the loader supplies defaults for the rest (grad_accum 1, ...).
Values found in the log win over missing ones; a value found in the log that differs from
the one the caller gave is an error naming both.

The list returned is a :class:`Records` (a ``list``) whose ``notes`` say what was skipped
or assumed, and whose ``format`` names the parser used.

Formats, as read from the public sources (see also each parser's docstring):

* Hugging Face ``Trainer`` (transformers ``trainer.py`` / ``trainer_utils.py`` /
  ``trainer_callback.py``, read at commit 007360d654f3 and later, v4.4x): the final
  ``self.log(speed_metrics("train", start_time, num_samples=..., num_steps=self.state.max_steps,
  num_tokens=num_train_tokens))`` line, printed by ``ProgressCallback.on_log`` as
  ``str(dict)`` -- floats as Python reprs in older releases, as ``f"{v:.4g}"`` strings in
  newer ones; the ``***** Running training *****`` banner; ``trainer_state.json``
  (``log_history``, ``max_steps``, ``train_batch_size``); ``train_results.json``.
  ``train_tokens_per_second`` is PER DEVICE: ``Trainer.num_tokens`` counts
  ``batch["input_ids"].numel()`` over this process's (sharded) train dataloader, and
  ``TrainingArguments.include_tokens_per_second`` is documented as "tokens per second per
  device"; we therefore map it to ``tokens_per_s_per_gpu``.
* torchtitan (``torchtitan/components/metrics.py`` ``MetricsProcessor.log`` and
  ``torchtitan/train.py``; pytorch/torchtitan 2025): ``step: {step:2}  loss: {:7.4f}
  [grad_norm: {:7.4f}]  memory: {:5.2f}GiB({:.2f}%)  tps: {round(tps):,}  tflops: {:,.2f}
  mfu: {:.2f}%`` (older releases print ``wps`` and no tflops/grad_norm), where ``tps`` is
  tokens per second per device over the interval since the previous logged step;
  ``Trainer is initialized with local batch size N, global batch size N, gradient
  accumulation steps N, sequence length N, ...``; ``Building N-D device mesh with [...],
  [sizes]``; ``Applied {mode} activation checkpointing to the model``; ``Applied FSDP|HSDP|DDP
  to the model``.
* CSV: a header naming ``gpus`` and one or more of ``step_time_s`` / ``tokens_per_s`` /
  ``tokens_per_s_per_gpu`` (exactly one filled per row), plus optional configuration columns.

Bad input (a foreign or binary file, an empty file, no step lines, NaN / negative / zero
times, a malformed line) raises ``libscale.ParseError`` (a ``ValueError``) naming the file,
the line and what was expected. A half-written last line (no trailing newline, not
parseable) is skipped with a note when earlier lines parsed.
"""

from __future__ import annotations

import ast
import csv
import json
import math
import numbers
import os
import re
from typing import Any, Callable, Iterable, Optional, Union

__all__ = [
    "Records",
    "ParseError",
    "parse_log",
    "parse_hf",
    "parse_torchtitan",
    "parse_csv",
    "detect_format",
    "FORMATS",
    "CSV_COLUMNS",
]


def _find_parse_error() -> type:
    """libscale.ParseError when the compiled core is importable; else a ValueError subclass,
    so this file also loads on its own (importlib by path, no _core)."""
    try:
        from ._core import ParseError as pe  # type: ignore[import-not-found]
        return pe
    except ImportError:
        pass
    try:
        import libscale  # type: ignore[import-not-found]
        return libscale.ParseError
    except Exception:  # noqa: BLE001 - any failure: fall back
        pass

    class ParseError(ValueError):
        """Bad trainer log or CSV (stand-in for libscale.ParseError)."""

    return ParseError


ParseError = _find_parse_error()

PathLike = Union[str, "os.PathLike[str]"]

FORMATS = ("auto", "hf", "torchtitan", "csv")

_TIMING_KEYS = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu")
_INT_FIELDS = ("gpus", "gpus_per_node", "seq_len", "micro_batch", "grad_accum", "global_batch_tokens")
_STR_FIELDS = ("model", "hardware", "activation_checkpointing", "strategy", "source")
_CONFIG_ORDER = ("model", "hardware", "gpus", "gpus_per_node", "seq_len", "micro_batch",
                 "grad_accum", "global_batch_tokens", "activation_checkpointing", "strategy")

#: Columns a CSV may have.
CSV_COLUMNS = _CONFIG_ORDER + _TIMING_KEYS + ("source",)

_AC_VALUES = {"none": "none", "off": "none", "selective": "selective", "op": "selective", "full": "full"}
_STRATEGIES = ("fsdp", "zero3", "full_shard", "hsdp", "hybrid_shard", "ddp", "zero1", "zero2")

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Records(list):
    """The records a parser found (a plain list of dicts) plus ``notes`` (what was skipped or
    assumed, one sentence each) and ``format`` ("hf", "torchtitan" or "csv")."""

    def __init__(self, items: Iterable[dict] = (), *, notes: Optional[list[str]] = None,
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

    def error(self, line: Optional[int], what: str) -> Exception:
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


def _check_config(config: dict) -> dict:
    """The caller's keyword configuration, type-checked (None: not given)."""
    out = {}
    for k, v in config.items():
        if v is None:
            out[k] = None
        elif k in _INT_FIELDS:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not float(v).is_integer():
                raise TypeError(f"{k}: expected a positive integer, got {v!r}")
            if v <= 0:
                raise ValueError(f"{k} = {v!r}; it must be a positive integer")
            out[k] = int(v)
        elif k in _STR_FIELDS:
            if not isinstance(v, str) or not v.strip():
                raise TypeError(f"{k}: expected a non-empty string, got {v!r}")
            out[k] = _normalise(k, v.strip(), None)
        else:  # pragma: no cover - callers pass only known names
            raise TypeError(f"unexpected keyword argument {k!r}")
    return out


def _normalise(field: str, value: str, err: Optional[Callable[[str], Exception]]) -> str:
    if field == "activation_checkpointing":
        ac = _AC_VALUES.get(value.lower())
        if ac is None:
            msg = f"activation_checkpointing = {value!r}; valid: none, selective, full"
            raise err(msg) if err else ValueError(msg)
        return ac
    if field == "strategy":
        if value.lower() not in _STRATEGIES:
            msg = f"strategy = {value!r}; valid: {', '.join(_STRATEGIES)}"
            raise err(msg) if err else ValueError(msg)
        return value.lower()
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return a == b


class _Found:
    """Configuration values found in a log, each with where it was found."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.where: dict[str, str] = {}

    def set(self, field: str, value: Any, where: str) -> None:
        self.values[field] = value
        self.where[field] = where

    def copy(self) -> "_Found":
        c = _Found()
        c.values, c.where = dict(self.values), dict(self.where)
        return c


def _record(src: _Text, found: _Found, given: dict, timing: tuple[str, float], source: str,
            extra: Optional[dict] = None, line: Optional[int] = None) -> dict:
    """One step record: the log's values, else the caller's; a disagreement is an error."""
    rec: dict[str, Any] = {"kind": "step"}
    for field in _CONFIG_ORDER:
        logged, wanted = found.values.get(field), given.get(field)
        if logged is not None and wanted is not None and not _same(logged, wanted):
            raise src.error(line, f"{field}: the log says {logged!r} ({found.where[field]}) "
                                  f"but {field}={wanted!r} was given")
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
    for field in ("model", "hardware", "gpus", "seq_len", "micro_batch"):  # the loader needs these
        if field not in rec:
            raise src.error(line, f"{field}: not found in the log; pass {field}=...")
    key, value = timing
    rec[key] = value
    rec["source"] = given.get("source") or source
    if extra:
        rec.update(extra)
    return rec


def _time_value(src: _Text, line: int, name: str, value: Any) -> float:
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


# --- Hugging Face Trainer ---------------------------------------------------------------

_HF_EXPECTED = ("a Hugging Face Trainer log (a line like {'train_runtime': 1234.5, "
                "'train_samples_per_second': ..., 'train_steps_per_second': ...}) or a "
                "trainer_state.json / train_results.json holding train_runtime")
_HF_BANNER = {
    "micro_batch": re.compile(r"Instantaneous batch size per device = ([\d,]+)"),
    "total_batch": re.compile(r"Total train batch size \(w\. parallel, distributed & accumulation\) = ([\d,]+)"),
    "grad_accum": re.compile(r"Gradient Accumulation steps = ([\d,]+)"),
    "max_steps": re.compile(r"Total optimization steps = ([\d,]+)"),
    "resumed_at": re.compile(r"Continuing training from global step (\d+)"),
}
_HF_DICT_START = re.compile(r"\{\s*'[A-Za-z_]\w*'\s*:")
_HF_NONFINITE = re.compile(r"(?<=[:\s\[,])(-?)(nan|inf)(?=\s*[,}\]])")


def _hf_dict(segment: str) -> Optional[str]:
    m = _HF_DICT_START.search(segment)
    if not m:
        return None
    end = segment.rfind("}")
    return segment[m.start():end + 1] if end > m.start() else segment[m.start():]


def _hf_literal(text: str) -> dict:
    text = _HF_NONFINITE.sub(lambda m: f"'{m.group(1)}{m.group(2)}'", text)
    value = ast.literal_eval(text)
    if not isinstance(value, dict):
        raise ValueError("not a dict")
    return value


def _hf_record(src: _Text, line: int, metrics: dict, banner: dict, found: _Found, given: dict,
               notes: list[str], source: str) -> dict:
    runtime = _time_value(src, line, "train_runtime", metrics["train_runtime"])
    extra: dict[str, Any] = {"train_runtime_s": runtime}
    steps = banner.get("max_steps")
    if steps is not None and banner.get("resumed_at"):
        run = steps - banner["resumed_at"]
        notes.append(f"{src.origin}:{line}: training resumed at global step {banner['resumed_at']}; "
                     f"train_runtime covers the {run} steps after it")
        steps = run
    sps = metrics.get("train_steps_per_second")
    tps = metrics.get("train_tokens_per_second")
    if sps is not None:
        sps = _time_value(src, line, "train_steps_per_second", sps)
    if tps is not None:
        tps = _time_value(src, line, "train_tokens_per_second", tps)
        extra["reported_tokens_per_s_per_gpu"] = tps
    if steps is not None and steps > 0:
        timing = ("step_time_s", runtime / steps)
        extra["steps"] = steps
    elif sps is not None:
        timing = ("step_time_s", 1.0 / sps)
        notes.append(f"{src.origin}:{line}: step count not in the log; step_time_s = "
                     f"1 / train_steps_per_second (rounded by the Trainer)")
    elif tps is not None:
        timing = ("tokens_per_s_per_gpu", tps)
        del extra["reported_tokens_per_s_per_gpu"]
        notes.append(f"{src.origin}:{line}: no step count; using train_tokens_per_second, "
                     f"which the Trainer computes per device")
    else:
        raise src.error(line, "train_runtime without a step count, train_steps_per_second or "
                              "train_tokens_per_second; cannot derive a step time")
    return _record(src, found, given, timing, source, extra, line)


def parse_hf(text_or_path: Any, *, model: Optional[str] = None, hardware: Optional[str] = None,
             gpus: Optional[int] = None, gpus_per_node: Optional[int] = None,
             seq_len: Optional[int] = None, micro_batch: Optional[int] = None,
             grad_accum: Optional[int] = None, activation_checkpointing: Optional[str] = None,
             strategy: Optional[str] = None, source: Optional[str] = None) -> Records:
    """Step records from a Hugging Face Trainer / accelerate console log, a
    ``trainer_state.json`` or a ``train_results.json``: one per ``train_runtime`` entry.

    step_time_s = train_runtime / optimization steps (the banner's "Total optimization steps",
    less the step a resumed run continued from; or trainer_state.json's ``max_steps``) -- the
    Trainer's own train_steps_per_second inverted, unrounded. Without a step count,
    1 / train_steps_per_second; without that, train_tokens_per_second as
    ``tokens_per_s_per_gpu`` (per device, see the module docstring). train_runtime spans the
    whole training loop (first-step warm-up, evaluation and checkpoint saves included).

    From the banner: micro_batch (batch size per device), grad_accum, and gpus = total train
    batch size / (per-device batch x accumulation). seq_len is not in the log: pass it.
    """
    given = _check_config(dict(model=model, hardware=hardware, gpus=gpus, gpus_per_node=gpus_per_node,
                               seq_len=seq_len, micro_batch=micro_batch, grad_accum=grad_accum,
                               activation_checkpointing=activation_checkpointing, strategy=strategy,
                               source=source))
    src = _read(text_or_path, _HF_EXPECTED)
    stripped = src.text.lstrip()
    if stripped.startswith("{") and not stripped.startswith("{'"):
        return _parse_hf_json(src, given)
    return _parse_hf_console(src, given)


def _parse_hf_json(src: _Text, given: dict) -> Records:
    try:
        doc = json.loads(src.text)
    except json.JSONDecodeError as e:
        raise src.error(e.lineno, f"not valid JSON ({e.msg}, column {e.colno}); the file may be "
                                  f"truncated; expected {_HF_EXPECTED}") from None
    if not isinstance(doc, dict):
        raise src.error(1, f"a JSON {type(doc).__name__}; expected {_HF_EXPECTED}")
    notes: list[str] = []
    found = _Found()
    if isinstance(doc.get("train_batch_size"), int) and doc["train_batch_size"] > 0:
        found.set("micro_batch", doc["train_batch_size"], "train_batch_size")
    entries = doc.get("log_history")
    if entries is None:
        entries = [doc] if "train_runtime" in doc else []
    if not isinstance(entries, list):
        raise src.error(None, "log_history is not a list")
    banner = {}
    if isinstance(doc.get("max_steps"), int) and doc["max_steps"] > 0:
        banner["max_steps"] = doc["max_steps"]
    out = Records(notes=notes, format="hf")
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and "train_runtime" in entry:
            where = f"log_history[{i}]" if "log_history" in doc else "train_runtime"
            try:
                out.append(_hf_record(src, None, entry, banner, found, given, notes,
                                      f"{src.origin}: {where}"))
            except ParseError as e:  # name the entry rather than a line
                raise ParseError(str(e).replace(f"{src.origin}:", f"{src.origin}: {where}:", 1)) from None
    if not out:
        n = len(entries)
        raise src.error(None, f"no train_runtime entry ({n} log_history entries; training may not "
                              f"have finished, or the state was saved by a checkpoint); expected "
                              f"{_HF_EXPECTED}")
    return out


def _parse_hf_console(src: _Text, given: dict) -> Records:
    notes: list[str] = []
    out = Records(notes=notes, format="hf")
    found = _Found()
    banner: dict[str, int] = {}
    logging_steps = 0
    parsed_any = False
    for lineno, raw in enumerate(src.lines, 1):
        line = _ANSI.sub("", raw)
        for name, rx in _HF_BANNER.items():
            m = rx.search(line)
            if m:
                banner[name] = _int_text(m.group(1))
                if name == "max_steps":  # a new train() call starts a new banner
                    banner.pop("resumed_at", None)
                parsed_any = True
        if "Running training" in line:
            banner.clear()
            found = _Found()
        if "micro_batch" in banner and "micro_batch" not in found.values:
            found.set("micro_batch", banner["micro_batch"], "the Trainer banner")
        if "grad_accum" in banner and "grad_accum" not in found.values:
            found.set("grad_accum", banner["grad_accum"], "the Trainer banner")
        if ("total_batch" in banner and "micro_batch" in banner and "grad_accum" in banner
                and "gpus" not in found.values):
            per_rank = banner["micro_batch"] * banner["grad_accum"]
            if per_rank > 0 and banner["total_batch"] % per_rank == 0:
                found.set("gpus", banner["total_batch"] // per_rank,
                          "the Trainer banner's total train batch size / (batch per device x "
                          "gradient accumulation)")
        for segment in line.split("\r"):
            text = _hf_dict(segment)
            if text is None:
                continue
            try:
                metrics = _hf_literal(text)
            except (ValueError, SyntaxError):
                if src.is_half_written(lineno) and parsed_any:
                    notes.append(f"{src.origin}:{lineno}: skipped the half-written last line")
                    continue
                raise src.error(lineno, f"a Trainer metrics line that does not parse: "
                                        f"{text[:80]!r}; expected a Python dict such as "
                                        f"{{'loss': 1.23, 'learning_rate': 1e-05, 'epoch': 0.1}}") from None
            parsed_any = True
            if "loss" in metrics:
                logging_steps += 1
            if "train_runtime" in metrics:
                out.append(_hf_record(src, lineno, metrics, banner, found, given, notes,
                                      f"{src.origin}:{lineno}"))
    if not out:
        if logging_steps:
            raise src.error(None, f"{logging_steps} logging-step lines but no final "
                                  f"{{'train_runtime': ...}} line: the run did not finish or the "
                                  f"log is truncated; expected {_HF_EXPECTED}")
        raise src.error(None, f"no Trainer metrics lines in {len(src.lines)} lines; expected "
                              f"{_HF_EXPECTED}")
    return out


# --- torchtitan --------------------------------------------------------------------------

_TT_EXPECTED = ("torchtitan step lines such as 'step: 10  loss:  7.8534  memory: 30.12GiB(31.70%)  "
                "tps: 5,762  tflops: 280.05  mfu: 28.32%'")
_TT_STEP_SIMPLE = re.compile(r"(?P<pre>.{0,9})\bstep:\s*(?P<step>\d+)\s+loss:\s*(?P<loss>\S+)")
_TT_RATE = re.compile(r"\b(?P<key>tps|wps):\s*(?P<val>[-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?|nan|inf|-inf)(?=\s|$)", re.I)
_TT_MEM = re.compile(r"\bmemory:\s*([\d.]+)GiB\(([\d.]+)%\)")
_TT_MFU = re.compile(r"\bmfu:\s*([-\d.]+|nan)%")
_TT_TFLOPS = re.compile(r"\btflops:\s*([-\d,.]+|nan)")
_TT_RANK = re.compile(r"^\[rank(\d+)\]:")
_TT_INIT = {
    "micro_batch": re.compile(r"local batch size (\d+)"),
    "global_batch": re.compile(r"global batch size (\d+)"),
    "grad_accum": re.compile(r"gradient accumulation steps (\d+)"),
    "seq_len": re.compile(r"sequence length (\d+)"),
}
_TT_MESH = re.compile(r"Building \d+-D device mesh with \[([^\]]*)\], \[([\d,\s]+)\]")
_TT_AC = re.compile(r"Applied (\w+) activation checkpointing to the model")
_TT_DP = re.compile(r"Applied (FSDP|HSDP|DDP) to the model")


def parse_torchtitan(text_or_path: Any, *, model: Optional[str] = None,
                     hardware: Optional[str] = None, gpus: Optional[int] = None,
                     gpus_per_node: Optional[int] = None, seq_len: Optional[int] = None,
                     micro_batch: Optional[int] = None, grad_accum: Optional[int] = None,
                     activation_checkpointing: Optional[str] = None, strategy: Optional[str] = None,
                     source: Optional[str] = None, skip_first: int = 2, per_step: bool = False) -> Records:
    """One step record from a torchtitan log: the median per-GPU ``tps`` (``wps`` in older
    releases) of the logged steps after the first SKIP_FIRST (warm-up: compilation, lazy
    init), as ``tokens_per_s_per_gpu``, with ``samples``, ``p10_tokens_per_s_per_gpu``,
    ``p90_tokens_per_s_per_gpu``, ``memory_gib`` (largest max-reserved of those steps),
    ``reported_mfu`` (median, as a fraction: 28.32% -> 0.2832) and ``reported_tflops``
    (median), and ``step_range`` ([first, last] step numbers used).

    From the log when present: micro_batch, grad_accum, seq_len (the "Trainer is initialized
    with ..." line), gpus (product of the device-mesh sizes), activation_checkpointing and
    strategy (FSDP -> fsdp, HSDP -> hsdp, DDP -> ddp). Several ranks' lines: the lowest rank's
    are used. A restart (step numbers going back) starts a new segment whose first SKIP_FIRST
    logged steps are skipped too.
    """
    if isinstance(skip_first, bool) or not isinstance(skip_first, int) or skip_first < 0:
        raise TypeError(f"skip_first: expected an integer >= 0, got {skip_first!r}")
    given = _check_config(dict(model=model, hardware=hardware, gpus=gpus, gpus_per_node=gpus_per_node,
                               seq_len=seq_len, micro_batch=micro_batch, grad_accum=grad_accum,
                               activation_checkpointing=activation_checkpointing, strategy=strategy,
                               source=source))
    src = _read(text_or_path, _TT_EXPECTED)
    notes: list[str] = []
    found = _Found()
    # rank -> list of (lineno, step, tps, mem, mfu, tflops)
    by_rank: dict[int, list[tuple]] = {}
    rate_name = None
    for lineno, raw in enumerate(src.lines, 1):
        line = _ANSI.sub("", raw)
        mr = _TT_RANK.match(line)
        rank = int(mr.group(1)) if mr else -1
        for name, rx in _TT_INIT.items():
            if "batch size" in line or "sequence length" in line or "accumulation" in line:
                m = rx.search(line)
                if m and name != "global_batch":
                    found.set(name, int(m.group(1)), f"line {lineno}")
        m = _TT_MESH.search(line)
        if m:
            sizes = [int(s) for s in m.group(2).replace(" ", "").split(",") if s]
            n = 1
            for s in sizes:
                n *= s
            found.set("gpus", n, f"line {lineno}, device mesh {sizes}")
        m = _TT_AC.search(line)
        if m and m.group(1).lower() in _AC_VALUES:
            found.set("activation_checkpointing", _AC_VALUES[m.group(1).lower()], f"line {lineno}")
        m = _TT_DP.search(line)
        if m:
            found.set("strategy", m.group(1).lower(), f"line {lineno}")
        m = _TT_STEP_SIMPLE.search(line)
        if not m or "validate" in m.group("pre"):
            continue
        rm = _TT_RATE.search(line, m.end())
        if not rm:
            if src.is_half_written(lineno) and any(by_rank.values()):
                notes.append(f"{src.origin}:{lineno}: skipped the half-written last line")
                continue
            raise src.error(lineno, f"a step line without tps/wps: {line.strip()[:100]!r}; "
                                    f"expected {_TT_EXPECTED}")
        rate_name = rm.group("key").lower()
        tps = _time_value(src, lineno, rate_name, rm.group("val"))
        mem = _TT_MEM.search(line)
        mfu = _TT_MFU.search(line)
        tfl = _TT_TFLOPS.search(line)
        by_rank.setdefault(rank, []).append((
            lineno, int(m.group("step")), tps,
            float(mem.group(1)) if mem else None,
            float(mfu.group(1)) if mfu else None,
            float(tfl.group(1).replace(",", "")) if tfl else None))
    if not by_rank:
        raise src.error(None, f"no training step lines in {len(src.lines)} lines; expected "
                              f"{_TT_EXPECTED}")
    rank = min(by_rank)
    if len(by_rank) > 1:
        notes.append(f"{src.origin}: step lines from ranks {sorted(by_rank)}; used rank {rank}'s")
    rows = by_rank[rank]
    # Split at restarts, skip each segment's warm-up.
    kept: list[tuple] = []
    segments = 0
    seg: list[tuple] = []
    for row in rows + [None]:
        if row is None or (seg and row[1] <= seg[-1][1]):
            segments += 1
            kept.extend(seg[skip_first:])
            seg = []
        if row is not None:
            seg.append(row)
    if segments > 1:
        notes.append(f"{src.origin}: {segments} runs in one log (step numbers restart); skipped the "
                     f"first {skip_first} logged steps of each")
    if not kept:
        raise src.error(None, f"{len(rows)} step lines, all within the first skip_first="
                              f"{skip_first} (warm-up); need at least {skip_first + 1}, or pass "
                              f"a smaller skip_first")
    rates = sorted(r[2] for r in kept)
    median = _percentile(rates, 50)
    extra: dict[str, Any] = {
        "samples": len(kept),
        "p10_tokens_per_s_per_gpu": _percentile(rates, 10),
        "p90_tokens_per_s_per_gpu": _percentile(rates, 90),
        "step_range": [kept[0][1], kept[-1][1]],
    }
    mems = [r[3] for r in kept if r[3] is not None]
    if mems:
        extra["memory_gib"] = max(mems)
    mfus = sorted(r[4] for r in kept if r[4] is not None and not math.isnan(r[4]))
    if mfus:
        extra["reported_mfu"] = _percentile(mfus, 50) / 100.0
    tfl = sorted(r[5] for r in kept if r[5] is not None and not math.isnan(r[5]))
    if tfl:
        extra["reported_tflops"] = _percentile(tfl, 50)
    if skip_first:
        notes.append(f"{src.origin}: skipped the first {skip_first} logged steps as warm-up")
    if per_step:
        # One record per logged step: the fitter then sees the step-to-step scatter and
        # gives the efficiency an interval, where one summarized record is solved exactly.
        return Records([_record(src, found, given, ("tokens_per_s_per_gpu", r[2]),
                                f"{src.origin}:{r[0]}: step {r[1]} {rate_name}", line=r[0])
                        for r in kept], notes=notes, format="torchtitan")
    first_line, last_line = kept[0][0], kept[-1][0]
    where = (f"{src.origin}: lines {first_line}-{last_line}, median {rate_name} of "
             f"{len(kept)} logged steps")
    out = Records([_record(src, found, given, ("tokens_per_s_per_gpu", median), where, extra)],
                  notes=notes, format="torchtitan")
    return out


# --- CSV ------------------------------------------------------------------------------

_CSV_EXPECTED = ("a CSV whose header names gpus and step_time_s, tokens_per_s or "
                 "tokens_per_s_per_gpu (optional: " + ", ".join(c for c in CSV_COLUMNS if c != "gpus"
                                                                  and c not in _TIMING_KEYS) + ")")


def parse_csv(text_or_path: Any, *, model: Optional[str] = None, hardware: Optional[str] = None,
              gpus: Optional[int] = None, gpus_per_node: Optional[int] = None,
              seq_len: Optional[int] = None, micro_batch: Optional[int] = None,
              grad_accum: Optional[int] = None, activation_checkpointing: Optional[str] = None,
              strategy: Optional[str] = None, source: Optional[str] = None) -> Records:
    """One step record per CSV row. Columns: ``CSV_COLUMNS`` (an unknown column is an error
    naming it and the valid ones); ``gpus`` and at least one of step_time_s / tokens_per_s /
    tokens_per_s_per_gpu, exactly one of which is filled in each row. An empty cell falls back
    to the keyword value; a filled cell that differs from it is an error. Lines starting with
    ``#`` and blank lines are skipped."""
    given = _check_config(dict(model=model, hardware=hardware, gpus=gpus, gpus_per_node=gpus_per_node,
                               seq_len=seq_len, micro_batch=micro_batch, grad_accum=grad_accum,
                               activation_checkpointing=activation_checkpointing, strategy=strategy,
                               source=source))
    src = _read(text_or_path, _CSV_EXPECTED)
    notes: list[str] = []
    rows = [(i, ln) for i, ln in enumerate(src.lines, 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if not rows:
        raise src.error(None, f"no header or rows; expected {_CSV_EXPECTED}")
    head_no, head = rows[0]
    delim = "\t" if "\t" in head and "," not in head else ","
    header = [h.strip().lower() for h in next(csv.reader([head], delimiter=delim))]
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown:
        raise src.error(head_no, f"unknown column{'s' if len(unknown) > 1 else ''} "
                                 f"{', '.join(repr(u) for u in unknown)}; valid: {', '.join(CSV_COLUMNS)}")
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise src.error(head_no, f"column {dup[0]!r} appears more than once")
    timing_cols = [h for h in header if h in _TIMING_KEYS]
    if "gpus" not in header and given.get("gpus") is None:
        raise src.error(head_no, f"no gpus column (and no gpus=... given); expected {_CSV_EXPECTED}")
    if not timing_cols:
        raise src.error(head_no, f"no step_time_s, tokens_per_s or tokens_per_s_per_gpu column; "
                                 f"expected {_CSV_EXPECTED}")
    out = Records(notes=notes, format="csv")
    for lineno, text in rows[1:]:
        cells = next(csv.reader([text], delimiter=delim))
        try:
            out.append(_csv_row(src, lineno, header, cells, given))
        except ParseError:
            if src.is_half_written(lineno) and out:
                notes.append(f"{src.origin}:{lineno}: skipped the half-written last line")
                continue
            raise
    if not out:
        raise src.error(None, f"a header but no data rows; expected {_CSV_EXPECTED}")
    return out


def _csv_row(src: _Text, lineno: int, header: list[str], cells: list[str], given: dict) -> dict:
    if len(cells) != len(header):
        raise src.error(lineno, f"{len(cells)} fields, the header has {len(header)}")
    found = _Found()
    timings = []
    for col, cell in zip(header, cells):
        cell = cell.strip()
        if not cell:
            continue
        if col in _TIMING_KEYS:
            timings.append((col, _time_value(src, lineno, col, cell)))
        elif col in _INT_FIELDS:
            try:
                x = float(cell)
            except ValueError:
                raise src.error(lineno, f"{col} = {cell!r} is not a number") from None
            if not x.is_integer() or x <= 0:
                raise src.error(lineno, f"{col} = {cell!r}; it must be a positive integer")
            found.set(col, int(x), f"line {lineno}")
        elif col == "source":
            found.set(col, cell, f"line {lineno}")
        else:
            found.set(col, _normalise(col, cell, lambda msg: src.error(lineno, msg)), f"line {lineno}")
    if len(timings) != 1:
        what = "none of" if not timings else "more than one of"
        raise src.error(lineno, f"{what} {', '.join(_TIMING_KEYS)} filled; exactly one is needed")
    row_source = found.values.pop("source", None)
    return _record(src, found, given, timings[0], row_source or f"{src.origin}:{lineno}", line=lineno)


# --- dispatch --------------------------------------------------------------------------

_PARSERS = {"hf": parse_hf, "torchtitan": parse_torchtitan, "csv": parse_csv}
_ALL_EXPECTED = f"{_HF_EXPECTED}; {_TT_EXPECTED}; or {_CSV_EXPECTED}"


def detect_format(text: str) -> Optional[str]:
    """"hf", "torchtitan", "csv" or None, from a log's content."""
    body = _ANSI.sub("", text)
    stripped = body.lstrip()
    if stripped.startswith("{") and not stripped.startswith("{'"):
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError:
            doc = None
        if isinstance(doc, dict) and ("log_history" in doc or "train_runtime" in doc):
            return "hf"
        if doc is None and ('"log_history"' in body or '"train_runtime"' in body):
            return "hf"  # truncated trainer_state.json: let parse_hf say where
        return None
    for line in body.splitlines():
        m = _TT_STEP_SIMPLE.search(line)
        if m and "validate" not in m.group("pre") and _TT_RATE.search(line):
            return "torchtitan"
    if ("'train_runtime'" in body or "***** Running training *****" in body
            or re.search(r"\{'loss': ", body)):
        return "hf"
    for line in body.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            cols = [c.strip().lower() for c in re.split(r"[,\t]", line)]
            if "gpus" in cols or any(c in _TIMING_KEYS for c in cols):
                return "csv"
            break
    if re.search(r"(?<!validate )\bstep:\s*\d+\s+loss:", body):
        return "torchtitan"  # step lines without a rate: parse_torchtitan names the line
    return None


def parse_log(path: Any, *, format: str = "auto", skip_first: Optional[int] = None, per_step: bool = False,
              **config: Any) -> Records:
    """Step records from a trainer log or CSV at PATH (or its text).

    FORMAT: "auto" (by content), "hf", "torchtitan" or "csv". CONFIG: model, hardware, gpus,
    gpus_per_node, seq_len, micro_batch, grad_accum, activation_checkpointing, strategy,
    source -- the configuration the log lacks. SKIP_FIRST: torchtitan warm-up steps to skip
    (default 2). PER_STEP: torchtitan logs give one record per logged step instead of their
    median (what `libscale fit` uses, so the scatter becomes an interval).
    """
    if format not in FORMATS:
        raise ValueError(f"format = {format!r}; valid: {', '.join(FORMATS)}")
    allowed = {"model", "hardware", "gpus", "gpus_per_node", "seq_len", "micro_batch",
               "grad_accum", "activation_checkpointing", "strategy", "source"}
    unknown = sorted(set(config) - allowed)
    if unknown:
        raise TypeError(f"parse_log: unknown keyword {unknown[0]!r}; valid: "
                        f"format, skip_first, {', '.join(sorted(allowed))}")
    notes: list[str] = []
    if format == "auto":
        src = _read(path, _ALL_EXPECTED)
        format = detect_format(src.text) or ""
        if not format:
            first = next((i for i, ln in enumerate(src.lines, 1) if ln.strip()), 1)
            raise src.error(first, f"not a recognised trainer log ({len(src.lines)} lines, no "
                                   f"step or metrics lines); expected {_ALL_EXPECTED}")
        text_or_path: Any = src.text if src.origin == "<text>" else path
    else:
        text_or_path = path
    kwargs = dict(config)
    if format == "torchtitan":
        kwargs["skip_first"] = 2 if skip_first is None else skip_first
        kwargs["per_step"] = per_step
    elif skip_first is not None:
        notes.append(f"skip_first applies to torchtitan logs; ignored for a {format} file")
    out = _PARSERS[format](text_or_path, **kwargs)
    out.notes[:0] = notes
    return out
