// Fuzz target: a measurement file (schema libscale.measurements/2 or /1, or a bare list of
// records), as read_measurements reads a path: parse_json, then measurements_from_json
// (calibrate/measurement.hpp). Invariant: an accepted set written back with to_json (through
// text) reads back with the same records of every kind.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.hpp"
#include "libscale/calibrate/measurement.hpp"
#include "libscale/io/json_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    MeasurementSet m;
    if (!fuzz::accepted([&] {
            m = measurements_from_json(parse_json(fuzz::as_text(data, size), "measurements.json"), "measurements.json");
        }))
        return 0;
    // Accepted: nothing below may throw.
    const std::string text = to_json(m).dump();
    const MeasurementSet again = measurements_from_json(parse_json(text, "round trip"), "round trip");
    check(again.gemm.size() == m.gemm.size() && again.attention.size() == m.attention.size() &&
              again.bandwidth.size() == m.bandwidth.size() && again.collectives.size() == m.collectives.size() &&
              again.steps.size() == m.steps.size() && again.microruns.size() == m.microruns.size() &&
              again.power.size() == m.power.size(),
          "records lost or gained when written and read back");
    for (std::size_t i = 0; i < m.steps.size(); ++i)
        check(again.steps[i].step_time_s == m.steps[i].step_time_s, "a step time changed when written and read back");
    for (std::size_t i = 0; i < m.gemm.size(); ++i)
        check(again.gemm[i].seconds == m.gemm[i].seconds, "a GEMM time changed when written and read back");
    return 0;
}
