"""What the subcommands share: the parser class, value parsers, the option-schema flags
and their checking, and :func:`emit`, which prints any result as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

from .. import _format
from .. import options as _options
from .._core import spec as _spec
from .._files import loads_json, read_json
from ..results import rows_csv, to_jsonable

PROG = "libscale"

#: Output formats of every command (``--json`` is ``--format json``).
FORMATS: tuple[str, ...] = ("table", "json", "csv")

#: Older flag spellings kept as aliases of the schema-derived flag: (group, option) -> flags.
ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "job": {"price_per_gpu_hour_usd": ("--price-per-gpu-hour",)},
    "checkpoint": {"write_gbps_per_node": ("--checkpoint-write-gbps",)},
    "gate": {"sampler_drop_last": ("--drop-last",)},
}


class CliError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {' '.join(str(message).split())}\n")
    sys.stderr.flush()
    raise SystemExit(2)


class Parser(argparse.ArgumentParser):
    """argparse, but errors are a single line (no usage block) and name the option
    the way it was typed: '--gpus: ...' rather than 'argument --gpus: ...'."""

    def error(self, message: str) -> NoReturn:
        # argparse's own wording ("argument X: ..."), not a core message, is shortened here.
        fail(re.sub(r"^argument ([^:]+): ", r"\1: ", message))

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._refuse_repeats(list(sys.argv[1:] if args is None else args))
        return super().parse_known_args(args, namespace)

    def _refuse_repeats(self, args: list[str]) -> None:
        """A flag given twice (or two flags that set one value, such as --json and --format)
        is an error: argparse keeps the last, so `--gpus 8 --gpus 16` would quietly drop 8.
        Flags meant to repeat (append, count) may; the job's command after `--` is not read."""
        seen: dict[str, str] = {}
        for token in args:
            if token == "--":
                break
            action = self._option_string_actions.get(token.split("=", 1)[0]) if token.startswith("-") else None
            if action is None or isinstance(action, (argparse._AppendAction, argparse._CountAction,
                                                     argparse._HelpAction, argparse._VersionAction)):
                continue
            flag = token.split("=", 1)[0]
            if action.dest in seen:
                first = seen[action.dest]
                which = f"{flag} is given twice" if first == flag else f"{first} and {flag} set the same value"
                self.error(f"{flag}: {which}; give it once")
            seen[action.dest] = flag


# --- value parsers ----------------------------------------------------------------------


def int_list(text: str) -> list[int]:
    items = [s.strip() for s in text.split(",")]
    if not items or any(not re.fullmatch(r"\+?\d+", s) or int(s) <= 0 for s in items):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a comma-separated list of positive integers (e.g. 4,8,16)")
    return [int(s) for s in items]


def integer(text: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", text.strip()):
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    return int(text)


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number (e.g. 1e9)") from None


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given inline (it starts with '{') or as the path of a file holding one."""
    inline = text.lstrip().startswith("{")
    try:
        value = loads_json(text, "the inline JSON") if inline else \
            read_json(text, max_bytes=16 << 20, expected="a JSON object (inline JSON starts with '{')")
    except FileNotFoundError:
        raise argparse.ArgumentTypeError(f"'{text}': no such file, and not inline JSON (which starts with '{{')") \
            from None
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{'the inline JSON' if inline else text}: expected a JSON object of "
                                         f"field: value pairs, not {type(value).__name__}")
    return value


# --- shared arguments -----------------------------------------------------------------------


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", dest="output_format", choices=FORMATS, default="table",
                   help="output: a table for people (default), one JSON object, or CSV rows")
    p.add_argument("--json", dest="output_format", action="store_const", const="json",
                   help="the same as --format json")


def add_target(p: argparse.ArgumentParser, *, many: bool = False) -> None:
    p.add_argument("--model", required=True,
                   help="catalog name (see `libscale models`), a Hugging Face config.json path or a Hub id org/name")
    p.add_argument("--hardware", required=True,
                   help="catalog name (see `libscale hardware`) or a path to a libscale.hardware/1 JSON file"
                        + ("; a comma-separated list (b300,b200,h200,h100) compares them side by side" if many
                           else ""))


def add_calibration(p: argparse.ArgumentParser) -> None:
    p.add_argument("--calibration", default=None, metavar="PATH_OR_NAME",
                   help="a calibration file (from `libscale fit`) or a shipped one by name, e.g. "
                        "derived-b300-qwen3-32b (default: the hardware's uncalibrated default)")


def add_require_fit(p: argparse.ArgumentParser) -> None:
    p.add_argument("--require-fit", action="store_true",
                   help="exit with status 2 (and say what would fit) when a configuration does not fit in memory, "
                        "instead of showing it")


def add_group(p: argparse.ArgumentParser | Any, group: str, **kwargs: Any) -> None:
    """The flags of an option-schema group (see :func:`libscale.options.add_arguments`)."""
    _options.add_arguments(p, group, aliases=ALIASES.get(group), **kwargs)


def add_training(p: argparse.ArgumentParser, *, skip: Iterable[str] = (), lists: Iterable[str] = (),
                 required: Iterable[str] = ()) -> None:
    """Training, data and checkpoint options, as the schema declares them."""
    g = p.add_argument_group("training options")
    add_group(g, "training", skip=skip, lists=lists, required=required)
    add_group(g, "checkpoint", prefix="checkpoint")
    d = p.add_argument_group("input pipeline (data) options")
    d.add_argument("--data", type=json_object, default=None, metavar="JSON",
                   help="data options as a JSON object (or file), e.g. "
                        "'{\"corpus_in_page_cache\": false, \"storage_read_gbps_per_node\": 2}'; "
                        "the --data-* flags override its fields")
    add_group(d, "data", prefix="data")


def flag(group: str, name: str, prefix: str = "") -> str:
    """The command-line flag of an option."""
    return "--" + (f"{prefix}_{name}" if prefix else name).replace("_", "-")


def checked(args: argparse.Namespace, group: str, *, prefix: str = "", skip: Sequence[str] = ()) -> dict[str, Any]:
    """The group's options the user gave, checked by the core. A value the core refuses
    on its own is reported with the flag that set it (``--seq-len: training option
    seq_len = -1; valid: ...``): the values are checked together, and when that fails,
    one by one to find the flag; a rule between options is reported as the core words it.
    A comma list (a sweep axis) is checked element by element."""
    values = _options.values_from_args(args, group, prefix=prefix, skip=skip)
    scalars = {k: v for k, v in values.items() if not isinstance(v, list)}
    for name, value in values.items():
        if isinstance(value, list):
            for v in value:
                check(group, name, v, flag(group, name, prefix))
    try:
        _spec.make_options(group, scalars)
    except (ValueError, TypeError) as e:
        for name, value in scalars.items():
            check(group, name, value, flag(group, name, prefix))
        # Not one value alone: the struct's own rules (kill_on's kinds, a rule between
        # options). The flag is named when leaving out that one value makes the rest valid.
        culprits = [n for n in scalars if _accepted(group, {k: v for k, v in scalars.items() if k != n})]
        if len(culprits) == 1:
            raise CliError(f"{flag(group, culprits[0], prefix)}: {e}") from None
        raise CliError(str(e)) from None
    return values


def _accepted(group: str, values: Mapping[str, Any]) -> bool:
    try:
        _spec.make_options(group, dict(values))
    except (ValueError, TypeError):
        return False
    return True


def check(group: str, name: str, value: Any, where: str) -> None:
    """The core's check of one option value; CliError prefixed with ``where`` (the flag)."""
    try:
        _spec.check_option(group, name, value)
    except (ValueError, TypeError) as e:
        raise CliError(f"{where}: {e}") from None


def training_values(args: argparse.Namespace, *, skip: Sequence[str] = ()) -> dict[str, Any]:
    """Training options with ``data=`` and ``checkpoint=`` dicts, as Plan takes them."""
    config = checked(args, "training", skip=skip)
    data = dict(args.data or {})
    for name, value in data.items():
        if name not in _options.names("data"):
            raise CliError(f"--data: unknown field {name!r}; valid: {', '.join(_options.names('data'))}")
        check("data", name, value, f"--data field {name}")
    data.update(checked(args, "data", prefix="data"))
    if data:
        config["data"] = data
    checkpoint = checked(args, "checkpoint", prefix="checkpoint")
    if checkpoint:
        config["checkpoint"] = checkpoint
    return config


def calibration_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"calibration": args.calibration} if getattr(args, "calibration", None) is not None else {}


# --- output ---------------------------------------------------------------------------


def print_json(obj: Any) -> None:
    print(json.dumps(to_jsonable(obj), indent=2, allow_nan=False))


def emit_table(fmt: str, document: Mapping[str, Any], columns: Sequence[Any], rows: Sequence[Mapping[str, Any]],
               text: Callable[[], str] | None = None) -> None:
    """Print a command's own table (models, hardware, validate): the JSON document, the
    table's rows as CSV (raw values, one column per table column, keyed as in the JSON) or
    the text table (``text`` when the command prints more than the table)."""
    if fmt == "json":
        print_json(document)
    elif fmt == "csv":
        sys.stdout.write(rows_csv([{c.key: r.get(c.key) for c in columns} for r in rows]))
    else:
        print(_format.terminal_safe(text() if text is not None else _format.text_table(columns, rows)))


def emit(result: Any, fmt: str) -> None:
    """Print a result object (libscale's Projection, Sweep, Solution, GateResult,
    TriageResult, FitResult): ``.text()`` (table), ``.to_dict()`` with its schema tag
    (json) or ``.to_csv()`` (csv)."""
    if fmt == "json":
        print_json(result.to_dict())
    elif fmt == "csv":
        sys.stdout.write(result.to_csv())
    else:
        print(_format.terminal_safe(result.text()))


def check_output(a: argparse.Namespace, output: str, what: str) -> None:
    """-o/--output may not be '-' (these commands write a file; a file named '-' is never
    what was meant) nor any file the command reads: the input would be replaced by
    ``what`` before anything says so."""
    if output == "-":
        raise CliError(f"-o/--output: '-' would be a file named '-'; {what} is written to a file: give its path")
    if not os.path.exists(output):
        return
    given: list[str] = []
    for name, value in vars(a).items():
        if name in ("output", "argv"):  # argv: the command line itself, which names the output too
            continue
        for v in value if isinstance(value, list | tuple) else [value]:
            if isinstance(v, str):
                given.extend(x for x in v.split(",") if x)
    for path in given:
        try:
            same = os.path.isfile(path) and os.path.samefile(path, output)
        except OSError:
            same = False
        if same:
            raise CliError(f"-o/--output: {output} is also an input of this command ({path}); refusing to replace "
                           f"it with {what}")
