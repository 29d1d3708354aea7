// Per-sample token lengths from files, for the packing gate (packing.hpp). Every reader
// returns std::vector<std::uint32_t>, rejects zero and negative lengths (naming the
// index or line) and throws ParseError (error.hpp) for a malformed, foreign or truncated
// file; std::invalid_argument for a bad argument.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace libscale {

enum class LengthDtype { u16, u32, u64, i32, i64 };
LengthDtype parse_length_dtype(std::string_view s);  // "uint16", "u4", "<i8", "int64", ...
const char* to_string(LengthDtype d);                // numpy descr: "<u2", "<u4", ...

// .npy v1.0 / v2.0, a 1-D array of <u2 <u4 <u8 <i4 <i8 (little-endian). <u4 is read
// with one read straight into the result.
std::vector<std::uint32_t> read_lengths_npy(const std::string& path);

// Raw little-endian integers of `dtype`, no header; the file size must be a multiple
// of the item size.
std::vector<std::uint32_t> read_lengths_raw(const std::string& path, LengthDtype dtype);

// JSON Lines: one object per line holding an integer `field` (blank lines skipped).
std::vector<std::uint32_t> read_lengths_jsonl(const std::string& path, const std::string& field = "length");

// Writes a v1.0 .npy of <u4 (tests, benchmarks, and the CLI's --save).
void write_lengths_npy(const std::string& path, std::span<const std::uint32_t> lengths);

}  // namespace libscale
