"""Figures of libscale's results (matplotlib, an optional dependency: pip install
'libscale[plot]'). Every function draws on ``ax`` when given, else on a new figure, and
returns the Axes (``costs`` with several metrics: the array of its panels' Axes).

    >>> import libscale, libscale.plot
    >>> p = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16, 32], gpus_per_node=8)
    >>> libscale.plot.scaling(p)       # doctest: +SKIP
    >>> p.plot("breakdown")            # the same through the result  # doctest: +SKIP

Colours are fixed per hardware, per step part, per power phase and per record kind, so a
B300 or a GEMM is the same colour in every figure.
"""

from __future__ import annotations

try:
    import matplotlib  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("libscale.plot needs matplotlib, which is not installed: "
                      "pip install 'libscale[plot]' (or pip install matplotlib)") from e

from typing import Any

from matplotlib.axes import Axes

from ._fit import residuals
from ._gate import gate_ranks
from ._projection import COST_METRICS, SCALING_METRICS, breakdown, costs, scaling
from ._style import hardware_color
from ._triage import power_timeline

__all__ = ["scaling", "breakdown", "costs", "residuals", "power_timeline", "gate_ranks", "hardware_color",
           "SCALING_METRICS", "COST_METRICS", "PROJECTION_KINDS"]

#: What Projection.plot(kind=...) draws.
PROJECTION_KINDS = ("scaling", "breakdown", "costs")


def projection(result: Any, kind: str = "scaling", ax: Axes | None = None, **kw: Any) -> Any:
    """scaling / breakdown / costs of a Projection (or of a Comparison, except breakdown):
    what Projection.plot calls."""
    if kind == "scaling":
        return scaling(result, ax=ax, **kw)
    if kind == "breakdown":
        return breakdown(result, ax=ax, **kw)
    if kind == "costs":
        return costs(result, ax=ax, **kw)
    raise ValueError(f"kind: {kind!r} is not one of {', '.join(PROJECTION_KINDS)}")
