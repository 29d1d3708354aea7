"""Regenerate the stubs of libscale._core's submodules (bindings/libscale/_core/<sub>.pyi).

    PYTHONPATH=build/<dir>/bindings:bindings python scripts/make_stubs.py   # needs pybind11-stubgen

pybind11-stubgen reads the built module's signatures; this script then writes them the
way the stubs are kept: read-write fields as annotations and read-only ones as
properties, in C++ declaration order (each class's _fields), a class without a
constructor given an __init__ that takes nothing, the metaclass pybind11 gives every
bound class, short docstrings. _core/__init__.pyi (version and exceptions) is kept by
hand. Check the result with `python -m mypy.stubtest libscale._core`.
"""
import ast, re, subprocess, sys, pathlib, tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
dst = ROOT / "bindings" / "libscale" / "_core"
_tmp = tempfile.TemporaryDirectory()
subprocess.run([sys.executable, "-m", "pybind11_stubgen", "libscale._core", "-o", _tmp.name,
                "--numpy-array-use-type-var"], check=True)
src = pathlib.Path(_tmp.name) / "libscale" / "_core"
SUBS = ["spec", "io", "calibrate", "estimate", "gate", "triage"]

def is_docstring(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)

def dec_name(d):
    if isinstance(d, ast.Name): return d.id
    if isinstance(d, ast.Attribute): return ast.unparse(d)
    return ast.unparse(d)

def ellipsis_body(doc=None):
    body = []
    if doc is not None: body.append(doc)
    body.append(ast.Expr(ast.Constant(...)))
    return body

def first_line_doc(node):
    """Keep a one-paragraph docstring (stubs stay short)."""
    if node.body and is_docstring(node.body[0]):
        text = node.body[0].value.value.strip()
        if not text: return None
        return ast.Expr(ast.Constant(text))
    return None

def fix_function(fn, keep_doc=True):
    doc = first_line_doc(fn) if keep_doc else None
    fn.body = ellipsis_body(doc)
    # pybind11 names unnamed args arg0; no change
    return fn

def _no_ctor(runtime):
    import inspect
    try:
        inspect.signature(runtime.__init__)  # pybind11 constructors have no introspectable signature
    except (TypeError, ValueError):
        return False
    return True

def process_class(cls):
    new_body = []
    doc = first_line_doc(cls)
    if doc: new_body.append(doc)
    setters = {node.name for node in cls.body if isinstance(node, ast.FunctionDef)
               and any(dec_name(d).endswith(".setter") for d in node.decorator_list)}
    inits = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    for node in cls.body:
        if is_docstring(node):
            continue
        if isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.target.id == "_fields":
                node.annotation = ast.parse("typing.ClassVar[tuple[str, ...]]", mode="eval").body
                node.value = None
            new_body.append(node); continue
        if isinstance(node, ast.FunctionDef):
            decs = [dec_name(d) for d in node.decorator_list]
            if "property" in decs:
                if node.name in setters:
                    new_body.append(ast.AnnAssign(target=ast.Name(node.name), annotation=node.returns, value=None, simple=1))
                else:
                    new_body.append(fix_function(node))
                continue
            if any(d.endswith(".setter") for d in decs):
                continue
            if node.name == "__init__" and len(inits) > 1:
                args = node.args
                if args.kwarg is not None and not args.kwonlyargs and len(args.args) == 1:
                    continue  # the diagnosing **kwargs overload: same keywords as the typed one
                node.decorator_list = [d for d in node.decorator_list if dec_name(d) != "typing.overload"]
            new_body.append(fix_function(node))
            continue
        new_body.append(node)
    # the fields in declaration order (_fields), then other properties, then methods, in runtime order
    runtime = RUNTIME_CLASSES.get(cls.name)
    if runtime is not None:
        fields = list(getattr(runtime, "_fields", ()))
        order = list(vars(runtime))
        def key(node):
            if isinstance(node, ast.Expr): return (0, 0)
            if isinstance(node, ast.AnnAssign) and node.target.id == "_fields": return (1, 0)
            name = node.target.id if isinstance(node, ast.AnnAssign) else node.name
            is_field = isinstance(node, ast.AnnAssign) or any(dec_name(d) == "property" for d in node.decorator_list)
            if name in fields: return (2, fields.index(name))
            if is_field: return (3, order.index(name) if name in order else 10**6)
            if name == "__init__": return (4, 0)
            return (5, order.index(name) if name in order else 10**6)
        new_body.sort(key=key)
    if runtime is not None and _no_ctor(runtime):
        # No constructor bound: pybind11's base __init__ takes anything and raises TypeError.
        ctor = ast.parse("def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:\n"
                         "    \"\"\"No constructor: made by the core only (TypeError).\"\"\"\n    ...").body[0]
        at = next((i for i, n in enumerate(new_body) if isinstance(n, ast.FunctionDef) and not
                   any(dec_name(d) == "property" for d in n.decorator_list)), len(new_body))
        new_body.insert(at, ctor)
    if runtime is not None and type(runtime).__name__ == "pybind11_type":
        cls.keywords = [ast.keyword(arg="metaclass", value=ast.Name("_Pybind11Type"))]
    cls.body = new_body or [ast.Expr(ast.Constant(...))]
    return cls

import importlib
RUNTIME_CLASSES = {}
core = importlib.import_module("libscale._core")
for sub in SUBS:
    m = getattr(core, sub)
    for n in dir(m):
        v = getattr(m, n)
        if isinstance(v, type):
            RUNTIME_CLASSES[n] = v
for path in sorted(src.glob("*.pyi")):
    if path.name == "__init__.pyi":
        continue  # kept by hand
    tree = ast.parse(path.read_text())
    body = []
    mod_doc = tree.body[0] if tree.body and is_docstring(tree.body[0]) else None
    for node in tree.body:
        if node is mod_doc: continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue  # rewritten below
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            continue
        if isinstance(node, ast.AnnAssign):
            node.value = None
            body.append(node); continue
        if isinstance(node, ast.ClassDef):
            body.append(process_class(node)); continue
        if isinstance(node, ast.FunctionDef):
            body.append(fix_function(node)); continue
        body.append(node)
    tree.body = body
    text = ast.unparse(tree)
    text = text.replace("typing.SupportsInt | typing.SupportsIndex", "int")
    text = text.replace("typing.SupportsFloat | typing.SupportsIndex", "float")
    text = re.sub(r"\blibscale\._core\.(\w+)\.", lambda m: (m.group(1) + "."), text)
    text = re.sub(r"(\) -> [^\n]*:|\):)\n\s+\.\.\.\n", lambda m: m.group(1) + " ...\n", text)
    name = path.stem
    imports = ["from __future__ import annotations", "", "import collections.abc", "import typing", "from typing import Any, Mapping, Optional", "",
               "import numpy", "import numpy as np", "import numpy.typing", ""]
    used = sorted({s for s in SUBS if re.search(rf"\b{s}\.[A-Z]", text) and s != name})
    for s in used:
        imports.append(f"from . import {s}")
    if "_Pybind11Type" in text:
        imports.append("from . import _Pybind11Type")
    header = f'"""{mod_doc.value.value.strip()}"""\n\n' if mod_doc else ""
    (dst / path.name).write_text(header + "\n".join(imports) + "\n\n" + text + "\n")
    print("wrote", (dst / path.name).relative_to(ROOT))

# Wrap long def lines: one parameter per line.
def split_top(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch in "([{": depth += 1
        if ch in ")]}": depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip()); cur = ""
        else:
            cur += ch
    if cur.strip(): out.append(cur.strip())
    return out

def norm_param(p_):
    if ":" not in p_:
        return p_
    depth = 0
    for i, ch in enumerate(p_):
        if ch in "([{": depth += 1
        elif ch in ")]}": depth -= 1
        elif ch == "=" and depth == 0:
            return p_[:i].rstrip() + " = " + p_[i + 1:].lstrip()
    return p_

for path in sorted(p for p in dst.glob("*.pyi") if p.name != "__init__.pyi"):
    lines = []
    for line in path.read_text().splitlines():
        m = re.match(r"^(\s*)def (\w+)\((.*)\)( -> .*:.*)$", line)
        if m:
            ind, name, params, rest = m.groups()
            parts = [norm_param(x) for x in split_top(params)]
            one = f"{ind}def {name}({', '.join(parts)}){rest}"
            if len(one) <= 110:
                lines.append(one)
            else:
                lines.append(f"{ind}def {name}(")
                lines.extend(f"{ind}    {x}," for x in parts)
                lines.append(f"{ind}){rest}")
        else:
            lines.append(line)
    path.write_text("\n".join(lines) + "\n")
