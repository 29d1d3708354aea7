// Fuzz target: a hardware file (schema libscale.hardware/1), as find_hardware reads a
// path: parse_json, then hardware_from_json (io/json_io.hpp). Invariant: an accepted
// file is a valid HardwareProfile, and the default power bands built from it are valid.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/spec/hardware.hpp"
#include "libscale/triage/power_bands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    HardwareProfile h;
    if (!fuzz::accepted([&] { h = hardware_from_json(parse_json(fuzz::as_text(data, size), "hw.json"), "hw.json"); }))
        return 0;
    // Accepted: nothing below may throw.
    h.validate();
    default_power_bands(h).validate();
    return 0;
}
