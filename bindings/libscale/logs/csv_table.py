"""CSV tables of step times or rates -> step records, one per row."""

from __future__ import annotations

import collections
import csv
import functools
import itertools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

from .._core import ParseError
from ._common import (
    _TIMING_KEYS,
    CSV_COLUMNS,
    Records,
    _check_config,
    _config_value,
    _Found,
    _from_text,
    _no_gc,
    _read,
    _record,
    _record_template,
    _Text,
    _time_value,
    _with_config_doc,
)

# --- CSV ------------------------------------------------------------------------------

_CSV_EXPECTED = ("a CSV whose header names gpus and step_time_s, tokens_per_s or "
                 "tokens_per_s_per_gpu (optional: " + ", ".join(c for c in CSV_COLUMNS if c != "gpus"
                                                                  and c not in _TIMING_KEYS) + ")")


@_no_gc
@_with_config_doc
def parse_csv(text_or_path: Any, **config: Any) -> Records:
    """One step record per CSV row. Columns: ``CSV_COLUMNS`` (an unknown column is an error
    naming it and the valid ones); ``gpus`` and at least one of step_time_s / tokens_per_s /
    tokens_per_s_per_gpu, exactly one of which is filled in each row. An empty cell falls back
    to the keyword value; a filled cell that differs from it is an error. Lines starting with
    ``#`` and blank lines are skipped."""
    given = _check_config(config, "parse_csv")
    src = _read(text_or_path, _CSV_EXPECTED)
    notes: list[str] = []
    lines = src.lines
    head_no = next((i for i, ln in enumerate(lines, 1) if _is_row(ln)), 0)
    if not head_no:
        raise src.error(None, f"no header or rows; expected {_CSV_EXPECTED}")
    head = lines[head_no - 1]
    body = lines[head_no:]
    # The line numbers of the rows after the header: consecutive when every line is a row --
    # each starts with a character that is printable, not a space and not # (the first
    # characters of a large CSV, joined, say so at once).
    firsts = "".join(map(operator.itemgetter(slice(0, 1)), body))
    nums: Sequence[int]
    if len(firsts) == len(body) and firsts.isprintable() and " " not in firsts and "#" not in firsts:
        nums, texts = range(head_no + 1, head_no + 1 + len(body)), body
    else:
        kept = [(i, ln) for i, ln in enumerate(body, head_no + 1) if _is_row(ln)]
        nums, texts = [i for i, _ in kept], [ln for _, ln in kept]
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
    fast = _CsvRows(src, header, given)
    # Without a quote anywhere, the csv module splits a line exactly where str.split does.
    quoted = '"' in src.text
    bulk = _csv_bulk(fast, nums, texts, delim) if not quoted and texts else None
    if bulk is not None:
        out.extend(bulk)
        return out
    split: Callable[[str], list[str]] = (
        (lambda text: text.split(delim)) if not quoted else (lambda text: next(csv.reader([text], delimiter=delim))))
    for lineno, text in zip(nums, texts, strict=True):
        cells = split(text)
        rec = fast.row(lineno, cells)
        if rec is not None:
            out.append(rec)
            continue
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


def _is_row(line: str) -> bool:
    """Not blank and not a # comment (a first character that is neither settles it at once)."""
    if line and not line[0].isspace() and line[0] != "#":
        return True
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _csv_bulk(fast: _CsvRows, nums: Sequence[int], texts: list[str], delim: str) -> list[dict[str, Any]] | None:
    """Every row's record, column by column: what the row loop below does, in C loops
    (map, zip, str methods) instead of Python statements per row -- for a large CSV the
    record dicts themselves are then most of the cost. None when any row is not the
    common case (a field count off, not exactly one timing, a value float() or the
    checks reject, a half-written last row): the row loop then reads them all and says
    what is wrong where."""
    header = fast.header
    n, ncol = len(texts), len(header)
    # The cells that are not configuration (timings, source) are split off; the rest of a
    # row stays one string, the key of its record template (its field count is checked
    # once per distinct key, below). A row with a field count off makes zip(strict) raise.
    other = [j for j, h in enumerate(header) if h in _TIMING_KEYS or h == "source"]
    k = len(other)
    keys: Any
    try:
        if k < ncol and other == list(range(ncol - k, ncol)):
            parts = list(zip(*map(str.rsplit, texts, itertools.repeat(delim), itertools.repeat(k)), strict=True))
            if len(parts) != k + 1:
                return None
            keys, cells = parts[0], dict(zip(other, parts[1:], strict=True))
        elif k < ncol and other == list(range(k)):
            parts = list(zip(*map(str.split, texts, itertools.repeat(delim), itertools.repeat(k)), strict=True))
            if len(parts) != k + 1:
                return None
            keys, cells = parts[k], dict(zip(other, parts[:k], strict=True))
        else:
            parts = list(zip(*map(str.split, texts, itertools.repeat(delim)), strict=True))
            if len(parts) != ncol:
                return None
            config = [j for j in range(ncol) if j not in other]
            keys = list(zip(*(parts[j] for j in config), strict=True)) if config else [()] * n
            cells = {j: parts[j] for j in other}
    except ValueError:
        return None
    templates = {}
    fixed: str | None = None
    for key, lineno in dict(zip(reversed(keys), reversed(nums), strict=True)).items():  # first row of each
        row = [""] * ncol
        config_cells = key.split(delim) if isinstance(key, str) else key
        if len(config_cells) != ncol - k:
            return None
        for j, cell in zip((j for j in range(ncol) if j not in other), config_cells, strict=True):
            row[j] = cell
        made = fast._template(lineno, row)
        if made is None:
            return None
        templates[key] = made[0]
        fixed = made[1]
    # The timing: exactly one cell of the timing columns filled, a finite number > 0.
    timing = [(h, list(map(str.strip, cells[j]))) for j, h in fast.timing]
    filled = [list(map(bool, values)) for _, values in timing]
    if len(timing) == 1:
        if filled[0].count(True) != n:
            return None
        names = [timing[0][0]] * n
        stripped = timing[0][1]
    elif len(timing) == 2:  # the usual pair, step_time_s and a rate: four passes of C
        (first, a), (second, b) = timing
        if True in map(operator.and_, filled[0], filled[1]) or not all(map(operator.or_, filled[0], filled[1])):
            return None
        names = list(map((second, first).__getitem__, filled[0]))
        stripped = list(map(operator.add, a, b))  # one of the two is ""
    else:
        if list(map(sum, zip(*filled, strict=True))).count(1) != n:
            return None
        # the filled cell is the one non-empty string of the row's timing cells
        stripped = functools.reduce(lambda a, b: list(map(operator.add, a, b)), (values for _, values in timing))
        which = map(operator.indexOf, zip(*filled, strict=True), itertools.repeat(True))
        names = list(map(operator.getitem, itertools.repeat([h for h, _ in timing]), which))
    try:
        values = list(map(float, stripped))
    except ValueError:
        return None
    if not all(map((0.0).__lt__, values)) or math.inf in values:
        return None
    # The source: the caller's, else the row's, else the file and line.
    origin = fast.src.origin
    if fixed:
        sources: Any = itertools.repeat(fixed)
    elif fast.source is not None:
        sources = list(map(str.strip, cells[fast.source]))
        if not all(sources):
            sources = [s or f"{origin}:{line}" for s, line in zip(sources, nums, strict=True)]
    else:
        sources = list(map(f"{origin}:{{}}".format, nums))
    records = list(map(dict.copy, map(operator.getitem, map(templates.__getitem__, keys), names)))
    collections.deque(map(operator.setitem, records, names, values), maxlen=0)
    collections.deque(map(operator.setitem, records, itertools.repeat("source"), sources), maxlen=0)
    return records


class _CsvRows:
    """_csv_row for the common row, without its per-cell work: the configuration cells'
    values are checked once per distinct combination (a record template), the timing cell
    read with float(). A row this does not settle (wrong field count, not exactly one
    timing, a value float() or the checks reject) is None: _csv_row then reads it, and
    raises the error it would have raised."""

    def __init__(self, src: _Text, header: list[str], given: dict[str, Any]) -> None:
        self.src = src
        self.header = header
        self.given = given
        self.timing = [(j, h) for j, h in enumerate(header) if h in _TIMING_KEYS]
        config = [j for j, h in enumerate(header) if h not in _TIMING_KEYS and h != "source"]
        self.config_of: Callable[[list[str]], Any] = operator.itemgetter(*config) if config else (lambda cells: ())
        self.source = header.index("source") if "source" in header else None
        #: per distinct configuration cells: a record template per timing column, and the
        #: caller's source; None where _csv_row has an error to raise
        self.templates: dict[Any, tuple[dict[str, dict[str, Any]], str | None] | None] = {}

    def _template(self, lineno: int, cells: list[str]) -> tuple[dict[str, dict[str, Any]], str | None] | None:
        found = _Found()
        try:
            for col, cell in zip(self.header, cells, strict=True):
                cell = cell.strip()
                if cell and col not in _TIMING_KEYS and col != "source":
                    found.set(col, _config_value(col, _from_text(col, cell)), f"line {lineno}")
            first = self.timing[0][1]
            template, fixed = _record_template(self.src, found, self.given, first, lineno)
        except (TypeError, ValueError):  # ParseError too: _csv_row says it
            return None
        config = {k: v for k, v in template.items() if k not in (first, "source")}
        return {col: {**config, col: 0.0, "source": ""} for _, col in self.timing}, fixed

    def row(self, lineno: int, cells: list[str]) -> dict[str, Any] | None:
        if len(cells) != len(self.header):
            return None
        key = self.config_of(cells)
        if key in self.templates:
            made = self.templates[key]
        else:
            made = self.templates[key] = self._template(lineno, cells)
        if made is None:
            return None
        timing = None
        for j, col in self.timing:
            cell = cells[j]
            if cell and not cell.isspace():
                if timing is not None:
                    return None
                try:
                    value = float(cell)
                except ValueError:
                    return None
                if not (0 < value < math.inf):
                    return None
                timing = col, value
        if timing is None:
            return None
        templates, fixed = made
        rec = templates[timing[0]].copy()
        rec[timing[0]] = timing[1]
        row_source = self.source is not None and cells[self.source].strip()
        rec["source"] = fixed or row_source or f"{self.src.origin}:{lineno}"
        return rec


def _csv_row(src: _Text, lineno: int, header: list[str], cells: list[str],
             given: dict[str, Any]) -> dict[str, Any]:
    if len(cells) != len(header):
        raise src.error(lineno, f"{len(cells)} fields, the header has {len(header)}")
    found = _Found()
    timings = []
    for col, cell in zip(header, cells, strict=True):  # lengths checked above
        cell = cell.strip()
        if not cell:
            continue
        if col in _TIMING_KEYS:
            timings.append((col, _time_value(src, lineno, col, cell)))
        elif col == "source":
            found.set(col, cell, f"line {lineno}")
        else:
            try:
                found.set(col, _config_value(col, _from_text(col, cell)), f"line {lineno}")
            except (TypeError, ValueError) as e:  # a column, not a keyword: no field to name
                raise src.error(lineno, str(e)) from None
    if len(timings) != 1:
        what = "none of" if not timings else "more than one of"
        raise src.error(lineno, f"{what} {', '.join(_TIMING_KEYS)} filled; exactly one is needed")
    row_source = found.values.pop("source", None)
    return _record(src, found, given, timings[0], row_source or f"{src.origin}:{lineno}", line=lineno)
