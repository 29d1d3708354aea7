// Per-sample token lengths from files, for the packing gate (packing.hpp). Every reader
// returns std::vector<std::uint32_t>, rejects negative lengths and lengths above
// 4294967295 (naming the index or line) and throws ParseError (error.hpp) for a
// malformed, foreign or truncated file; std::invalid_argument for a bad argument. A
// 0-token sample is read as 0: what it means is the packer's rule (packing.hpp: TRL drops
// it, NeMo and LLaMA-Factory pack it, Axolotl refuses it, ...), not the reader's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace libscale {

// An integer item type as numpy describes it: kind (signed or not), size and byte order.
struct LengthDtype {
    bool is_signed = false;
    int size = 4;             // bytes: 1, 2, 4 or 8
    bool big_endian = false;  // ignored for 1-byte types
    bool operator==(const LengthDtype&) const = default;
};
// numpy spellings of an integer type: a name ("uint8", "int16", ..., "int64": little-endian)
// or a type code with an optional byte order ("u4", "<u4", ">i8", "=u2", "|u1", "i1"; '='
// is the host's order, '|' only for 1-byte types). Anything else (a float, bool, complex,
// string, object type, an unknown code) throws std::invalid_argument naming it and the
// valid spellings.
LengthDtype parse_length_dtype(std::string_view s);
std::string to_string(LengthDtype d);  // numpy descr: "|u1", "<u4", ">i8", ...

// The most lengths a file may hold: 2^30 documents, 4 GiB in memory as uint32. A real
// fine-tuning set has millions; a corpus of billions of documents is gated a shard at a
// time. A file beyond it (a 64 GiB sparse file reads as 16 G lengths) is refused naming its
// count before anything is allocated, instead of running out of memory.
inline constexpr std::uint64_t kMaxLengths = std::uint64_t{1} << 30;

// .npy format version 1.0, 2.0 or 3.0 (numpy.lib.format) holding a 1-D array of any
// integer type numpy writes (|u1 |i1 <u2 >u2 <i2 >i2 <u4 >u4 <i4 >i4 <u8 >u8 <i8 >i8),
// C or Fortran order. The header is parsed as the Python literal the format specifies (a
// dict of exactly 'descr', 'fortran_order' and 'shape'; shape a tuple of decimal
// integers; the header ends in '\n'), and the data must be exactly shape × item size
// bytes. Other types, more than one dimension, a 0-d array or an empty one are refused
// by name. <u4 is read with one read straight into the result.
std::vector<std::uint32_t> read_lengths_npy(const std::string& path);

// Raw integers of `dtype` (either byte order), no header; the file size must be a
// multiple of the item size.
std::vector<std::uint32_t> read_lengths_raw(const std::string& path, LengthDtype dtype);

// JSON Lines: one object per line holding an integer `field` (blank lines skipped).
std::vector<std::uint32_t> read_lengths_jsonl(const std::string& path, const std::string& field = "length");

// The same three readers over bytes already in memory; `origin` names them in errors.
// The file readers check and parse with the same code (a fuzz target drives these).
std::vector<std::uint32_t> lengths_from_npy(std::string_view bytes, const std::string& origin);
std::vector<std::uint32_t> lengths_from_raw(std::string_view bytes, LengthDtype dtype, const std::string& origin);
std::vector<std::uint32_t> lengths_from_jsonl(std::string_view text, const std::string& origin,
                                              const std::string& field = "length");

// Writes a v1.0 .npy of <u4 (tests, benchmarks, and the CLI's --save).
// Written atomically (io/output_file.hpp).
void write_lengths_npy(const std::string& path, std::span<const std::uint32_t> lengths);

// Whether the file (a regular file; input_file.hpp's errors otherwise) starts with the
// .npy magic "\x93NUMPY".
bool has_npy_magic(const std::string& path);

}  // namespace libscale
