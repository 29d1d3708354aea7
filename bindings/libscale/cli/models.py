"""``libscale models``: the shipped models."""

from __future__ import annotations

import argparse
from typing import Any

from .. import _core, _format
from ..results import struct_to_dict
from ._common import add_format, emit_table

COLUMNS = [
    _format.Column("name", "name", _format.text, "<"),
    _format.Column("parameters", "parameters", _format.integer),
    _format.Column("active", "active parameters", _format.integer),
    _format.Column("num_layers", "layers", _format.integer),
    _format.Column("hidden_size", "hidden", _format.integer),
    _format.Column("intermediate_size", "MLP width", _format.integer),
    _format.Column("heads", "heads/kv", _format.text),
    _format.Column("head_dim", "head dim", _format.integer),
    _format.Column("vocab_size", "vocab tokens", _format.integer),
    _format.Column("max_position_embeddings", "max positions tokens", _format.integer),
    _format.Column("tie_word_embeddings", "tied embeddings", _format.yes_no),
    _format.Column("experts", "experts", _format.text, "<"),
]


def experts(s: Any) -> str:
    """A mixture of experts' layout, "128 × 768, top 8" (+ the shared expert); "" when dense."""
    if not s.num_experts:
        return ""
    text = f"{s.num_experts} × {s.moe_intermediate_size:,}, top {s.experts_per_token}"
    if s.shared_expert_intermediate_size:
        text += f" + shared {s.shared_expert_intermediate_size:,}"
    if s.moe_layers != s.num_layers:
        text += f" on {s.moe_layers} of {s.num_layers} layers"
    return text


def add_parser(sub: Any) -> None:
    p = sub.add_parser("models", help="the shipped models", description="List the shipped models.")
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    specs = [_core.io.find_model(n) for n in _core.io.model_names()]
    rows = [dict(struct_to_dict(s), heads=f"{s.num_heads}/{s.num_kv_heads}",
                 active=_core.spec.count_parameters(s).active, experts=experts(s)) for s in specs]
    emit_table(a.output_format, {"schema": "libscale.models/1", "models": [struct_to_dict(s) for s in specs]},
               COLUMNS, rows)
    return 0
