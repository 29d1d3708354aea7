// Fuzz target: the live triage stream (triage/triage_stream.hpp) as `libscale watch` drives
// it, one line at a time. Each input line is either
//   * nvidia-smi CSV (a header or a sample row), fed to an NvidiaSmiCsvReader whose new rows
//     are pushed to the stream at once (now = NaN: the latest sample's time), or
//   * a command, for what the watcher's other sources do (bindings/libscale/watch/loop.py):
//       !push T G P U    one sample straight to push() (any double: nan, inf, 1e308)
//       !now T           an empty poll with now = T
//       !advance T       advance(T)
//       !limit G W       set_power_limit_w(G, W)
//       !expect G...     expect_gpus
//       !checkpoint S E  add_checkpoint_window(S, E)
// Numbers are read with strtod (so "nan", "inf", "0x1p1023" all reach the stream). The
// stream runs on the H100 default bands and default options. Invariants: every sample time
// a GPU reports is finite, the stream's clock never runs backwards, and an update's time
// is the clock's.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/triage/power_bands.hpp"
#include "libscale/triage/power_trace.hpp"
#include "libscale/triage/triage_stream.hpp"

namespace {

// Whitespace-separated numbers after a command word.
std::vector<double> numbers(std::string_view args) {
    std::vector<double> out;
    const std::string s(args);
    const char* p = s.c_str();
    for (;;) {
        char* end = nullptr;
        const double v = std::strtod(p, &end);
        if (end == p) break;
        out.push_back(v);
        p = end;
    }
    return out;
}

int gpu_id(double v) { return std::isfinite(v) && std::abs(v) < 1e6 ? static_cast<int>(v) : 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    static const PowerBands bands = default_power_bands(find_hardware("h100"));
    TriageStream stream(bands);
    NvidiaSmiCsvReader reader("watch.csv");
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    double clock = -std::numeric_limits<double>::infinity();
    const auto seen = [&](const StreamUpdate& up) {
        if (std::isfinite(stream.last_time_s())) {
            check(stream.last_time_s() >= clock, "the stream's clock ran backwards");
            clock = stream.last_time_s();
            check(up.time_s == clock || (up.time_s == 0 && up.empty()), "an update's time is not the clock's");
        }
        for (const GpuStatus& g : stream.gpus())
            check(g.samples == 0 || std::isfinite(g.last_time_s), "a GPU's last sample time is not finite");
    };
    const std::string_view text = fuzz::as_text(data, size);
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t nl = std::min(text.find('\n', pos), text.size());
        const std::string_view line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty() || line.front() != '!') {
            PowerTrace rows;
            if (!fuzz::accepted([&] { reader.feed(std::string(line) + "\n", rows); })) continue;
            if (rows.empty()) continue;
            fuzz::accepted([&] { seen(stream.push(rows.time_s, rows.gpu, rows.power_w, rows.utilization_pct, kNaN)); });
            continue;
        }
        const std::size_t sp = line.find(' ');
        const std::string_view cmd = line.substr(1, sp == std::string_view::npos ? std::string_view::npos : sp - 1);
        const std::vector<double> v = numbers(sp == std::string_view::npos ? std::string_view{} : line.substr(sp));
        fuzz::accepted([&] {
            if (cmd == "push" && v.size() >= 4) {
                const std::vector<double> t{v[0]}, p{v[2]}, u{v[3]};
                const std::vector<int> g{gpu_id(v[1])};
                seen(stream.push(t, g, p, u, kNaN));
            } else if (cmd == "now" && !v.empty()) {
                seen(stream.push({}, {}, {}, {}, v[0]));
            } else if (cmd == "advance" && !v.empty()) {
                seen(stream.advance(v[0]));
            } else if (cmd == "limit" && v.size() >= 2) {
                stream.set_power_limit_w(gpu_id(v[0]), v[1]);
            } else if (cmd == "expect") {
                std::vector<int> g;
                g.reserve(v.size());
                for (const double x : v) g.push_back(gpu_id(x));
                stream.expect_gpus(g);
            } else if (cmd == "checkpoint" && v.size() >= 2) {
                stream.add_checkpoint_window(v[0], v[1]);
            }
        });
    }
    return 0;
}
