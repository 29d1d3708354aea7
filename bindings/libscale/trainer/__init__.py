"""Trainer steps: real PyTorch FSDP2 training steps of a model cut to a few decoder layers,
written as ``libscale.measurements/2`` step records, so that a new machine gets its
framework efficiency and memory coefficients (``libscale fit``) without a trainer's logs.

    >>> from libscale import trainer
    >>> settings = trainer.Settings(model="qwen3-32b", hardware="h200")
    >>> cases = trainer.grid(layers=[4, 8], seq_len=[8192], micro_batch=[1])
    >>> result = trainer.run(settings, cases)                       # doctest: +SKIP
    >>> doc = trainer.document(result)                              # doctest: +SKIP

``run`` needs torch and transformers (imported only when it runs: ``import libscale`` never
imports them); everything else here is pure Python, so a recorded result
(``RunResult.to_dict()``) becomes a measurement file anywhere. The command line is
``libscale trainer-steps`` (docs/cli.md).
"""

from __future__ import annotations

from .grid import (
    ACTIVATION_CHECKPOINTING,
    ATTENTION_KERNELS,
    GRAD_SYNC,
    REDUCE_DTYPES,
    Case,
    ModelConfig,
    Settings,
    grid,
    model_config,
)
from .records import (
    SCHEMA,
    SKIP_PHASE,
    CaseResult,
    Environment,
    RunResult,
    check,
    document,
    is_out_of_memory_message,
    skipped_entry,
    step_record,
    table_rows,
)
from .runner import TorchMissingError, require_torch, run

__all__ = [
    "ACTIVATION_CHECKPOINTING", "ATTENTION_KERNELS", "GRAD_SYNC", "REDUCE_DTYPES", "Case", "ModelConfig", "Settings",
    "grid", "model_config",
    "SCHEMA", "SKIP_PHASE", "CaseResult", "Environment", "RunResult", "check", "document", "is_out_of_memory_message",
    "skipped_entry", "step_record", "table_rows",
    "TorchMissingError", "require_torch", "run",
]
