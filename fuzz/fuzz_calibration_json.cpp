// Fuzz target: a calibration file (schema libscale.calibration/2, /1 for power bands), as
// read_calibration_file and read_power_bands read a path: parse_json, then
// calibration_fractions_from_json (io/json_io.hpp), calibration_from_json and
// power_bands_from_calibration_json (calibrate/calibration_file.hpp). The file is read
// against the catalog GPU it names, else an H100 renamed to match, so that the hardware
// check lets the fuzzer past it. Invariants: an accepted file is a valid Calibration, and
// the calibration written back (calibration_to_json, through text) reads back with every
// coefficient unchanged ("the writers refuse what the reader would reject").
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "libscale/calibrate/calibration.hpp"
#include "libscale/calibrate/calibration_file.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/triage/power_bands.hpp"

namespace {

libscale::HardwareProfile hardware_named_in(const nlohmann::json& j) {
    static const std::vector<std::string> names = libscale::hardware_names();
    static const libscale::HardwareProfile h100 = libscale::find_hardware("h100");
    const auto it = j.is_object() ? j.find("hardware") : j.end();
    if (!j.is_object() || it == j.end() || !it->is_string() || it->get<std::string>().empty()) return h100;
    std::string name = it->get<std::string>();
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    // Catalog names only: find_hardware would read a path.
    if (std::find(names.begin(), names.end(), name) != names.end()) return libscale::find_hardware(name);
    libscale::HardwareProfile h = h100;
    h.name = it->get<std::string>();
    return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    const char* origin = "calibration.json";
    nlohmann::json j;
    if (!fuzz::accepted([&] { j = parse_json(fuzz::as_text(data, size), origin); })) return 0;
    const HardwareProfile hw = hardware_named_in(j);
    fuzz::accepted([&] { (void)calibration_fractions_from_json(j, origin); });
    fuzz::accepted([&] { power_bands_from_calibration_json(j, hw, origin).validate(); });
    CalibrationFile file;
    if (!fuzz::accepted([&] { file = calibration_from_json(j, hw, origin); })) return 0;
    // Accepted: nothing below may throw.
    file.calibration.validate();
    const std::string text = calibration_to_json(file).dump();
    CalibrationFile again = calibration_from_json(parse_json(text, "round trip"), hw, "round trip");
    for (const CoefficientInfo& info : calibration_coefficients()) {
        const double a = info.ref(file.calibration), b = info.ref(again.calibration);
        check(a == b, "a coefficient changed when written and read back");
    }
    check(again.parameters == file.parameters && again.covariance == file.covariance,
          "the uncertainty changed when written and read back");
    check(again.prior_log_sd == file.prior_log_sd, "the prior changed when written and read back");
    return 0;
}
