// Readers for token-length files: .npy (v1/v2, five dtypes), raw binary, JSONL, and the
// errors for foreign, truncated, big-endian, negative and zero input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "libscale/gate/lengths_io.hpp"
#include "libscale/io/error.hpp"

namespace libscale {
namespace {

std::string tmp(const std::string& name) { return (std::filesystem::path(LIBSCALE_TEST_TMPDIR) / name).string(); }

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
std::string le_bytes(const std::vector<T>& v) {
    std::string s(v.size() * sizeof(T), '\0');
    std::memcpy(s.data(), v.data(), s.size());
    return s;
}

// A .npy file: descr, shape count, data bytes, format version 1 or 2.
std::string npy(const std::string& descr, std::uint64_t n, const std::string& data, int major = 1,
                const std::string& shape = "") {
    std::string h = "{'descr': '" + descr +
                    "', 'fortran_order': False, 'shape': " + (shape.empty() ? "(" + std::to_string(n) + ",)" : shape) +
                    ", }";
    const std::size_t pre = major == 1 ? 10 : 12;
    h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
    h.push_back('\n');
    std::string out = "\x93NUMPY";
    out.push_back(static_cast<char>(major));
    out.push_back('\0');
    const auto len = static_cast<std::uint32_t>(h.size());
    out.push_back(static_cast<char>(len & 0xFF));
    out.push_back(static_cast<char>((len >> 8) & 0xFF));
    if (major == 2) {
        out.push_back(static_cast<char>((len >> 16) & 0xFF));
        out.push_back(static_cast<char>((len >> 24) & 0xFF));
    }
    return out + h + data;
}

template <typename F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

TEST(LengthsNpy, RoundTripU4) {
    const std::vector<std::uint32_t> v{5, 1, 8192, 77};
    write_lengths_npy(tmp("rt.npy"), v);
    EXPECT_EQ(read_lengths_npy(tmp("rt.npy")), v);
}

TEST(LengthsNpy, AllDtypesAndVersion2) {
    const std::vector<std::uint32_t> want{3, 9, 4};
    write_bytes(tmp("u2.npy"), npy("<u2", 3, le_bytes(std::vector<std::uint16_t>{3, 9, 4})));
    write_bytes(tmp("u8.npy"), npy("<u8", 3, le_bytes(std::vector<std::uint64_t>{3, 9, 4})));
    write_bytes(tmp("i4.npy"), npy("<i4", 3, le_bytes(std::vector<std::int32_t>{3, 9, 4})));
    write_bytes(tmp("i8.npy"), npy("<i8", 3, le_bytes(std::vector<std::int64_t>{3, 9, 4}), 2));
    for (const char* f : {"u2.npy", "u8.npy", "i4.npy", "i8.npy"}) EXPECT_EQ(read_lengths_npy(tmp(f)), want) << f;
}

TEST(LengthsNpy, BadFiles) {
    write_bytes(tmp("be.npy"), npy(">u4", 1, std::string("\0\0\0\5", 4)));
    EXPECT_THROW(read_lengths_npy(tmp("be.npy")), ParseError);
    const std::string be = error_of([] { read_lengths_npy(tmp("be.npy")); });
    EXPECT_NE(be.find("'>u4'"), std::string::npos) << be;
    EXPECT_NE(be.find("<u2, <u4, <u8, <i4, <i8"), std::string::npos) << be;

    write_bytes(tmp("f8.npy"), npy("<f8", 1, std::string(8, '\0')));
    EXPECT_THROW(read_lengths_npy(tmp("f8.npy")), ParseError);

    write_bytes(tmp("neg.npy"), npy("<i8", 3, le_bytes(std::vector<std::int64_t>{4, -2, 1})));
    const std::string neg = error_of([] { read_lengths_npy(tmp("neg.npy")); });
    EXPECT_NE(neg.find("lengths[1] = -2"), std::string::npos) << neg;

    write_bytes(tmp("zero.npy"), npy("<u4", 2, le_bytes(std::vector<std::uint32_t>{4, 0})));
    EXPECT_NE(error_of([] { read_lengths_npy(tmp("zero.npy")); }).find("lengths[1] = 0"), std::string::npos);

    write_bytes(tmp("short.npy"), npy("<u4", 5, le_bytes(std::vector<std::uint32_t>{1, 2})));
    const std::string sh = error_of([] { read_lengths_npy(tmp("short.npy")); });
    EXPECT_NE(sh.find("header says 5"), std::string::npos) << sh;
    EXPECT_THROW(read_lengths_npy(tmp("short.npy")), ParseError);

    write_bytes(tmp("foreign.npy"), "PK\x03\x04 this is a zip");
    EXPECT_THROW(read_lengths_npy(tmp("foreign.npy")), ParseError);

    write_bytes(tmp("2d.npy"), npy("<u4", 4, le_bytes(std::vector<std::uint32_t>{1, 2, 3, 4}), 1, "(2, 2)"));
    EXPECT_THROW(read_lengths_npy(tmp("2d.npy")), ParseError);

    write_bytes(tmp("empty.npy"), npy("<u4", 0, ""));
    EXPECT_THROW(read_lengths_npy(tmp("empty.npy")), ParseError);
    EXPECT_THROW(read_lengths_npy(tmp("does-not-exist.npy")), std::invalid_argument);
}

TEST(LengthsRaw, DtypeFlag) {
    write_bytes(tmp("raw.bin"), le_bytes(std::vector<std::int32_t>{7, 1, 2}));
    EXPECT_EQ(read_lengths_raw(tmp("raw.bin"), LengthDtype::i32), (std::vector<std::uint32_t>{7, 1, 2}));
    // Read as uint16 the high halves are zero-length samples: named by index.
    const std::string z = error_of([] { read_lengths_raw(tmp("raw.bin"), parse_length_dtype("uint16")); });
    EXPECT_NE(z.find("lengths[1] = 0"), std::string::npos) << z;
    write_bytes(tmp("raw5.bin"), std::string("\1\0\0\0\2", 5));
    EXPECT_THROW(read_lengths_raw(tmp("raw5.bin"), LengthDtype::u32), ParseError);
    EXPECT_THROW(parse_length_dtype("float32"), std::invalid_argument);
}

TEST(LengthsJsonl, FieldAndLineNumbers) {
    write_bytes(tmp("l.jsonl"), "{\"n_tokens\": 5}\n\n{\"n_tokens\": 7, \"x\": 1}\n");
    EXPECT_EQ(read_lengths_jsonl(tmp("l.jsonl"), "n_tokens"), (std::vector<std::uint32_t>{5, 7}));
    const std::string missing = error_of([] { read_lengths_jsonl(tmp("l.jsonl")); });
    EXPECT_NE(missing.find("l.jsonl:1"), std::string::npos) << missing;
    write_bytes(tmp("bad.jsonl"), "{\"length\": 5}\n{\"length\": -3}\n");
    const std::string bad = error_of([] { read_lengths_jsonl(tmp("bad.jsonl")); });
    EXPECT_NE(bad.find("bad.jsonl:2"), std::string::npos) << bad;
    write_bytes(tmp("syntax.jsonl"), "{\"length\": 5}\n{oops\n");
    EXPECT_THROW(read_lengths_jsonl(tmp("syntax.jsonl")), ParseError);
    write_bytes(tmp("empty.jsonl"), "\n");
    EXPECT_THROW(read_lengths_jsonl(tmp("empty.jsonl")), ParseError);
}

}  // namespace
}  // namespace libscale
