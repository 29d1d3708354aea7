// Fuzz target: JSON Lines token lengths (gate/lengths_io.hpp, lengths_from_jsonl; the file
// reader parses each line with the same code), field "length". Invariant: an accepted file
// gives at least one length, and no more than its lines.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "libscale/gate/lengths_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    using fuzz::check;
    std::vector<std::uint32_t> v;
    if (!fuzz::accepted([&] { v = lengths_from_jsonl(fuzz::as_text(data, size), "lengths.jsonl"); })) return 0;
    check(!v.empty(), "an accepted file without lengths");
    check(v.size() <= static_cast<std::size_t>(std::count(data, data + size, '\n')) + 1, "more lengths than lines");
    return 0;
}
