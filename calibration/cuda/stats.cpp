#include "stats.hpp"

#include "device.hpp"

#include <algorithm>

#include "libscale/estimate/statistics.hpp"

namespace libscale::harness::cuda {

Timing summarize(std::vector<double> seconds) {
    Timing t;
    if (seconds.empty()) return t;
    std::sort(seconds.begin(), seconds.end());
    t.seconds = quantile_sorted(seconds, 0.5);
    if (t.seconds > 0) t.spread = (quantile_sorted(seconds, 0.9) - quantile_sorted(seconds, 0.1)) / t.seconds;
    return t;
}

Timing time_calls(cudaStream_t stream, int warmup, int repeats, const std::function<void(int)>& run,
                  const std::string& what) {
    for (int r = 0; r < warmup; ++r) run(r);
    std::vector<Event> start, stop;
    for (int r = 0; r < repeats; ++r) {
        start.emplace_back(), stop.emplace_back();
        start.back().record(stream);
        run(warmup + r);
        stop.back().record(stream);
    }
    wait_stream(stream, 600, what);
    std::vector<double> secs;
    for (std::size_t r = 0; r < start.size(); ++r) secs.push_back(elapsed_s(start[r], stop[r]));
    return summarize(secs);
}

}  // namespace libscale::harness::cuda
