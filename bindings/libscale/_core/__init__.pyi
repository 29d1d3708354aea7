"""Type stubs for libscale._core, the compiled C++ core (bindings/src): one submodule per
capability of the core, as libscale/src/<capability>. This directory holds only .pyi
files (no __init__.py), so importing libscale._core still loads the extension module."""


from . import calibrate as calibrate
from . import estimate as estimate
from . import gate as gate
from . import io as io
from . import spec as spec
from . import triage as triage

__version__: str

# --- errors (errors.cpp): the one table of C++ exceptions to Python exceptions ---------

class LibscaleError(ValueError): ...

class UnknownNameError(LibscaleError):
    suggestions: tuple[str, ...]

class DoesNotFitError(LibscaleError):
    needed_gib: float | None
    available_gib: float | None

class ParseError(LibscaleError): ...

class NvmlError(LibscaleError):
    nvml_return: int | None

# --- the bound classes' metaclass -------------------------------------------------------

class _Pybind11Type(type):
    """Stands for pybind11_builtins.pybind11_type, the metaclass of every class bound with
    pybind11 (not importable by that name)."""

# --- progress of the long calls (progress.cpp) ------------------------------------------

class Progress(metaclass=_Pybind11Type):
    """Work done and total of a long compiled call, read while it runs from another thread.
    Pass a new one as progress= to each call; the unit is the call's own (gate and pack:
    samples; sweep: elements; fit: optimizer iterations, an upper bound). With one, Ctrl-C
    interrupts the call (KeyboardInterrupt)."""

    def __init__(self) -> None: ...

    @property
    def done(self) -> int:
        """work done so far"""

    @property
    def total(self) -> int:
        """the call's work; 0 until it starts"""

    def __repr__(self) -> str: ...
