"""GPU power traces, power bands, offline triage, live triage streams and NVML."""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing

from . import _Pybind11Type, spec

class ParseReport(metaclass=_Pybind11Type):
    """What a trace parser read, skipped and dropped."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def source(self) -> str:
        """file path or '<string>'"""

    @property
    def lines(self) -> int:
        """lines read, blank ones included"""

    @property
    def samples(self) -> int:
        """rows in the trace"""

    @property
    def skipped_lines(self) -> int:
        """unparseable lines (skipped)"""

    @property
    def first_skipped_line(self) -> int:
        """1-based; 0 when none"""

    @property
    def first_skipped_text(self) -> str: ...

    @property
    def first_skipped_reason(self) -> str: ...

    @property
    def na_values(self) -> int:
        """'[N/A]', '[Not Supported]', NaN, or a GPU with no power"""

    @property
    def duplicate_timestamps(self) -> int:
        """same GPU, same time: the later row is dropped"""

    @property
    def non_monotonic_timestamps(self) -> int:
        """same GPU, earlier time: the row is dropped"""

    @property
    def first_bad_timestamp_line(self) -> int:
        """1-based; 0 when none"""

    @property
    def clock_steps(self) -> int:
        """nvidia-smi only: times the log's clock went back more than 5 s (later rows re-based)"""

    @property
    def clock_step_s(self) -> float:
        """seconds added to the rows after the steps, in all"""

    @property
    def first_clock_step_line(self) -> int:
        """1-based; 0 when none"""

    @property
    def gpu_name(self) -> str:
        """nvidia-smi with a name column: the GPU model the log names ('' when none or several)"""

    @property
    def mixed_gpu_names(self) -> bool:
        """the log's rows name more than one GPU model"""

    @property
    def scrapes(self) -> int:
        """dcgm only: scrapes seen"""

    @property
    def synthetic_time(self) -> bool:
        """dcgm only: no timestamps, time_s = scrape ordinal (0, 1, ...)"""

    @property
    def clean(self) -> bool:
        """nothing skipped, missing or dropped"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def summary(self) -> str:
        """One line for logs."""

    def __repr__(self) -> str: ...

class PowerTrace(metaclass=_Pybind11Type):
    """GPU power telemetry, one row per GPU per sample (columns as numpy arrays)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def time_s(self) -> numpy.typing.NDArray[numpy.float64]:
        """s"""

    @property
    def gpu(self) -> numpy.typing.NDArray[numpy.int32]:
        """nvidia-smi index / dcgm gpu label"""

    @property
    def power_w(self) -> numpy.typing.NDArray[numpy.float64]:
        """W"""

    @property
    def utilization_pct(self) -> numpy.typing.NDArray[numpy.float64]:
        """%, NaN when not reported"""

    @property
    def report(self) -> ParseReport: ...

    @property
    def gpus(self) -> list[int]:
        """distinct GPU ids"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def __len__(self) -> int: ...

    def __repr__(self) -> str: ...

class PowerBands(metaclass=_Pybind11Type):
    """Power band edges of the five phases, as fractions of board power."""
    _fields: typing.ClassVar[tuple[str, ...]]
    board_power_w: float
    idle_max_fraction: float
    checkpoint_max_fraction: float
    starvation_max_fraction: float
    communication_max_fraction: float
    idle_util_max_pct: float
    scale_with_power_limit: bool
    label: str
    edge_sources: dict[str, str]

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def thresholds_w(self, power_limit_w: float = ...) -> dict[str, typing.Any]:
        """Band edges in watts for a GPU with this enforced limit (NaN: board_power_w)."""

    def validate(self) -> None:
        """Raise ValueError naming the first invalid field."""

    def __copy__(self) -> PowerBands: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> PowerBands: ...

    def __repr__(self) -> str: ...

class ClassifierOptions(metaclass=_Pybind11Type):
    """Smoothing and hysteresis of the per-GPU classifier."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def smoothing_window_s(self) -> float:
        """s: trailing moving average of power over (t − window, t]"""

    @property
    def min_dwell_s(self) -> float:
        """s: a new phase must hold this long before it is adopted (then dated back)"""

    def __init__(self, *, smoothing_window_s: float = 1.0, min_dwell_s: float = 2.0) -> None:
        """Every field by keyword; validated."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class CheckpointSchedule(metaclass=_Pybind11Type):
    """Declared checkpoint saves (periodic and / or windows): the deadlock detector is silent inside them."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def first_start_s(self) -> float:
        """s: the first save's start"""

    @property
    def interval_s(self) -> float:
        """s between saves; 0: no periodic schedule"""

    @property
    def duration_s(self) -> float:
        """s each save lasts"""

    @property
    def windows(self) -> list[tuple[float, float]]:
        """declared saves as [(start_s, end_s), ...]"""

    def __init__(
        self,
        *,
        first_start_s: float = 0.0,
        interval_s: float = 0.0,
        duration_s: float = 0.0,
        windows: collections.abc.Sequence[tuple[float, float]] = [],
    ) -> None:
        """Every field by keyword; validated."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def covers(self, t_s: float) -> bool:
        """Whether a declared save covers time t_s."""

    def __repr__(self) -> str: ...

class DetectorOptions(metaclass=_Pybind11Type):
    """Deadlock, starvation and straggler thresholds, and declared checkpoint saves."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def util_threshold_pct(self) -> float:
        """%"""

    @property
    def expected_checkpoint_s(self) -> float:
        """s, 0: the declared saves' duration"""

    @property
    def deadlock_after_s(self) -> float:
        """T in s as given; 0: default_deadlock_after_s(expected save) (see deadlock_threshold_s)"""

    @property
    def starvation_after_s(self) -> float:
        """s"""

    @property
    def straggler_after_s(self) -> float:
        """s"""

    @property
    def checkpoints(self) -> CheckpointSchedule:
        """declared checkpoint saves"""

    @property
    def deadlock_threshold_s(self) -> float:
        """T in s (deadlock_after_s, or its default when 0)"""

    def __init__(
        self,
        *,
        util_threshold_pct: float = 90.0,
        expected_checkpoint_s: float = 0.0,
        deadlock_after_s: float = 0.0,
        starvation_after_s: float = 120.0,
        straggler_after_s: float = 60.0,
        checkpoints: CheckpointSchedule = ...,
    ) -> None:
        """Every field by keyword; validated."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class Alert(metaclass=_Pybind11Type):
    """A deadlock, data-starvation or straggler alert."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def kind(self) -> str:
        """'deadlock', 'data_starvation' or 'straggler'"""

    @property
    def time_s(self) -> float:
        """when it fired (a sample time), s"""

    @property
    def gpus(self) -> list[int]:
        """deadlock / starvation: the GPUs in that phase; straggler: the straggler"""

    @property
    def message(self) -> str: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class TriageResult(metaclass=_Pybind11Type):
    """Phase timelines, alerts, time and energy per phase."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def sample_phase(self) -> numpy.typing.NDArray[numpy.uint8]:
        """phase code of every trace row (PHASE_NAMES[code])"""

    @property
    def gpu_segments(self) -> dict[str, typing.Any]:
        """per-GPU timeline: dict of numpy arrays gpu, start_s, end_s, phase (code), mean_power_w"""

    @property
    def job_segments(self) -> dict[str, typing.Any]:
        """job timeline (gpu = -1), same columns"""

    @property
    def alerts(self) -> list[Alert]:
        """in time order"""

    @property
    def gpu_totals(self) -> dict[str, typing.Any]:
        """{gpu: {phase: {seconds, energy_j}}} (C++ per_gpu)"""

    @property
    def job_totals(self) -> dict[str, typing.Any]:
        """{phase: {seconds, energy_j}} for the job (C++ job)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class TriageOptions(metaclass=_Pybind11Type):
    """The classifier's and the detectors' options."""
    _fields: typing.ClassVar[tuple[str, ...]]
    classifier: ClassifierOptions
    detector: DetectorOptions

    def __init__(self) -> None: ...

    def validate(self) -> None: ...

class WatchOptions(metaclass=_Pybind11Type):
    """How `libscale watch` polls and acts (watch option table)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def interval_s(self) -> float:
        """poll interval [s]"""

    @property
    def stale_after_s(self) -> float:
        """a GPU without samples this long is lost; no action while any is [s]"""

    @property
    def speed(self) -> float:
        """replay a recorded trace at this multiple of real time [x]"""

    @property
    def nvml_power(self) -> typing.Literal['average', 'instant']:
        """NVML power reading: the 1 s average, or the instantaneous field 186"""

    @property
    def kill_on(self) -> str:
        """alert kinds that terminate the job: a comma list of deadlock, data_starvation, straggler, or none"""

    @property
    def grace_s(self) -> float:
        """seconds between SIGTERM and SIGKILL [s]"""

    @property
    def prometheus_interval_s(self) -> float:
        """seconds between Prometheus textfile writes [s]"""

    @property
    def follow(self) -> bool:
        """follow a growing nvidia-smi log (tail -f)"""

    @property
    def dry_run(self) -> bool:
        """log the signals it would send and send none"""
    _options_group: typing.ClassVar[str]

    def __init__(
        self,
        *,
        interval_s: float = 0.5,
        stale_after_s: float = 5.0,
        speed: float = 1.0,
        nvml_power: typing.Literal['average', 'instant'] = 'average',
        kill_on: str = 'deadlock',
        grace_s: float = 30.0,
        prometheus_interval_s: float = 5.0,
        follow: bool = False,
        dry_run: bool = False,
    ) -> None:
        """Every option by keyword, each checked by the core."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The options in table order (None: not set), then nested structs as dicts, then derived properties."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> WatchOptions: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> WatchOptions: ...

    def validate(self) -> None: ...

class NvidiaSmiCsvReader(metaclass=_Pybind11Type):
    """Incremental nvidia-smi CSV parser for a growing log: feed() chunks as they come."""

    @property
    def report(self) -> ParseReport: ...

    def __init__(self, source: str = '<stream>') -> None: ...

    def feed(self, chunk: bytes) -> dict[str, typing.Any]:
        """Rows parsed from the complete lines so far: dict of numpy arrays."""

    def finish(self) -> dict[str, typing.Any]:
        """Parses a last line without a newline."""

class DcgmScrapeParser(metaclass=_Pybind11Type):
    """Parses one dcgm-exporter scrape at a time."""

    @property
    def report(self) -> ParseReport: ...

    def __init__(self, source: str = '<dcgm>') -> None: ...

    def parse(self, text: str, time_s: float) -> dict[str, typing.Any]:
        """One scrape's samples, stamped time_s unless a line has its own."""

class PhaseChange(metaclass=_Pybind11Type):
    """A GPU's (gpu >= 0) or the job's (gpu = -1) change of phase."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def gpu(self) -> int:
        """-1: the job"""

    @property
    def first(self) -> bool:
        """the first phase seen (from_phase is meaningless)"""

    @property
    def from_phase(self) -> str:
        """C++ from"""

    @property
    def to_phase(self) -> str:
        """C++ to"""

    @property
    def start_s(self) -> float:
        """when the new phase began (dated back), s"""

    @property
    def detected_s(self) -> float:
        """the poll at which it was adopted, s"""

    @property
    def power_w(self) -> float:
        """smoothed W (GPU) or summed W (job)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __str__(self) -> str: ...

class GpuStatus(metaclass=_Pybind11Type):
    """One GPU as the stream sees it now."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def gpu(self) -> int: ...

    @property
    def present(self) -> bool:
        """has fresh data"""

    @property
    def phase(self) -> str:
        """a PHASE_NAMES name"""

    @property
    def phase_since_s(self) -> float: ...

    @property
    def power_w(self) -> float:
        """smoothed W"""

    @property
    def utilization_pct(self) -> float: ...

    @property
    def power_limit_w(self) -> float:
        """NaN: unknown (bands use board_power_w)"""

    @property
    def last_time_s(self) -> float: ...

    @property
    def samples(self) -> int: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class StreamOptions(metaclass=_Pybind11Type):
    """Options of a TriageStream."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def stale_after_s(self) -> float:
        """a GPU whose last sample is older than this is lost (s; an assumption to tune per source)"""

    def __init__(self, *, stale_after_s: float = 5.0) -> None:
        """Every field by keyword; validated."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class TriageStream(metaclass=_Pybind11Type):
    """Live triage: push one poll of samples at a time; phase changes and alerts come back."""

    @property
    def job_phase(self) -> typing.Any: ...

    @property
    def job_phase_since_s(self) -> float: ...

    @property
    def last_time_s(self) -> float: ...

    @property
    def alert_counts(self) -> dict[str, typing.Any]: ...

    @property
    def bands(self) -> PowerBands: ...

    @property
    def deadlock_after_s(self) -> float: ...

    def __init__(
        self,
        bands: PowerBands,
        classifier: ClassifierOptions = ...,
        detector: DetectorOptions = ...,
        stream: StreamOptions = ...,
    ) -> None: ...

    def push(
        self,
        time_s: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
        gpu: typing.Annotated[numpy.typing.ArrayLike, numpy.int32],
        power_w: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
        utilization_pct: typing.Annotated[numpy.typing.ArrayLike, numpy.float64],
        *,
        now_s: float = ...,
    ) -> dict[str, typing.Any]:
        """One poll. Returns {time_s, changes: [PhaseChange], alerts: [Alert], lost: [gpu], returned: [gpu],
        dropped_samples}.
        """

    def advance(self, now_s: float) -> dict[str, typing.Any]:
        """A poll without data: lost GPUs are detected and the clocks move on."""

    def set_power_limit_w(self, gpu: int, power_limit_w: float) -> None: ...

    def expect_gpus(self, gpus: collections.abc.Sequence[int]) -> None:
        """The job's GPUs: no deadlock alert until each has fresh data."""

    def add_checkpoint_window(self, start_s: float, end_s: float) -> None: ...

    def gpus(self) -> list[GpuStatus]: ...

    def __repr__(self) -> str: ...

class NvmlSource(metaclass=_Pybind11Type):
    """Live GPU power readings from NVML, loaded from the NVIDIA driver at run time (LIBSCALE_NVML_LIBRARY overrides the
    path of libnvidia-ml.so.1).
    """

    @property
    def library_path(self) -> str:
        """The path given to dlopen."""

    def __init__(self, indices: collections.abc.Sequence[int] = []) -> None:
        """Load NVML and select the GPUs with these NVML indices (empty: every GPU). Raises NvmlError when NVML is
        missing or fails, ValueError for a bad index.
        """

    def gpus(self) -> list[typing.Any]:
        """One dict per selected GPU: index, name, uuid, power_limit_w (None if unsupported)."""

    def poll(self) -> dict[str, typing.Any]:
        """Read every selected GPU once: a dict of numpy arrays, one entry per GPU (index, time_s, power_w,
        power_instant_w, utilization_pct, energy_j, power_limit_w, error) and error_text, a list of str. NaN: reading
        unsupported or failed; error is the NVML return code of a GPU's first failing read (15: GPU lost), 0 if none.
        Never raises for one GPU's failure.
        """

    def __repr__(self) -> str: ...

def alert_kinds(kill_on: str) -> list[str]:
    """The alert kinds of a kill_on list ('deadlock,straggler'; 'none': none)."""

def default_power_bands(hardware: spec.HardwareProfile) -> PowerBands:
    """Default (uncalibrated) power bands of a HardwareProfile."""

def read_power_bands(path: str, hardware: spec.HardwareProfile) -> PowerBands:
    """The power_bands section of a calibration file made on this hardware."""

def read_trace(path: str, format: str = 'auto') -> PowerTrace:
    """Read an nvidia-smi CSV log or dcgm-exporter Prometheus text (format auto|nvidia-smi|dcgm)."""

def triage(
    trace: PowerTrace,
    bands: PowerBands,
    classifier: ClassifierOptions = ...,
    detector: DetectorOptions = ...,
) -> TriageResult:
    """Classify every GPU's power into phases, build the GPU and job timelines and detect alerts."""
DEFAULT_DEADLOCK_AFTER_S: float
PHASE_NAMES: tuple[typing.Any, ...]
