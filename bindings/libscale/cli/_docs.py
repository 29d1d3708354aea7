"""The flag tables of docs/cli.md, generated from the parsers (tests/python/test_cli_docs.py
checks that the file is up to date). Rewrite them with ``python -m libscale.cli._docs docs/cli.md``."""

from __future__ import annotations

import argparse
import re
import sys

from . import COMMANDS
from ._common import Parser

_BLOCK = re.compile(r"(<!-- flags: ([\w-]+) -->\n).*?(<!-- /flags -->)", re.S)


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand, built as `libscale` builds it."""
    sub = Parser(prog="libscale").add_subparsers()
    for command in COMMANDS:
        command.add_parser(sub)
    parser: argparse.ArgumentParser = sub.choices[name]
    return parser


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def flag_table(name: str) -> str:
    """A markdown table: every argument of the command, its value and its help."""
    rows = ["| argument | value | help |", "|---|---|---|"]
    # argparse keeps a parser's arguments in _actions only; help and version are left out.
    for action in command_parser(name)._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        names = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.metavar or action.dest}`"
        if action.nargs == 0:
            value = ""
        elif action.choices is not None and not isinstance(action.metavar, str):
            value = "{" + ",".join(map(str, action.choices)) + "}"
        else:
            value = str(action.metavar or action.dest.upper())
        rows.append(f"| {names} | {_cell(value)} | {_cell((action.help or '').replace('%%', '%'))} |")
    return "\n".join(rows) + "\n"


def render(text: str) -> str:
    """text with every ``<!-- flags: NAME -->`` ... ``<!-- /flags -->`` block regenerated."""
    return _BLOCK.sub(lambda m: m.group(1) + flag_table(m.group(2)) + m.group(3), text)


if __name__ == "__main__":
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        old = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(old))
