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
    _format.Column("num_layers", "layers", _format.integer),
    _format.Column("hidden_size", "hidden", _format.integer),
    _format.Column("intermediate_size", "MLP width", _format.integer),
    _format.Column("heads", "heads/kv", _format.text),
    _format.Column("head_dim", "head dim", _format.integer),
    _format.Column("vocab_size", "vocab tokens", _format.integer),
    _format.Column("max_position_embeddings", "max positions tokens", _format.integer),
    _format.Column("tie_word_embeddings", "tied embeddings", _format.yes_no),
]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("models", help="the shipped models", description="List the shipped models.")
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    specs = [_core.io.find_model(n) for n in _core.io.model_names()]
    rows = [dict(struct_to_dict(s), heads=f"{s.num_heads}/{s.num_kv_heads}") for s in specs]
    emit_table(a.output_format, {"schema": "libscale.models/1", "models": [struct_to_dict(s) for s in specs]},
               COLUMNS, rows)
    return 0
