// Fuzz target: the torchtitan console-log scanner (io/trainer_log.hpp), which reads a whole
// log in memory. Invariants: lines are counted and numbered in order, a deferred line's
// byte range lies inside the text, and a parsed step line's rate is finite and > 0.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libscale/io/trainer_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    TorchtitanScan scan;
    if (!fuzz::accepted([&] { scan = scan_torchtitan_log(fuzz::as_text(data, size)); })) return 0;
    const auto n = static_cast<std::int64_t>(size);
    check(scan.lines >= 0 && scan.lines <= n, "more lines than bytes");
    std::int64_t prev = 0;
    for (const TorchtitanStepLine& s : scan.steps) {
        check(s.line > prev && s.line <= scan.lines, "step lines out of order or past the last line");
        prev = s.line;
        check(std::isfinite(s.rate) && s.rate > 0, "a step line's rate is not finite and > 0");
        check(std::isnan(s.memory_gib) || std::isfinite(s.memory_gib), "infinite memory");
    }
    prev = 0;
    for (const LogLine& l : scan.deferred) {
        check(l.line > prev && l.line <= scan.lines, "deferred lines out of order or past the last line");
        prev = l.line;
        check(0 <= l.begin && l.begin <= l.end && l.end <= n, "a deferred line's byte range is outside the text");
    }
    return 0;
}
