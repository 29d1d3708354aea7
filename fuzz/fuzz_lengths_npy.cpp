// Fuzz target: a .npy file of per-sample token lengths (gate/lengths_io.hpp), in memory
// (lengths_from_npy; read_lengths_npy parses the header with the same code). Invariant: an
// accepted file gives at least one length, and no more than its bytes hold.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "libscale/gate/lengths_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    std::vector<std::uint32_t> v;
    if (!fuzz::accepted([&] { v = lengths_from_npy(fuzz::as_text(data, size), "lengths.npy"); })) return 0;
    fuzz::check(!v.empty(), "an accepted file without lengths");
    fuzz::check(v.size() <= size, "more lengths than bytes");
    return 0;
}
