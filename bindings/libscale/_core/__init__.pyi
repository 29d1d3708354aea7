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
