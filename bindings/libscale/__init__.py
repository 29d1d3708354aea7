"""libscale: strong-scaling, GPU-hour and run-safety calculator for FSDP / ZeRO training.

The C++ core (``libscale._core``) computes every number; this package gives it keyword
front ends, result conversions (``to_dict()``, ``to_pandas()``, Jupyter HTML) and the
``libscale`` command line.

    >>> import libscale
    >>> p = libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], gpus_per_node=8,
    ...                      global_batch_tokens=1_048_576, tokens=1e9)
    >>> p.to_pandas()  # doctest: +SKIP
"""

from __future__ import annotations

import pkgutil as _pkgutil

# A development build (cmake -DLIBSCALE_BUILD_PYTHON=ON) puts _core in
# <build>/bindings/libscale; with PYTHONPATH=<build>/bindings:bindings both halves join.
__path__ = _pkgutil.extend_path(__path__, __name__)

from . import (
    _core,
    options,
)
from ._api import (
    count_parameters,
    default_calibration,
    default_power_bands,
    describe_issue,
    fit,
    flops_per_token,
    gate,
    hardware,
    hardware_names,
    model,
    models,
    pack,
    packing_names,
    power_bands,
    read_calibration,
    read_lengths,
    read_measurements,
    read_trace,
    training_config,
    triage,
    triage_options,
    triage_stream,
)
from ._core import (
    DoesNotFitError,
    LibscaleError,
    NvmlError,
    ParseError,
    UnknownNameError,
)
from ._core.calibrate import (
    AttentionLaw,
    Calibration,
    CalibrationFile,
    Coefficient,
    FamilyScore,
    GemmLaw,
    LinkLevel,
    MeasurementSet,
)
from ._core.estimate import (
    ComputeTimes,
    Job,
    MemoryBreakdown,
    ProjectionRow,
    Quantiles,
    RowQuantiles,
    StepBreakdown,
)
from ._core.gate import OverflowCounts
from ._core.spec import (
    CheckpointPolicy,
    DataPipeline,
    FlopsPerToken,
    HardwareProfile,
    ModelSpec,
    ParameterCounts,
    TrainingConfig,
)
from ._core.triage import (
    PHASE_NAMES,
    Alert,
    ClassifierOptions,
    DetectorOptions,
    GpuStatus,
    NvmlSource,
    ParseReport,
    PhaseChange,
    PowerBands,
    PowerTrace,
    TriageStream,
)
from ._progress import set_progress
from .compare import Comparison, compare, read_prices
from .fit_advice import FitAdvice
from .fit_result import FitResult, Measurements
from .gate_result import GateResult, PackResult
from .plan import Plan, estimate_step, fit_advice, layouts, project, solve_budget, solve_deadline, sweep
from .results import (
    Layouts,
    Projection,
    Solution,
    Step,
    Sweep,
    to_jsonable,
)
from .triage_result import TriageResult

# The results under their plain names (the compiled Projection and Solution they hold are
# libscale._core.estimate's); the earlier names stay.
SweepResult = Sweep
ProjectionResult = Projection
SolutionResult = Solution
from .validation import Validation, validate  # noqa: E402

__version__: str = _core.__version__

__all__ = [
    "__version__",
    # catalog
    "model",
    "models",
    "hardware",
    "hardware_names",
    "default_calibration",
    # model arithmetic
    "count_parameters",
    "flops_per_token",
    # estimates
    "Plan",
    "options",
    "Step",
    "Sweep",
    "ProjectionResult",
    "SolutionResult",
    "training_config",
    "estimate_step",
    "fit_advice",
    "FitAdvice",
    "project",
    "sweep",
    "solve_deadline",
    "solve_budget",
    "layouts",
    "Layouts",
    "compare",
    "Comparison",
    "read_prices",
    "describe_issue",
    "to_jsonable",
    # calibration
    "read_measurements",
    "fit",
    "read_calibration",
    "validate",
    "Validation",
    # packing gate
    "gate",
    "pack",
    "read_lengths",
    "packing_names",
    "GateResult",
    "PackResult",
    "OverflowCounts",
    # power triage
    "read_trace",
    "triage",
    "triage_stream",
    "triage_options",
    "power_bands",
    "default_power_bands",
    "ClassifierOptions",
    "DetectorOptions",
    "TriageStream",
    "PhaseChange",
    "GpuStatus",
    "NvmlSource",
    "PowerTrace",
    "ParseReport",
    "PowerBands",
    "Alert",
    "TriageResult",
    "PHASE_NAMES",
    # types
    "ModelSpec",
    "ParameterCounts",
    "FlopsPerToken",
    "HardwareProfile",
    "LinkLevel",
    "GemmLaw",
    "AttentionLaw",
    "Calibration",
    "TrainingConfig",
    "DataPipeline",
    "CheckpointPolicy",
    "MemoryBreakdown",
    "StepBreakdown",
    "ComputeTimes",
    "Job",
    "ProjectionRow",
    "Projection",
    "Solution",
    "SweepResult",
    "MeasurementSet",
    "Measurements",
    "FitResult",
    "Coefficient",
    "FamilyScore",
    "CalibrationFile",
    "Quantiles",
    "RowQuantiles",
    # progress bars
    "set_progress",
    # errors
    "LibscaleError",
    "UnknownNameError",
    "DoesNotFitError",
    "ParseError",
    "NvmlError",
]
