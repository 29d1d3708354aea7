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

Layout: ``_common`` (reading the input; the configuration keywords, ``CONFIG_KEYS``, derived
from the core's training option table and the measurements schema; building records),
one module per format (``hf``, ``torchtitan``, ``csv_table``), and here the dispatch.

Logs of long runs are tens to hundreds of megabytes, so no parser goes through a log line
by line in Python: each finds the lines that can matter by byte search over the whole file
and reads only those with the per-line rules (torchtitan's step lines are read by the
compiled scanner, libscale._core.io.scan_torchtitan_log); a record per CSV row or per
torchtitan step is built column by column. A file larger than a chunk is read with a
progress bar (libscale._progress). bench/bench_logs.py measures the throughput.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._core import ParseError
from ._common import (
    _ANSI,
    _ANSI_BYTES,
    _TIMING_KEYS,
    CONFIG_KEYS,
    CSV_COLUMNS,
    FORMATS,
    Records,
    _Lines,
    _no_gc,
    _read,
    _Text,
    _with_config_doc,
)
from .csv_table import _CSV_EXPECTED, parse_csv
from .hf import _HF_EXPECTED, parse_hf
from .torchtitan import _TT_EXPECTED, _TT_RATE, _TT_STEP_SIMPLE, parse_torchtitan

__all__ = ["CONFIG_KEYS", "CSV_COLUMNS", "FORMATS", "ParseError", "Records", "detect_format", "parse_csv",
           "parse_hf", "parse_log", "parse_torchtitan"]


# --- dispatch --------------------------------------------------------------------------

_PARSERS = {"hf": parse_hf, "torchtitan": parse_torchtitan, "csv": parse_csv}
_ALL_EXPECTED = f"{_HF_EXPECTED}; {_TT_EXPECTED}; or {_CSV_EXPECTED}"


def detect_format(text: str) -> str | None:
    """"hf", "torchtitan", "csv" or None, from a log's content."""
    return _detect(text if isinstance(text, _Text) else _Text(text.encode("utf-8", "surrogatepass"), "<text>", text))


def _detect(src: _Text) -> str | None:
    # The rules apply to the text without ANSI escapes; they look at the lines that can
    # matter (found by byte search) rather than at every line of a large log.
    head = src.first_chars(keep_ansi=False)
    if head.startswith("{") and not head.startswith("{'"):
        body = _ANSI.sub("", src.text) if b"\x1b" in src.data else src.text
        stripped = body.lstrip()
        try:
            doc = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError):  # parse_hf names the line, or the depth
            doc = None
        if doc is not None and body is src.text and not body[:len(body) - len(stripped)].strip(" \t\n\r"):
            src.cache["json"] = doc  # what parse_hf's json.loads(text) gives too
        if isinstance(doc, dict) and ("log_history" in doc or "train_runtime" in doc):
            return "hf"
        if doc is None and ('"log_history"' in body or '"train_runtime"' in body):
            return "hf"  # truncated trainer_state.json: let parse_hf say where
        return None
    scan = src.scan(keep_ansi=True)
    data = scan.data
    if _has_torchtitan_step(scan, (b"step:", b"\x1b"), 1000):
        return "torchtitan"
    plain = data if b"\x1b" not in data else src.scan(keep_ansi=False).data
    if b"***** Running training *****" in plain or b"{'loss': " in plain or b"'train_runtime'" in plain:
        return "hf"
    start = 0
    while start < len(data):
        start, end = scan.bounds(start)
        line = _ANSI.sub("", data[start:end].decode("utf-8", "surrogatepass"))
        if line.strip() and not line.lstrip().startswith("#"):
            cols = [c.strip().lower() for c in re.split(r"[,\t]", line)]
            if "gpus" in cols or any(c in _TIMING_KEYS for c in cols):
                return "csv"
            break
        start = end + (2 if data[end:end + 2] == b"\r\n" else 1)
    if re.search(r"(?<!validate )\bstep:\s*\d+\s+loss:", _ANSI.sub("", src.text)):
        return "torchtitan"  # step lines without a rate: parse_torchtitan names the line
    return None


def _has_torchtitan_step(scan: _Lines, anchors: tuple[bytes, ...], limit: int | None) -> bool:
    """Whether a line of SCAN is a torchtitan step line with a rate. Only a line with
    "step:" can be one, or a line with an escape that may split it: the lines with one of
    ANCHORS are read, in order. Past LIMIT lines (a log coloured throughout), the escapes
    are removed from the whole text once and only "step:" is looked for."""
    data = scan.data
    at = {a: data.find(a) for a in anchors}
    read = 0
    while any(p >= 0 for p in at.values()):
        if limit is not None and read == limit:
            plain = _Lines(_ANSI_BYTES.sub(b"", data))
            return _has_torchtitan_step(plain, (b"step:",), None)
        start, end = scan.bounds(min(p for p in at.values() if p >= 0))
        line = _ANSI.sub("", data[start:end].decode("utf-8", "surrogatepass"))
        m = _TT_STEP_SIMPLE.search(line)
        if m and "validate" not in m.group("pre") and _TT_RATE.search(line):
            return True
        at = {a: data.find(a, end) if 0 <= p < end else p for a, p in at.items()}
        read += 1
    return False


@_no_gc
@_with_config_doc
def parse_log(path: Any, *, format: str = "auto", skip_first: int | None = None, per_step: bool = False,
              **config: Any) -> Records:
    """Step records from a trainer log or CSV at PATH (or its text).

    FORMAT: "auto" (by content), "hf", "torchtitan" or "csv". CONFIG: the configuration the
    log lacks (CONFIG_KEYS and source; listed below). SKIP_FIRST: torchtitan warm-up steps to skip
    (default 2). PER_STEP: torchtitan logs give one record per logged step instead of their
    median (what `libscale fit` uses, so the scatter becomes an interval).
    """
    if format not in FORMATS:
        raise ValueError(f"format = {format!r}; valid: {', '.join(FORMATS)}")
    unknown = sorted(set(config) - set(CONFIG_KEYS) - {"source"})
    if unknown:
        raise TypeError(f"parse_log: unknown keyword {unknown[0]!r}; valid: "
                        f"format, skip_first, per_step, {', '.join(sorted(CONFIG_KEYS + ('source',)))}")
    notes: list[str] = []
    if format == "auto":
        src = _read(path, _ALL_EXPECTED)
        format = _detect(src) or ""
        if not format:
            first = next((i for i, ln in enumerate(src.lines, 1) if ln.strip()), 1)
            raise src.error(first, f"not a recognised trainer log ({len(src.lines)} lines, no "
                                   f"step or metrics lines); expected {_ALL_EXPECTED}")
        text_or_path: Any = src  # read once: the parser takes the text as read
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
