"""Hugging Face Trainer logs, trainer_state.json and train_results.json -> step records."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from .._core import ParseError
from ._common import (
    Records,
    _check_config,
    _Found,
    _int_text,
    _no_gc,
    _read,
    _record,
    _Text,
    _time_value,
    _with_config_doc,
)

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

# The whole-log scan. A console log is mostly tqdm redraws (carriage returns: one "line"
# each) and the Trainer's metrics dicts; the lines _hf_line has to read are found by byte
# search instead of one by one: a line with a "{" (a metrics dict), and a banner line --
# each _HF_BANNER expression holds " = " except the resume line ("Continuing training"),
# and the new-run line says "Running training": candidates are the lines with a "=", "C"
# or "R" (single bytes: memchr, where a search for a word stops at every space or letter
# of a progress bar), kept when they hold one of _HF_BANNER_WORDS.
# A dict as ProgressCallback prints it -- str() of a dict of numbers or short strings
# (the newer f"{v:.4g}" style), alone to the end of its line -- is read right here: such
# a dict parses (ast.literal_eval) by construction, so counting it and noting "loss" is
# all _hf_line would do with it. Its string values hold none of : , [ or whitespace, so
# _HF_NONFINITE never rewrites inside them; its integers have no leading zeros (which
# Python rejects). Every other line found goes to _hf_line.
_HF_KEY = rb"'[A-Za-z_][A-Za-z0-9_]*': "
_HF_VALUE = (rb"(?:'[^'\\\x00-\x20\x7f-\xff:,\[]*'|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
             rb"|-?nan|-?inf)")
_HF_DICT = re.compile(rb"\{(" + _HF_KEY + _HF_VALUE + rb"(?:, " + _HF_KEY + _HF_VALUE + rb")*\}[ \t]*(?=[\r\n]|\Z))?")
_HF_BANNER_BYTES = (b"=", b"C", b"R")
_HF_BANNER_WORDS = (b" = ", b"Continuing training", b"Running training")


def _hf_dict(segment: str) -> str | None:
    m = _HF_DICT_START.search(segment)
    if not m:
        return None
    end = segment.rfind("}")
    return segment[m.start():end + 1] if end > m.start() else segment[m.start():]


def _hf_literal(text: str) -> dict[str, Any]:
    text = _HF_NONFINITE.sub(lambda m: f"'{m.group(1)}{m.group(2)}'", text)
    value = ast.literal_eval(text)
    if not isinstance(value, dict):
        raise ValueError("not a dict")
    return value


def _hf_record(src: _Text, line: int | None, metrics: dict[str, Any], banner: dict[str, Any], found: _Found,
               given: dict[str, Any], notes: list[str], source: str) -> dict[str, Any]:
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


@_no_gc
@_with_config_doc
def parse_hf(text_or_path: Any, **config: Any) -> Records:
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
    given = _check_config(config, "parse_hf")
    src = _read(text_or_path, _HF_EXPECTED)
    head = src.first_chars()
    if head.startswith("{") and not head.startswith("{'"):
        return _parse_hf_json(src, given)
    return _parse_hf_console(src, given)


def _parse_hf_json(src: _Text, given: dict[str, Any]) -> Records:
    try:
        doc = src.cache["json"] if "json" in src.cache else json.loads(src.text)
    except json.JSONDecodeError as e:
        raise src.error(e.lineno, f"not valid JSON ({e.msg}, column {e.colno}); the file may be "
                                  f"truncated; expected {_HF_EXPECTED}") from None
    except RecursionError:
        raise src.error(1, f"JSON nested too deeply to read; expected {_HF_EXPECTED}") from None
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


class _HFState:
    """What _parse_hf_console has read so far."""

    def __init__(self, src: _Text, given: dict[str, Any]) -> None:
        self.src = src
        self.given = given
        self.notes: list[str] = []
        self.out = Records(notes=self.notes, format="hf")
        self.found = _Found()
        self.banner: dict[str, int] = {}
        self.logging_steps = 0
        self.parsed_any = False


def _hf_line(st: _HFState, lineno: int, line: str) -> None:
    """Line LINENO (ANSI escapes removed): banner values, metrics dicts, train_runtime records."""
    src, banner = st.src, st.banner
    for name, rx in _HF_BANNER.items():
        m = rx.search(line)
        if m:
            banner[name] = _int_text(m.group(1))
            if name == "max_steps":  # a new train() call starts a new banner
                banner.pop("resumed_at", None)
            st.parsed_any = True
    if "Running training" in line:
        banner.clear()
        st.found = _Found()
    found = st.found
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
            if src.is_half_written(lineno) and st.parsed_any:
                st.notes.append(f"{src.origin}:{lineno}: skipped the half-written last line")
                continue
            raise src.error(lineno, f"a Trainer metrics line that does not parse: "
                                    f"{text[:80]!r}; expected a Python dict such as "
                                    f"{{'loss': 1.23, 'learning_rate': 1e-05, 'epoch': 0.1}}") from None
        st.parsed_any = True
        if "loss" in metrics:
            st.logging_steps += 1
        if "train_runtime" in metrics:
            st.out.append(_hf_record(src, lineno, metrics, banner, found, st.given, st.notes,
                                     f"{src.origin}:{lineno}"))


def _parse_hf_console(src: _Text, given: dict[str, Any]) -> Records:
    st = _HFState(src, given)
    scan = src.scan(keep_ansi=False)
    data = scan.data
    banner_lines = set()
    for byte in _HF_BANNER_BYTES:
        at = data.find(byte)
        while at >= 0:
            start, end = scan.bounds(at)
            if any(word in data[start:end] for word in _HF_BANNER_WORDS):
                banner_lines.add((start, end))
            at = data.find(byte, end)
    pending = sorted(banner_lines, reverse=True)  # popped from the end: in file order
    done = 0  # every line before this offset has been read

    def read_line(start: int, end: int) -> None:
        nonlocal done
        done = end
        _hf_line(st, scan.line_of(start), data[start:end].decode("utf-8", "surrogatepass"))

    for m in _HF_DICT.finditer(data):
        while pending and pending[-1][0] <= m.start():
            start, end = pending.pop()
            if start >= done:
                read_line(start, end)
        if m.start() < done:
            continue
        body = m.group(1)
        if body is not None and b"'train_runtime': " not in body:
            st.parsed_any = True
            st.logging_steps += b"'loss': " in body
            continue
        read_line(*scan.bounds(m.start()))
    for start, end in reversed(pending):
        if start >= done:
            read_line(start, end)
    if not st.out:
        if st.logging_steps:
            raise src.error(None, f"{st.logging_steps} logging-step lines but no final "
                                  f"{{'train_runtime': ...}} line: the run did not finish or the "
                                  f"log is truncated; expected {_HF_EXPECTED}")
        raise src.error(None, f"no Trainer metrics lines in {src.line_count()} lines; expected "
                              f"{_HF_EXPECTED}")
    return st.out
