// Scanning a torchtitan console log for its step lines, for the Python log parser
// (bindings/libscale/logs/torchtitan.py), which reads the rest of the log itself.
//
// A log of a long run is hundreds of thousands of step lines (torchtitan
// components/metrics.py, MetricsProcessor.log):
//
//   [rank0]:[titan] 2025-06-03 14:02:44,209 - root - INFO - step: 10  loss:  9.8741  grad_norm:  5.1873
//       memory: 52.87GiB(55.65%)  tps: 5,731  tflops: 278.62  mfu: 28.17%
//
// (one line), older releases print wps for tps and neither grad_norm nor tflops, and
// unless --metrics.disable_color_printing every field comes with an ANSI colour code.
// Python's re reads such a line in about a microsecond; this reads it in a few tens of
// nanoseconds.
//
// The Python parser defines what a log means; this scanner only takes over the lines whose
// reading is unambiguous and hands every other line that could matter back to it:
//
// * Lines are numbered and split as Python's str.splitlines() does (\n, \r, \r\n, \v, \f,
//   \x1c-\x1e, U+0085, U+2028, U+2029); the text must be valid UTF-8.
// * ANSI escapes (ESC [ digits-or-semicolons letter) are removed from a line first.
// * Deferred (returned by position, for the caller to read): a line naming the
//   configuration ("batch size", "sequence length", "accumulation", "device mesh",
//   "Applied "); a line with "step:" that also has a byte >= 0x80, more than one "step:",
//   no tps/wps after its loss, or any field this scanner does not read exactly as the
//   Python parser's regular expressions would (a second "memory:" after a first that does
//   not parse, a rate of 0, a number float() would reject, ...).
// * Parsed: a line with one "step: N  loss: X" (not preceded by "validate"), its rate the
//   first tps/wps after the loss (digits and commas, > 0), and memory, mfu and tflops as the
//   first occurrence of each, when present.
// * Everything else (no "step:", or a "step:" not followed by a step number and a loss, or
//   a validation step) is no step line and not reported.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace libscale {

// One parsed step line. Absent fields are NaN.
struct TorchtitanStepLine {
    std::int64_t line = 0;   // 1-based
    std::int64_t rank = -1;  // from a "[rankN]:" prefix; -1 without one
    std::int64_t step = 0;
    double rate = 0.0;  // tps (wps): tokens per second per device, finite and > 0
    bool wps = false;   // printed as wps (older torchtitan)
    double memory_gib = std::numeric_limits<double>::quiet_NaN();  // max reserved, "memory: X GiB(..%)"
    double mfu_pct = std::numeric_limits<double>::quiet_NaN();     // "mfu: X%" (NaN also for "nan%")
    double tflops = std::numeric_limits<double>::quiet_NaN();      // "tflops: X" (NaN also for "nan")
};

// A line left to the caller: its number and the byte range [begin, end) of its text
// (without the line break).
struct LogLine {
    std::int64_t line = 0;
    std::int64_t begin = 0;
    std::int64_t end = 0;
};

struct TorchtitanScan {
    std::vector<TorchtitanStepLine> steps;  // in line order
    std::vector<LogLine> deferred;          // in line order
    std::int64_t lines = 0;                 // len(text.splitlines())
};

TorchtitanScan scan_torchtitan_log(std::string_view text);

}  // namespace libscale
