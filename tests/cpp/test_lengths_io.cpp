// Readers for token-length files: .npy (versions 1.0 to 3.0, every integer dtype and byte
// order numpy writes, headers crafted by hand to the format's rules and against them), raw
// binary, JSONL, and the errors for foreign, truncated, non-integer, negative input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "libscale/gate/lengths_io.hpp"
#include "libscale/io/error.hpp"
#include "test_support.hpp"

namespace libscale {
namespace {

std::string tmp(const std::string& name) { return (std::filesystem::path(LIBSCALE_TEST_TMPDIR) / name).string(); }

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// `values` as `size`-byte integers in the given byte order (two's complement), written
// byte by byte so that the test does not depend on the host's order.
std::string int_bytes(const std::vector<std::int64_t>& values, int size, bool big_endian) {
    std::string s;
    for (const std::int64_t v : values) {
        const auto u = static_cast<std::uint64_t>(v);
        for (int i = 0; i < size; ++i) {
            const int shift = 8 * (big_endian ? size - 1 - i : i);
            s.push_back(static_cast<char>((u >> shift) & 0xFF));
        }
    }
    return s;
}

// A .npy file as numpy.lib.format lays it out: magic, version, header length (2 bytes in
// 1.0, 4 in 2.0 and 3.0), the header dict padded with spaces to a multiple of 64 and ended
// by '\n', then the data. `dict` is the header's text without the padding.
std::string npy_raw(const std::string& dict, const std::string& data, int major = 1, int minor = 0,
                    bool newline = true) {
    std::string h = dict;
    const std::size_t pre = major == 1 ? 10 : 12;
    if (newline) {
        h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
        h.push_back('\n');
    }
    std::string out = "\x93NUMPY";
    out.push_back(static_cast<char>(major));
    out.push_back(static_cast<char>(minor));
    const auto len = static_cast<std::uint32_t>(h.size());
    for (std::size_t i = 0; i < pre - 8; ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
    return out + h + data;
}

// What numpy.save writes for a 1-D array: {'descr': ..., 'fortran_order': False, 'shape': (n,), }.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data, int major = 1) {
    return npy_raw("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data, major);
}

// The ParseError message of reading `bytes` as a .npy file ("" when it reads).
std::string npy_error(const std::string& name, const std::string& bytes) {
    write_bytes(tmp(name), bytes);
    try {
        read_lengths_npy(tmp(name));
    } catch (const ParseError& e) {
        return e.what();
    }
    return "";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(LengthsNpy, RoundTripU4) {
    const std::vector<std::uint32_t> v{5, 1, 8192, 77};
    write_lengths_npy(tmp("rt.npy"), v);
    EXPECT_EQ(read_lengths_npy(tmp("rt.npy")), v);
}

// Every integer descr numpy writes (dtype.str: '|' for 1-byte types, '<' or '>' for the
// others), with the extremes each can hold as a length, in every format version.
TEST(LengthsNpy, EveryIntegerDtypeAndByteOrder) {
    struct Case {
        const char* descr;
        int size;
        bool big;
        std::int64_t top;
    };
    const Case cases[] = {{"|u1", 1, false, 255},
                          {"|i1", 1, false, 127},
                          {"<u2", 2, false, 65535},
                          {">u2", 2, true, 65535},
                          {"<i2", 2, false, 32767},
                          {">i2", 2, true, 32767},
                          {"<u4", 4, false, 4294967295},
                          {">u4", 4, true, 4294967295},
                          {"<i4", 4, false, 2147483647},
                          {">i4", 4, true, 2147483647},
                          {"<u8", 8, false, 4294967295},
                          {">u8", 8, true, 4294967295},
                          {"<i8", 8, false, 4294967295},
                          {">i8", 8, true, 4294967295},
                          // '=' (native) and no order: the host's (little-endian) order; '<' on a
                          // 1-byte type is what np.dtype('<u1') accepts.
                          {"=u4", 4, false, 4294967295},
                          {"i8", 8, false, 4294967295},
                          {"<u1", 1, false, 255}};
    for (const Case& c : cases) {
        for (int major = 1; major <= 3; ++major) {
            SCOPED_TRACE(std::string(c.descr) + " v" + std::to_string(major));
            const std::vector<std::int64_t> v{3, 0, 258 % (c.top + 1), c.top, 1};
            const std::string name = "dt_" + std::to_string(major) + "_" + std::string(c.descr + 1) +
                                     (c.big ? "be" : "le") + std::to_string(c.descr[0]) + ".npy";
            write_bytes(tmp(name), npy(c.descr, "(5,)", int_bytes(v, c.size, c.big), major));
            std::vector<std::uint32_t> want;
            for (auto x : v) want.push_back(static_cast<std::uint32_t>(x));
            EXPECT_EQ(read_lengths_npy(tmp(name)), want);
        }
    }
}

TEST(LengthsNpy, FortranOrderOneDimensionIsRead) {
    // A 1-D array is laid out the same in C and Fortran order (numpy writes
    // fortran_order True for a 1-D array that is F- but not C-contiguous: never, but it
    // may be written by hand).
    const std::string d = "{'descr': '<u2', 'fortran_order': True, 'shape': (2,), }";
    write_bytes(tmp("f1.npy"), npy_raw(d, int_bytes({7, 9}, 2, false)));
    EXPECT_EQ(read_lengths_npy(tmp("f1.npy")), (std::vector<std::uint32_t>{7, 9}));
    // The header is a Python literal: any key order, double quotes, no trailing comma,
    // whitespace between tokens, and Python 2's 5L in a version 1.0 header (numpy reads it).
    const std::string d2 = "{\"shape\":(2L ,),\"fortran_order\":False,   \"descr\":\"<u2\"}";
    write_bytes(tmp("lit.npy"), npy_raw(d2, int_bytes({4, 6}, 2, false)));
    EXPECT_EQ(read_lengths_npy(tmp("lit.npy")), (std::vector<std::uint32_t>{4, 6}));
}

TEST(LengthsNpy, NonIntegerDtypesAreRefusedByName) {
    const std::string valid = "valid: |u1, |i1, <u2, >u2, <i2, >i2, <u4, >u4, <i4, >i4, <u8, >u8, <i8, >i8";
    struct Case {
        const char* descr;
        const char* says;
    };
    const Case cases[] = {{"<f4", "dtype '<f4' is a floating-point type, not an integer type"},
                          {"<f8", "dtype '<f8' is a floating-point type"},
                          {"<f2", "dtype '<f2' is a floating-point type"},
                          {"|b1", "dtype '|b1' is a boolean type"},
                          {"<c8", "dtype '<c8' is a complex type"},
                          {"|O", "dtype '|O' is an object (pickled Python) type"},
                          {"<U3", "dtype '<U3' is a string type"},
                          {"|S4", "dtype '|S4' is a string type"},
                          {"UINT32", "dtype 'UINT32' is not a dtype name (numpy's are lower case): write 'uint32'"},
                          {"<M8[ns]", "dtype '<M8[ns]' is a date/time type"},
                          {"|V4", "dtype '|V4' is a raw-bytes (void) type"},
                          {"<u3", "dtype '<u3' is not an integer type"},
                          {"|u4", "dtype '|u4' has byte order '|' (not applicable), which only a 1-byte type has"}};
    for (const Case& c : cases) {
        const std::string e = npy_error("nonint.npy", npy(c.descr, "(1,)", std::string(8, '\0')));
        EXPECT_HAS(e, c.says);
        EXPECT_HAS(e, valid);
    }
    const std::string s = npy_error("struct.npy", npy_raw("{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': "
                                                          "False, 'shape': (1,), }",
                                                          std::string(8, '\0')));
    EXPECT_HAS(s, "dtype [('a', '<i4'), ('b', '<f4')] is a structured type (named fields), not an integer type");
}

TEST(LengthsNpy, ShapesOtherThanOneDimensionAreRefused) {
    const std::string four = int_bytes({1, 2, 3, 4}, 4, false);
    EXPECT_HAS(npy_error("2d.npy", npy("<u4", "(2, 2)", four)),
               "shape (2, 2): 2 dimensions; the lengths must be a 1-D array");
    EXPECT_HAS(npy_error("2df.npy", npy_raw("{'descr': '<u4', 'fortran_order': True, 'shape': (2, 2), }", four)),
               "shape (2, 2) (fortran_order True): 2 dimensions");
    EXPECT_HAS(npy_error("0d.npy", npy("<u4", "()", int_bytes({4}, 4, false))), "shape (): a 0-d array (one scalar)");
    // (5e3,) is not 5 samples (the parser used to stop at the first non-digit).
    EXPECT_HAS(npy_error("5e3.npy", npy("<u4", "(5e3,)", std::string(20000, '\0'))),
               "shape (5e3,): 5e3 is not a non-negative integer");
    EXPECT_HAS(npy_error("5f.npy", npy("<u4", "(5.0,)", std::string(20, '\0'))), "5.0 is not a non-negative integer");
    EXPECT_HAS(npy_error("neg.npy", npy("<u4", "(-1,)", "")), "shape (-1,): -1 is not a non-negative integer");
    EXPECT_HAS(npy_error("hex.npy", npy("<u4", "(0x5,)", std::string(20, '\0'))), "0x5 is not a non-negative integer");
    EXPECT_HAS(npy_error("bool.npy", npy("<u4", "(True,)", std::string(4, '\0'))),
               "True is not a non-negative integer");
    EXPECT_HAS(npy_error("notuple.npy", npy("<u4", "(5)", std::string(20, '\0'))),
               "shape (5) is not a tuple: a 1-D array's shape is written (N,)");
    EXPECT_HAS(npy_error("list.npy", npy("<u4", "[5]", std::string(20, '\0'))), "shape [5] is not a tuple");
    EXPECT_HAS(npy_error("L3.npy", npy("<u4", "(5L,)", std::string(20, '\0'), 3)), "5L is not a non-negative integer");
    EXPECT_HAS(npy_error("empty.npy", npy("<u4", "(0,)", "")), "empty dataset (shape (0,))");
}

TEST(LengthsNpy, HeaderDictIsChecked) {
    const std::string d4 = int_bytes({1}, 4, false);
    EXPECT_HAS(npy_error("nokey.npy", npy_raw("{'descr': '<u4', 'shape': (1,), }", d4)),
               ".npy header lacks 'fortran_order'");
    EXPECT_HAS(npy_error("extra.npy", npy_raw("{'descr': '<u4', 'fortran_order': False, 'shape': (1,), 'x': 1}", d4)),
               "has the key 'x'; the format's keys are exactly descr, fortran_order, shape");
    EXPECT_HAS(
        npy_error("dup.npy", npy_raw("{'descr': '<u4', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}", d4)),
        "gives 'shape' twice");
    EXPECT_HAS(npy_error("fo.npy", npy_raw("{'descr': '<u4', 'fortran_order': 0, 'shape': (1,)}", d4)),
               "fortran_order = 0: must be True or False");
    EXPECT_HAS(npy_error("descr.npy", npy_raw("{'descr': 4, 'fortran_order': False, 'shape': (1,)}", d4)),
               "descr = 4: must be a dtype string");
    EXPECT_HAS(npy_error("notdict.npy", npy_raw("['<u4', False, (1,)]", d4)), "malformed .npy header: expected '{'");
    EXPECT_HAS(npy_error("unterminated.npy", npy_raw("{'descr': '<u4, 'fortran_order': False", d4)),
               "malformed .npy header");
    EXPECT_HAS(npy_error("after.npy", npy_raw("{'descr': '<u4', 'fortran_order': False, 'shape': (1,)} x", d4)),
               "unexpected text after the header dict");
    EXPECT_HAS(
        npy_error("nonl.npy", npy_raw("{'descr': '<u4', 'fortran_order': False, 'shape': (1,)}", d4, 1, 0, false)),
        "does not end in a newline");
    EXPECT_HAS(npy_error("deep.npy", npy_raw("{'descr': " + std::string(100, '(') + "}", d4)), "nested too deeply");
}

TEST(LengthsNpy, VersionsAndLengthsAreChecked) {
    const std::string ok = npy("<u4", "(1,)", int_bytes({1}, 4, false));
    std::string v4 = ok;
    v4[6] = 4;
    EXPECT_HAS(npy_error("v4.npy", v4), ".npy format version 4.0: the versions are 1.0, 2.0 and 3.0");
    std::string v11 = ok;
    v11[7] = 1;
    EXPECT_HAS(npy_error("v11.npy", v11), "version 1.1");
    // A header length past the end of the file.
    std::string longhdr = ok;
    longhdr[8] = '\xff';
    longhdr[9] = '\x7f';
    EXPECT_HAS(npy_error("longhdr.npy", longhdr), "truncated .npy header: it says 32767 bytes, the file holds");
    EXPECT_HAS(npy_error("cut.npy", ok.substr(0, 9)), "it ends inside the header length");
    // numpy's own bound on a header (numpy.lib.format._MAX_HEADER_SIZE).
    EXPECT_HAS(npy_error("huge.npy",
                         npy_raw("{'descr': '<u4', 'fortran_order': False, 'shape': (1,)}" + std::string(20000, ' '),
                                 int_bytes({1}, 4, false), 2)),
               "bytes; numpy itself reads at most 10000");
    EXPECT_HAS(npy_error("foreign.npy", "PK\x03\x04 this is a zip"), "not a .npy file");
}

TEST(LengthsNpy, DataSizeMustMatchTheShape) {
    EXPECT_HAS(npy_error("short.npy", npy("<u4", "(5,)", int_bytes({1, 2}, 4, false))),
               "shape (5,) of <u4 needs 20 data bytes, the file holds 8 (truncated)");
    EXPECT_HAS(npy_error("trail.npy", npy("<u2", "(2,)", int_bytes({1, 2, 3}, 2, false))),
               "shape (2,) of <u2 needs 4 data bytes, the file holds 6 (trailing bytes after the array)");
    // A shape whose byte count overflows 64 bits is a truncated file, not a wrap-around.
    EXPECT_HAS(npy_error("wrap.npy", npy("<u8", "(4611686018427387905,)", int_bytes({1}, 8, false))),
               "needs more than 2^64 data bytes, the file holds 8 (truncated)");
    EXPECT_THROW(read_lengths_npy(tmp("does-not-exist.npy")), ParseError);
}

TEST(LengthsNpy, ValuesAreChecked) {
    EXPECT_HAS(npy_error("neg.npy", npy(">i8", "(3,)", int_bytes({4, -2, 1}, 8, true))), "lengths[1] = -2: negative");
    EXPECT_HAS(npy_error("negi1.npy", npy("|i1", "(2,)", int_bytes({4, -128}, 1, false))), "lengths[1] = -128");
    EXPECT_HAS(npy_error("big.npy", npy("<u8", "(2,)", int_bytes({1, 4294967296}, 8, false))),
               "lengths[1] = 4294967296: longer than 4294967295 tokens");
    // 0 is a length like any other here: what a 0-token sample means is the packer's rule.
    write_bytes(tmp("zero.npy"), npy("<u4", "(2,)", int_bytes({4, 0}, 4, false)));
    EXPECT_EQ(read_lengths_npy(tmp("zero.npy")), (std::vector<std::uint32_t>{4, 0}));
}

TEST(LengthsRaw, EveryIntegerDtypeAndByteOrder) {
    write_bytes(tmp("raw.bin"), int_bytes({7, 1, 0}, 4, false));
    EXPECT_EQ(read_lengths_raw(tmp("raw.bin"), parse_length_dtype("int32")), (std::vector<std::uint32_t>{7, 1, 0}));
    write_bytes(tmp("rawbe.bin"), int_bytes({7, 65535}, 2, true));
    EXPECT_EQ(read_lengths_raw(tmp("rawbe.bin"), parse_length_dtype(">u2")), (std::vector<std::uint32_t>{7, 65535}));
    // The same bytes little-endian: 7 << 8 and 65535.
    EXPECT_EQ(read_lengths_raw(tmp("rawbe.bin"), parse_length_dtype("uint16")),
              (std::vector<std::uint32_t>{1792, 65535}));
    write_bytes(tmp("raw1.bin"), int_bytes({200, 3}, 1, false));
    EXPECT_EQ(read_lengths_raw(tmp("raw1.bin"), parse_length_dtype("|u1")), (std::vector<std::uint32_t>{200, 3}));
    EXPECT_HAS(test::error_of([] { read_lengths_raw(tmp("raw1.bin"), parse_length_dtype("int8")); }),
               "lengths[0] = -56: negative length");
    write_bytes(tmp("raw5.bin"), std::string("\1\0\0\0\2", 5));
    EXPECT_THROW(read_lengths_raw(tmp("raw5.bin"), parse_length_dtype("u4")), ParseError);
    EXPECT_THROW(read_lengths_raw(tmp("raw5.bin"), (LengthDtype{false, 3, false})), std::invalid_argument);
}

// A sparse file of 64 GiB (16 G lengths as uint32): refused naming its count before any
// allocation, in every dtype and as an .npy header that claims as many.
TEST(LengthsRaw, AFileOfMoreLengthsThanTheCapIsRefusedBeforeItIsRead) {
    const std::string path = tmp("sparse64g.bin");
    { std::ofstream(path, std::ios::binary | std::ios::trunc); }
    std::filesystem::resize_file(path, std::uint64_t{64} << 30);
    EXPECT_HAS(test::error_of([&] { read_lengths_raw(path, parse_length_dtype("u4")); }),
               "17179869184 lengths; at most 1073741824 (2^30, 4 GiB in memory) are read at once");
    EXPECT_HAS(test::error_of([&] { read_lengths_raw(path, parse_length_dtype("u8")); }), "8589934592 lengths");
    std::filesystem::remove(path);
}

TEST(LengthsRaw, DtypeSpellings) {
    EXPECT_EQ(parse_length_dtype("uint8"), (LengthDtype{false, 1, false}));
    EXPECT_EQ(parse_length_dtype("int16"), (LengthDtype{true, 2, false}));
    EXPECT_EQ(parse_length_dtype(">i8"), (LengthDtype{true, 8, true}));
    EXPECT_EQ(parse_length_dtype("<u4"), (LengthDtype{false, 4, false}));
    EXPECT_EQ(parse_length_dtype("=u4"), (LengthDtype{false, 4, false}));  // this host is little-endian
    EXPECT_EQ(to_string(parse_length_dtype(">i2")), ">i2");
    EXPECT_EQ(to_string(parse_length_dtype("uint8")), "|u1");
    EXPECT_EQ(to_string(parse_length_dtype("u8")), "<u8");
    const std::string f = test::error_of([] { parse_length_dtype("float32"); });
    EXPECT_HAS(f, "dtype = 'float32' is a floating-point type, not an integer type; valid: uint8, int8, uint16");
    EXPECT_THROW(parse_length_dtype("float32"), std::invalid_argument);
    EXPECT_HAS(test::error_of([] { parse_length_dtype("|u4"); }), "has byte order '|'");
    EXPECT_HAS(test::error_of([] { parse_length_dtype("bool"); }), "is a boolean type");
    EXPECT_HAS(test::error_of([] { parse_length_dtype("u16"); }), "dtype = 'u16' is not an integer type");
}

TEST(LengthsJsonl, FieldAndLineNumbers) {
    write_bytes(tmp("l.jsonl"), "{\"n_tokens\": 5}\n\n{\"n_tokens\": 0, \"x\": 1}\n");
    EXPECT_EQ(read_lengths_jsonl(tmp("l.jsonl"), "n_tokens"), (std::vector<std::uint32_t>{5, 0}));
    const std::string missing = test::error_of([] { read_lengths_jsonl(tmp("l.jsonl")); });
    EXPECT_HAS(missing, "l.jsonl:1");
    // It names the fields the line has, so that the length's can be given.
    EXPECT_HAS(missing, "no field 'length'; the line has the fields \"n_tokens\" (name the length's field");
    write_bytes(tmp("many.jsonl"),
                "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1,\"j\":1}\n");
    EXPECT_HAS(test::error_of([] { read_lengths_jsonl(tmp("many.jsonl")); }),
               "the fields \"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", ... (");
    write_bytes(tmp("none.jsonl"), "{}\n");
    EXPECT_HAS(test::error_of([] { read_lengths_jsonl(tmp("none.jsonl")); }), "the line has no fields");
    write_bytes(tmp("bad.jsonl"), "{\"length\": 5}\n{\"length\": -3}\n");
    const std::string bad = test::error_of([] { read_lengths_jsonl(tmp("bad.jsonl")); });
    EXPECT_HAS(bad, "bad.jsonl:2: field 'length' = -3: negative length");
    write_bytes(tmp("syntax.jsonl"), "{\"length\": 5}\n{oops\n");
    EXPECT_THROW(read_lengths_jsonl(tmp("syntax.jsonl")), ParseError);
    write_bytes(tmp("empty.jsonl"), "\n");
    EXPECT_THROW(read_lengths_jsonl(tmp("empty.jsonl")), ParseError);
}

}  // namespace
}  // namespace libscale
