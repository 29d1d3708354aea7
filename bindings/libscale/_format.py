"""Text and HTML tables, number formatting and the sentences that describe a result.

Formatting only: every number shown is one the C++ core computed."""

from __future__ import annotations

import datetime
import html
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ._core import estimate as _estimate

Formatter = Callable[[Any], str]


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def fixed(digits: int) -> Formatter:
    """Thousands separators and a fixed number of decimals; '-' for a missing value; past
    1e15 (a job far beyond any real one) 4 significant digits, not a 300-digit column."""
    def f(v: Any) -> str:
        if _missing(v):
            return "-"
        return f"{float(v):,.{digits}f}" if abs(float(v)) < 1e15 else f"{float(v):.4g}"
    return f


def integer(v: Any) -> str:
    if _missing(v):
        return "-"
    return f"{int(v):,}" if abs(v) < 1e15 else f"{float(v):.4g}"


def big_integer(n: int) -> str:
    """An integer for an error message: its digits, or its size in bits past 100 bits (a
    number of a thousand digits helps nobody, and str() refuses past 4300 of them)."""
    return str(n) if n.bit_length() <= 100 else f"an integer of {n.bit_length()} bits"


def percent(digits: int) -> Formatter:
    """A fraction shown in percent (the column header carries the %)."""
    def f(v: Any) -> str:
        return "-" if _missing(v) else f"{float(v):.{digits}%}".rstrip("%")
    return f


def yes_no(v: Any) -> str:
    return "yes" if v else "no"


def text(v: Any) -> str:
    return "" if v is None else str(v)


class Column(NamedTuple):
    key: str
    header: str
    fmt: Formatter
    align: str = ">"


def text_table(columns: Sequence[Column], rows: Iterable[Mapping[str, Any]]) -> str:
    cells = [[c.fmt(r.get(c.key)) for c in columns] for r in rows]
    widths = [max([len(c.header)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    def line(values: Sequence[str]) -> str:
        return "  ".join(f"{v:{c.align}{w}}" for v, c, w in zip(values, columns, widths, strict=True)).rstrip()
    out = [line([c.header for c in columns]), line(["-" * w for w in widths])]
    out += [line(row) for row in cells]
    return "\n".join(out)


def html_table(columns: Sequence[Column], rows: Iterable[Mapping[str, Any]],
               caption: str | None = None, footer: str | None = None) -> str:
    parts = ["<div class=\"libscale\">"]
    if caption:
        parts.append(f"<p>{html.escape(caption)}</p>")
    parts.append("<table>")
    parts.append("<thead><tr>" + "".join(f"<th>{html.escape(c.header)}</th>" for c in columns)
                 + "</tr></thead>")
    parts.append("<tbody>")
    for r in rows:
        parts.append("<tr>" + "".join(
            f"<td style=\"text-align:{'right' if c.align == '>' else 'left'}\">"
            f"{html.escape(c.fmt(r.get(c.key)))}</td>" for c in columns) + "</tr>")
    parts.append("</tbody></table>")
    if footer:
        parts.append(f"<p>{html.escape(footer)}</p>")
    parts.append("</div>")
    return "".join(parts)


# --- what the project table shows ----------------------------------------------------


# --- the step's outputs, from the core's field table (estimate/step_fields.hpp) -------------


def field_formatter(spec: str) -> Formatter:
    """The formatter a field's format names: 'integer', 'fixed:N', 'percent:N' or 'yes_no'."""
    kind, _, digits = spec.partition(":")
    if kind == "integer":
        return integer
    if kind == "yes_no":
        return yes_no
    if kind in ("fixed", "percent") and digits.isdigit():
        return fixed(int(digits)) if kind == "fixed" else percent(int(digits))
    raise ValueError(f"field format {spec!r}; valid: integer, fixed:N, percent:N, yes_no")


def field_header(field: Mapping[str, Any]) -> str:
    """'step s', 'MFU %', 'tokens/s/GPU': the label, then the unit unless the label is it (per GPU: 'tokens/s/GPU')."""
    unit = "%" if field["format"].startswith("percent") else field["unit"]
    label: str = field["label"]
    return label if not unit or label == unit or label.startswith(unit + "/") else f"{label} {unit}"


def step_fields(use: str | None = None) -> list[dict[str, Any]]:
    """The core's step outputs (name, type, unit, label, format, help, uses), those with
    `use` ('sweep', 'part', 'total') only when given."""
    return [f for f in _estimate.step_fields() if use is None or use in f["uses"]]


def field_column(field: Mapping[str, Any]) -> Column:
    return Column(field["name"], field_header(field), field_formatter(field["format"]))


PROJECTION_COLUMNS = [
    *(field_column(f) for f in step_fields("projection")),
    Column("fit", "fits", text, "<"),  # the memory verdict as text (fit_text)
    *(field_column(f) for f in _estimate.row_fields() if "projection" in f["uses"]),
]

SWEEP_COLUMNS = [
    Column("gpus", "GPUs", integer),
    Column("micro_batch", "micro-batch seqs", integer),
    Column("seq_len", "seq len tokens", integer),
    Column("global_batch_tokens", "global batch tokens", integer),
    *(field_column(f) for f in step_fields("sweep")),
    Column("issue_text", "issue", text, "<"),
]

#: (key, label, formatter) of every output, for a step shown as a list.
STEP_FIELDS = [(f["name"], field_header(f), field_formatter(f["format"])) for f in step_fields()]

#: Where a step's time goes (project prints it under the main table): its parts and totals.
STEP_PARTS_COLUMNS = [
    Column("gpus", "GPUs", integer),
    *(field_column(f) for f in step_fields() if "part" in f["uses"] or "total" in f["uses"]),
]


def fit_text(d: Mapping[str, Any]) -> str:
    """'yes', 'uncertain (needed vs available GiB)' or 'NO (needed > available GiB)', from
    a projection row (fit_status, needed_gib) or a step's memory (status, total_gib)."""
    status = d.get("fit_status", d.get("status"))
    needed, available = d.get("needed_gib", d.get("total_gib")), d["available_gib"]
    if status == "fits":
        return "yes"
    if status == "uncertain":
        return f"uncertain ({needed:,.1f} vs {available:,.1f} GiB)"
    return f"NO ({needed:,.1f} > {available:,.1f} GiB)"


def with_fit(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Projection rows with their 'fit' cell text added."""
    return [dict(r, fit=fit_text(r)) for r in rows]


def fit_notes(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per row that does not surely fit: needed vs available and what would fit."""
    out = []
    for r in rows:
        if r["fit_status"] == "fits":
            continue
        verb = "does not fit" if r["fit_status"] == "does_not_fit" else "may not fit"
        line = (f"{r['gpus']} GPUs {verb}: {r['needed_gib']:,.1f} GiB per GPU needed (± "
                f"{100 * r['memory']['margin']:.0f} %), {r['available_gib']:,.1f} GiB available")
        out.append(line + (f"; {r['fit_suggestion']}" if r.get("fit_suggestion") else ""))
    return out


def _count(v: float) -> str:
    """1e9 -> '1,000,000,000'; non-integral or huge values in short scientific form."""
    return f"{int(v):,}" if float(v).is_integer() and abs(v) < 1e15 else f"{v:.4g}"


#: Control characters (C0 but newline and tab, DEL, C1) as a terminal would act on them:
#: an escape sequence in a model name from a file must not move the cursor or recolour text.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """Text for a terminal: each control character but newline and tab written as \\xNN."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


#: A spreadsheet reads a cell that starts with one of these as a formula (OWASP, "CSV
#: Injection"): =HYPERLINK(...) from a model or series name would run when opened.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """A CSV cell: text that a spreadsheet would read as a formula gets a leading quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


#: z of a normal distribution's 90th percentile: a log-normal coefficient's P10–P90 is its
#: median × exp(±Z90 σ).
Z90 = 1.2815515655446004


def uncalibrated_spread_pct(file: Any) -> float | None:
    """A default CalibrationFile's P10–P90 half-width in %: the spread of the shipped
    measurements around it (its framework efficiency's, docs/calibration.md "Uncalibrated");
    None for a fitted or derived one, or a default without a spread."""
    params = list(file.parameters)
    if file.kind != "default" or "framework_efficiency" not in params:
        return None
    i = params.index("framework_efficiency")
    log_sd = math.sqrt(float(file.covariance[i][i])) / file.calibration.framework_efficiency
    return 100 * (math.exp(Z90 * log_sd) - 1)


def calibration_kind(kind: str, spread_pct: float | None = None) -> str:
    """'default (uncalibrated ±17 %)', 'fitted', 'derived'."""
    if kind != "default":
        return kind
    return "default (uncalibrated)" if spread_pct is None else f"default (uncalibrated ±{spread_pct:.0f} %)"


def calibration_file_kind(file: Any) -> str:
    """calibration_kind of a CalibrationFile, with a default's spread."""
    return calibration_kind(file.kind, uncalibrated_spread_pct(file))


def calibration_label(c: Mapping[str, Any]) -> str:
    """'default (uncalibrated ±17 %)', or the kind and where it came from: 'derived (path)'."""
    kind = calibration_kind(c["kind"], c.get("uncalibrated_p10_p90_pct"))
    if c["kind"] != "default" and c.get("source"):
        return f"{kind} ({c['source']})"
    return kind


#: Options the header states on their own (or that are not single values).
_HEADER_OPTIONS = ("gpus", "gpus_per_node", "seq_len", "micro_batch", "global_batch_tokens", "strategy",
                   "activation_checkpointing", "attention_span_tokens", "data", "checkpoint")


def options_text(cfg: Mapping[str, Any]) -> str:
    """The training options of a config dict that differ from the front ends' defaults,
    e.g. 'precision fp8, optimizer adamw_8bit, torch_compile' ('' when none do)."""
    from .options import defaults

    parts = []
    for key, default in defaults("training").items():
        if key in _HEADER_OPTIONS or key not in cfg or cfg[key] == default:
            continue
        value = cfg[key]
        parts.append(key if value is True else f"no {key}" if value is False else f"{key} {value}")
    return ", ".join(parts)


def projection_header(d: Mapping[str, Any]) -> str:
    """One line: model, hardware, strategy, batch, job, calibration (from Projection.to_dict())."""
    cfg, job = d.get("config", {}), d.get("job", {})
    parts = []
    what = []
    if "model" in d:
        what.append(f"{d['model']['name']} ({d['model']['parameters']:,} parameters)")
    if "hardware" in d:
        what.append(f"on {d['hardware']['name']}")
    if what:
        parts.append(" ".join(what))
    if cfg:
        gpn = cfg["gpus_per_node"] or (d.get("hardware") or {}).get("gpus_per_node")
        # Several hardware without --gpus-per-node: each its own, on its own line.
        parts.append(f"{cfg['strategy']}, " + ("each hardware's GPUs/node" if gpn is None else f"{gpn} GPUs/node"))
        rows = d.get("rows") or []
        batch = rows[0]["tokens_per_step"] if rows else cfg["global_batch_tokens"]
        batch_text = "not set" if batch is None else f"{batch:,.0f} tokens"
        if batch is not None and cfg["global_batch_tokens"] is None and d.get("scaling", "strong") == "strong" \
                and len(rows) > 1:
            # The default depends on the counts asked for; say so, or "--gpus 8" and
            # "--gpus 8,64" give two 8-GPU rows without a word why.
            shared = batch / (cfg["seq_len"] * cfg["micro_batch"])
            model_parallel = (cfg.get("tensor_parallel") or 1) * (cfg.get("context_parallel") or 1)
            if model_parallel > 1:
                batch_text += (f" by default: one micro-batch on each of {shared:,.0f} data-parallel ranks "
                               f"({model_parallel} GPUs each) of {shared * model_parallel:,.0f} GPUs, the least "
                               "common multiple of the counts (set global_batch_tokens to fix it)")
            else:
                batch_text += (f" by default: one micro-batch on each of {shared:,.0f} GPUs, the least common "
                               "multiple of the counts (set global_batch_tokens to fix it)")
        parts.append(f"global batch {batch_text} (seq len {cfg['seq_len']:,}, "
                     f"micro-batch {cfg['micro_batch']})")
        parts.append(f"activation checkpointing {cfg['activation_checkpointing']}")
        if options_text(cfg):
            parts.append(options_text(cfg))
    parts.append(f"{d.get('scaling', 'strong')} scaling")
    if job:
        epochs = job["epochs"]
        text = f"job {_count(job['tokens'])} tokens × {epochs:g} epoch{'' if epochs == 1 else 's'}"
        if "price_per_gpu_hour_usd" in d:
            text += f" at ${d['price_per_gpu_hour_usd']:,.2f}/GPU-h"
        parts.append(text)
    if "calibration" in d:
        parts.append(f"calibration {calibration_label(d['calibration'])}")
    return ", ".join(parts)


def comm_sentence(d: Mapping[str, Any]) -> str:
    """Where communication stops hiding under compute (from Projection.to_dict())."""
    rows = d.get("rows") or []
    n = d.get("comm_exposed_from_gpus")
    if not rows:
        return ""
    if n is None:
        return ("communication hides under compute at every GPU count shown (only the first "
                "all-gather and the last reduce-scatter are exposed)")
    row = next(r for r in rows if r["gpus"] == n)
    where = (f"{n} GPUs on {row['nodes']} nodes (the ring crosses the node boundary)"
             if row["nodes"] > 1 else f"{n} GPUs within one node")
    before = [r["gpus"] for r in rows if r["gpus"] < n]
    lead = (f"communication hides under compute up to {before[-1]} GPUs and stops hiding from "
            if before else "communication does not hide under compute even at the smallest count, ")
    return (f"{lead}{where}: {row['exposed_comm_s']:.3f} s of the {row['step_time_s']:.3f} s step "
            f"is exposed communication")


# --- quantiles (project --quantiles) -------------------------------------------------


def _range(fmt: Formatter, lo: Any, hi: Any) -> str:
    return f"{fmt(lo)}–{fmt(hi)}"


def quantile_ranges(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with '<figure>_range' texts 'P10–P90' for the table."""
    out = dict(row)
    for key, digits in (("tokens_per_s", 0), ("gpu_hours", 1), ("wall_time_h", 2), ("cost_usd", 2)):
        if f"{key}_p10" in row:
            out[f"{key}_range"] = _range(fixed(digits), row[f"{key}_p10"], row[f"{key}_p90"])
    return out


def _insert_after(columns: Sequence[Column], key: str, extra: Column) -> list[Column]:
    out: list[Column] = []
    for c in columns:
        out.append(c)
        if c.key == key:
            out.append(extra)
    return out


QUANTILE_PROJECTION_COLUMNS = _insert_after(
    _insert_after(_insert_after(PROJECTION_COLUMNS, "tokens_per_s",
                                Column("tokens_per_s_range", "tokens/s P10–P90", text)),
                  "wall_time_h", Column("wall_time_h_range", "wall h P10–P90", text)),
    "gpu_hours", Column("gpu_hours_range", "GPU-h P10–P90", text))


def uncertainty_sentence(d: Mapping[str, Any]) -> str:
    u = d.get("uncertainty") or {}
    params = u.get("parameters") or []
    if not params:
        return ("P10–P90: the calibration carries no covariance, so every interval is the point value "
                "(no uncertainty is known)")
    spread = (d.get("calibration") or {}).get("uncalibrated_p10_p90_pct")
    if spread is not None:
        return (f"P10–P90: 80% interval of the uncalibrated default, ±{spread:.0f} %: the spread of the shipped "
                f"measurements around it, drawn as {', '.join(params)} ({u.get('samples')} samples, seed "
                f"{u.get('seed')}); a calibration fitted to your own runs narrows it")
    return (f"P10–P90: 80% interval propagated from the calibration's covariance of {', '.join(params)} "
            f"({u.get('samples')} samples, seed {u.get('seed')}); other coefficients are held fixed")


# --- fit (libscale fit) --------------------------------------------------------------


def _general(v: Any) -> str:
    return "" if _missing(v) else f"{v:.4g}"


def coefficient_row(c: Any) -> dict[str, Any]:
    """A fitted Coefficient as table texts: value, posterior sd and 80% interval (fitted
    ones), its prior (value before the fit, log sd) and whether the data identified it."""
    interval = c.interval_80
    if c.measured:
        identified = "measured"
    elif not c.fitted:
        identified = "not fitted"
    else:
        identified = "yes" if c.identified else "no (prior)"
    return {"name": c.name, "value": _general(c.value), "std_error": _general(c.std_error) if c.fitted else "",
            "interval": f"[{interval[0]:.4g}, {interval[1]:.4g}]" if interval is not None else "",
            "prior_value": _general(c.prior_value),
            "prior_log_sd": _general(c.prior_log_sd) if c.prior_log_sd > 0 else "",
            "identified": identified, "note": c.note}


COEFFICIENT_COLUMNS = [
    Column("name", "coefficient", text, "<"),
    Column("value", "value", text),
    Column("std_error", "sd", text),
    Column("interval", "80% interval", text),
    Column("prior_value", "prior", text),
    Column("prior_log_sd", "prior log sd", text),
    Column("identified", "identified", text, "<"),
    Column("note", "note", text, "<"),
]

def fit_error_sentence(d: Mapping[str, Any]) -> str:
    """The fit's rms and leave-one-out relative errors, in percent (from FitResult.to_dict())."""
    loo = d["loo_relative_error"]
    return (f"relative error: rms {percent(2)(d['rms_relative_error'])} %, leave-one-out "
            + (f"{percent(2)(loo)} %" if loo is not None else "n/a (no stage has more points than parameters)"))


FAMILY_COLUMNS = [
    Column("family", "family", text, "<"),
    Column("parameters", "parameters", integer),
    Column("loo_relative_error", "LOO error %", percent(2)),
    Column("applicable", "applicable", yes_no),
    Column("note", "note", text, "<"),
]


# --- the packing gate ----------------------------------------------------------------

GATE_COLUMNS = [
    Column("rank", "rank", text),
    Column("sequences", "packed seqs", integer),
    Column("micro_batches", "micro-batches", integer),
    Column("optimizer_steps", "optimizer steps", integer),
    Column("tokens", "tokens", integer),
    Column("padding_efficiency", "padding eff %", percent(1)),
]

#: Above this many ranks the table shows only the ranks with the fewest and most micro-batches.
GATE_TABLE_MAX_RANKS = 16


def gate_rank_rows(d: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The per-rank rows to show: all of them up to GATE_TABLE_MAX_RANKS, else the
    min / max rows of each column labelled as such."""
    ranks = list(d["ranks"])
    if len(ranks) <= GATE_TABLE_MAX_RANKS:
        return ranks
    out = []
    for label, pick in (("min", min), ("max", max)):
        row: dict[str, Any] = {"rank": f"{label} of {len(ranks)}"}
        for c in GATE_COLUMNS[1:]:
            row[c.key] = pick(r[c.key] for r in ranks)
        out.append(row)
    fewest = ranks[d["min_rank"]]
    most = ranks[d["max_rank"]]
    if d["difference"]:
        out.append(dict(fewest, rank=f"{fewest['rank']} (fewest)"))
        out.append(dict(most, rank=f"{most['rank']} (most)"))
    return out


def gate_header(d: Mapping[str, Any]) -> str:
    return (f"packing gate: {d['packer']}, seq_len {d['seq_len']:,}, {d['world_size']} ranks, micro-batch "
            f"{d['micro_batch']}, grad accum {d['grad_accum']}, "
            + (f"shuffled (seed {d['seed']})" if d["shuffle"] else "not shuffled")
            + (", sampler drop_last" if d["sampler_drop_last"] else "")
            + f"; {d['global_bins']:,} packed sequences" + _truncation(d))


def _truncation(d: Mapping[str, Any]) -> str:
    """What packing cut off, when it cut anything: a PASS over a dataset mostly thrown away
    is not the run that was planned."""
    o = d.get("overflow") or {}
    n, lost = o.get("truncated_samples", 0), o.get("truncated_tokens", 0)
    if not n:
        return ""
    kept = d.get("total_tokens") or 0
    share = f", {100 * lost / (lost + kept):.1f} % of the tokens" if lost + kept > 0 else ""
    return (f"; {n:,} samples longer than seq_len {d['seq_len']:,} truncated ({lost:,} tokens lost{share})")


def _ranks_phrase(ranks: Sequence[int]) -> str:
    return f"rank {ranks[0]}" if len(ranks) == 1 else (
        "ranks " + ", ".join(str(r) for r in ranks[:-1]) + f" and {ranks[-1]}")


def gate_verdict(d: Mapping[str, Any]) -> str:
    """The one verdict line."""
    lo, hi = d["min_micro_batches"], d["max_micro_batches"]
    ranks = d["ranks"]
    remedy = (f"equalize to the minimum (drops {d['micro_batches_dropped']:,} micro-batches, "
              f"{d['steps_dropped']:,} optimizer steps, {d['tokens_dropped']:,} tokens, "
              f"{d['tokens_dropped_pct']:.2f} %)")
    if d["difference"] == 0:
        steps = ranks[0]["optimizer_steps"]
        if hi == 0:  # e.g. drop_last with fewer packed sequences than ranks: every rank skips the loop alike
            return (f"PASS: all {len(ranks)} ranks run 0 micro-batches per epoch: no rank hangs, but the epoch "
                    f"trains on nothing")
        return (f"PASS: all {len(ranks)} ranks run {lo:,} micro-batches ({steps:,} optimizer steps) per epoch")
    if d["trainer_equalizes"]:
        return (f"PASS: ranks run {lo:,} to {hi:,} micro-batches but {d['packer']} truncates every rank to "
                f"{lo:,} at run time (no hang); that drops {d['micro_batches_dropped']:,} micro-batches, "
                f"{d['tokens_dropped']:,} tokens, {d['tokens_dropped_pct']:.2f} %")
    fewest = [r["rank"] for r in ranks if r["micro_batches"] == lo]
    most = [r["rank"] for r in ranks if r["micro_batches"] == hi]
    shown = fewest[:3] + most[:3]  # fewest first, as in "(610 vs 612)"
    more = len(fewest) + len(most) - len(shown)
    who = _ranks_phrase(shown) + (f" (and {more} more)" if more else "")
    stoppers = _ranks_phrase(fewest[:3]) + (" ..." if len(fewest) > 3 else "")
    if lo == 0:  # equalizing to the minimum would drop every micro-batch: no remedy to name
        remedy = "pack before sharding (equalizing to the minimum, 0, would train on nothing)"
    return (f"FAIL: {who} differ by {d['difference']:,} micro-batches ({lo:,} vs {hi:,}): {stoppers} would "
            f"stop calling collectives and the others hang until the {d['watchdog_s']:g} s watchdog: "
            f"{d['cost_at_risk_gpu_hours']:.1f} GPU-hours at risk; remedy: {remedy} or torch Join")


# --- power triage --------------------------------------------------------------------

TRIAGE_COLUMNS = [
    Column("phase", "phase", text, "<"),
    Column("seconds", "time (s)", fixed(1)),
    Column("percent", "time (%)", fixed(1)),
    Column("energy_kwh", "energy (kWh)", fixed(4)),
]


# Seconds since 1970 between 2001 and 5138: a trace's wall-clock timestamps (nvidia-smi,
# DCGM); anything else is a trace's own clock, shown as seconds.
_EPOCH_S = (1e9, 1e11)


def clock_text(t: float) -> str:
    """A trace time: UTC date and time for wall-clock timestamps, else 't = <s> s'."""
    if _EPOCH_S[0] <= t < _EPOCH_S[1]:
        return datetime.datetime.fromtimestamp(t, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"t = {t:.1f} s"


def alert_line(alert: Mapping[str, Any], first_start_s: float) -> str:
    """One alert: its time (UTC for wall-clock traces), time since the trace began, kind,
    GPUs and the message (whose 'since t = ... s' reads the same way)."""
    message = re.sub(r"since t = (-?[0-9.]+) s", lambda m: "since " + clock_text(float(m.group(1))),
                     str(alert["message"]))
    return (f"{clock_text(alert['time_s'])} (+{alert['time_s'] - first_start_s:.1f} s)  {alert['kind']}  "
            f"GPUs {','.join(str(g) for g in alert['gpus'])}: {message}")


# --- sequence packing ----------------------------------------------------------------

PACK_COLUMNS = [
    Column("bin", "bin", integer),
    Column("samples", "samples", integer),
    Column("tokens", "tokens", integer),
    Column("fill", "fill %", percent(1)),
]

#: A pack's text shows its first this many bins (a dataset packs into millions).
PACK_TABLE_MAX_BINS = 20
