"""Write bindings/libscale/_result_fields.py: for each result class of the Python API, a
mixin of typed read-only properties that return the compiled result's fields, generated
from the compiled module's stubs (bindings/libscale/_core/estimate.pyi, which
scripts/make_stubs.py writes from the module). The results then carry real types for a
type checker and no ``__getattr__`` forwarding.

    python scripts/make_result_fields.py [--check]

scripts/regenerate.sh runs it after the stubs; tests/python/test_package.py fails while the
file differs from what it writes. --check writes nothing and exits 1 when it is stale.
"""

from __future__ import annotations

import argparse
import ast
import pathlib

from _generated import compiled_module, write_generated

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bindings" / "libscale"
TARGET = PACKAGE / "_result_fields.py"

# mixin -> (the compiled class's submodule and name, the wrapper's file and class). A name
# the wrapper (or results.py's Result and _OfPlan where it derives from them) defines
# itself is left out of its mixin.
MIXINS = {
    "StepFields": ("estimate", "StepBreakdown", "results.py", "Step"),
    "ProjectionFields": ("estimate", "Projection", "results.py", "Projection"),
    "SolutionFields": ("estimate", "Solution", "results.py", "Solution"),
    "FitAdviceFields": ("estimate", "FitAdvice", "fit_advice.py", "FitAdvice"),
    "MeasurementsFields": ("calibrate", "MeasurementSet", "fit_result.py", "Measurements"),
    "FitResultFields": ("calibrate", "FitResult", "fit_result.py", "FitResult"),
    "GateResultFields": ("gate", "GateResult", "gate_result.py", "GateResult"),
    "PackResultFields": ("gate", "PackResult", "gate_result.py", "PackResult"),
    "TriageResultFields": ("triage", "TriageResult", "triage_result.py", "TriageResult"),
    "ValidationFields": ("calibrate", "ValidationReport", "validation.py", "Validation"),
}
SHARED_BASES = ("Result", "_OfPlan")


def _sweep_columns() -> list[tuple[str, str]]:
    """(name, help) of each column of a Sweep: its inputs (results.py Sweep.INPUTS), the step
    outputs the core's field table marks for sweeps, and the issue code."""
    _core = compiled_module()
    sweep = _classes(PACKAGE / "results.py")["Sweep"]
    inputs = next(ast.literal_eval(n.value) for n in sweep.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "INPUTS" for t in n.targets))
    out = [(name, "input: the configuration's value per element") for name in inputs]
    out += [(f["name"], f["help"]) for f in _core.estimate.step_fields() if "sweep" in f["uses"]]
    return [*out, ("issue", "0: valid; else the ConfigIssue code (describe_issue)")]


def _defined(cls: ast.ClassDef) -> set[str]:
    """Names a class body defines, and the attributes its methods assign on self."""
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
            for sub in ast.walk(node):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] \
                    if isinstance(sub, ast.AnnAssign) else []
                names |= {t.attr for t in targets if isinstance(t, ast.Attribute) and
                          isinstance(t.value, ast.Name) and t.value.id == "self"}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _classes(path: pathlib.Path) -> dict[str, ast.ClassDef]:
    return {c.name: c for c in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(c, ast.ClassDef)}


def _wrapper_names(file: str, wrapper: str) -> set[str]:
    shared = _classes(PACKAGE / "results.py")
    cls = _classes(PACKAGE / file)[wrapper]
    names = _defined(cls)
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)}
    for base in SHARED_BASES:
        if base in bases:
            names |= _defined(shared[base])
    return names


def _properties(cls: ast.ClassDef) -> list[tuple[str, str, str]]:
    """(name, return annotation, first docstring line) of each property of a stub class."""
    out = []
    for f in cls.body:
        if isinstance(f, ast.FunctionDef) and any(isinstance(d, ast.Name) and d.id == "property"
                                                  for d in f.decorator_list):
            doc = ast.get_docstring(f) or ""
            out.append((f.name, ast.unparse(f.returns) if f.returns else "Any", doc.splitlines()[0] if doc else ""))
    return out


def _qualified(annotation: str, names: set[str], module: str) -> str:
    """The stub's bare class names prefixed with their module (Job -> estimate.Job)."""
    tree = ast.parse(annotation, mode="eval")

    class Prefix(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in names:
                return ast.Attribute(value=ast.Name(id=module, ctx=ast.Load()), attr=node.id, ctx=ast.Load())
            return node

    return ast.unparse(Prefix().visit(tree))


def _methods(cls: ast.ClassDef) -> list[ast.FunctionDef]:
    """The public methods of a stub class (overloaded ones left out: none is forwarded today)."""
    counts: dict[str, int] = {}
    for f in cls.body:
        if isinstance(f, ast.FunctionDef):
            counts[f.name] = counts.get(f.name, 0) + 1
    return [f for f in cls.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")
            and not f.decorator_list and counts[f.name] == 1]


def _forward(f: ast.FunctionDef, names: set[str], module: str) -> list[str]:
    """A method that calls the compiled one with the same arguments."""
    args = f.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if a.annotation is not None:
            a.annotation = ast.parse(_qualified(ast.unparse(a.annotation), names, module), mode="eval").body
    returns = _qualified(ast.unparse(f.returns), names, module) if f.returns else "typing.Any"
    if any(d is not None and not isinstance(d, ast.Constant) for d in [*args.defaults, *args.kw_defaults]):
        # a default the stub writes as an expression ({}): the compiled method applies its own
        signature, positional, keyword = "self, *args: typing.Any, **kwargs: typing.Any", ["*args"], ["**kwargs"]
    else:
        signature = ast.unparse(args)
        positional = [a.arg for a in [*args.posonlyargs, *args.args][1:]]
        keyword = [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    lines = [f"    def {f.name}({signature}) -> {returns}:"]
    doc = ast.get_docstring(f)
    if doc:
        lines.append(f'        """{_short(doc.splitlines()[0])}"""')
    return [*lines, f"        return self._raw.{f.name}({', '.join(positional + keyword)})", ""]


def _short(doc: str, width: int = 100) -> str:
    """A docstring's first line, cut at a word to fit the generated file's 120 columns."""
    if len(doc) <= width:
        return doc
    return doc[:width].rsplit(" ", 1)[0].rstrip(",;:") + " ..."


def render() -> str:
    stubs: dict[str, dict[str, ast.ClassDef]] = {}
    body: list[str] = []
    used: set[str] = set()
    for mixin, (module, compiled, file, wrapper) in MIXINS.items():
        if module not in stubs:
            stubs[module] = _classes(PACKAGE / "_core" / f"{module}.pyi")
        classes = stubs[module]
        skip = _wrapper_names(file, wrapper)
        used.add(module)
        body += ["", f"class {mixin}:", f'    """The fields of the compiled {module}.{compiled} ({wrapper}.raw)."""',
                 "", f"    _raw: {module}.{compiled}", ""]
        for name, annotation, doc in _properties(classes[compiled]):
            if name in skip:
                continue
            typed = _qualified(annotation, set(classes), module)
            used |= {n.id for n in ast.walk(ast.parse(typed, mode="eval")) if isinstance(n, ast.Name)}
            body += ["    @property", f"    def {name}(self) -> {typed}:"]
            if doc:
                body.append(f'        """{_short(doc)}"""')
            body += [f"        return self._raw.{name}", ""]
        for method in _methods(classes[compiled]):
            if method.name in skip:
                continue
            lines = _forward(method, set(classes), module)
            used |= {n.id for line in lines[:1] for n in ast.walk(ast.parse(line.strip().rstrip(":") + ": ..."))
                     if isinstance(n, ast.Name)}
            body += lines
    body += ["", "class SweepColumns:",
             '    """The columns of a Sweep as typed properties (Sweep.raw is the dict of them)."""', "",
             "    _raw: dict[str, numpy.typing.NDArray[typing.Any]]", ""]
    for name, doc in _sweep_columns():
        body += ["    @property", f"    def {name}(self) -> numpy.typing.NDArray[typing.Any]:",
                 f'        """{_short(doc)}"""', f'        return self._raw["{name}"]', ""]
    used |= {"numpy", "typing"}
    core = sorted(used & {"calibrate", "estimate", "gate", "io", "spec", "triage"})
    head = ["# Generated by scripts/regenerate.sh (scripts/make_result_fields.py) from the stubs of",
            "# libscale._core; do not edit.",
            '"""Typed properties of the results that return the compiled result\'s fields (the names',
            'the result class does not define itself)."""',
            "",
            "from __future__ import annotations",
            ""]
    head += [line for line in ("import typing" if "typing" in used else "",) if line]
    if "numpy" in used:
        head += ["", "import numpy", "import numpy.typing"]
    head += ["", f"from ._core import {', '.join(core)}", "", "__all__ = ["]
    head += [f'    "{m}",' for m in [*MIXINS, "SweepColumns"]] + ["]", ""]
    return "\n".join(head + body).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when it is stale")
    return write_generated(TARGET, render(), check=parser.parse_args(argv).check)


if __name__ == "__main__":
    raise SystemExit(main())
