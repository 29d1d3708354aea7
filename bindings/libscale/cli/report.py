"""``libscale report``: one self-contained HTML page of a plan (the answer, figures, tables and
every assumption), for the people who approve its budget."""

from __future__ import annotations

import argparse
import os
import shlex
from typing import Any

from .. import _files, catalog
from ._common import (
    PROG,
    CliError,
    add_require_fit,
    check_output,
    integer,
)
from .project import add_plan, hardware_list, projection, quantile_options


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="one self-contained HTML page of a plan: answer, figures, tables, assumptions",
                       description="Project a training job over GPU counts (on one or several hardware) and write "
                                   "the result as one HTML page for the people who approve its budget.")
    add_plan(p)
    p.add_argument("--no-quantiles", dest="quantiles", action="store_false",
                   help="leave out the P10 / P90 intervals (by default each projected figure gets its 80%% interval "
                        "from the calibration's covariance)")
    p.add_argument("--samples", type=integer, default=None, metavar="N",
                   help="samples for the P10 / P90 intervals (default 2000)")
    p.add_argument("--seed", type=integer, default=None, metavar="SEED",
                   help="random seed for the P10 / P90 intervals (default: a fixed seed)")
    add_require_fit(p)
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="the HTML file to write (replaced atomically; a directory or other non-regular file is "
                        "refused)")
    p.add_argument("--title", default=None, metavar="TEXT",
                   help="the page's heading (default: 'Training plan: MODEL on HARDWARE')")
    p.set_defaults(run=run)


def _price_source(a: argparse.Namespace) -> str | None:
    # One hardware with --prices: project puts the file's price into the job, so the page
    # could not tell that it came from the file.
    if a.prices is None or len(hardware_list(a.hardware)) != 1:
        return None
    from ..compare import read_prices
    from ..report import _prices_file_source

    name = catalog.hardware(hardware_list(a.hardware)[0]).name.lower()
    if name not in read_prices(a.prices):
        return None
    note = _prices_file_source(a.prices)
    return f"price file {a.prices}" + (f" ({note})" if note else "")


def run(a: argparse.Namespace) -> int:
    if not a.output.strip():
        raise CliError("-o/--output: the path is empty; give a file name such as plan.html")
    if not a.quantiles and (a.seed is not None or a.samples is not None):
        raise CliError("--samples and --seed set the P10 / P90 intervals; they do not apply with --no-quantiles")
    # Figures go to files, never to a window.
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        from .. import report
        report._plot_module()
    except ImportError as e:
        raise CliError(str(e)) from None
    check_output(a, a.output, "the report")
    try:  # before the projection and figures are computed
        _files.check_target(a.output, "the report")
    except ValueError as e:
        raise CliError(f"-o/--output: {e}") from None
    result = projection(a, quantile_options(a))
    argv = getattr(a, "argv", None)
    command = shlex.join([PROG, *argv]) if argv is not None else None
    try:
        report.write_report(result, a.output, title=a.title, command=command, price_source=_price_source(a))
    except ImportError as e:
        raise CliError(str(e)) from None
    size = os.path.getsize(a.output)
    print(f"wrote {a.output} ({max(1, round(size / 1024)):,} KiB): {report._headline(result)}")
    return 0
