"""What would make a plan fit in GPU memory, and how far it can grow.

    >>> import libscale
    >>> advice = libscale.Plan("qwen3-32b", "h200", gpus=8, micro_batch=4,
    ...                        activation_checkpointing="none").fit_advice()
    >>> advice.fits, advice.changes[0]["change"]  # doctest: +SKIP
    (False, "activation_checkpointing='full', loss_kernel='fused'")
    >>> advice.plan_with(0).step().memory.fits  # doctest: +SKIP
    True

Each change is estimated by the same step and memory model as the plan (the core's
fit_advice, libscale/estimate/fit_advice.hpp; docs/model.md "What would fit").
"""

from __future__ import annotations

import html
import numbers
from typing import TYPE_CHECKING, Any, ClassVar

from . import _format
from ._core import estimate as _estimate
from ._core import spec as _spec
from ._result_fields import FitAdviceFields
from .results import Result, _context, _OfPlan, rows_csv, struct_to_dict

if TYPE_CHECKING:
    from .plan import Plan

__all__ = ["FitAdvice"]


class FitAdvice(_OfPlan, Result, FitAdviceFields):
    """What would make the plan fit (the compiled FitAdvice: ``step``, ``changes``,
    ``max_micro_batch``, ``max_seq_len``). ``changes`` are dicts: ``change`` (the API's
    keyword spelling), ``options`` (the training options it sets, for ``Plan.with_``),
    ``memory_gib``, ``step_time_s``, ``tokens_per_s_per_gpu``, ``gpu_hours_ratio`` (GPU-hours
    for the same tokens relative to the plan) and ``caveat`` (what else it alters, '' when
    only time and memory). Those that train the same way come first, cheapest first."""

    SCHEMA = "libscale.fit_advice/1"

    def __init__(self, raw: _estimate.FitAdvice, plan: Plan) -> None:
        super().__init__(raw)
        self.plan = plan
        given = _spec.option_values("training", plan.config)
        self._changes: list[dict[str, Any]] = []
        for c in raw.changes:
            values = _spec.option_values("training", c.config)
            self._changes.append({
                "change": c.change,
                "options": {k: v for k, v in values.items() if v != given.get(k)},
                "memory_gib": c.memory_gib, "step_time_s": c.step_time_s,
                "tokens_per_s_per_gpu": c.tokens_per_s_per_gpu, "gpu_hours_ratio": c.gpu_hours_ratio,
                "caveat": c.caveat})

    @property
    def fits(self) -> bool:
        """The plan as given fits (memory status 'fits')."""
        return bool(self._raw.step.memory.fits)

    @property
    def changes(self) -> list[dict[str, Any]]:
        return [dict(c, options=dict(c["options"])) for c in self._changes]

    def plan_with(self, index: int) -> Plan:
        """The plan with change ``index`` applied (Plan.with_ of its options)."""
        given: Any = index  # typed int, but a caller may pass anything
        if isinstance(given, bool) or not isinstance(given, numbers.Integral):
            raise TypeError(f"index: expected an integer, got {type(given).__name__} {given!r}")
        if not -len(self._changes) <= index < len(self._changes):
            raise IndexError(f"change {index}: there are {len(self._changes)} changes")
        return self.plan.with_(**self._changes[index]["options"])

    def to_dict(self) -> dict[str, Any]:
        step = self._raw.step
        return {"schema": self.SCHEMA, **_context(self.plan), "memory": struct_to_dict(step.memory),
                "step_time_s": step.step_time_s, "tokens_per_s_per_gpu": step.tokens_per_s_per_gpu,
                "changes": self.changes, "max_micro_batch": self._raw.max_micro_batch,
                "max_seq_len": self._raw.max_seq_len}

    #: The columns of records(), to_csv() and to_pandas(), also when there is no change.
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("change", "memory_gib", "step_time_s", "tokens_per_s_per_gpu",
                                                "gpu_hours_ratio", "caveat")

    def records(self) -> list[dict[str, Any]]:
        return [{k: c[k] for k in self.RECORD_FIELDS} for c in self._changes]

    def to_csv(self) -> str:
        return rows_csv(self.records(), self.RECORD_FIELDS)

    def to_pandas(self) -> Any:
        from .results import _pandas

        return _pandas().DataFrame(self.records(), columns=list(self.RECORD_FIELDS))

    _COLUMNS: ClassVar[list[_format.Column]] = [
        _format.Column("change", "change", _format.text, "<"),
        _format.Column("memory_gib", "memory GiB", _format.fixed(1)),
        _format.Column("step_time_s", "step s", _format.fixed(3)),
        _format.Column("gpu_hours_ratio", "GPU-hours x", _format.fixed(2)),
        _format.Column("caveat", "caveat", _format.text, "<"),
    ]

    def _lines(self) -> tuple[str, list[str]]:
        plan, mem = self.plan, struct_to_dict(self._raw.step.memory)
        head = (f"{plan.model.name} on {plan.config.gpus} x {plan.hardware.name}, micro-batch "
                f"{plan.config.micro_batch} x {plan.config.seq_len:,} tokens, checkpointing "
                f"{_spec.option_values('training', plan.config)['activation_checkpointing']}. Fits: "
                f"{_format.fit_text(mem)}")
        phases = ", ".join(f"{p} {g:,.1f}" for p, g in mem["phase_gib"].items())
        tail = [f"peak {mem['allocated_gib']:,.1f} GiB allocated per GPU, in {mem['peak_phase']} ({phases}); "
                f"{mem['total_gib']:,.1f} GiB with the allocator's share and the runtime's reserve, of "
                f"{mem['available_gib']:,.1f}"]
        if not self.fits:
            tail.append("no change tried makes it fit" if not self._changes
                        else "each row makes it fit on its own; GPU-hours x: for the same tokens, relative to the "
                             "configuration as given")
        mb, seq = self._raw.max_micro_batch, self._raw.max_seq_len
        tail.append(f"largest micro-batch that fits at seq_len {plan.config.seq_len:,}: "
                    + (f"{mb:,}" if mb else "none"))
        tail.append(f"longest sequence that fits at micro-batch {plan.config.micro_batch:,}: "
                    + (f"{seq:,} tokens" if seq else "none"))
        return head, tail

    def text(self) -> str:
        head, tail = self._lines()
        table = "\n\n" + _format.text_table(self._COLUMNS, self._changes) if self._changes else ""
        return head + table + "\n\n" + "\n".join(tail)

    def _repr_html_(self) -> str:
        head, tail = self._lines()
        if self._changes:
            return _format.html_table(self._COLUMNS, self._changes, caption=head, footer="; ".join(tail))
        return '<div class="libscale">' + "".join(f"<p>{html.escape(t)}</p>" for t in [head, *tail]) + "</div>"

    def __repr__(self) -> str:
        return (f"FitAdvice(fits={self.fits}, changes={len(self._changes)}, "
                f"max_micro_batch={self._raw.max_micro_batch}, max_seq_len={self._raw.max_seq_len})")
