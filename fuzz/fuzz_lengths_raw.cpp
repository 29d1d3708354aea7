// Fuzz target: raw token lengths without a header (gate/lengths_io.hpp, lengths_from_raw;
// read_lengths_raw shares the checks and the conversion), under every integer type:
// 1, 2, 4 and 8 bytes, signed or not, either byte order. Invariant: an accepted file
// gives size / item size lengths.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "libscale/gate/lengths_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace libscale;
    for (const int item : {1, 2, 4, 8})
        for (const bool is_signed : {false, true})
            for (const bool big_endian : {false, true}) {
                const LengthDtype dtype{is_signed, item, big_endian};
                std::vector<std::uint32_t> v;
                if (!fuzz::accepted([&] { v = lengths_from_raw(fuzz::as_text(data, size), dtype, "lengths.bin"); }))
                    continue;
                fuzz::check(v.size() * static_cast<std::size_t>(item) == size, "lengths not size / item size");
            }
    return 0;
}
