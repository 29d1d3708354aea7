"""The option schema: every training, data, checkpoint, job, gate, triage and watch option,
as the C++ core declares it (name, type, default, unit, valid values, help).

Nothing here restates an option: the Python signatures' documentation, the command-line
flags (:func:`add_arguments`) and the trainer-log keywords are derived from these
declarations, and every value is checked by the core when it is set.

    >>> import libscale
    >>> [o.name for o in libscale.options.options("job")]
    ['tokens', 'epochs', 'price_per_gpu_hour_usd']
    >>> libscale.options.option("training", "seq_len").default
    8192
"""

from __future__ import annotations

import argparse
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ._core import spec as _spec

__all__ = ["GROUPS", "Option", "options", "option", "names", "defaults", "doc", "add_arguments",
           "values_from_args"]

#: The option groups, each the fields of one core struct.
GROUPS: tuple[str, ...] = tuple(_spec.option_groups())


@dataclass(frozen=True)
class Option:
    """One option as the core declares it."""

    group: str
    name: str
    type: str  #: "integer", "number", "boolean", "choice" or "text"
    unit: str
    help: str
    choices: tuple[str, ...]
    minimum: float | None
    maximum: float | None
    exclusive_minimum: bool
    optional: bool  #: accepts None ("not set": the core's own rule applies)
    default: Any
    valid_text: str = ""

    @property
    def flag(self) -> str:
        """The command-line flag: ``--seq-len``."""
        return "--" + self.name.replace("_", "-")

    def valid(self) -> str:
        """What values are valid, in words (the core's text, as its errors say it)."""
        return self.valid_text

    def describe(self) -> str:
        """``seq_len (tokens; default 8192): sequence length``."""
        unit = f"{self.unit}; " if self.unit else ""
        default = "not set" if self.default is None else repr(self.default)
        return f"{self.name} ({unit}default {default}): {self.help}. Valid: {self.valid()}."


def _bound(x: float) -> float | None:
    return x if math.isfinite(x) else None


@functools.cache
def options(group: str) -> tuple[Option, ...]:
    """The options of a group, in declaration order."""
    return tuple(Option(group=group, name=o["name"], type=o["type"], unit=o["unit"], help=o["help"],
                        choices=tuple(o["choices"]), minimum=_bound(o["minimum"]), maximum=_bound(o["maximum"]),
                        exclusive_minimum=o["exclusive_minimum"], optional=o["optional"], default=o["default"],
                        valid_text=o["valid"])
                 for o in _spec.options(group))


def option(group: str, name: str) -> Option:
    """One option; ValueError naming the valid ones when there is no such option."""
    for o in options(group):
        if o.name == name:
            return o
    raise ValueError(f"unknown {group} option {name!r}; valid: {', '.join(names(group))}")


def names(group: str) -> tuple[str, ...]:
    return tuple(o.name for o in options(group))


def defaults(group: str) -> dict[str, Any]:
    """Every option's default (None: not set)."""
    return {o.name: o.default for o in options(group)}


def doc(*groups: str, indent: str = "    ") -> str:
    """A docstring section listing the groups' options."""
    lines = []
    for g in groups:
        lines.append(f"{indent}{g.capitalize()} options:")
        lines.extend(f"{indent}  {o.describe()}" for o in options(g))
    return "\n".join(lines)


_F = TypeVar("_F", bound=Callable[..., Any])


def with_options_doc(*groups: str) -> Callable[[_F], _F]:
    """Decorator: append the groups' option list to a function's docstring (its signature,
    types included, is left as it is)."""

    def wrap(f: _F) -> _F:
        f.__doc__ = (f.__doc__ or "").rstrip() + "\n\n" + doc(*groups) + "\n"
        return f

    return wrap


# --- command line ----------------------------------------------------------------------


def _metavar(o: Option) -> str:
    if o.type == "choice":
        return "{" + ",".join(o.choices) + "}"
    return (o.unit or o.type).upper().replace(" ", "_").replace("/", "_PER_").replace("%", "PCT")


def _arg_type(o: Option, *, lists: bool) -> Callable[[str], Any]:
    """Text to the option's Python type; the core checks the value itself. Text that is not
    of the type at all is argparse's error, ``--flag: 'text' is not ...``."""

    def scalar(text: str) -> Any:
        try:
            if o.type == "integer":
                try:
                    return int(text)
                except ValueError:
                    value = float(text)  # 1e6 names an integer: the core accepts an integral float
                    return int(value) if value.is_integer() else value
            if o.type == "number":
                return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {o.valid()}") from None
        return text

    if not lists:
        return scalar

    def comma_list(text: str) -> list[Any]:
        try:
            return [scalar(t) for t in text.split(",") if t.strip()]
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of {o.type} values "
                                             f"(each {o.valid()})") from None

    return comma_list


def add_arguments(parser: argparse.ArgumentParser | Any, group: str, *, skip: Iterable[str] = (),
                  lists: Iterable[str] = (), prefix: str = "", required: Iterable[str] = (),
                  aliases: Mapping[str, Sequence[str]] | None = None) -> None:
    """One flag per option of the group (``--seq-len``; a boolean that defaults to True gets
    ``--no-<name>``). lists: options that take a comma list (sweep axes). prefix: added to
    each flag and destination (``checkpoint`` → ``--checkpoint-every-steps``). Defaults are
    left unset (None), so only what the user gave reaches the core, which applies its own
    defaults. aliases: option name -> further flags for it (an older spelling the command
    line keeps accepting, e.g. ``--price-per-gpu-hour``)."""
    skip, lists, required = set(skip), set(lists), set(required)
    aliases = aliases or {}
    for o in options(group):
        if o.name in skip:
            continue
        name = f"{prefix}_{o.name}" if prefix else o.name
        flag = "--" + name.replace("_", "-")
        extra = tuple(aliases.get(o.name, ()))
        default = "not set" if o.default is None else o.default
        unit = f", {o.unit}" if o.unit else ""
        text = o.help.replace("%", "%%")  # argparse formats help with %: a unit "%" must be escaped
        if o.type == "boolean":
            if o.default:
                parser.add_argument("--no-" + flag[2:], *extra, dest=name, action="store_const", const=False,
                                    default=None, help=f"not: {text}")
            else:
                parser.add_argument(flag, *extra, dest=name, action="store_const", const=True, default=None,
                                    help=o.help)
            continue
        listed = o.name in lists
        parser.add_argument(flag, *extra, dest=name, type=_arg_type(o, lists=listed), default=None,
                            required=o.name in required, metavar=("LIST" if listed else _metavar(o)),
                            help=f"{text}{unit.replace('%', '%%')} (default {default}"
                                 f"{'; comma list' if listed else ''})")


def values_from_args(args: argparse.Namespace, group: str, *, prefix: str = "",
                     skip: Sequence[str] = ()) -> dict[str, Any]:
    """The options the user gave on the command line (flags left out are not included)."""
    out: dict[str, Any] = {}
    for o in options(group):
        if o.name in skip:
            continue
        value = getattr(args, f"{prefix}_{o.name}" if prefix else o.name, None)
        if value is not None:
            out[o.name] = value
    return out


def split(values: Mapping[str, Any], *groups: str) -> list[dict[str, Any]]:
    """values split by group (the first group that declares a name takes it), then what is left."""
    parts: list[dict[str, Any]] = [{} for _ in groups]
    rest: dict[str, Any] = {}
    owner: dict[str, int] = {}
    for i, g in enumerate(groups):
        for n in names(g):
            owner.setdefault(n, i)
    for k, v in values.items():
        if k in owner:
            parts[owner[k]][k] = v
        else:
            rest[k] = v
    return parts + [rest]
