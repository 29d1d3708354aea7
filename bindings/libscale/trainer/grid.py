"""What a trainer-step run measures: the model's config cut to a few decoder layers, the
grid of configurations (:class:`Case`) and what every case shares (:class:`Settings`).
Pure Python: nothing here imports torch."""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .. import hub
from .._core import io as _io
from .._files import read_json

__all__ = ["ACTIVATION_CHECKPOINTING", "ATTENTION_KERNELS", "GRAD_SYNC", "REDUCE_DTYPES", "Case", "ModelConfig",
           "Settings", "finite_positive", "grid", "median", "model_config", "tokens_per_step"]

#: Activation checkpointing the runner can apply: none, or Hugging Face's per decoder layer
#: (full). Selective (per operator) has no transformers switch.
ACTIVATION_CHECKPOINTING: tuple[str, ...] = ("none", "full")
#: FSDP2 gradient reduction dtype: fp32 (torchtitan's default) or bf16 (reduce_dtype unset).
REDUCE_DTYPES: tuple[str, ...] = ("fp32", "bf16")
#: When gradients are reduce-scattered under accumulation (FSDP2 set_requires_gradient_sync).
GRAD_SYNC: tuple[str, ...] = ("every_micro_batch", "last_micro_batch")
#: Attention kernels the runner can pin: PyTorch SDPA's FlashAttention-2 or cuDNN backend,
#: or transformers' eager (unfused) attention. Pinned so the record names the kernel timed.
ATTENTION_KERNELS: tuple[str, ...] = ("flash2", "cudnn", "eager")

# The config.json keys that hold the decoder layer count, by the model types libscale reads
# (llama, qwen, mistral, gemma, phi, olmo, gpt_neox, opt: num_hidden_layers; gpt2: n_layer;
# mpt: n_layers).
_LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers")
# A config.json is a few KiB; anything this large is not one (as hub.MAX_CONFIG_BYTES).
_MAX_CONFIG_BYTES = hub.MAX_CONFIG_BYTES


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} = {value!r}; expected an integer >= 1")
    return value


def _choice(name: str, value: Any, valid: Sequence[str]) -> str:
    if value not in valid:
        raise ValueError(f"{name} = {value!r}; valid: {', '.join(valid)}")
    return str(value)


@dataclass(frozen=True)
class Case:
    """One configuration of the grid: the model cut to ``layers`` decoder layers, trained on
    micro-batches of ``micro_batch`` sequences of ``seq_len`` tokens per GPU, ``grad_accum``
    micro-batches per optimizer step."""

    layers: int
    seq_len: int
    micro_batch: int
    activation_checkpointing: str
    grad_accum: int = 1

    def __post_init__(self) -> None:
        for name in ("layers", "seq_len", "micro_batch", "grad_accum"):
            _positive_int(name, getattr(self, name))
        _choice("activation_checkpointing", self.activation_checkpointing, ACTIVATION_CHECKPOINTING)

    @property
    def label(self) -> str:
        """A short name: L8-s8192-mb1-ga1-full."""
        return (f"L{self.layers}-s{self.seq_len}-mb{self.micro_batch}-ga{self.grad_accum}-"
                f"{self.activation_checkpointing}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Case:
        return cls(layers=d["layers"], seq_len=d["seq_len"], micro_batch=d["micro_batch"],
                   activation_checkpointing=d["activation_checkpointing"], grad_accum=d.get("grad_accum", 1))


def grid(layers: Iterable[int], seq_len: Iterable[int], micro_batch: Iterable[int],
         activation_checkpointing: Iterable[str] = ("full",), grad_accum: Iterable[int] = (1,)) -> list[Case]:
    """Every combination, in this nesting order (layers outermost), duplicates dropped."""
    cases: list[Case] = []
    for combo in itertools.product(layers, seq_len, micro_batch, activation_checkpointing, grad_accum):
        case = Case(*combo)
        if case not in cases:
            cases.append(case)
    if not cases:
        raise ValueError("the grid is empty: give at least one value of each of layers, seq_len, micro_batch, "
                         "activation_checkpointing and grad_accum")
    return cases


@dataclass(frozen=True)
class Settings:
    """What every case of a run shares. ``model``: a catalog name, a config.json path (or
    its folder) or a Hub id; ``hardware``: the catalog name (or libscale.hardware/1 file)
    the records are for. warmup steps (at least 1: the first step allocates the optimizer
    state and picks the AdamW implementation) run before ``steps`` timed ones."""

    model: str
    hardware: str
    reduce_dtype: str = "fp32"
    grad_sync: str = "every_micro_batch"
    attention_kernel: str = "flash2"
    warmup: int = 2
    steps: int = 4
    seed: int = 0
    series: str | None = None

    def __post_init__(self) -> None:
        for name in ("model", "hardware"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ValueError(f"{name} = {getattr(self, name)!r}; expected a non-empty string")
        _choice("reduce_dtype", self.reduce_dtype, REDUCE_DTYPES)
        _choice("grad_sync", self.grad_sync, GRAD_SYNC)
        _choice("attention_kernel", self.attention_kernel, ATTENTION_KERNELS)
        _positive_int("warmup", self.warmup)
        _positive_int("steps", self.steps)
        seed: Any = self.seed
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed = {seed!r}; expected an integer >= 0")
        series: Any = self.series
        if series is not None and (not isinstance(series, str) or not series):
            raise ValueError(f"series = {series!r}; expected a non-empty string or None")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Settings:
        return cls(**d)


@dataclass(frozen=True)
class ModelConfig:
    """A model's Hugging Face config.json as plain JSON (the catalog's ``_libscale`` block
    left out), and the name a measurement record gives it: the catalog name, or the absolute
    path of the config.json (which ``libscale fit`` reads again)."""

    name: str
    config: dict[str, Any]

    @property
    def layer_key(self) -> str:
        """The config.json key of the decoder layer count."""
        keys = [k for k in _LAYER_KEYS if isinstance(self.config.get(k), int)]
        if len(keys) != 1:
            raise ValueError(f"model {self.name}: its config.json gives the decoder layer count in "
                             f"{' and '.join(keys) if keys else 'none'} of {', '.join(_LAYER_KEYS)}; "
                             "expected exactly one")
        return keys[0]

    @property
    def num_layers(self) -> int:
        return int(self.config[self.layer_key])

    @property
    def vocab_size(self) -> int:
        v = self.config.get("vocab_size")
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"model {self.name}: config.json field 'vocab_size' = {v!r}; expected an integer >= 1")
        return v

    def overrides(self, layers: int) -> dict[str, Any]:
        """The config.json keys that cut the model to its first ``layers`` decoder layers
        (a measurement record's ``model_overrides``), checked by libscale's own reader."""
        full = self.num_layers
        if layers > full:
            raise ValueError(f"layers = {layers} is more than {self.name}'s {full} decoder layers")
        out: dict[str, Any] = {self.layer_key: layers}
        # Qwen2/3: layers below max_window_layers use full attention; keep those that stay.
        if isinstance(self.config.get("max_window_layers"), int):
            out["max_window_layers"] = min(int(self.config["max_window_layers"]), layers)
        # Newer configs list each layer's attention type; a cut model lists its first ones.
        if isinstance(self.config.get("layer_types"), list):
            out["layer_types"] = self.config["layer_types"][:layers]
        spec = _io.find_model(self.name, out)
        if spec.num_layers != layers:
            raise ValueError(f"model {self.name} with {out}: libscale reads {spec.num_layers} decoder layers, "
                             f"not {layers}")
        return out

    def hf_config(self, layers: int) -> dict[str, Any]:
        """The config.json to build with transformers: cut to ``layers``, no KV cache (a
        training step keeps none), no dtype (the runner builds fp32 parameters)."""
        d = {k: v for k, v in self.config.items() if k not in ("torch_dtype", "dtype")}
        d.update(self.overrides(layers))
        d["use_cache"] = False
        return d


def model_config(model: str) -> ModelConfig:
    """A catalog model by name (case-insensitive), a config.json (or a folder holding one),
    or a Hub id ``org/name`` found in (or fetched into) the Hugging Face cache."""
    if model.lower() in _io.model_names():
        name = model.lower()
        config = _parse(_io.catalog_file(f"models/{name}.json"), name)
        return ModelConfig(name, {k: v for k, v in config.items() if k != "_libscale"})
    path = model
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    elif not os.path.exists(path) and hub.looks_like_repo_id(model):
        path = os.fspath(hub.find_config(model))
    config = read_json(path, max_bytes=_MAX_CONFIG_BYTES, expected="a Hugging Face config.json")
    if not isinstance(config, dict):
        raise ValueError(f"{path}: expected a JSON object (a Hugging Face config.json)")
    return ModelConfig(os.path.abspath(path), {k: v for k, v in config.items() if k != "_libscale"})


def _parse(text: str, origin: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{origin}: expected a JSON object")
    return value


def tokens_per_step(case: Case, gpus: int) -> int:
    """Tokens one optimizer step trains on all GPUs."""
    return gpus * case.micro_batch * case.seq_len * case.grad_accum


def median(values: Sequence[float]) -> float:
    """The median (the mean of the middle two for an even count)."""
    if not values:
        raise ValueError("median of no values")
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def finite_positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} = {value!r}; expected a finite number > 0")
    return float(value)
