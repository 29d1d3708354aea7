// Fuzz target: dcgm-exporter Prometheus text (triage/power_trace.hpp), read whole
// (parse_dcgm_prometheus, as read_dcgm_prometheus reads a file) and as two successive live
// scrapes into one trace (parse_dcgm_scrape, the watcher's GET /metrics). Invariants: each
// trace keeps the PowerTrace guarantees (trace_checks.hpp), the report counts its rows,
// and the second scrape never adds a row not later than the first's of its GPU.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "libscale/triage/power_trace.hpp"
#include "trace_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    const std::string_view text = fuzz::as_text(data, size);
    ParsedTrace batch;
    if (fuzz::accepted([&] { batch = parse_dcgm_prometheus(text, "metrics.prom"); })) {
        fuzz::check_trace(batch.trace);
        check(batch.report.samples == batch.trace.size(), "report.samples is not the number of rows");
    }
    PowerTrace live;
    ParseReport report;
    report.source = "<scrape>";
    fuzz::accepted([&] {
        parse_dcgm_scrape(text, 1.0, live, report);
        parse_dcgm_scrape(text, 2.0, live, report);
    });
    fuzz::check_trace(live);
    check(report.samples == live.size(), "report.samples is not the number of rows");
    check(report.scrapes == 2, "report.scrapes is not the number of scrapes");
    return 0;
}
