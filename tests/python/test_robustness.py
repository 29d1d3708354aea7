"""A robustness sweep of the public API.

It calls every public callable (``libscale.__all__``, the options module, the methods of
the result classes and of the bound classes) with wrong types, NaN, ±inf, huge, negative,
zero, empty, non-contiguous / Fortran / byte-swapped / read-only / wrongly typed numpy
arrays, None, recursive containers and 100,000-deep nesting, one argument at a time on a
call that is otherwise valid. Each call must return or raise an ``Exception``; the calls
run in a forked child process, so a crash (segfault, abort) or a hang fails the test of
that callable with the arguments in the message instead of killing pytest.

Every public function that reads or writes a file also refuses a path with an embedded
NUL (at the end of this file).

The measurement series and the power trace the calls are made with are
test_properties.py's.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import functools
import json
import math
import os
import pathlib
import resource
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any

import matplotlib
import numpy as np
import pytest

import libscale
from conftest import ROOT
from test_properties import FIT_SERIES, _records, _trace_csv

matplotlib.use("Agg")  # as test_plot.py: no display; the sweep calls every .plot()
import matplotlib.pyplot as plt  # after the backend is chosen

# === The robustness sweep ==========================================================================
#
# Cases are (target, argument, value): the target's valid call with one argument replaced by
# a value from the pool of its kind. The forked child builds every value and object itself
# from these names, so a case that corrupts its process corrupts only that child.


class _BadNumber:
    """A number whose every conversion raises."""

    def __index__(self) -> int:
        raise ArithmeticError("__index__")

    def __int__(self) -> int:
        raise ArithmeticError("__int__")

    def __float__(self) -> float:
        raise ArithmeticError("__float__")


class _BadSequence:
    """A sequence that claims 2^62 items and fails on iteration."""

    def __len__(self) -> int:
        return 2**62

    def __iter__(self) -> Iterator[int]:
        raise OSError("__iter__")

    def __getitem__(self, i: int) -> int:
        raise IndexError(i)


# Built once per child and shared by its cases (a 100,000-deep structure takes a while to
# build and to free on a loaded machine); nothing the sweep calls modifies its arguments.
@functools.cache
def _deep_list(depth: int = 100_000) -> list[Any]:
    out: list[Any] = [1]
    for _ in range(depth):
        out = [out]
    return out


@functools.cache
def _deep_dict(depth: int = 100_000) -> dict[str, Any]:
    out: dict[str, Any] = {"a": 1}
    for _ in range(depth):
        out = {"a": out}
    return out


def _recursive_list() -> list[Any]:
    out: list[Any] = []
    out.append(out)
    return out


def _recursive_dict(key: str = "a") -> dict[str, Any]:
    out: dict[str, Any] = {}
    out[key] = out
    return out


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


Factory = Callable[["_Ctx"], Any]

SCALARS: dict[str, Factory] = {
    "nan": lambda c: math.nan, "inf": lambda c: math.inf, "-inf": lambda c: -math.inf,
    "1e308": lambda c: 1e308, "2**63": lambda c: 2**63, "2**64": lambda c: 2**64, "10**30": lambda c: 10**30,
    "-2**63-1": lambda c: -(2**63) - 1, "-1": lambda c: -1, "-0.5": lambda c: -0.5, "0": lambda c: 0,
    "True": lambda c: True, "None": lambda c: None, "'x'": lambda c: "x", "b'x'": lambda c: b"x",
    "1j": lambda c: 1j, "[1]": lambda c: [1], "{}": lambda c: {}, "object()": lambda c: object(),
    "np.float32(nan)": lambda c: np.float32("nan"), "np.int64(-1)": lambda c: np.int64(-1),
    "np.uint64(2**64-1)": lambda c: np.uint64(2**64 - 1), "np.array([1, 2])": lambda c: np.array([1, 2]),
    "_BadNumber()": lambda c: _BadNumber(),
}
# Option values and struct fields (dozens per call): the values that reach a different
# conversion path, not every spelling of a bad number.
OPTIONS: dict[str, Factory] = {k: SCALARS[k] for k in ("nan", "-inf", "2**64", "-2**63-1", "-1", "'x'", "None",
                                                       "[1]", "np.uint64(2**64-1)", "_BadNumber()")}
FLAGS: dict[str, Factory] = {k: SCALARS[k] for k in ("nan", "2**64", "-1", "None", "'x'", "[1]", "object()",
                                                     "_BadNumber()", "np.array([1, 2])")}
ARRAYS: dict[str, Factory] = {
    "[]": lambda c: [], "np.empty(0)": lambda c: np.empty(0), "np.zeros(0, uint32)": lambda c: np.zeros(0, np.uint32),
    "a[::2]": lambda c: np.arange(1, 41, dtype=np.uint32)[::2],
    "a[::-1] int64": lambda c: np.arange(1, 41, dtype=np.int64)[::-1],
    "fortran 2-D": lambda c: np.asfortranarray(np.arange(1, 13, dtype=np.uint32).reshape(3, 4)),
    "2-D": lambda c: np.arange(1, 13).reshape(3, 4), "0-d": lambda c: np.array(5),
    "float64": lambda c: np.array([1.5, 2.0]), "nan array": lambda c: np.array([np.nan, 1.0]),
    "inf array": lambda c: np.array([np.inf, 1.0]), "int8 negative": lambda c: np.array([-1, 5], dtype=np.int8),
    "int64 min": lambda c: np.array([np.iinfo(np.int64).min, 3]),
    "uint64 max": lambda c: np.array([2**64 - 1, 3], dtype=np.uint64),
    "zeros uint32": lambda c: np.zeros(3, np.uint32), "bool": lambda c: np.array([True, False]),
    "object": lambda c: np.array([1, "a", None], dtype=object), "complex": lambda c: np.array([1 + 2j]),
    "str array": lambda c: np.array(["a", "b"]),
    "read-only": lambda c: _readonly(np.arange(1, 9, dtype=np.uint32)),
    "byte-swapped uint32": lambda c: np.arange(1, 9, dtype=">u4"),
    "byte-swapped float64": lambda c: np.arange(1, 9, dtype=">f8"),
    "memoryview": lambda c: np.arange(1, 5, dtype=np.uint32).data,
    "[2**64]": lambda c: [2**64], "[-1]": lambda c: [-1], "[nan]": lambda c: [math.nan], "[1.5]": lambda c: [1.5],
    "[1e308]": lambda c: [1e308], "ragged": lambda c: [[1, 2], [3]], "recursive list": lambda c: _recursive_list(),
    "deep list": lambda c: _deep_list(), "generator": lambda c: (i for i in range(1, 5)), "set": lambda c: {1, 2},
    "None": lambda c: None, "'x'": lambda c: "x", "{1: 2}": lambda c: {1: 2}, "3": lambda c: 3,
    "_BadSequence()": lambda c: _BadSequence(),
}
TEXTS: dict[str, Factory] = {
    "''": lambda c: "", "'\\x00'": lambda c: "\x00", "'a\\x00b'": lambda c: "a\x00b",
    "'x' * 100000": lambda c: "x" * 100_000, "'\\ud800'": lambda c: "\ud800", "b'\\xff'": lambda c: b"\xff",
    "a directory": lambda c: str(c.dir), "a missing file": lambda c: str(c.dir / "missing.json"),
    "an empty file": lambda c: str(c.file("empty.json", "")),
    "a binary file": lambda c: str(c.file("binary.json", "\x00\xff\xfe garbage")),
    "a JSON file nested 100000 deep": lambda c: str(c.file("deep.json", "[" * 100_000 + "]" * 100_000)),
    "a JSON file with 1e999": lambda c: str(c.file("big.json", '{"x": 1e999, "records": [1e999]}')),
    "a JSON list of NaN": lambda c: str(c.file("nan.json", "[NaN, Infinity]")),
    "pathlib.Path(dir)": lambda c: c.dir, "None": lambda c: None, "123": lambda c: 123, "nan": lambda c: math.nan,
    "['x']": lambda c: ["x"], "recursive list": lambda c: _recursive_list(),
}
# Enumerated names (scaling, packing, format, dtype, field, checkpointing): no file paths.
NAMES: dict[str, Factory] = {k: TEXTS[k] for k in ("''", "'\\x00'", "'x' * 100000", "'\\ud800'", "b'\\xff'", "None",
                                                   "123", "nan", "['x']", "recursive list")}
MAPPINGS: dict[str, Factory] = {
    "{}": lambda c: {}, "recursive dict": lambda c: _recursive_dict(), "deep dict": lambda c: _deep_dict(),
    "{'x': nan}": lambda c: {"x": math.nan}, "{1: 2}": lambda c: {1: 2}, "{(1, 2): 3}": lambda c: {(1, 2): 3},
    "None": lambda c: None, "[]": lambda c: [], "'x'": lambda c: "x", "deep list": lambda c: _deep_list(),
    "recursive list": lambda c: _recursive_list(), "[recursive dict]": lambda c: [_recursive_dict()],
}
# Measurement sources: what read_measurements and fit take (files, lists of record dicts).
RECORDS: dict[str, Factory] = {
    **MAPPINGS,
    "[{}]": lambda c: [{}], "[{'kind': 'step'}]": lambda c: [{"kind": "step"}],
    "a step record with NaN": lambda c: [{**c.step_record, "step_time_s": math.nan}],
    "a step record with 1e308 GPUs": lambda c: [{**c.step_record, "gpus": 1e308}],
    "a step record with 2**64 GPUs": lambda c: [{**c.step_record, "gpus": 2**64}],
    "a step record nested 100000 deep": lambda c: [{**c.step_record, "source": _deep_list()}],
    "a step record holding itself": lambda c: [{**c.step_record, "model_overrides": _recursive_dict()}],
    "[deep dict]": lambda c: [_deep_dict()],
    "a JSON file nested 100000 deep": TEXTS["a JSON file nested 100000 deep"],
    "a directory": TEXTS["a directory"], "a binary file": TEXTS["a binary file"],
    "np.array([1, 2])": lambda c: np.array([1, 2]),
}
# Arguments typed as a struct (bands=, classifier=, a calibration, a model).
OBJECTS: dict[str, Factory] = {
    k: v for k, v in {**SCALARS, **MAPPINGS}.items()
    if k in ("None", "'x'", "nan", "2**64", "{}", "[1]", "object()", "recursive dict", "recursive list",
             "deep dict")
}
OBJECTS["a Job (wrong struct)"] = lambda c: libscale.Job()
POOLS: dict[str, dict[str, Factory]] = {"scalar": SCALARS, "option": OPTIONS, "flag": FLAGS, "array": ARRAYS,
                                        "text": TEXTS, "name": NAMES, "mapping": MAPPINGS, "records": RECORDS,
                                        "object": OBJECTS}


class _Ctx:
    """What the child's calls are made with: files in a temporary directory and one valid
    instance of each result, made on first use."""

    dir: pathlib.Path

    def __init__(self, directory: pathlib.Path) -> None:
        self.dir = directory

    def file(self, name: str, text: str) -> pathlib.Path:
        p = self.dir / name
        if not p.exists():
            p.write_text(text, encoding="utf-8", errors="surrogateescape")
        return p

    @cached_property
    def trace_path(self) -> str:
        return str(self.file("trace.csv", _trace_csv([("compute", 40), ("hang", 40), ("idle", 10)], 2, 0.0)))

    @cached_property
    def lengths_path(self) -> str:
        p = self.dir / "lengths.npy"
        np.save(p, np.arange(1, 200, dtype=np.uint32))
        return str(p)

    @cached_property
    def step_record(self) -> dict[str, Any]:
        return dict(_records(FIT_SERIES)[0])

    @cached_property
    def measurements_path(self) -> str:
        return str(FIT_SERIES)

    @cached_property
    def plan(self) -> libscale.Plan:
        return libscale.Plan("qwen3-0.6b", "h100", gpus_per_node=8, seq_len=2048)

    @cached_property
    def step(self) -> libscale.Step:
        return self.plan.step()

    @cached_property
    def projection(self) -> Any:
        return self.plan.project([1, 2, 4], job={"tokens": 1e9})

    @cached_property
    def fit_advice(self) -> Any:  # one that does not fit: it has changes to apply
        return libscale.Plan("qwen3-0.6b", "h100", seq_len=32768, micro_batch=8,
                             activation_checkpointing="none").fit_advice()

    @cached_property
    def solution(self) -> Any:
        return self.plan.solve_deadline(10.0, gpus=[1, 2, 4])

    @cached_property
    def sweep(self) -> libscale.Sweep:
        return self.plan.sweep(gpus=[1, 2, 4])

    @cached_property
    def comparison(self) -> libscale.Comparison:
        return self.plan.compare(["h100", "h200"], [1, 2])

    @cached_property
    def gate(self) -> Any:
        return libscale.gate([10, 20, 30, 40, 50, 60], world_size=2, seq_len=64)

    @cached_property
    def pack(self) -> libscale.PackResult:
        return libscale.pack([10, 20, 30, 40], seq_len=64)

    @cached_property
    def trace(self) -> Any:
        return libscale.read_trace(self.trace_path)

    @cached_property
    def triage(self) -> libscale.TriageResult:
        return libscale.triage(self.trace)

    @cached_property
    def measurements(self) -> libscale.Measurements:
        return libscale.read_measurements(self.measurements_path)

    @cached_property
    def fit(self) -> libscale.FitResult:
        return libscale.fit(self.measurements)

    @cached_property
    def validation(self) -> libscale.Validation:
        return libscale.validate(self.measurements_path)

    @cached_property
    def stream(self) -> Any:
        return libscale.triage_stream()

    @cached_property
    def bands(self) -> Any:
        return libscale.default_power_bands("h100")


Args = Callable[[_Ctx], tuple[Any, ...]]
Kwargs = Callable[[_Ctx], dict[str, Any]]


def _no_args(c: _Ctx) -> tuple[Any, ...]:
    return ()


def _no_kwargs(c: _Ctx) -> dict[str, Any]:
    return {}


@dataclasses.dataclass(frozen=True)
class Target:
    """A public callable, a valid call of it, and its arguments that take data."""

    name: str
    make: Callable[[_Ctx], Callable[..., Any]]
    args: Args = _no_args
    kwargs: Kwargs = _no_kwargs
    params: tuple[tuple[int | str, str], ...] = ()  # (position or keyword, pool)
    # An exception the valid call may raise here (NvmlSource without an NVIDIA driver).
    base_may_raise: tuple[str, ...] = ()
    # False: no valid call to start from (classes built only by the library: every call with
    # data must raise, and not crash).
    valid_call: bool = True


def _a(*values: Any) -> Args:
    return lambda c: values


def _k(**values: Any) -> Kwargs:
    return lambda c: dict(values)


def _p(*pairs: tuple[int | str, str]) -> tuple[tuple[int | str, str], ...]:
    return pairs


def _fn(f: Callable[..., Any]) -> Callable[[_Ctx], Callable[..., Any]]:
    return lambda c: f


def _method(of: str, name: str) -> Callable[[_Ctx], Callable[..., Any]]:
    return lambda c: getattr(getattr(c, of), name)


def _targets() -> list[Target]:
    L = libscale
    t: list[Target] = []
    add = t.append
    # catalog and model arithmetic
    add(Target("model", _fn(L.model), _a("qwen3-0.6b"), params=_p((0, "text"), (0, "object"))))
    add(Target("models", _fn(L.models), params=_p((0, "scalar"))))
    add(Target("hardware", _fn(L.hardware), _a("h100"), params=_p((0, "text"), (0, "object"))))
    add(Target("hardware_names", _fn(L.hardware_names), params=_p((0, "scalar"))))
    add(Target("default_calibration", _fn(L.default_calibration), _a("h100"), params=_p((0, "text"))))
    add(Target("count_parameters", _fn(L.count_parameters), _a("qwen3-0.6b"), params=_p((0, "text"), (0, "object"))))
    add(Target("flops_per_token", _fn(L.flops_per_token), _a("qwen3-0.6b"), _k(seq_len=2048),
               params=_p(("seq_len", "scalar"), ("activation_checkpointing", "name"), ("document_lengths", "array"))))
    add(Target("training_config", _fn(L.training_config), kwargs=_k(gpus=8),
               params=_p(*((o, "option") for o in L.options.names("training")), ("data", "mapping"),
                         ("checkpoint", "mapping"), ("strategy", "name"))))
    add(Target("describe_issue", _fn(L.describe_issue), _a(1), params=_p((0, "scalar"))))
    add(Target("to_jsonable", _fn(L.to_jsonable), _a({"a": [1.0]}),
               params=_p((0, "mapping"), (0, "array"), (0, "scalar"))))
    add(Target("set_progress", _fn(L.set_progress), _a(False), params=_p((0, "flag"))))
    # estimates
    plan_options = ("gpus", "seq_len", "micro_batch", "global_batch_tokens", "attention_span_tokens")
    add(Target("Plan", _fn(L.Plan), _a("qwen3-0.6b", "h100"),
               params=_p((0, "text"), (1, "text"), ("calibration", "text"), ("calibration", "object"),
                         *((o, "scalar") for o in plan_options), ("data", "mapping"))))
    for fn in ("estimate_step", "fit_advice", "project", "sweep", "solve_deadline", "solve_budget"):
        extras: dict[str, dict[str, Any]] = {
            "solve_deadline": {"deadline_h": 10.0}, "project": {"gpus": [1, 2]}, "sweep": {"gpus": [1, 2]},
            "solve_budget": {"max_gpu_hours": 1e6}}
        extra = extras.get(fn, {})
        # The model, hardware and training options go through Plan (above) in every one:
        # here their names, and what each adds.
        params: list[tuple[int | str, str]] = [(0, "name"), (1, "name"), ("calibration", "object"),
                                               ("seq_len", "option")]
        if fn in ("project", "solve_deadline", "solve_budget"):
            params += [("gpus", "array~"), ("tokens", "scalar"), ("epochs", "option"),
                       ("price_per_gpu_hour_usd", "option"), ("scaling", "name"), ("require_fit", "flag")]
        if fn == "project":
            params += [("quantiles", "flag")]
        if fn == "solve_deadline":
            params += [("deadline_h", "scalar")]
        if fn == "solve_budget":
            params += [("max_gpu_hours", "scalar"), ("max_cost_usd", "scalar")]
        if fn == "sweep":
            params += [("gpus", "array~"), ("seq_len", "array~"), ("threads", "scalar")]
        add(Target(fn, _fn(getattr(L, fn)), _a("qwen3-0.6b", "h100"), _k(**extra), params=_p(*params)))
    add(Target("layouts", _fn(L.layouts), _a("qwen3-0.6b", "h100"), _k(gpus=2, micro_batch=[1], intervals=1),
               params=_p((0, "name"), (1, "name"), ("calibration", "object"), ("micro_batch", "array~"),
                         ("tensor_parallel", "array~"), ("context_parallel", "array~"), ("strategies", "text~"),
                         ("activation_checkpointing", "text~"), ("intervals", "scalar"), ("seq_len", "option"))))
    add(Target("compare", _fn(L.compare), _a("qwen3-0.6b", ["h100", "h200"]), _k(gpus=[1, 2]),
               params=_p((1, "array~"), (1, "text~"), ("gpus", "array~"), ("prices", "mapping"), ("prices", "text"),
                         ("calibration", "mapping"), ("tokens", "scalar"))))
    add(Target("read_prices", _fn(L.read_prices), _a({"h100": 2.0}),
               params=_p((0, "mapping"), (0, "text"), (0, "records"))))
    add(Target("Plan.step", _method("plan", "step"), params=_p(("require_fit", "flag"))))
    add(Target("Plan.project", _method("plan", "project"), _a([1, 2]),
               params=_p((0, "array"), (0, "scalar"), ("job", "mapping"), ("job", "object"), ("scaling", "name"),
                         ("quantiles", "flag"), ("samples", "scalar"), ("seed", "scalar"))))
    add(Target("Plan.project quantiles", _method("plan", "project"), _a([1, 2]), _k(quantiles=True, samples=50),
               params=_p(("samples", "scalar"), ("seed", "scalar"))))
    add(Target("Plan.solve_deadline", _method("plan", "solve_deadline"), _a(10.0), _k(gpus=[1, 2]),
               params=_p((0, "scalar"), ("gpus", "array~"), ("job", "mapping~"))))
    add(Target("Plan.solve_budget", _method("plan", "solve_budget"), kwargs=_k(gpus=[1, 2], max_gpu_hours=1e6),
               params=_p(("max_gpu_hours", "scalar"), ("max_cost_usd", "scalar"), ("gpus", "array~"))))
    add(Target("Plan.layouts", _method("plan", "layouts"), kwargs=_k(micro_batch=[1], intervals=1, samples=20),
               params=_p(("micro_batch", "array~"), ("strategies", "text~"), ("intervals", "scalar"),
                         ("samples", "scalar"))))
    add(Target("Plan.compare", _method("plan", "compare"), _a(["h100"]), _k(gpus=[1, 2]),
               params=_p((0, "array"), (0, "text~"), ("gpus", "array~"), ("prices", "mapping~"),
                         ("calibration", "mapping"))))
    add(Target("Plan.sweep", _method("plan", "sweep"), kwargs=_k(gpus=[1, 2]),
               params=_p(("gpus", "array"), ("micro_batch", "array~"), ("global_batch_tokens", "array~"),
                         ("threads", "scalar"))))
    add(Target("Plan.with_", _method("plan", "with_"), kwargs=_k(gpus=2),
               params=_p(("gpus", "scalar"), ("model", "text"), ("hardware", "object"), ("calibration", "object"),
                         ("data", "mapping"))))
    add(Target("Plan.options", _method("plan", "options")))
    # results: every public method once, and those with arguments with bad ones
    for res in ("step", "projection", "solution", "fit_advice", "sweep", "comparison", "gate", "pack", "triage", "fit",
                "validation"):
        for meth in ("to_dict", "records", "text", "to_csv", "to_pandas", "_repr_html_", "to_json", "__repr__",
                     "__str__"):
            params2 = _p(("indent", "scalar"), ("sort_keys", "object")) if meth == "to_json" else ()
            add(Target(f"{res}.{meth}", _method(res, meth), params=params2))
    add(Target("step.fields", _method("step", "fields")))
    add(Target("projection.rows_dicts", _method("projection", "rows_dicts")))
    add(Target("projection.fit_advice", _method("projection", "fit_advice"), _a(2), params=_p((0, "scalar"),)))
    add(Target("projection.plot", _method("projection", "plot"),
               params=_p((0, "name"), ("ax", "object"), ("kind", "scalar"))))
    add(Target("solution.goal", _method("solution", "goal")))
    add(Target("solution.needed", _method("solution", "needed")))
    add(Target("solution.left_out", _method("solution", "left_out")))
    add(Target("solution.plot", _method("solution", "plot"),
               params=_p((0, "name"), ("ax", "object"), ("kind", "scalar"))))
    add(Target("fit_advice.plan_with", _method("fit_advice", "plan_with"), _a(0), params=_p((0, "scalar"))))
    add(Target("Plan.fit_advice", _method("plan", "fit_advice")))
    add(Target("sweep.__getitem__", _method("sweep", "__getitem__"), _a("gpus"), params=_p((0, "name"),
                                                                                           (0, "scalar"))))
    add(Target("sweep.records", _method("sweep", "records"), params=_p((0, "scalar"))))
    add(Target("sweep.columns_dict", _method("sweep", "columns_dict"), params=_p(("flat", "flag"))))
    add(Target("sweep.issue_text", _method("sweep", "issue_text")))
    add(Target("comparison.__getitem__", _method("comparison", "__getitem__"), _a("h100"),
               params=_p((0, "name"), (0, "scalar"))))
    add(Target("comparison.header", _method("comparison", "header")))
    add(Target("comparison.summary", _method("comparison", "summary")))
    add(Target("comparison.plot", _method("comparison", "plot"), params=_p((0, "name"), ("ax", "object"))))
    add(Target("gate.plot", _method("gate", "plot"), params=_p(("ax", "object"),)))
    add(Target("pack.bins", _method("pack", "bins")))
    add(Target("triage.timeline_frame", _method("triage", "timeline_frame"), params=_p(("job", "flag"),)))
    add(Target("triage.to_pandas job", _method("triage", "to_pandas"), params=_p(("job", "flag"),)))
    add(Target("triage.plot", _method("triage", "plot"), params=_p(("ax", "object"),)))
    add(Target("fit.plot", _method("fit", "plot"), params=_p(("ax", "object"),)))
    add(Target("fit.write", _method("fit", "write"), lambda c: (str(c.dir / "fit-out.json"),),
               params=_p((0, "text"), ("provenance", "mapping"))))
    add(Target("fit.calibration_file", _method("fit", "calibration_file"), params=_p(("provenance", "mapping"),)))
    add(Target("validation.markdown", _method("validation", "markdown")))
    add(Target("validation.summary", _method("validation", "summary")))
    add(Target("validation.memory", _method("validation", "memory")))
    add(Target("validation.rows", _method("validation", "rows")))
    add(Target("measurements.only_hardware", _method("measurements", "only_hardware")))
    add(Target("measurements.counts_text", _method("measurements", "counts_text")))
    # result classes built by hand from wrong parts
    for cls_name in ("Step", "ProjectionResult", "GateResult", "PackResult", "TriageResult", "Validation",
                     "Comparison", "Measurements", "SolutionResult", "Sweep", "FitResult", "FitAdvice", "Layouts"):
        add(Target(f"{cls_name}()", _fn(getattr(L, cls_name)), params=_p((0, "object"), (0, "mapping")),
                   valid_call=False))
    # calibration
    add(Target("read_measurements", _fn(L.read_measurements), lambda c: (c.measurements_path,),
               params=_p((0, "records"), (0, "text"), (1, "records"))))
    add(Target("fit", _fn(L.fit), lambda c: (c.measurements_path,),
               params=_p((0, "records"), (1, "text"), ("prior", "object"), ("prior", "text"), ("fit_overhead", "flag"),
                         ("relative_error", "scalar"), ("prior_log_sd", "mapping"))))
    add(Target("read_calibration", _fn(L.read_calibration), _a("default-h100", "h100"),
               params=_p((0, "text"), (1, "text"), (1, "object"))))
    add(Target("validate", _fn(L.validate), lambda c: (c.measurements_path,),
               params=_p((0, "text"), (0, "records"), ("relative_error", "scalar"))))
    # packing gate
    add(Target("gate", _fn(L.gate), _a([10, 20, 30, 40]), _k(world_size=2, seq_len=64),
               params=_p((0, "array"), (0, "text"), ("world_size", "scalar"), ("seq_len", "scalar"),
                         ("packing", "name"), ("shuffle_seed", "scalar"), ("drop_last", "flag"), ("dtype", "name"),
                         ("field", "name"), ("format", "name"), ("remedy", "flag"),
                         *((o, "option") for o in L.options.names("gate") if o not in ("world_size", "seq_len")))))
    add(Target("gate remedy", _fn(L.gate), _a([10, 20, 30, 40, 50]), _k(world_size=2, seq_len=64, remedy=True,
                                                                          shard_before_packing=True),
               params=_p((0, "array"), ("micro_batch", "scalar"))))
    add(Target("pack", _fn(L.pack), _a([10, 20, 30, 40]), _k(seq_len=64),
               params=_p((0, "array"), (0, "text"), ("seq_len", "scalar"), ("packing", "name"),
                         ("map_batch_size", "scalar"), ("num_proc", "scalar"), ("dtype", "name"), ("field", "name"),
                         ("format", "name"))))
    add(Target("read_lengths", _fn(L.read_lengths), lambda c: (c.lengths_path,),
               params=_p((0, "text"), ("format", "name"), ("dtype", "name"), ("field", "name"))))
    add(Target("packing_names", _fn(L.packing_names), params=_p((0, "scalar"),)))
    # power triage
    add(Target("read_trace", _fn(L.read_trace), lambda c: (c.trace_path,), params=_p((0, "text"), ("format", "name"))))
    add(Target("triage", _fn(L.triage), lambda c: (c.trace,),
               params=_p((0, "text"), (0, "object"), ("hardware", "text"), ("bands", "object"),
                         ("calibration", "text~"), ("format", "name"), ("checkpoint_windows", "array~"),
                         *((o, "option") for o in L.options.names("triage")))))
    add(Target("triage_stream", _fn(L.triage_stream), params=_p(("hardware", "text"), ("bands", "object"),
                                                                 ("stale_after_s", "scalar"),
                                                                 ("checkpoint_windows", "array~"))))
    add(Target("triage_options", _fn(L.triage_options),
               params=_p(*((o, "option") for o in L.options.names("triage")), ("checkpoint_windows", "array~"),
                         ("checkpoint_windows", "mapping"))))
    add(Target("power_bands", _fn(L.power_bands), _a("h100"), params=_p((0, "text"), ("calibration", "text"))))
    add(Target("default_power_bands", _fn(L.default_power_bands), _a("h100"), params=_p((0, "text"),
                                                                                          (0, "object"))))
    add(Target("TriageStream", _fn(L.TriageStream), lambda c: (c.bands,),
               params=_p((0, "object"), (1, "object"), (2, "object"), (3, "object"))))
    push_args: Args = lambda c: (np.array([1.0, 1.0]), np.array([0, 1], dtype=np.int32),  # noqa: E731
                                 np.array([300.0, 310.0]), np.array([100.0, 100.0]))
    add(Target("TriageStream.push", _method("stream", "push"), push_args,
               params=_p((0, "array"), (1, "array"), (2, "array~"), (3, "array~"), (4, "scalar"))))
    add(Target("TriageStream.advance", _method("stream", "advance"), _a(100.0), params=_p((0, "scalar"),)))
    add(Target("TriageStream.set_power_limit_w", _method("stream", "set_power_limit_w"), _a(0, 500.0),
               params=_p((0, "scalar"), (1, "scalar"))))
    add(Target("TriageStream.expect_gpus", _method("stream", "expect_gpus"), _a([0, 1]), params=_p((0, "array"),)))
    add(Target("TriageStream.add_checkpoint_window", _method("stream", "add_checkpoint_window"), _a(0.0, 10.0),
               params=_p((0, "scalar"), (1, "scalar"))))
    add(Target("TriageStream.gpus", _method("stream", "gpus")))
    add(Target("NvmlSource", _fn(L.NvmlSource), params=_p((0, "array"),), base_may_raise=("NvmlError",)))
    add(Target("PowerBands.thresholds_w", _method("bands", "thresholds_w"), params=_p((0, "scalar"),)))
    add(Target("PowerBands.validate", _method("bands", "validate")))
    add(Target("trace.__len__", _method("trace", "__len__")))
    add(Target("trace.report.summary", lambda c: c.trace.report.summary))
    # option schema
    add(Target("options.option", _fn(L.options.option), _a("training", "gpus"), params=_p((0, "name"), (1, "name"))))
    add(Target("options.options", _fn(L.options.options), _a("training"), params=_p((0, "name"),)))
    add(Target("options.names", _fn(L.options.names), _a("job"), params=_p((0, "name"),)))
    add(Target("options.defaults", _fn(L.options.defaults), _a("job"), params=_p((0, "name"),)))
    add(Target("options.doc", _fn(L.options.doc), _a("job"), params=_p((0, "name"), ("indent", "scalar"))))
    # bound structs: every keyword constructor, and the ones with methods
    for cls_name in ("ModelSpec", "HardwareProfile", "Calibration", "TrainingConfig", "DataPipeline",
                     "CheckpointPolicy", "Job", "GemmLaw", "AttentionLaw", "LinkLevel", "ClassifierOptions",
                     "DetectorOptions", "CalibrationFile"):
        cls = getattr(L, cls_name)
        fields = [f for f in cls._fields if f not in ("gemm", "attention", "intra_node", "inter_node",
                                                      "calibration", "checkpoints", "data", "checkpoint")]
        add(Target(f"{cls_name}(**)", _fn(cls), params=_p(*((f, "option") for f in fields))))
    add(Target("CalibrationFile(covariance)", _fn(L.CalibrationFile),
               params=_p(("covariance", "array"), ("parameters", "array"), ("quality", "mapping"),
                         ("provenance", "mapping"), ("sources", "mapping"), ("prior_log_sd", "mapping"),
                         ("calibration", "object"))))
    add(Target("MeasurementSet.merge", lambda c: L.MeasurementSet().merge, params=_p((0, "object"),),
               args=lambda c: (L.MeasurementSet(),)))
    for cls_name in ("OverflowCounts", "PhaseChange", "GpuStatus", "ParseReport", "Alert", "ParameterCounts",
                     "FlopsPerToken", "MemoryBreakdown", "StepBreakdown", "ComputeTimes", "ProjectionRow",
                     "Projection", "Solution", "Coefficient", "FamilyScore", "Quantiles", "RowQuantiles", "PowerTrace",
                     "PowerBands", "MeasurementSet"):
        # no keyword constructor: a call with data must raise TypeError, not crash
        add(Target(f"{cls_name}(data)", _fn(getattr(L, cls_name)), params=_p((0, "object"),), valid_call=False))
    return t


# Struct fields that take data after construction: set each to a bad value, then hand the
# struct to what consumes it (the C++ core reads the fields it was given).
SETTABLE = {"ModelSpec": "model", "HardwareProfile": "hardware", "Calibration": "calibration",
            "TrainingConfig": "config", "DataPipeline": "data", "CheckpointPolicy": "checkpoint", "Job": "job",
            "PowerBands": "bands", "GemmLaw": "gemm", "AttentionLaw": "attention", "LinkLevel": "intra_node"}
SET_VALUES = ("nan", "inf", "-1", "0", "2**64", "'x'", "None", "[1]")


def _fresh(kind: str) -> Any:
    L = libscale
    if kind == "bands":
        return L.default_power_bands("h100")
    plan = L.Plan("qwen3-0.6b", "h100", gpus=2, seq_len=2048)
    return {"model": L.model("qwen3-0.6b"), "hardware": L.hardware("h100"),
            "calibration": L.default_calibration("h100"), "config": plan.config, "data": plan.config.data,
            "checkpoint": plan.config.checkpoint,
            "job": L.Job(tokens=1e9), "gemm": L.default_calibration("h100").gemm,
            "attention": L.default_calibration("h100").attention,
            "intra_node": L.default_calibration("h100").intra_node}[kind]


def _consume(c: _Ctx, kind: str, obj: Any) -> Any:
    """Use a struct whose field was set: the estimate (or triage) that reads it."""
    L = libscale
    from libscale._core import estimate as core_estimate

    scenario = L.Plan("qwen3-0.6b", "h100", gpus=2, seq_len=2048).scenario
    if kind == "bands":
        return L.triage(c.trace, bands=obj)
    if kind == "job":
        return L.Plan("qwen3-0.6b", "h100").project([1, 2], job=obj)
    if kind in ("gemm", "attention", "intra_node"):
        cal = L.default_calibration("h100")
        setattr(cal, kind, obj)
        kind, obj = "calibration", cal
    if kind in ("data", "checkpoint"):
        cfg = scenario.config
        setattr(cfg, kind, obj)
        kind, obj = "config", cfg
    if kind == "calibration":
        scenario.calibration = L.CalibrationFile(calibration=obj)
    else:
        setattr(scenario, kind, obj)
    L.count_parameters(scenario.model)
    return core_estimate.estimate_step(scenario)


@dataclasses.dataclass(frozen=True)
class Case:
    target: str
    key: int | str | None  # None: the valid call itself
    pool: str
    value: str

    def label(self) -> str:
        if self.key is None:
            return f"{self.target} (the valid call)"
        if self.pool == "set":
            return f"{self.target}.{self.key} = {self.value}, then used"
        where = f"argument {self.key}" if isinstance(self.key, int) else f"{self.key}="
        return f"{self.target}: {where} {self.value} ({self.pool})"


# Option values and struct fields come in dozens per call and go through one conversion per
# C++ type, and some arguments go through the same conversion as another target's (marked
# "pool~"): each of those gets OPTION_SAMPLE values of its pool, taken in turn, so that
# every value meets some argument of the call.
OPTION_SAMPLE = 6


def _cases() -> list[Case]:
    out: list[Case] = []
    for t in _targets():
        out.append(Case(t.name, None, "", ""))
        turn = 0
        for key, pool in t.params:
            values = list(POOLS[pool.rstrip("~")])
            if pool == "option" or pool.endswith("~"):
                values = [values[(turn + m) % len(values)] for m in range(OPTION_SAMPLE)]
                turn += OPTION_SAMPLE
            out += [Case(t.name, key, pool.rstrip("~"), v) for v in values]
    for cls_name, kind in SETTABLE.items():
        obj = _fresh(kind)
        for i, f in enumerate(type(obj)._fields):
            out += [Case(f"{cls_name}", f, "set", SET_VALUES[(2 * i + m) % len(SET_VALUES)]) for m in range(2)]
    return out


def _run_case(c: _Ctx, targets: Mapping[str, Target], case: Case) -> Any:
    if case.pool == "set":
        kind = SETTABLE[case.target]
        obj = _fresh(kind)
        setattr(obj, str(case.key), SCALARS[case.value](c))
        return _consume(c, kind, obj)
    t = targets[case.target]
    fn = t.make(c)
    args, kwargs = list(t.args(c)), t.kwargs(c)
    if case.key is not None:
        value = POOLS[case.pool][case.value](c)
        if isinstance(case.key, int):
            args += [None] * (case.key + 1 - len(args))
            args[case.key] = value
        else:
            kwargs[case.key] = value
    return fn(*args, **kwargs)


# Exceptions that are a proper answer to bad input. Anything else is reported (a bug in
# how the input is checked), and these always fail: an internal error of the C API
# (SystemError), an assertion, a name error in the library's own code.
EXPECTED = (ValueError, TypeError, LookupError, OSError, ArithmeticError, MemoryError, RecursionError,
            AttributeError, RuntimeError, ImportError, NotImplementedError)
BUGS = (SystemError, AssertionError, NameError)


def _child(cases: Sequence[Case], start: int, results: int, errors: int) -> None:
    """In a forked child: run the cases from `start` on, writing 'start i' before and 'done i
    seconds outcome' after each to the file descriptor `results` (unbuffered, so a crash
    leaves the case it was in as the last line). Never returns."""
    try:
        os.dup2(errors, 2)  # faulthandler's traceback of a crash, for the failure message
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        # The descriptor, not sys.stderr: under pytest's capture that is another file.
        faulthandler.enable(file=errors, all_threads=False)
        # 4 GiB of address space: a huge allocation fails (MemoryError, std::bad_alloc)
        # rather than taking the memory of a shared machine.
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash writes no core file
        os.environ.update(HF_HUB_OFFLINE="1")  # a Hub id never reaches the network
        warnings.simplefilter("ignore")
        libscale.set_progress(False)
        targets = {t.name: t for t in _targets()}
        with tempfile.TemporaryDirectory() as d:
            ctx = _Ctx(pathlib.Path(d))
            for i in range(start, len(cases)):
                os.write(results, f"start {i}\n".encode())
                began = time.perf_counter()
                try:
                    _run_case(ctx, targets, cases[i])
                    outcome = "ok"
                except Exception as e:
                    outcome = f"raised {type(e).__module__}.{type(e).__qualname__}: {str(e)[:200]!r}"
                except BaseException as e:  # not an Exception: a violation
                    outcome = f"BASE-EXCEPTION {type(e).__qualname__}: {str(e)[:200]!r}"
                finally:
                    plt.close("all")
                elapsed = time.perf_counter() - began
                os.write(results, f"done {i} {elapsed:.6f} {json.dumps(outcome)}\n".encode())
    finally:
        os._exit(0)


@dataclasses.dataclass
class SweepResult:
    outcomes: dict[int, str]  # case index → "ok" / "raised ..." / "CRASH ..." / "HANG ..." / "BASE-EXCEPTION ..."
    seconds: dict[int, float]  # case index → time it took
    children: int
    wall_s: float


def _run_sweep(cases: Sequence[Case], hang_s: float = 60.0, max_children: int = 12) -> SweepResult:
    """All cases in as few forked children as crashes allow: a child that dies mid-case is
    recorded against that case and a new child goes on from the next one, up to
    max_children (a crash can take seconds: deep recursion until the stack overflows),
    after which the cases left are not run and fail as such."""
    begin = time.monotonic()
    outcomes: dict[int, str] = {}
    seconds: dict[int, float] = {}
    start, children = 0, 0
    with tempfile.TemporaryDirectory() as d:
        while start < len(cases):
            if children == max_children:
                for i in range(start, len(cases)):
                    outcomes[i] = f"NOT RUN: the sweep stopped after {children} children crashed or hung"
                break
            children += 1
            results_path, errors_path = pathlib.Path(d) / f"results{children}", pathlib.Path(d) / f"stderr{children}"
            results = os.open(results_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            errors = os.open(errors_path, os.O_WRONLY | os.O_CREAT, 0o600)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(cases, start, results, errors)
            os.close(results)
            os.close(errors)
            size, last_progress, status = 0, time.monotonic(), 0
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                time.sleep(0.02)
                now_size = results_path.stat().st_size
                if now_size != size:
                    size, last_progress = now_size, time.monotonic()
                elif time.monotonic() - last_progress > hang_s:
                    os.kill(pid, signal.SIGKILL)
                    _, status = os.waitpid(pid, 0)
                    break
            lines = results_path.read_text(encoding="utf-8").splitlines()
            # faulthandler prints the innermost frame first: the head is what matters
            tail = errors_path.read_bytes()[:3000].decode(errors="replace")
            if not lines:  # the child did not get to its first case: nothing to blame on a case
                raise RuntimeError(f"the robustness child failed to start (status {status}):\n{tail}")
            current = start
            for line in lines:
                word, index, *rest = line.split(" ", 3)
                current = int(index)
                if word == "done":
                    seconds[current] = float(rest[0])
                    outcomes[current] = json.loads(rest[1])
            if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and current == len(cases) - 1 \
                    and current in outcomes:
                break
            if current not in outcomes:
                if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
                    how = f"HANG (no result in {hang_s:.0f} s)"
                elif os.WIFSIGNALED(status):
                    how = f"CRASH (signal {signal.Signals(os.WTERMSIG(status)).name})"
                else:
                    how = f"CRASH (exit {os.WEXITSTATUS(status)})"
                outcomes[current] = f"{how}; stderr:\n{tail}"
            start = current + 1
    return SweepResult(outcomes, seconds, children, time.monotonic() - begin)


CASES = _cases()
TARGET_NAMES = sorted({c.target for c in CASES})


@pytest.fixture(scope="module")
def sweep() -> SweepResult:
    return _run_sweep(CASES)


def _violations(sweep: SweepResult, target: str) -> list[str]:
    bad = []
    for i, case in enumerate(CASES):
        if case.target != target:
            continue
        outcome = sweep.outcomes.get(i, "NO RESULT")
        if outcome.startswith(("CRASH", "HANG", "BASE-EXCEPTION", "NO RESULT", "NOT RUN")) or any(
                f"builtins.{b.__name__}:" in outcome for b in BUGS):
            bad.append(f"{case.label()}: {outcome}")
    return bad


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_public_callable_survives_bad_input(sweep: SweepResult, target: str) -> None:
    bad = _violations(sweep, target)
    assert not bad, f"{len(bad)} call(s) crashed, hung or raised a non-Exception:\n" + "\n".join(bad[:10])


def test_valid_calls_succeed(sweep: SweepResult) -> None:
    """Each target's valid call returns, so that its bad values test that argument and not
    an error elsewhere in the call."""
    targets = {t.name: t for t in _targets()}
    failed = [f"{c.label()}: {sweep.outcomes.get(i)}" for i, c in enumerate(CASES)
              if c.key is None and c.pool != "set" and targets[c.target].valid_call and sweep.outcomes.get(i) != "ok"
              and not any(f".{e}:" in str(sweep.outcomes.get(i)) for e in targets[c.target].base_may_raise)]
    assert not failed, "\n".join(failed)


def test_sweep_covers_the_public_api() -> None:
    """Every public callable is in the sweep: libscale.__all__, the options module's, and
    every public method of the result classes and of the bound classes."""
    names = {c.target.split(" ")[0].removesuffix("()").removesuffix("(**)").removesuffix("(data)")
             .removesuffix("(covariance)") for c in CASES}
    missing = []
    covered = {id(getattr(libscale, n)) for n in names if hasattr(libscale, n)}
    for name in libscale.__all__:
        obj = getattr(libscale, name)
        if name.startswith("__") or name == "options" or not callable(obj) or (isinstance(obj, type) and issubclass(
                obj, BaseException)):
            continue
        if name not in names and id(obj) not in covered:  # an alias (SweepResult = Sweep) counts as its target
            missing.append(name)
    for name in libscale.options.__all__:
        obj = getattr(libscale.options, name)
        if callable(obj) and not isinstance(obj, type) and name not in ("add_arguments", "values_from_args") \
                and f"options.{name}" not in names:
            missing.append(f"options.{name}")
    # Methods of the result classes: "<instance>.<method>" in the sweep.
    instances = {"Plan": "Plan", "Step": "step", "ProjectionResult": "projection", "SolutionResult": "solution",
                 "FitAdvice": "fit_advice", "Sweep": "sweep", "Comparison": "comparison", "GateResult": "gate",
                 "PackResult": "pack", "TriageResult": "triage", "FitResult": "fit", "Validation": "validation",
                 "Measurements": "measurements", "TriageStream": "TriageStream", "PowerBands": "PowerBands"}
    for cls_name, inst in instances.items():
        cls = getattr(libscale, cls_name)
        for meth, value in vars(cls).items():
            if meth.startswith("_") or not callable(value) or (meth == "to_dict" and inst[0].isupper()):
                continue
            if f"{inst}.{meth}" not in names:
                missing.append(f"{cls_name}.{meth}")
    assert not missing, f"public callables not in the robustness sweep: {missing}"


def test_sweep_is_small_enough() -> None:
    # A few thousand calls in one child (a few more after a crash): each is a conversion
    # that fails fast or a small estimate.
    assert 1000 < len(CASES) < 8000


# --- paths with an embedded NUL ----------------------------------------------------------------------
#
# Python's open() refuses a path with an embedded NUL ("embedded null byte"): the OS would
# read the path only up to it. Every public function that reads or writes a file must do the
# same, not open the file named by the part before the NUL (or write there), and say so.

NUL_CALLS: dict[str, Callable[[pathlib.Path], Any]] = {
    "read_trace": lambda d: libscale.read_trace(str(ROOT / "examples/traces/nccl-hang.csv") + "\0.csv"),
    "triage": lambda d: libscale.triage(str(ROOT / "examples/traces/nccl-hang.csv") + "\0.csv"),
    "read_measurements": lambda d: libscale.read_measurements(str(FIT_SERIES) + "\0.json"),
    "fit": lambda d: libscale.fit(str(FIT_SERIES) + "\0.json"),
    "validate": lambda d: libscale.validate(str(FIT_SERIES) + "\0.json"),
    "model": lambda d: libscale.model(str(ROOT / "calibration/data/models/gpt2.json") + "\0.json"),
    "hardware": lambda d: libscale.hardware(str(ROOT / "calibration/data/hardware/h100.json") + "\0.json"),
    "read_calibration": lambda d: libscale.read_calibration(
        str(ROOT / "calibration/data/calibrations/default-h100.json") + "\0.json", "h100"),
    "Plan(calibration=)": lambda d: libscale.Plan(
        "qwen3-0.6b", "h100", calibration=str(ROOT / "calibration/data/calibrations/default-h100.json") + "\0.json"),
    "read_lengths": lambda d: libscale.read_lengths(str(_npy(d)) + "\0.npy"),
    "gate": lambda d: libscale.gate(str(_npy(d)) + "\0.npy", world_size=2, seq_len=64),
    "pack": lambda d: libscale.pack(str(_npy(d)) + "\0.npy", seq_len=64),
    "read_prices": lambda d: libscale.read_prices(str(_prices(d)) + "\0.json"),
    "FitResult.write": lambda d: libscale.fit(str(FIT_SERIES)).write(str(d / "fit.json") + "\0.json"),
}


def _npy(d: pathlib.Path) -> pathlib.Path:
    np.save(d / "lengths.npy", np.arange(1, 100, dtype=np.uint32))
    return d / "lengths.npy"


def _prices(d: pathlib.Path) -> pathlib.Path:
    (d / "prices.json").write_text('{"price_per_gpu_hour_usd": {"h100": 2.0}}', encoding="utf-8")
    return d / "prices.json"


@pytest.mark.parametrize("name", list(NUL_CALLS))
def test_path_with_embedded_nul_is_refused(name: str, tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=r"(?i)null|\bnul\b"):
        NUL_CALLS[name](tmp_path)
