"""The ``libscale`` command line: one module per subcommand, each with ``add_parser`` and
``run`` (and ``NAME`` where the command's name is not the module's: trainer_steps is
``trainer-steps``). docs/cli.md lists every command, flag, exit code and output.

Every command prints a table for people by default (every column header carries its unit),
one JSON object with ``--format json`` (or ``--json``; ``watch``: one JSON line per event)
and CSV rows with ``--format csv``; ``report`` writes an HTML page and prints one line;
``fit`` and ``trainer-steps`` also write a file.
Exit status: 0 ok; 1 ``gate`` FAIL or ``solve`` with no GPU count meeting the target; 2 bad
input, one line on stderr ``libscale: error: ...`` (``fit`` then writes no file); 3
``watch`` terminated the job after an alert (else the job's own status); 130 interrupted.
A GPU count that does not fit in memory is not bad input unless ``--require-fit`` is given.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from .. import _core, _progress
from . import (
    fit,
    gate,
    hardware,
    layouts,
    memory,
    models,
    project,
    report,
    solve,
    sweep,
    trainer_steps,
    triage,
    validate,
    watch,
)
from ._common import PROG, CliError, Parser, fail

__all__ = ["PROG", "CliError", "build_parser", "command_name", "main"]

#: The subcommands in the order `libscale --help` lists them.
COMMANDS = (project, report, sweep, solve, layouts, memory, gate, models, hardware, triage, watch, fit, validate,
            trainer_steps)


def command_name(command: ModuleType) -> str:
    """A subcommand's name: its module's ``NAME`` (trainer-steps), else the module's name."""
    return str(getattr(command, "NAME", command.__name__.rsplit(".", 1)[1]))


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = Parser(prog=PROG, description="Strong-scaling, GPU-hour and cost calculator for FSDP / ZeRO "
                                           "training.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    # Every command: long work (a large log, a fit, the gate on millions of samples) shows a
    # progress bar on stderr when it is a terminal; --quiet turns it off.
    for p in sub.choices.values():
        p.add_argument("--quiet", "-q", action="store_true",
                       help="no progress bar on stderr (there is none when stderr is not a terminal)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2: bad input)."""
    given = list(sys.argv[1:] if argv is None else argv)
    for i, token in enumerate(given):
        # A path or name that is not UTF-8 reaches Python as lone surrogates (PEP 383), which
        # no reader can pass on: say so here, once, instead of a binding's type error.
        try:
            token.encode("utf-8")
        except UnicodeEncodeError as e:
            bad = token[e.start]
            byte = f" (byte 0x{ord(bad) - 0xDC00:02x})" if 0xDC80 <= ord(bad) <= 0xDCFF else ""
            shown = os.fsencode(token).decode("utf-8", "backslashreplace")
            fail(f"argument {i + 1} '{shown}' is not UTF-8{byte}; libscale reads names and paths as UTF-8: rename "
                 "the file")
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # `report` shows the command line that made it
    run: Callable[[argparse.Namespace], int] = args.run
    previous = _progress.set_progress(False) if args.quiet else None
    try:
        return run(args)
    except BrokenPipeError:
        return _broken_pipe()
    except (CliError, _core.LibscaleError, ValueError, TypeError, OSError) as e:
        fail(str(e))
    except MemoryError as e:  # the core's bad_alloc: one line, not a traceback (errors.cpp)
        fail(str(e).removeprefix("libscale: ") or "out of memory (is an input far larger than intended?)")
    except KeyboardInterrupt:
        return 130
    finally:
        if args.quiet:
            _progress.set_progress(previous)


def _broken_pipe() -> int:
    # The reader went away (e.g. `| head`): stop quietly, as other tools do.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
