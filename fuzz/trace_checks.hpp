// What every parsed power trace guarantees (triage/power_trace.hpp), checked by the trace
// fuzz targets: finite times strictly increasing per GPU, finite non-negative watts, a
// utilization that is NaN (not reported) or a finite non-negative percentage, and a
// report that counts the rows it describes.
#pragma once

#include <cmath>
#include <cstddef>
#include <map>

#include "fuzz_support.hpp"
#include "libscale/triage/power_trace.hpp"

namespace libscale::fuzz {

inline void check_trace(const PowerTrace& t) {
    check(t.gpu.size() == t.size() && t.power_w.size() == t.size() && t.utilization_pct.size() == t.size(),
          "trace columns of different lengths");
    std::map<int, double> last;
    for (std::size_t i = 0; i < t.size(); ++i) {
        check(std::isfinite(t.time_s[i]), "non-finite sample time");
        check(std::isfinite(t.power_w[i]) && t.power_w[i] >= 0, "power not a finite number >= 0");
        check(std::isnan(t.utilization_pct[i]) || (std::isfinite(t.utilization_pct[i]) && t.utilization_pct[i] >= 0),
              "utilization neither NaN nor a finite number >= 0");
        check(t.gpu[i] >= 0, "negative GPU index");
        const auto [it, fresh] = last.try_emplace(t.gpu[i], t.time_s[i]);
        if (!fresh) {
            check(t.time_s[i] > it->second, "sample times of a GPU not strictly increasing");
            it->second = t.time_s[i];
        }
    }
}

inline bool same_trace(const PowerTrace& a, const PowerTrace& b) {
    if (a.size() != b.size()) return false;
    const auto eq = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!eq(a.time_s[i], b.time_s[i]) || a.gpu[i] != b.gpu[i] || !eq(a.power_w[i], b.power_w[i]) ||
            !eq(a.utilization_pct[i], b.utilization_pct[i]))
            return false;
    return true;
}

}  // namespace libscale::fuzz
