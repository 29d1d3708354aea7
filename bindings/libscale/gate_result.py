"""Results of sequence packing and the pre-launch packing gate: ``PackResult`` and
``GateResult`` hold the compiled results (nothing is set on them) and add the dict, the
tables and the verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core, _format
from ._result_fields import GateResultFields, PackResultFields
from .results import Result, _pandas, struct_to_dict

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["GateResult", "PackResult"]

_RANK_FIELDS = ("rank", "sequences", "micro_batches", "optimizer_steps", "tokens", "padding_efficiency")
#: The gate's inputs (GateConfig) as the dict reports them, in the schema's order.
_CONFIG_FIELDS = ("packer", "seq_len", "world_size", "micro_batch", "grad_accum", "shuffle", "seed",
                  "sampler_drop_last", "watchdog_s")
_RESULT_FIELDS = ("global_bins", "min_rank", "max_rank", "min_micro_batches", "max_micro_batches", "difference",
                  "trainer_equalizes", "micro_batches_dropped", "steps_dropped", "tokens_dropped", "total_tokens",
                  "tokens_dropped_pct", "hang_cost_gpu_hours", "cost_at_risk_gpu_hours", "gpu_hours_saved")


class GateResult(Result, GateResultFields):
    """The packing gate's verdict (``passed``, ``verdict``), the per-rank numpy arrays
    (``sequences``, ``micro_batches``, ``optimizer_steps``, ``tokens``,
    ``padding_efficiency``), the remedy and the GPU-hours at risk, read through from the
    compiled GateResult."""

    SCHEMA = "libscale.gate/1"

    def __init__(self, raw: _core.gate.GateResult) -> None:
        super().__init__(raw)

    def to_dict(self) -> dict[str, Any]:
        """Scalars, the overflow counts and one dict per rank (the gate-1 schema)."""
        r = self._raw
        d: dict[str, Any] = {"schema": self.SCHEMA, "passed": r.passed, "verdict": r.verdict}
        d.update({k: getattr(r, k) for k in _CONFIG_FIELDS + _RESULT_FIELDS})
        d["overflow"] = struct_to_dict(r.overflow)
        d["ranks"] = self.records()
        return d

    def records(self) -> list[dict[str, Any]]:
        """One row per rank."""
        cols = {k: getattr(self._raw, k).tolist() for k in _RANK_FIELDS}
        return [dict(zip(cols, vals, strict=True)) for vals in zip(*cols.values(), strict=True)]

    def to_pandas(self) -> Any:
        """One row per rank, indexed by rank."""
        return _pandas().DataFrame({k: getattr(self._raw, k) for k in _RANK_FIELDS}).set_index("rank")

    def text(self) -> str:
        """What ``libscale gate`` prints: the inputs, the per-rank table and the verdict."""
        d = self.to_dict()
        return "\n".join([_format.gate_header(d), "",
                          _format.text_table(_format.GATE_COLUMNS, _format.gate_rank_rows(d)), "",
                          _format.gate_verdict(d)])

    def _repr_html_(self) -> str:
        d = self.to_dict()
        return _format.html_table(_format.GATE_COLUMNS, _format.gate_rank_rows(d), caption=_format.gate_header(d),
                                  footer=_format.gate_verdict(d))

    def plot(self, ax: Axes | None = None) -> Axes:
        """Micro-batches per rank with the verdict (libscale.plot.gate_ranks; matplotlib:
        pip install 'libscale[plot]')."""
        from . import plot  # matplotlib only when a figure is asked for

        return plot.gate_ranks(self, ax=ax)

    def __repr__(self) -> str:
        return repr(self._raw)


class PackResult(Result, PackResultFields):
    """Packed bins as numpy CSR arrays: bin b holds ``samples[offsets[b]:offsets[b+1]]``
    with ``entry_tokens`` alongside; ``bin_tokens`` per bin; ``overflow`` counts what
    did not fit in seq_len."""

    SCHEMA = "libscale.pack/1"

    def __init__(self, raw: _core.gate.PackResult) -> None:
        super().__init__(raw)

    def bins(self) -> list[np.ndarray]:
        """The bins as a list of arrays of sample indices (views, no copy)."""
        r = self._raw
        return np.split(r.samples, r.offsets[1:-1]) if r.num_bins else []

    def to_dict(self) -> dict[str, Any]:
        r = self._raw
        return {"schema": self.SCHEMA, "packer": r.packer, "seq_len": r.seq_len, "num_bins": r.num_bins,
                "input_tokens": r.input_tokens, "overflow": struct_to_dict(r.overflow), "offsets": r.offsets,
                "samples": r.samples, "entry_tokens": r.entry_tokens, "bin_tokens": r.bin_tokens}

    def records(self) -> list[dict[str, Any]]:
        """One row per bin: its samples, tokens and fill of seq_len."""
        r = self._raw
        counts = np.diff(r.offsets)
        return [{"bin": b, "samples": int(n), "tokens": int(t), "fill": float(t) / r.seq_len}
                for b, (n, t) in enumerate(zip(counts, r.bin_tokens, strict=True))]

    def _summary(self) -> str:
        r = self._raw
        fill = float(np.sum(r.bin_tokens)) / (r.num_bins * r.seq_len) if r.num_bins else 0.0
        o = r.overflow
        return (f"packed {len(r.samples):,} entries ({r.input_tokens:,} tokens) with {r.packer} into "
                f"{r.num_bins:,} sequences of {r.seq_len:,} tokens, {100 * fill:.1f} % full; overflow: "
                f"{o.truncated_samples:,} truncated, {o.split_samples:,} split, {o.dropped_samples:,} dropped")

    def text(self) -> str:
        """The summary line and, for up to PACK_TABLE_MAX_BINS bins, one row per bin."""
        rows = self.records()
        lines = [self._summary()]
        if rows:
            shown = rows[:_format.PACK_TABLE_MAX_BINS]
            lines += ["", _format.text_table(_format.PACK_COLUMNS, shown)]
            if len(shown) < len(rows):
                lines.append(f"... {len(rows) - len(shown):,} more bins")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = self.records()[:_format.PACK_TABLE_MAX_BINS]
        return _format.html_table(_format.PACK_COLUMNS, rows, caption=self._summary())

    def __repr__(self) -> str:
        return repr(self._raw)
