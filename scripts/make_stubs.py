"""Regenerate the stubs of libscale._core's submodules (bindings/libscale/_core/<sub>.pyi).

    PYTHONPATH=build/<dir>/bindings:bindings python scripts/make_stubs.py [--out DIR]

needs pybind11-stubgen and ruff. pybind11-stubgen reads the built module's signatures;
this script then writes them the way the stubs are kept: read-write fields as
annotations and read-only ones as properties, in C++ declaration order (each class's
_fields), a class without a constructor given an __init__ that takes nothing, the
metaclass pybind11 gives every bound class, short docstrings wrapped at the line limit,
bare containers (pybind11's py::dict, py::list) given type arguments so that
`mypy --strict` accepts them, and the imports reduced to those used (`ruff check
--fix-only`). _core/__init__.pyi (version and exceptions) is kept by hand. Check the
result with `python -m mypy.stubtest libscale._core` (scripts/lint.sh does).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import pathlib
import re
import subprocess
import sys
import tempfile
import textwrap
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
SUBS = ["spec", "io", "calibrate", "estimate", "gate", "triage"]
LINE_LIMIT = 120  # [tool.ruff] line-length
DEF_LIMIT = 110  # longer def lines get one parameter per line
# Type arguments for the bare containers pybind11-stubgen writes for py::dict, py::list,
# py::tuple and py::sequence: the core's dicts are keyed by field name.
BARE_GENERICS = {
    "dict": "dict[str, typing.Any]",
    "list": "list[typing.Any]",
    "tuple": "tuple[typing.Any, ...]",
    "collections.abc.Sequence": "collections.abc.Sequence[typing.Any]",
    "typing.Sequence": "collections.abc.Sequence[typing.Any]",
}
HEADER_IMPORTS = [
    "from __future__ import annotations", "",
    "import collections.abc", "import typing", "from typing import Any, Mapping, Optional", "",
    "import numpy", "import numpy as np", "import numpy.typing", "",
]

RUNTIME_CLASSES: dict[str, type] = {}


def is_docstring(node: ast.stmt) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def dec_name(d: ast.expr) -> str:
    return d.id if isinstance(d, ast.Name) else ast.unparse(d)


def first_line_doc(node: ast.FunctionDef | ast.ClassDef) -> ast.Expr | None:
    """Keep a one-paragraph docstring (stubs stay short)."""
    if node.body and is_docstring(node.body[0]):
        first = node.body[0]
        assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        text = str(first.value.value).strip()
        return ast.Expr(ast.Constant(text)) if text else None
    return None


class _Generics(ast.NodeTransformer):
    """Bare dict/list/tuple/Sequence in an annotation -> with type arguments."""

    def __init__(self, memo: bool) -> None:
        self.memo = memo  # __deepcopy__'s memo is keyed by id()

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        node.slice = self.visit(node.slice)  # the subscripted container itself already has arguments
        return node

    def _replace(self, node: ast.expr) -> ast.expr:
        name = ast.unparse(node)
        if self.memo and name == "dict":
            return ast.parse("dict[int, typing.Any]", mode="eval").body
        if name in BARE_GENERICS:
            return ast.parse(BARE_GENERICS[name], mode="eval").body
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self._replace(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        return self._replace(node)


def _takes_none(annotation: ast.expr) -> bool:
    return ast.unparse(annotation) == "typing.Any" or any(
        isinstance(n, ast.Constant) and n.value is None for n in ast.walk(annotation))


def fix_annotations(fn: ast.FunctionDef) -> None:
    a = fn.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if arg is not None and arg.annotation is not None:
            arg.annotation = _Generics(memo=fn.name == "__deepcopy__").visit(arg.annotation)
    # A pointer parameter defaulting to nullptr (an optional libscale._core.Progress) is
    # written with its class alone: it takes None too.
    positional = [*a.posonlyargs, *a.args]
    defaults = [*[None] * (len(positional) - len(a.defaults)), *a.defaults, *a.kw_defaults]
    for arg, default in zip([*positional, *a.kwonlyargs], defaults, strict=True):
        if (isinstance(default, ast.Constant) and default.value is None and arg.annotation is not None
                and not _takes_none(arg.annotation)):
            arg.annotation = ast.BinOp(left=arg.annotation, op=ast.BitOr(), right=ast.Constant(None))
    if fn.returns is not None:
        fn.returns = _Generics(memo=False).visit(fn.returns)


def fix_function(fn: ast.FunctionDef) -> ast.FunctionDef:
    """Body: the docstring's first paragraph, or `...` when there is none."""
    doc = first_line_doc(fn)
    fn.body = [doc] if doc is not None else [ast.Expr(ast.Constant(...))]
    fix_annotations(fn)
    return fn


def _no_ctor(runtime: type) -> bool:
    """True when the class binds no constructor: pybind11's own ones have no signature to inspect."""
    try:
        inspect.signature(runtime.__init__)  # type: ignore[misc]  # the class's own, not an instance's
    except (TypeError, ValueError):
        return False
    return True


def _is_property(node: ast.FunctionDef) -> bool:
    return any(dec_name(d) == "property" for d in node.decorator_list)


def _order_key(node: ast.stmt, fields: list[str], order: list[str]) -> tuple[int, int]:
    """The fields in declaration order (_fields), then other properties, then methods, in runtime order."""
    if isinstance(node, ast.Expr):
        return (0, 0)
    if isinstance(node, ast.AnnAssign):
        assert isinstance(node.target, ast.Name)
        name, is_field = node.target.id, True
        if name == "_fields":
            return (1, 0)
    elif isinstance(node, ast.FunctionDef):
        name, is_field = node.name, _is_property(node)
    else:
        return (6, 0)
    late = 10**6  # not seen at runtime: last
    if name in fields:
        return (2, fields.index(name))
    if is_field:
        return (3, order.index(name) if name in order else late)
    if name == "__init__":
        return (4, 0)
    return (5, order.index(name) if name in order else late)


OPTION_TYPES = {"integer": "int", "number": "float", "boolean": "bool", "text": "str"}


def _option_annotation(o: dict[str, Any]) -> str:
    t = (f"typing.Literal[{', '.join(map(repr, o['choices']))}]" if o["type"] == "choice"
         else OPTION_TYPES[o["type"]])
    return f"{t} | None" if o["optional"] else t


def _option_members(runtime: type, body: list[ast.stmt]) -> list[ast.stmt]:
    """A class bound from an option table (option_fields.hpp: `_options_group`): each option
    typed from the table (Literal of its names for a choice, `| None` when it may be unset),
    and the keyword constructor with the table's defaults; nested structs keep their type and
    also take a dict of their options."""
    spec = importlib.import_module("libscale._core.spec")
    opts = spec.options(runtime._options_group)  # type: ignore[attr-defined]
    names = {o["name"] for o in opts}
    kept: list[ast.stmt] = []
    nested: dict[str, str] = {}
    for node in body:
        name = (node.target.id if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                else node.name if isinstance(node, ast.FunctionDef) else None)
        if name in names or name == "__init__":
            continue
        if isinstance(node, ast.AnnAssign) and name in getattr(runtime, "_fields", ()):
            nested[str(name)] = ast.unparse(node.annotation)
        kept.append(node)
    members: list[ast.stmt] = []
    params = []
    for o in opts:
        ann = _option_annotation(o)
        doc = o["help"] + (f" [{o['unit']}]" if o["unit"] else "")
        if getattr(runtime, o["name"]).fset is None:
            members += ast.parse(f"@property\ndef {o['name']}(self) -> {ann}:\n    {doc!r}").body
        else:
            members.append(ast.AnnAssign(target=ast.Name(o["name"]), annotation=ast.parse(ann, mode="eval").body,
                                         value=None, simple=1))
        params.append(f"{o['name']}: {ann} = {o['default']!r}")
    params += [f"{n}: {nested[n]} | Mapping[str, Any] | None = None" for n in runtime._fields if n in nested]  # type: ignore[attr-defined]
    init = ast.parse(f"def __init__(self, *, {', '.join(params)}) -> None:\n"
                     f"    {'Every option by keyword, each checked by the core.'!r}").body[0]
    return members + kept + [init]


def process_class(cls: ast.ClassDef) -> ast.ClassDef:
    new_body: list[ast.stmt] = []
    doc = first_line_doc(cls)
    if doc is not None:
        new_body.append(doc)
    methods = [n for n in cls.body if isinstance(n, ast.FunctionDef)]
    setters = {n.name for n in methods if any(dec_name(d).endswith(".setter") for d in n.decorator_list)}
    n_inits = sum(n.name == "__init__" for n in methods)
    for node in cls.body:
        if is_docstring(node):
            continue
        if isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.target.id == "_fields":
                node.annotation = ast.parse("typing.ClassVar[tuple[str, ...]]", mode="eval").body
                node.value = None
            if isinstance(node.target, ast.Name) and node.target.id == "_options_group":
                node.value = None
            new_body.append(node)
            continue
        if not isinstance(node, ast.FunctionDef):
            new_body.append(node)
            continue
        decs = [dec_name(d) for d in node.decorator_list]
        if "property" in decs:
            if node.name in setters and node.returns is not None:
                returns = _Generics(memo=False).visit(node.returns)
                new_body.append(ast.AnnAssign(target=ast.Name(node.name), annotation=returns, value=None, simple=1))
            else:
                new_body.append(fix_function(node))
            continue
        if any(d.endswith(".setter") for d in decs):
            continue
        if node.name == "__init__" and n_inits > 1:
            args = node.args
            if args.kwarg is not None and not args.kwonlyargs and len(args.args) == 1:
                continue  # the diagnosing **kwargs overload: same keywords as the typed one
            node.decorator_list = [d for d in node.decorator_list if dec_name(d) != "typing.overload"]
        new_body.append(fix_function(node))
    runtime = RUNTIME_CLASSES.get(cls.name)
    if runtime is not None and hasattr(runtime, "_options_group"):
        new_body = _option_members(runtime, new_body)
    if runtime is not None:
        fields = list(getattr(runtime, "_fields", ()))
        order = list(vars(runtime))
        new_body.sort(key=lambda n: _order_key(n, fields, order))
        if _no_ctor(runtime):
            # No constructor bound: pybind11's base __init__ takes anything and raises TypeError.
            ctor = ast.parse("def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:\n"
                             '    """No constructor: made by the core only (TypeError)."""').body[0]
            at = next((i for i, n in enumerate(new_body) if isinstance(n, ast.FunctionDef) and not _is_property(n)),
                      len(new_body))
            new_body.insert(at, ctor)
        if type(runtime).__name__ == "pybind11_type":
            cls.keywords = [ast.keyword(arg="metaclass", value=ast.Name("_Pybind11Type"))]
    cls.body = new_body or [ast.Expr(ast.Constant(...))]
    return cls


def convert(path: pathlib.Path) -> str:
    """One stubgen .pyi -> the kept stub's text (before the line-level pass)."""
    tree = ast.parse(path.read_text())
    mod_doc = tree.body[0] if tree.body and is_docstring(tree.body[0]) else None
    body: list[ast.stmt] = []
    for node in tree.body:
        if node is mod_doc or isinstance(node, (ast.Import, ast.ImportFrom)):
            continue  # imports are rewritten below
        if isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.target.id == "__all__":
                continue
            node.value = None
            node.annotation = _Generics(memo=False).visit(node.annotation)
        elif isinstance(node, ast.ClassDef):
            node = process_class(node)
        elif isinstance(node, ast.FunctionDef):
            node = fix_function(node)
        body.append(node)
    tree.body = body
    text = ast.unparse(tree)
    text = text.replace("typing.SupportsInt | typing.SupportsIndex", "int")
    text = text.replace("typing.SupportsFloat | typing.SupportsIndex", "float")
    text = re.sub(r"\blibscale\._core\.(\w+)\.", lambda m: m.group(1) + ".", text)
    # Classes of libscale._core itself (Progress, which several submodules take).
    top = sorted(set(re.findall(r"\blibscale\._core\.([A-Z]\w*)\b", text)))
    text = re.sub(r"\blibscale\._core\.([A-Z]\w*)\b", lambda m: m.group(1), text)
    text = re.sub(r"(\) -> [^\n]*:|\):)\n\s+\.\.\.\n", lambda m: m.group(1) + " ...\n", text)
    imports = list(HEADER_IMPORTS)
    imports += [f"from . import {s}" for s in SUBS if s != path.stem and re.search(rf"\b{s}\.[A-Z]", text)]
    if "_Pybind11Type" in text:
        imports.append("from . import _Pybind11Type")
    imports += [f"from . import {name}" for name in top]
    header = ""
    if isinstance(mod_doc, ast.Expr) and isinstance(mod_doc.value, ast.Constant):
        header = f'"""{str(mod_doc.value.value).strip()}"""\n\n'
    return header + "\n".join(imports) + "\n\n" + text + "\n"


def split_top(params: str) -> list[str]:
    """Split a parameter list at its top-level commas."""
    out: list[str] = []
    depth, cur = 0, ""
    for ch in params:
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def norm_param(p: str) -> str:
    """`x: int=3` -> `x: int = 3` (PEP 8 for annotated defaults)."""
    if ":" not in p:
        return p
    depth = 0
    for i, ch in enumerate(p):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "=" and depth == 0:
            return p[:i].rstrip() + " = " + p[i + 1:].lstrip()
    return p


def wrap_literal(line: str) -> list[str]:
    """A line over the limit with a typing.Literal[...] (an option's names): the names on
    their own lines inside the brackets."""
    m = re.match(r"^(\s*)(.*typing\.Literal\[)(.*?)\](.*)$", line)
    if len(line) <= LINE_LIMIT or not m:
        return [line]
    ind, head, items, tail = m.groups()
    body = textwrap.wrap(items, width=LINE_LIMIT - len(ind) - 4, break_long_words=False, break_on_hyphens=False)
    return [ind + head, *(ind + "    " + b for b in body), ind + "]" + tail]


def wrap_lines(text: str) -> str:
    """Long defs: one parameter per line; long one-line docstrings: wrapped at the limit."""
    lines: list[str] = []
    for line in text.splitlines():
        m = re.match(r"^(\s*)def (\w+)\((.*)\)( -> .*:.*)$", line)
        d = re.match(r'^(\s*)"""(.*)"""$', line)
        if m:
            ind, name, params, rest = m.groups()
            parts = [norm_param(x) for x in split_top(params)]
            one = f"{ind}def {name}({', '.join(parts)}){rest}"
            if len(one) <= DEF_LIMIT:
                lines.append(one)
            elif len(parts) <= 1:  # a property returning a long Literal
                lines.extend(wrap_literal(one))
            else:
                lines.append(f"{ind}def {name}(")
                for x in parts:
                    lines.extend(wrap_literal(f"{ind}    {x},"))
                lines.append(f"{ind}){rest}")
        elif d and len(line) > LINE_LIMIT:
            ind, doc = d.groups()
            lines += textwrap.wrap(doc, width=LINE_LIMIT, initial_indent=ind + '"""', subsequent_indent=ind,
                                   break_on_hyphens=False)
            lines.append(ind + '"""')
        else:
            lines.extend(wrap_literal(line))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "bindings" / "libscale" / "_core",
                    help="folder to write <sub>.pyi into (default: bindings/libscale/_core)")
    args = ap.parse_args(argv)
    dst: pathlib.Path = args.out
    dst.mkdir(parents=True, exist_ok=True)
    core = importlib.import_module("libscale._core")
    for sub in SUBS:
        module = getattr(core, sub)
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, type):
                RUNTIME_CLASSES[name] = value
    written: list[pathlib.Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pybind11_stubgen", "libscale._core", "-o", tmp,
                        "--numpy-array-use-type-var"], check=True)
        for path in sorted((pathlib.Path(tmp) / "libscale" / "_core").glob("*.pyi")):
            if path.name == "__init__.pyi":
                continue  # kept by hand
            out = dst / path.name
            out.write_text(wrap_lines(convert(path)))
            written.append(out)
    # The header imports everything a stub may use; ruff removes the unused ones and
    # sorts the rest, with the project's settings (first-party libscale).
    subprocess.run([sys.executable, "-m", "ruff", "check", "--config", str(ROOT / "pyproject.toml"),
                    "--fix-only", "--quiet", "--select", "F401,I,UP", *map(str, written)], check=True)
    for out in written:
        print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
