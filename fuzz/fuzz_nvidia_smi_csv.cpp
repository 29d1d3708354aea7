// Fuzz target: nvidia-smi CSV (triage/power_trace.hpp), read whole (parse_nvidia_smi_csv,
// as read_nvidia_smi_csv reads a file) and fed in chunks to the incremental reader a live
// watcher uses (NvidiaSmiCsvReader), with a chunk size taken from the input's length so
// that lines are split at every offset across the corpus. Invariants: each trace keeps
// the PowerTrace guarantees (trace_checks.hpp), and when the batch parse accepts the
// text the reader gives the same rows.
#include <algorithm>
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
    const bool batch_ok = fuzz::accepted([&] { batch = parse_nvidia_smi_csv(text, "trace.csv"); });
    if (batch_ok) {
        fuzz::check_trace(batch.trace);
        check(batch.report.samples == batch.trace.size(), "report.samples is not the number of rows");
        check(batch.report.lines >= 1 || batch.trace.empty(), "rows without lines");
    }
    NvidiaSmiCsvReader reader("trace.csv");
    PowerTrace live;
    const std::size_t chunk = 1 + size % 61;
    const bool live_ok = fuzz::accepted([&] {
        for (std::size_t pos = 0; pos < size; pos += chunk) reader.feed(text.substr(pos, chunk), live);
        reader.finish(live);
    });
    fuzz::check_trace(live);
    if (batch_ok) {
        check(live_ok, "the incremental reader refused what the batch parser accepted");
        check(fuzz::same_trace(live, batch.trace), "the incremental reader's rows differ from the batch parser's");
    }
    return 0;
}
