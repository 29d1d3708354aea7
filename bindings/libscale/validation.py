"""The step model against published step timings (docs/model.md, "Validation").

``validate()`` calibrates each shipped series (one table of one codebase on one GPU, in
``calibration/data/measurements``) on its first row and predicts every other row; the
numbers are computed in C++ (``libscale/src/calibrate/validation.cpp``). ``Validation`` holds the
compiled report and prints the README's table.
"""

from __future__ import annotations

import math
import os
from typing import Any

from . import _core, _files
from ._result_fields import ValidationFields
from .results import Result


def _real(x: float) -> float | None:
    """NaN (undefined: no published figure, an empty summary) as None."""
    return None if math.isnan(x) else x


class Validation(Result, ValidationFields):
    """Result of ``validate()``: per-row errors, per-category summaries, the default's ratio
    (the compiled ValidationReport's fields read through; ``report`` is it)."""

    SCHEMA = "libscale.validation/1"

    def __init__(self, report: _core.calibrate.ValidationReport) -> None:
        super().__init__(report)
        self._report = report

    @property
    def report(self) -> _core.calibrate.ValidationReport:
        return self._report

    def records(self) -> list[dict[str, Any]]:
        """One row per validated record (the CSV and DataFrame rows)."""
        return self.rows()

    def summary(self) -> list[dict[str, Any]]:
        """One row per category: what differs from the calibration row, count, median and max error (%)."""
        r = self._report
        out = []
        for label, s in (("(a) other GPU counts", r.gpu_counts), ("(b) other model sizes", r.model_sizes),
                         ("(c) other sequence length / batch / checkpointing / precision / kernels",
                          r.configurations),
                         ("(d) another fine-tuning method (full, LoRA, QLoRA, DoRA) or adapters",
                          r.fine_tuning_methods),
                         ("(e) another tensor, sequence or context parallel layout", r.parallel_layouts)):
            # An empty category's errors are NaN in the core (undefined): None here, "–" in text.
            out.append({"category": label, "rows": s.count,
                        "median_abs_error_pct": None if math.isnan(s.median_abs) else 100 * s.median_abs,
                        "max_abs_error_pct": None if math.isnan(s.max_abs) else 100 * s.max_abs})
        return out

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for row in self._report.rows:
            c = row.config
            out.append({"file": row.file, "series": row.series, "record": row.record, "category": row.category,
                        "model": row.model, "hardware": row.hardware, "gpus": c.gpus, "seq_len": c.seq_len,
                        "micro_batch": c.micro_batch, "activation_checkpointing": c.activation_checkpointing,
                        "precision": c.precision, "attention_kernel": c.attention_kernel,
                        "torch_compile": c.torch_compile,
                        "measured_tokens_per_s_per_gpu": row.measured_tokens_per_s_per_gpu,
                        "default_ratio": row.default_ratio, "default_inside_p10_p90": row.default_inside_p10_p90,
                        "calibrated_error": row.calibrated_error,
                        "fit_status": row.fit_status, "memory_gib": row.memory_gib,
                        "available_gib": row.available_gib, "published_memory_gib": row.published_memory_gib or None,
                        "published_memory_kind": row.published_memory_kind or None,
                        "memory_estimate_gib": _real(row.memory_estimate_gib),
                        "memory_error": _real(row.memory_error)})
        return out

    def memory(self) -> dict[str, Any]:
        """Peak memory per GPU against every published figure, like with like (%), and by the
        kind of figure: max_memory_allocated (or active) and max_memory_reserved."""
        r = self._report

        def summary(m: _core.calibrate.ErrorSummary) -> dict[str, Any]:
            return {"rows": m.count, "median_abs_error_pct": _real(100 * m.median_abs),
                    "max_abs_error_pct": _real(100 * m.max_abs)}

        return {**summary(r.memory), "allocated": summary(r.memory_allocated), "reserved": summary(r.memory_reserved)}

    def to_dict(self) -> dict[str, Any]:
        r = self._report
        return {"schema": self.SCHEMA, "summary": self.summary(),
                "default_ratio": {"rows": r.default_count, "median": r.default_ratio_median,
                                  "min": r.default_ratio_min, "max": r.default_ratio_max,
                                  "inside_p10_p90": r.default_inside_p10_p90},
                "not_fitting": r.not_fitting, "memory": self.memory(), "excluded": list(r.excluded),
                "series": [{"file": s.file, "series": s.series, "hardware": s.hardware, "rows": s.rows,
                            "framework_efficiency": s.calibration.framework_efficiency} for s in r.series],
                "rows": self.rows()}

    def markdown(self) -> str:
        """The README's validation table (recomputed by tests/python/test_validation.py)."""
        r = self._report
        lines = ["| compared with the calibration row | rows | median abs. error | max abs. error |",
                 "|---|---:|---:|---:|"]
        for s in self.summary():
            median, worst = s["median_abs_error_pct"], s["max_abs_error_pct"]
            lines.append(f"| {s['category']} | {s['rows']} | " + ("– | – |" if median is None else
                         f"{median:.1f} % | {worst:.1f} % |"))
        lines.append(f"| uncalibrated default, tokens/s over measured | {r.default_count} "
                     f"| ×{r.default_ratio_median:.2f} | ×{r.default_ratio_min:.2f} – ×{r.default_ratio_max:.2f} |")
        if r.default_count:
            share = 100 * r.default_inside_p10_p90 / r.default_count
            lines.append(f"| measured inside the uncalibrated default's P10–P90 | {r.default_count} "
                         f"| {share:.0f} % | – |")
        m = self.memory()
        for kind, what in (("allocated", "max_memory_allocated"), ("reserved", "max_memory_reserved")):
            k = m[kind]
            if k["rows"]:
                lines.append(f"| peak memory per GPU, estimate over published `{what}` | {k['rows']} "
                             f"| {k['median_abs_error_pct']:.1f} % | {k['max_abs_error_pct']:.1f} % |")
        return "\n".join(lines)

    def text(self) -> str:
        """The README's table and the counts (what ``libscale validate`` prints)."""
        r = self._report
        text = [self.markdown(), "",
                f"{len(r.series)} series, {len(r.rows)} rows; {len(r.excluded)} rows left out (configuration not "
                f"published); published runs estimated not to fit: {r.not_fitting}"]
        return "\n".join(text)

    def __repr__(self) -> str:
        r = self._report
        return (f"Validation(series={len(r.series)}, rows={len(r.rows)}, "
                f"a={100 * r.gpu_counts.median_abs:.1f}%, b={100 * r.model_sizes.median_abs:.1f}%, "
                f"c={100 * r.configurations.median_abs:.1f}%, d={100 * r.fine_tuning_methods.median_abs:.1f}%, "
                f"e={100 * r.parallel_layouts.median_abs:.1f}%, "
                f"default=x{r.default_ratio_median:.2f})")

    def _repr_html_(self) -> str:
        import html

        return "<pre>" + html.escape(str(self)) + "</pre>"


def validate(*paths: os.PathLike[str] | str, relative_error: float | None = None) -> Validation:
    """Validate against measurement files (default: every shipped series)."""
    options = _core.calibrate.FitOptions()
    if relative_error is not None:
        options.relative_error = float(relative_error)
    _files.check_distinct([os.fspath(p) for p in paths], "a measurement file")
    report = _core.calibrate.validate([os.fspath(p) for p in paths] if paths else None, options)
    return Validation(report)
