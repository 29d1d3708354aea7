"""CSV tables of step times or rates -> step records, one per row."""

from __future__ import annotations

import csv
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
    _read,
    _record,
    _Text,
    _time_value,
    _with_config_doc,
)

# --- CSV ------------------------------------------------------------------------------

_CSV_EXPECTED = ("a CSV whose header names gpus and step_time_s, tokens_per_s or "
                 "tokens_per_s_per_gpu (optional: " + ", ".join(c for c in CSV_COLUMNS if c != "gpus"
                                                                  and c not in _TIMING_KEYS) + ")")


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
