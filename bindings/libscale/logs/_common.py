"""What the log parsers share: reading the input, the configuration keywords (derived
from the option schema and the measurements schema) and building step records."""

from __future__ import annotations

import codecs
import functools
import gc
import math
import numbers
import os
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from .. import options as _options
from .. import schemas as _schemas
from .._core import ParseError
from .._core import spec as _spec
from .._files import open_input
from .._progress import Progress

FORMATS = ("auto", "hf", "torchtitan", "csv")

F = TypeVar("F", bound=Callable[..., Any])

_TIMING_KEYS = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu")
_STEP = _schemas.load("measurements-2")["$defs"]["step"]

_TRAINING_KEYS = frozenset(_options.names("training")) & frozenset(_STEP["properties"])

#: A step record's configuration: what was measured (model, hardware), then, in the
#: measurements schema's order, every training option a step record carries (each typed
#: and checked as the core's training option table declares it) and grad_accum (a record
#: field; the core's option is global_batch_tokens).
CONFIG_KEYS: tuple[str, ...] = ("model", "hardware") + tuple(
    k for k in _STEP["properties"] if k in _TRAINING_KEYS or k == "grad_accum")
#: What the measurement loader needs in every record (the schema's required fields).
_REQUIRED = tuple(k for k in _STEP["required"] if k != "kind")

#: Columns a CSV may have.
CSV_COLUMNS = CONFIG_KEYS + _TIMING_KEYS + ("source",)

#: torchtitan's words for two activation checkpointing modes ("op": selective per operator).
_AC_ALIASES = {"off": "none", "op": "selective"}

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_ANSI_BYTES = re.compile(_ANSI.pattern.encode())


class Records(list[dict[str, Any]]):
    """The records a parser found (a plain list of dicts) plus ``notes`` (what was skipped or
    assumed, one sentence each) and ``format`` ("hf", "torchtitan" or "csv")."""

    def __init__(self, items: Iterable[dict[str, Any]] = (), *, notes: list[str] | None = None,
                 format: str = "") -> None:
        super().__init__(items)
        self.notes: list[str] = notes if notes is not None else []
        self.format = format


# --- input --------------------------------------------------------------------------

#: Files are read in chunks of this size, so that a progress bar follows a large log.
_CHUNK = 8 << 20
#: The largest log read, in bytes: the whole file is held in memory while it is parsed.
MAX_LOG_BYTES = 8 << 30
_BOM = b"\xef\xbb\xbf"


class _Lines:
    """A log's bytes for scanning: line breaks only \\n, \\r or \\r\\n, lines numbered as
    ``str.splitlines()`` numbers them. Positions given are offsets of line content (never
    the \\n of a \\r\\n)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.has_cr = b"\r" in data
        self._at = (0, 1)  # (offset, its line): counting goes on from the last question

    def line_of(self, pos: int) -> int:
        start, line = self._at if self._at[0] <= pos else (0, 1)
        d = self.data
        n = d.count(b"\n", start, pos)
        if self.has_cr:
            cr = d.count(b"\r", start, pos)
            if cr:
                n += cr - self._crlf(start, pos)
        self._at = (pos, line + n)
        return line + n

    def _crlf(self, start: int, end: int) -> int:
        """Number of \\r\\n in [start, end): numpy finds the \\n and looks at the byte before
        each, where a search for the two bytes would stop at every \\r of a tqdm log."""
        if end - start < 2:
            return 0
        a = np.frombuffer(self.data, np.uint8, end - start, start)
        return int(np.count_nonzero(a[np.flatnonzero(a[1:] == 10)] == 13))

    def count(self) -> int:
        """len(text.splitlines())."""
        if not self.data:
            return 0
        last = self.line_of(len(self.data))
        return last - 1 if self.data.endswith((b"\n", b"\r")) else last

    def bounds(self, pos: int) -> tuple[int, int]:
        """Start and end (before the line break) of the line holding POS."""
        d = self.data
        start = d.rfind(b"\n", 0, pos) + 1
        end = d.find(b"\n", pos)
        if end < 0:
            end = len(d)
        if self.has_cr:
            start = d.rfind(b"\r", start, pos) + 1 or start
            cr = d.find(b"\r", pos, end)
            end = cr if cr >= 0 else end
        return start, end


def _exotic_breaks(data: bytes) -> bool:
    """Whether DATA (UTF-8) has a line break of str.splitlines() other than \\n and \\r:
    \\v, \\f, \\x1c-\\x1e, U+0085, U+2028, U+2029. Single-byte searches first: they are
    memchr, where a multi-byte one costs a pass at every candidate byte."""
    if any(c in data for c in (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")):
        return True
    if b"\xc2" in data and b"\xc2\x85" in data:
        return True
    return (b"\xa8" in data or b"\xa9" in data) and (b"\xe2\x80\xa8" in data or b"\xe2\x80\xa9" in data)


class _Text:
    """A log: its UTF-8 bytes (``data``, what the scans read), its text (``text``, decoded
    when first asked for), its name for messages and whether it ended with a line break."""

    def __init__(self, data: bytes, origin: str, text: str | None = None) -> None:
        self.data = data
        self.origin = origin
        self._text = text
        self._lines: list[str] | None = None
        self._scans: dict[bool, _Lines] = {}
        self._count: int | None = None
        self._exotic: bool | None = None
        self.ends_with_newline = data.endswith((b"\n", b"\r"))
        #: What detect_format parsed already, for the parser it hands this text to.
        self.cache: dict[str, Any] = {}

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.data.decode("utf-8", "surrogatepass")
        return self._text

    @property
    def lines(self) -> list[str]:
        """text.splitlines(): the lines every line number refers to."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines

    def line_count(self) -> int:
        """len(lines), counted on the bytes when the text has not been split."""
        if self._count is None:
            self._count = len(self._lines) if self._lines is not None else self.scan(keep_ansi=True).count()
        return self._count

    def set_line_count(self, n: int) -> None:
        self._count = n

    def scan(self, *, keep_ansi: bool) -> _Lines:
        """The bytes the parsers scan: line breaks made \\n / \\r / \\r\\n only (a text with
        another kind is re-joined from its lines), and ANSI escapes removed unless KEEP_ANSI.
        An escape holds no line break, so line numbers are those of ``lines``."""
        if keep_ansi not in self._scans:
            data = self.data
            if self._exotic is None:
                self._exotic = _exotic_breaks(data)
            if self._exotic:
                data = "\n".join(self.lines).encode("utf-8", "surrogatepass")
            if not keep_ansi and b"\x1b" in data:
                data = _ANSI_BYTES.sub(b"", data)
            self._scans[keep_ansi] = _Lines(data)
        return self._scans[keep_ansi]

    def error(self, line: int | None, what: str) -> Exception:
        where = f"{self.origin}:{line}" if line else self.origin
        return ParseError(f"{where}: {what}")

    def is_half_written(self, lineno: int) -> bool:
        """Line LINENO (1-based) is the last one and the file stops without a newline."""
        return lineno == self.line_count() and not self.ends_with_newline

    def first_chars(self, *, keep_ansi: bool = True) -> str:
        """The first two characters after leading whitespace (str.lstrip()'s), of the text
        or (not KEEP_ANSI) of the text without ANSI escapes."""
        data = self.data
        i = _skip(_LEADING_SPACE if keep_ansi else _LEADING_SPACE_OR_ESCAPE, data, 0)
        j = i + 1 if keep_ansi else _skip(_ESCAPES, data, i + 1)
        if i < len(data) and data[i] < 0x80 and (j >= len(data) or data[j] < 0x80):
            return (data[i:i + 1] + data[j:j + 1]).decode()
        # a non-ASCII character: it may be whitespace str.lstrip() removes
        return (self.text if keep_ansi else _ANSI.sub("", self.text)).lstrip()[:2]


_LEADING_SPACE = re.compile(rb"[ \t\n\r\x0b\x0c\x1c-\x1f]*")
_LEADING_SPACE_OR_ESCAPE = re.compile(rb"(?:[ \t\n\r\x0b\x0c\x1c-\x1f]|\x1b\[[0-9;]*[A-Za-z])*")
_ESCAPES = re.compile(rb"(?:\x1b\[[0-9;]*[A-Za-z])*")


def _skip(rx: re.Pattern[bytes], data: bytes, pos: int) -> int:
    """Where RX (which matches the empty string too) stops matching from POS."""
    m = rx.match(data, pos)
    return m.end() if m else pos

_MAGIC = [
    (b"\xff\xd8\xff", "a JPEG image"), (b"\x89PNG", "a PNG image"), (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a zip archive"), (b"\x1f\x8b", "a gzip file"),
    (b"\x7fELF", "an ELF binary"), (b"\x93NUMPY", "a numpy array"), (b"BZh", "a bzip2 file"),
]


def _check_head(data: bytes, origin: str, expected: str) -> None:
    """A foreign file (an image, an archive, binary data) is named as such from its head."""
    head = data[:16]
    kind = next((name for magic, name in _MAGIC if data.startswith(magic)), None)
    if kind or b"\x00" in data[:65536]:
        what = kind or "binary data"
        raise ParseError(f"{origin}:1: this is {what} (starts with bytes {head[:8].hex(' ')}), "
                         f"not a text log; expected {expected}")


def _not_utf8(data: bytes, at: int, origin: str, expected: str) -> ParseError:
    line = data.count(b"\n", 0, at) + 1
    return ParseError(f"{origin}:{line}: not UTF-8 text (byte 0x{data[at]:02x} at offset {at}); "
                      f"expected {expected}")


def _decode(data: bytes, origin: str, expected: str, *, checked: bool = False) -> _Text:
    """DATA as a _Text, once it is known to be UTF-8 text (CHECKED: _read_file has decoded
    it already, chunk by chunk)."""
    if not data or data.isspace():
        raise ParseError(f"{origin}: the file is empty; expected {expected}")
    _check_head(data, origin, expected)
    skip = len(_BOM) if data.startswith(_BOM) else 0
    body = data[skip:] if skip else data
    if checked or body.isascii():  # valid UTF-8 as it is: decoded only if asked for
        return _Text(body, origin)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(data, e.start + skip, origin, expected) from None
    return _Text(body, origin, text)


def _read_file(path: str, expected: str) -> _Text:
    """The file, read with a progress bar where one can be drawn: it appears once reading
    takes a second (a large log, a slow disk). The bar follows the bytes read and decoded;
    the decoding (UTF-8 validity: the only pass over the text besides the parsers') is
    done chunk by chunk as they come."""
    with open_input(path, expected) as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_LOG_BYTES:
            raise ValueError(f"{path}: {size:,} bytes, larger than the {MAX_LOG_BYTES:,} read for {expected}; "
                             "split it, or give the part that holds the run")
        with Progress(size, f"reading {os.path.basename(path)}", unit="B") as bar:
            if size <= _CHUNK or not bar.active:
                return _decode(f.read(), path, expected)
            parts: list[bytes] = []
            done = 0  # bytes before the decoder's input
            decoder = codecs.getincrementaldecoder("utf-8")()
            while chunk := f.read(_CHUNK):
                if not parts:
                    _check_head(chunk, path, expected)
                    if chunk.startswith(_BOM):
                        done = len(_BOM)
                parts.append(chunk)
                view = chunk[done:] if len(parts) == 1 else chunk
                pending = len(decoder.getstate()[0])
                try:
                    if pending or not view.isascii():
                        decoder.decode(view)
                except UnicodeDecodeError as e:
                    raise _not_utf8(b"".join(parts), done - pending + e.start, path, expected) from None
                done += len(view)
                bar.update(len(chunk))
            try:
                decoder.decode(b"", final=True)
            except UnicodeDecodeError as e:
                raise _not_utf8(b"".join(parts), done - len(decoder.getstate()[0]) + e.start, path, expected) from None
            return _decode(b"".join(parts), path, expected, checked=True)


def _read(text_or_path: Any, expected: str) -> _Text:
    """TEXT_OR_PATH: a path (str without a newline naming a file, or os.PathLike), the text
    itself (str with a newline), bytes, or a _Text already read."""
    if isinstance(text_or_path, _Text):
        return text_or_path
    if isinstance(text_or_path, bytes):
        return _decode(text_or_path, "<text>", expected)
    if isinstance(text_or_path, os.PathLike) or (
            isinstance(text_or_path, str) and "\n" not in text_or_path and "\r" not in text_or_path
            and (os.path.isfile(text_or_path) or os.sep in text_or_path
                 or re.search(r"\.(log|txt|out|err|csv|json|tsv)$", text_or_path, re.I))):
        path = os.fsdecode(text_or_path)
        try:
            return _read_file(path, expected)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such file") from None
        except ParseError:
            raise
        except ValueError as e:  # a directory, a FIFO, a device, a link loop, too large
            raise ParseError(str(e)) from None
    if isinstance(text_or_path, str):
        if not text_or_path.strip():
            raise ParseError(f"<text>: the text is empty; expected {expected}")
        return _Text(text_or_path.encode("utf-8", "surrogatepass"), "<text>", text_or_path)
    raise TypeError(f"expected a path or the log's text, got {type(text_or_path).__name__}")


def _no_gc(f: F) -> F:
    """Runs F with the cyclic garbage collector off: a parser builds up to hundreds of
    thousands of small containers that form no cycles, and the collections their
    allocation triggers would cost more than the parse itself."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return f(*args, **kwargs)
        gc.disable()
        try:
            return f(*args, **kwargs)
        finally:
            gc.enable()

    return wrapper  # type: ignore[return-value]


# --- configuration -------------------------------------------------------------------


def _config_value(name: str, value: Any) -> Any:
    """VALUE of configuration key NAME as a record holds it. A training option is checked
    by the core (TypeError for a value of the wrong kind, ValueError naming what is valid);
    a choice is matched case-insensitively, as logs spell them."""
    if name in ("model", "hardware", "source"):
        if not isinstance(value, str) or not value.strip():
            raise TypeError(f"{name}: expected a non-empty string, got {value!r}")
        return value.strip()
    if name == "grad_accum":
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value).is_integer():
            raise TypeError(f"{name}: expected a positive integer, got {value!r}")
        if float(value) <= 0:
            raise ValueError(f"{name} = {value!r}; it must be a positive integer")
        return int(float(value))
    kind = _options.option("training", name).type
    if kind == "choice" and isinstance(value, str):
        value = value.strip().lower()
        if name == "activation_checkpointing":
            value = _AC_ALIASES.get(value, value)
    _spec.make_options("training", {name: value})  # the core's check, the only one
    # the name as given, not the core's canonical one (full_shard stays full_shard)
    return int(value) if kind == "integer" else float(value) if kind == "number" else value


def _from_text(name: str, text: str) -> Any:
    """A CSV cell as its key's Python type; _config_value then checks it."""
    kind = "integer" if name == "grad_accum" else "text" if name in ("model", "hardware") else \
        _options.option("training", name).type
    if kind in ("integer", "number"):
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{name} = {text!r} is not a number") from None
    if kind == "boolean":
        flag = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(text.lower())
        if flag is None:
            raise ValueError(f"{name} = {text!r}; valid: true or false")
        return flag
    return text


def _check_config(config: dict[str, Any], caller: str) -> dict[str, Any]:
    """The caller's keyword configuration, checked (None: not given)."""
    unknown = sorted(set(config) - set(CONFIG_KEYS) - {"source"})
    if unknown:
        raise TypeError(f"{caller}: unknown keyword {unknown[0]!r}; valid: "
                        f"{', '.join(sorted(CONFIG_KEYS + ('source',)))}")
    out: dict[str, Any] = {}
    for k, v in config.items():
        try:
            out[k] = None if v is None else _config_value(k, v)
        except (TypeError, ValueError) as e:
            raise _about(k, e) from None
    return out


def _about(field: str, error: Exception) -> Exception:
    """ERROR tagged with the configuration key it concerns (``error.field``), so a front end
    can name the flag that sets it (``libscale fit --seq-len``)."""
    setattr(error, "field", field)  # noqa: B010 (exceptions have no declared field attribute)
    return error


def _ac_mode(word: str) -> str | None:
    """An activation checkpointing mode as a log names it, or None when it is none we know."""
    mode = _AC_ALIASES.get(word.lower(), word.lower())
    return mode if mode in _options.option("training", "activation_checkpointing").choices else None


def _with_config_doc(f: F) -> F:
    """Appends the configuration keywords, from the option schema, to F's docstring."""
    lines = ["    CONFIG (keywords; what the log lacks, and a value the log states must agree):",
             "      model, hardware: catalog names; grad_accum: micro-batches per optimizer step;",
             "      source: the record's provenance (default: the file and line)."]
    lines += [f"      {o.name}: {o.help}{f' ({o.unit})' if o.unit else ''}; valid: {o.valid()}"
              for o in _options.options("training") if o.name in _TRAINING_KEYS]
    f.__doc__ = (f.__doc__ or "").rstrip() + "\n\n" + "\n".join(lines) + "\n"
    return f


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return bool(a == b)


class _Found:
    """Configuration values found in a log, each with where it was found."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.where: dict[str, str] = {}

    def set(self, field: str, value: Any, where: str) -> None:
        self.values[field] = value
        self.where[field] = where

    def copy(self) -> _Found:
        c = _Found()
        c.values, c.where = dict(self.values), dict(self.where)
        return c


def _record(src: _Text, found: _Found, given: dict[str, Any], timing: tuple[str, float], source: str,
            extra: dict[str, Any] | None = None, line: int | None = None) -> dict[str, Any]:
    """One step record: the log's values, else the caller's; a disagreement is an error."""
    rec: dict[str, Any] = {"kind": "step"}
    for field in CONFIG_KEYS:
        logged, wanted = found.values.get(field), given.get(field)
        if logged is not None and wanted is not None and not _same(logged, wanted):
            raise _about(field, src.error(line, f"{field}: the log says {logged!r} ({found.where[field]}) "
                                                f"but {field}={wanted!r} was given"))
        value = logged if logged is not None else wanted
        if value is not None:
            rec[field] = value
    if "grad_accum" in rec and "global_batch_tokens" in rec:
        # The schema takes one of the two; keep grad_accum, check the other agrees.
        mb, sl, g = rec.get("micro_batch"), rec.get("seq_len"), rec.get("gpus")
        if mb and sl and g and mb * sl * g * rec["grad_accum"] != rec["global_batch_tokens"]:
            raise src.error(line, f"global_batch_tokens = {rec['global_batch_tokens']} disagrees "
                                  f"with gpus x micro_batch x seq_len x grad_accum = "
                                  f"{g} x {mb} x {sl} x {rec['grad_accum']}")
        del rec["global_batch_tokens"]
    for field in _REQUIRED:
        if field not in rec:
            raise _about(field, src.error(line, f"{field}: not found in the log; pass {field}=..."))
    key, value = timing
    rec[key] = value
    rec["source"] = given.get("source") or source
    if extra:
        rec.update(extra)
    return rec


def _record_template(src: _Text, found: _Found, given: dict[str, Any], key: str,
                     line: int | None = None) -> tuple[dict[str, Any], str | None]:
    """What _record gives every record of one configuration and timing KEY, checked once
    (errors name LINE): the record with placeholders for KEY and "source" (``rec =
    template.copy(); rec[KEY] = ...; rec["source"] = ...`` makes one, in _record's key order,
    without growing the dict), and the caller's source or None."""
    return _record(src, found, given, (key, 0.0), "", None, line), given.get("source") or None


#: Thousands separators as loggers print them (torchtitan's "tps: 5,731"): a first group of
#: one to three digits, then groups of three. "5,7" is a line cut mid-number.
_GROUPED = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?")


def _time_value(src: _Text, line: int | None, name: str, value: Any) -> float:
    """A timing figure: a finite positive number, or an error naming the line."""
    if isinstance(value, str) and "," in value and not _GROUPED.fullmatch(value.strip()):
        raise src.error(line, f"{name} = {value!r} is not a number: its thousands separators are broken "
                              "(a line cut mid-number?)")
    try:
        x = float(str(value).replace(",", "")) if not isinstance(value, numbers.Real) else float(value)
    except ValueError:
        raise src.error(line, f"{name} = {value!r} is not a number") from None
    if math.isnan(x) or math.isinf(x) or x <= 0:
        raise src.error(line, f"{name} = {value!r}; a time or rate must be a finite number > 0")
    return x


def _int_text(s: str) -> int:
    return int(s.replace(",", "").replace("_", ""))


def _percentiles(xs: npt.NDArray[np.float64], qs: Iterable[float]) -> list[float]:
    """Each Q-th percentile of XS (no NaN), interpolated linearly between the closest ranks
    (numpy's default). Only the order statistics that needs are put in place
    (np.partition), not the whole array sorted."""
    n = len(xs)
    ranks = []
    for q in qs:
        pos = (n - 1) * q / 100.0
        lo = math.floor(pos)
        ranks.append((pos, lo, min(lo + 1, n - 1)))
    part = np.partition(xs, sorted({i for _, lo, hi in ranks for i in (lo, hi)}))
    out = []
    for pos, lo, hi in ranks:
        a, b = float(part[lo]), float(part[hi])
        out.append(a + (b - a) * (pos - lo) if n > 1 else a)
    return out
