// Readers for per-sample token lengths (.npy, raw binary, JSONL).
#include "libscale/gate/lengths_io.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>

#include "libscale/io/error.hpp"
#include "libscale/io/input_file.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/io/output_file.hpp"

namespace libscale {

namespace {

// The integer types numpy writes in a .npy descr (dtype.str), as the errors list them.
constexpr const char* kNpyIntegerDescrs = "|u1, |i1, <u2, >u2, <i2, >i2, <u4, >u4, <i4, >i4, <u8, >u8, <i8, >i8";
constexpr const char* kDtypeSpellings =
    "uint8, int8, uint16, int16, uint32, int32, uint64, int64 (little-endian), or a numpy type code with its byte "
    "order: |u1, |i1, <u2, >u2, <i2, >i2, <u4, >u4, <i4, >i4, <u8, >u8, <i8, >i8";
constexpr bool kHostBigEndian = std::endian::native == std::endian::big;
// numpy.lib.format refuses longer headers unless the file is trusted (_MAX_HEADER_SIZE);
// an integer array's header is under 128 bytes.
constexpr std::uint64_t kMaxNpyHeader = 10000;

constexpr const char* kLengthsExpected = "a token-lengths file (.npy, raw integers or JSONL)";

InputFile open_binary(const std::string& path) { return InputFile(path, kLengthsExpected); }

// An unsigned little-endian integer of n bytes (the .npy header length field).
std::uint64_t le_uint(const unsigned char* p, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

[[noreturn]] void bad_value(const std::string& origin, std::uint64_t index, const std::string& v, const char* why) {
    throw ParseError(origin + ": lengths[" + std::to_string(index) + "] = " + v + ": " + why);
}

// ---- integer types ----------------------------------------------------------------

// Why `s` is not an integer type (its category where it has one), "" when it is one and
// `out` holds it. Spellings: see parse_length_dtype.
std::string parse_dtype(std::string_view s, LengthDtype& out) {
    struct Name {
        std::string_view name;
        bool is_signed;
        int size;
    };
    static constexpr Name kNames[] = {{"uint8", false, 1},  {"int8", true, 1},    {"uint16", false, 2},
                                      {"int16", true, 2},   {"uint32", false, 4}, {"int32", true, 4},
                                      {"uint64", false, 8}, {"int64", true, 8}};
    for (const Name& n : kNames)
        if (s == n.name) {
            out = {n.is_signed, n.size, false};
            return "";
        }
    // numpy's names are lower case; "UINT32" would otherwise read as the string code 'U'.
    const auto lower_equals = [](std::string_view a, std::string_view b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) == y;
               });
    };
    for (const Name& n : kNames)
        if (lower_equals(s, n.name))
            return "is not a dtype name (numpy's are lower case): write '" + std::string(n.name) + "'";
    std::string_view code = s;
    char order = '\0';
    if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '=' || code[0] == '|')) {
        order = code[0];
        code.remove_prefix(1);
    }
    if (code.size() == 2 && (code[0] == 'u' || code[0] == 'i') &&
        (code[1] == '1' || code[1] == '2' || code[1] == '4' || code[1] == '8')) {
        const int size = code[1] - '0';
        // numpy marks a byte order "not applicable" ('|') only where it is: 1-byte types.
        if (order == '|' && size > 1)
            return "has byte order '|' (not applicable), which only a 1-byte type has: write '<" + std::string(code) +
                   "' or '>" + std::string(code) + "'";
        out = {code[0] == 'i', size, order == '>' || (order == '=' && kHostBigEndian)};
        return "";
    }
    const auto starts = [&](std::string_view p) { return s.substr(0, p.size()) == p; };
    const char kind = code.empty() ? '\0' : code[0];
    if (kind == 'f' || kind == 'e' || kind == 'd' || kind == 'g' || starts("float") || starts("half") ||
        starts("double"))
        return "is a floating-point type, not an integer type";
    if (kind == 'c' || starts("complex")) return "is a complex type, not an integer type";
    if (kind == '?' || (kind == 'b' && code.size() == 2 && code[1] == '1') || starts("bool"))
        return "is a boolean type, not an integer type";
    if (kind == 'O' || starts("object")) return "is an object (pickled Python) type, not an integer type";
    if (kind == 'U' || kind == 'S' || kind == 'a' || starts("str") || starts("bytes"))
        return "is a string type, not an integer type";
    if (kind == 'M' || kind == 'm' || starts("datetime") || starts("timedelta"))
        return "is a date/time type, not an integer type";
    if (kind == 'V' || starts("void")) return "is a raw-bytes (void) type, not an integer type";
    return "is not an integer type";
}

// Items of T (an integer type of the item's size) from the file's bytes: swapped when the
// file's byte order is not the host's; each checked (≥ 0, ≤ 4294967295) and appended.
template <typename T, bool Swap>
void convert_as(const unsigned char* data, std::uint64_t count, const std::string& origin, std::uint64_t first_index,
                std::vector<std::uint32_t>& out) {
    using U = std::make_unsigned_t<T>;
    for (std::uint64_t k = 0; k < count; ++k) {
        const unsigned char* p = data + k * sizeof(T);
        unsigned char b[sizeof(T)];
        if constexpr (Swap) std::reverse_copy(p, p + sizeof(T), b);
        else std::memcpy(b, p, sizeof(T));
        U u = 0;
        std::memcpy(&u, b, sizeof u);
        const auto v = static_cast<T>(u);  // two's complement (C++20)
        if constexpr (std::is_signed_v<T>)
            if (v < 0) bad_value(origin, first_index + k, std::to_string(v), "negative length");
        if constexpr (sizeof(T) == 8)
            if (static_cast<std::uint64_t>(v) > std::numeric_limits<std::uint32_t>::max())
                bad_value(origin, first_index + k, std::to_string(v), "longer than 4294967295 tokens");
        out.push_back(static_cast<std::uint32_t>(v));
    }
}

using Converter = void (*)(const unsigned char*, std::uint64_t, const std::string&, std::uint64_t,
                           std::vector<std::uint32_t>&);

template <bool Swap>
Converter converter_for(LengthDtype d) {
    switch (d.size) {
        case 1: return d.is_signed ? &convert_as<std::int8_t, false> : &convert_as<std::uint8_t, false>;
        case 2: return d.is_signed ? &convert_as<std::int16_t, Swap> : &convert_as<std::uint16_t, Swap>;
        case 4: return d.is_signed ? &convert_as<std::int32_t, Swap> : &convert_as<std::uint32_t, Swap>;
        case 8: return d.is_signed ? &convert_as<std::int64_t, Swap> : &convert_as<std::uint64_t, Swap>;
        default: break;
    }
    throw std::invalid_argument("dtype: item size " + std::to_string(d.size) + " bytes; valid: 1, 2, 4, 8");
}

Converter converter(LengthDtype d) {
    return d.size > 1 && d.big_endian != kHostBigEndian ? converter_for<true>(d) : converter_for<false>(d);
}

// Reads `count` items of dtype from f (positioned at the data).
void check_count(std::uint64_t count, const std::string& origin) {
    if (count > kMaxLengths)
        throw ParseError(origin + ": " + std::to_string(count) + " lengths; at most " + std::to_string(kMaxLengths) +
                         " (2^30, 4 GiB in memory) are read at once: gate a shard of the dataset");
}

std::vector<std::uint32_t> read_items(InputFile& f, std::uint64_t count, LengthDtype dtype, const std::string& origin) {
    check_count(count, origin);
    std::vector<std::uint32_t> out;
    if (dtype == LengthDtype{false, 4, kHostBigEndian}) {  // the host's uint32: every value is a length
        out.resize(static_cast<std::size_t>(count));
        const std::size_t got = f.read_full(reinterpret_cast<char*>(out.data()), static_cast<std::size_t>(count * 4));
        if (got != count * 4)
            throw ParseError(origin + ": truncated: read " + std::to_string(got) + " of " + std::to_string(count * 4) +
                             " data bytes");
        return out;
    }
    out.reserve(static_cast<std::size_t>(count));
    const Converter convert = converter(dtype);
    const auto sz = static_cast<std::size_t>(dtype.size);
    constexpr std::uint64_t kChunk = 1 << 16;
    std::vector<unsigned char> buf(kChunk * sz);
    for (std::uint64_t done = 0; done < count;) {
        const std::uint64_t k = std::min(kChunk, count - done);
        const std::size_t got = f.read_full(reinterpret_cast<char*>(buf.data()), static_cast<std::size_t>(k * sz));
        if (got != k * sz)
            throw ParseError(origin + ": truncated: file ends inside item " + std::to_string(done + got / sz));
        convert(buf.data(), k, origin, done, out);
        done += k;
    }
    return out;
}

// ---- the .npy header ----------------------------------------------------------------
// numpy.lib.format: "The next HEADER_LEN bytes form the header data describing the array's
// format. It is an ASCII string which contains a Python literal expression of a
// dictionary. It is terminated by a newline (\n) and padded with spaces (\x20)". numpy
// reads it with ast.literal_eval; this parser takes the subset numpy writes (strings, True,
// False, decimal integers, tuples, lists, one dict) and keeps every other token as `other`
// for the checks below to name.

struct Literal {
    enum class Kind { string, integer, boolean, tuple, list, other } kind = Kind::other;
    std::string text;  // as written, for messages
    std::string str;
    std::uint64_t integer = 0;
    bool negative = false;  // an integer written with '-'
    bool boolean = false;
    std::vector<Literal> items;
};

class HeaderParser {
public:
    HeaderParser(const std::string& h, const std::string& origin, bool python2_longs)
        : h_(h), origin_(origin), python2_longs_(python2_longs) {}

    // The dict: key → value, in order.
    std::vector<std::pair<std::string, Literal>> dict() {
        ws();
        expect('{');
        std::vector<std::pair<std::string, Literal>> out;
        ws();
        while (peek() != '}') {
            Literal key = value(0);
            if (key.kind != Literal::Kind::string) fail("a key of the header dict is " + key.text + ", not a string");
            ws();
            expect(':');
            ws();
            out.emplace_back(key.str, value(0));
            ws();
            if (peek() == ',') {
                ++p_;
                ws();
            } else if (peek() != '}') {
                fail("expected ',' or '}' after the value of '" + out.back().first + "'");
            }
        }
        ++p_;
        return out;
    }

    // After the dict: spaces, then the final '\n'.
    void end() {
        while (p_ < h_.size() && h_[p_] == ' ') ++p_;
        if (p_ + 1 == h_.size() && h_[p_] == '\n') return;
        if (p_ == h_.size())
            throw ParseError(origin_ +
                             ": .npy header does not end in a newline (the format pads it with spaces and "
                             "ends it with '\\n')");
        fail("unexpected text after the header dict");
    }

private:
    char peek() const { return p_ < h_.size() ? h_[p_] : '\0'; }
    void ws() {
        while (p_ < h_.size() && (h_[p_] == ' ' || h_[p_] == '\t' || h_[p_] == '\n' || h_[p_] == '\r')) ++p_;
    }
    [[noreturn]] void fail(const std::string& what) const {
        std::string near = h_.substr(p_, 24);
        std::replace(near.begin(), near.end(), '\n', ' ');
        throw ParseError(origin_ + ": malformed .npy header: " + what + " (at byte " + std::to_string(p_) +
                         " of the header: '" + near + "')");
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++p_;
    }

    Literal value(int depth) {
        if (depth > 32) fail("nested too deeply");
        const std::size_t start = p_;
        Literal v;
        const char c = peek();
        if (c == '\'' || c == '"') {
            ++p_;
            while (p_ < h_.size() && h_[p_] != c) {
                if (h_[p_] == '\\') fail("escape sequences in strings are not used by the format");
                if (h_[p_] == '\n') fail("unterminated string");
                v.str.push_back(h_[p_++]);
            }
            if (p_ == h_.size()) fail("unterminated string");
            ++p_;
            v.kind = Literal::Kind::string;
        } else if (c == '(' || c == '[') {
            const char close = c == '(' ? ')' : ']';
            ++p_;
            ws();
            bool comma = false;
            while (peek() != close) {
                v.items.push_back(value(depth + 1));
                ws();
                if (peek() == ',') {
                    comma = true;
                    ++p_;
                    ws();
                } else if (peek() != close) {
                    fail(std::string("expected ',' or '") + close + "'");
                }
            }
            ++p_;
            if (c == '(' && v.items.size() == 1 && !comma) {  // (5) is 5 in Python, not a tuple
                Literal inner = std::move(v.items.front());
                inner.text = h_.substr(start, p_ - start);
                return inner;
            }
            v.kind = c == '(' ? Literal::Kind::tuple : Literal::Kind::list;
        } else {
            // A bare token: True, False, a decimal integer, or anything else (kept as `other`).
            while (p_ < h_.size() && std::string_view(" \t\r\n,:)]}([{'\"").find(h_[p_]) == std::string_view::npos)
                ++p_;
            if (p_ == start) fail("expected a value");
            std::string_view t(h_.data() + start, p_ - start);
            if (t == "True" || t == "False") {
                v.kind = Literal::Kind::boolean;
                v.boolean = t == "True";
            } else {
                integer(t, v);
            }
        }
        v.text = h_.substr(start, p_ - start);
        return v;
    }

    // A decimal integer as Python writes one ("0", "12", "-3"; numpy reads Python 2's "12L"
    // in version 1.0 and 2.0 headers), else left as `other`.
    void integer(std::string_view t, Literal& v) const {
        std::string_view d = t;
        const bool negative = !d.empty() && d[0] == '-';
        if (negative) d.remove_prefix(1);
        if (python2_longs_ && !d.empty() && d.back() == 'L') d.remove_suffix(1);
        if (d.empty() || d.size() > 19 || (d.size() > 1 && d[0] == '0')) return;
        std::uint64_t x = 0;
        for (const char ch : d) {
            if (ch < '0' || ch > '9') return;
            x = x * 10 + static_cast<std::uint64_t>(ch - '0');
        }
        v.kind = Literal::Kind::integer;
        v.integer = x;
        v.negative = negative && x != 0;
    }

    const std::string& h_;
    const std::string& origin_;
    bool python2_longs_;
    std::size_t p_ = 0;
};

struct NpyHeader {
    std::string descr;
    LengthDtype dtype;
    std::uint64_t n = 0;
    std::string shape;  // as written
};

NpyHeader parse_npy_header(const std::string& h, const std::string& path, int major) {
    HeaderParser parser(h, path, major <= 2);
    const auto dict = parser.dict();
    parser.end();
    const Literal* descr = nullptr;
    const Literal* fortran = nullptr;
    const Literal* shape = nullptr;
    for (const auto& [key, value] : dict) {
        const Literal** slot = key == "descr"           ? &descr
                               : key == "fortran_order" ? &fortran
                               : key == "shape"         ? &shape
                                                        : nullptr;
        if (!slot)
            throw ParseError(path + ": .npy header has the key '" + key +
                             "'; the format's keys are exactly descr, fortran_order, shape");
        if (*slot) throw ParseError(path + ": .npy header gives '" + key + "' twice");
        *slot = &value;
    }
    if (!descr) throw ParseError(path + ": .npy header lacks 'descr'");
    if (!fortran) throw ParseError(path + ": .npy header lacks 'fortran_order'");
    if (!shape) throw ParseError(path + ": .npy header lacks 'shape'");

    NpyHeader out;
    if (descr->kind == Literal::Kind::list)
        throw ParseError(path + ": dtype " + descr->text +
                         " is a structured type (named fields), not an integer type; valid: " + kNpyIntegerDescrs);
    if (descr->kind != Literal::Kind::string)
        throw ParseError(path + ": .npy header descr = " + descr->text + ": must be a dtype string such as '<u4'");
    out.descr = descr->str;
    const std::string why = parse_dtype(out.descr, out.dtype);
    if (!why.empty()) throw ParseError(path + ": dtype '" + out.descr + "' " + why + "; valid: " + kNpyIntegerDescrs);
    if (fortran->kind != Literal::Kind::boolean)
        throw ParseError(path + ": .npy header fortran_order = " + fortran->text + ": must be True or False");
    out.shape = shape->text;
    if (shape->kind != Literal::Kind::tuple)
        throw ParseError(path + ": shape " + shape->text + " is not a tuple: a 1-D array's shape is written (N,)");
    for (const Literal& d : shape->items)
        if (d.kind != Literal::Kind::integer || d.negative)
            throw ParseError(path + ": shape " + shape->text + ": " + d.text + " is not a non-negative integer");
    if (shape->items.empty())
        throw ParseError(path + ": shape (): a 0-d array (one scalar), not a 1-D array of per-sample lengths");
    if (shape->items.size() > 1)
        throw ParseError(path + ": shape " + shape->text + (fortran->boolean ? " (fortran_order True)" : "") + ": " +
                         std::to_string(shape->items.size()) +
                         " dimensions; the lengths must be a 1-D array, one entry per sample");
    // A 1-D array is laid out the same in C and Fortran order.
    out.n = shape->items.front().integer;
    return out;
}

// ---- the .npy prefix and data size ---------------------------------------------------
// Shared by read_lengths_npy and lengths_from_npy (the fuzz target's entry point).

// The format version from the first `got` (up to 8) bytes: magic "\x93NUMPY", major, minor.
int npy_version(const unsigned char* pre, std::size_t got, const std::string& path) {
    if (got < 8 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
        throw ParseError(path + ": not a .npy file (no \\x93NUMPY magic)");
    const int major = pre[6];
    const int minor = pre[7];
    if (major < 1 || major > 3 || minor != 0)
        throw ParseError(path + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                         ": the versions are 1.0, 2.0 and 3.0");
    return major;
}

// The header length from the prefix `pre` (`got` bytes read, version checked), checked
// against the file's `size`.
std::uint64_t npy_header_len(const unsigned char* pre, std::size_t got, std::uint64_t size, const std::string& path) {
    const int len_bytes = pre[6] == 1 ? 2 : 4;
    const std::size_t prefix = 8 + static_cast<std::size_t>(len_bytes);
    if (got < prefix) throw ParseError(path + ": truncated .npy file: it ends inside the header length");
    const std::uint64_t header_len = le_uint(pre + 8, len_bytes);
    if (header_len > size - prefix)
        throw ParseError(path + ": truncated .npy header: it says " + std::to_string(header_len) +
                         " bytes, the file holds " + std::to_string(size - prefix) + " after the " +
                         std::to_string(prefix) + "-byte prefix");
    if (header_len > kMaxNpyHeader)
        throw ParseError(path + ": .npy header of " + std::to_string(header_len) +
                         " bytes; numpy itself reads at most " + std::to_string(kMaxNpyHeader) +
                         " (an integer array's header is under 128)");
    return header_len;
}

// The data after the header must be exactly shape × item size bytes (`have`).
void check_npy_data(const NpyHeader& hdr, std::uint64_t have, const std::string& path) {
    if (hdr.n == 0) throw ParseError(path + ": empty dataset (shape " + hdr.shape + ")");
    const auto item = static_cast<std::uint64_t>(hdr.dtype.size);
    // n × item without overflow: compare n with what the bytes hold first.
    if (hdr.n > have / item || hdr.n * item != have) {
        const std::string need =
            hdr.n > std::numeric_limits<std::uint64_t>::max() / item ? "more than 2^64" : std::to_string(hdr.n * item);
        throw ParseError(path + ": shape " + hdr.shape + " of " + hdr.descr + " needs " + need +
                         " data bytes, the file holds " + std::to_string(have) +
                         (hdr.n > have / item ? " (truncated)" : " (trailing bytes after the array)"));
    }
}

// The item count of a raw file of `size` bytes.
std::uint64_t raw_count(std::uint64_t size, LengthDtype dtype, const std::string& path) {
    const auto sz = static_cast<std::uint64_t>(dtype.size);
    if (size == 0) throw ParseError(path + ": empty dataset (0 bytes)");
    if (size % sz != 0)
        throw ParseError(path + ": " + std::to_string(size) + " bytes is not a multiple of " + std::to_string(sz) +
                         " (dtype " + to_string(dtype) + "): truncated file or wrong dtype");
    return size / sz;
}

// One line of a JSON Lines file (`where`: "path:line"): its length appended to out; a
// blank line is skipped.
void jsonl_line(const std::string& line, const std::string& where, const std::string& field,
                std::vector<std::uint32_t>& out) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    // A line is one flat object: nesting is refused (JsonGuard, json_io.hpp) before the parser
    // builds it (memory) and before dump() below recurses into it (a stack overflow at ~10^5
    // levels; found by fuzz/fuzz_lengths_jsonl), and so is a key given twice.
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(line, JsonGuard(where));
    } catch (const nlohmann::json::exception& e) {
        // parse_error, and out_of_range for a number past double's range ("1e999"; found by
        // fuzz/fuzz_lengths_jsonl), which nlohmann throws from parse() too.
        throw ParseError(where + ": not JSON: " + e.what());
    }
    if (!j.is_object()) throw ParseError(where + ": each line must be a JSON object");
    const auto it = j.find(field);
    if (it == j.end()) {
        // Name what the line has (the first few, each cut short and escaped by dump()), so
        // that the length's own name can be given (--length-field, field=).
        std::string found;
        std::size_t n = 0;
        for (const auto& item : j.items()) {
            if (n++ == 8) {
                found += ", ...";
                break;
            }
            const std::string& key = item.key();
            found +=
                (found.empty() ? "" : ", ") + nlohmann::json(key.size() > 40 ? key.substr(0, 40) + "..." : key).dump();
        }
        throw ParseError(where + ": no field '" + field + "'; the line has " +
                         (found.empty() ? std::string("no fields") : "the fields " + found) +
                         " (name the length's field: --length-field, or field= in Python)");
    }
    // An integer past 2^64 reaches here as a float (nlohmann's parser): it is an integer, too long.
    if (it->is_number_float() && std::abs(it->get<double>()) >= 18446744073709551616.0)
        throw ParseError(where + ": field '" + field + "' = " + it->dump() +
                         ": longer than 4294967295 tokens (beyond a 64-bit integer)");
    if (!it->is_number_integer())
        throw ParseError(where + ": field '" + field + "' = " + it->dump() + ": must be an integer");
    if (it->is_number_unsigned()) {
        const auto v = it->get<std::uint64_t>();
        if (v > std::numeric_limits<std::uint32_t>::max())
            throw ParseError(where + ": field '" + field + "' = " + std::to_string(v) +
                             ": longer than 4294967295 tokens");
        out.push_back(static_cast<std::uint32_t>(v));
    } else {
        const auto v = it->get<std::int64_t>();
        if (v < 0)
            throw ParseError(where + ": field '" + field + "' = " + std::to_string(v) +
                             ": negative length (must be ≥ 0)");
        if (v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
            throw ParseError(where + ": field '" + field + "' = " + std::to_string(v) +
                             ": longer than 4294967295 tokens");
        out.push_back(static_cast<std::uint32_t>(v));
    }
}

}  // namespace

LengthDtype parse_length_dtype(std::string_view s) {
    LengthDtype d;
    const std::string why = parse_dtype(s, d);
    if (!why.empty())
        throw std::invalid_argument("dtype = '" + std::string(s) + "' " + why + "; valid: " + kDtypeSpellings);
    return d;
}

std::string to_string(LengthDtype d) {
    const char order = d.size == 1 ? '|' : d.big_endian ? '>' : '<';
    return std::string(1, order) + (d.is_signed ? 'i' : 'u') + std::to_string(d.size);
}

std::vector<std::uint32_t> read_lengths_npy(const std::string& path) {
    InputFile f = open_binary(path);
    const std::uint64_t size = f.size();
    unsigned char pre[12] = {};
    std::size_t got = f.read_full(reinterpret_cast<char*>(pre), 8);
    const int major = npy_version(pre, got, path);
    // 1.0: a 2-byte header length; 2.0 and 3.0 (a UTF-8 header): 4 bytes.
    const int len_bytes = major == 1 ? 2 : 4;
    got += f.read_full(reinterpret_cast<char*>(pre + 8), static_cast<std::size_t>(len_bytes));
    const std::uint64_t header_len = npy_header_len(pre, got, size, path);
    const std::uint64_t data_start = 8 + static_cast<std::uint64_t>(len_bytes) + header_len;
    std::string h(static_cast<std::size_t>(header_len), '\0');
    if (f.read_full(h.data(), h.size()) != header_len) throw ParseError(path + ": truncated .npy header");

    const NpyHeader hdr = parse_npy_header(h, path, major);
    check_npy_data(hdr, size - data_start, path);
    return read_items(f, hdr.n, hdr.dtype, path);  // read in order: f is at data_start
}

std::vector<std::uint32_t> read_lengths_raw(const std::string& path, LengthDtype dtype) {
    static_cast<void>(converter(dtype));  // an item size other than 1, 2, 4, 8 throws here
    InputFile f = open_binary(path);
    return read_items(f, raw_count(f.size(), dtype, path), dtype, path);
}

std::vector<std::uint32_t> read_lengths_jsonl(const std::string& path, const std::string& field) {
    InputFile f = open_binary(path);
    std::vector<std::uint32_t> out;
    // Line by line in chunks: a JSONL file may hold the samples' text beside their lengths,
    // far more than the lengths need in memory; one line is bounded instead.
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    constexpr std::size_t kMaxLine = std::size_t{64} << 20;
    std::string buf, chunk(kChunk, '\0');
    std::uint64_t lineno = 1;
    for (;;) {
        const std::size_t got = f.read_some(chunk.data(), chunk.size());
        buf.append(chunk.data(), got);
        std::size_t pos = 0;
        for (std::size_t nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n', pos)) {
            jsonl_line(buf.substr(pos, nl - pos), path + ":" + std::to_string(lineno), field, out);
            if (out.size() > kMaxLengths) check_count(out.size(), path);
            pos = nl + 1;
            ++lineno;
        }
        buf.erase(0, pos);
        if (got == 0) break;
        if (buf.size() > kMaxLine)
            throw ParseError(path + ":" + std::to_string(lineno) + ": a line longer than 64 MiB; is it JSONL?");
    }
    if (!buf.empty()) jsonl_line(buf, path + ":" + std::to_string(lineno), field, out);
    if (out.empty()) throw ParseError(path + ": empty dataset (no lines)");
    return out;
}

bool has_npy_magic(const std::string& path) {
    InputFile f = open_binary(path);
    char magic[6] = {};
    return f.read_full(magic, 6) == 6 && std::string_view(magic, 6) == "\x93NUMPY";
}

std::vector<std::uint32_t> lengths_from_npy(std::string_view bytes, const std::string& origin) {
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    const int major = npy_version(b, std::min<std::size_t>(bytes.size(), 8), origin);
    const std::uint64_t header_len = npy_header_len(b, std::min<std::size_t>(bytes.size(), 12), bytes.size(), origin);
    const std::uint64_t data_start = (major == 1 ? 10 : 12) + header_len;
    const std::string h(bytes.substr(data_start - header_len, header_len));
    const NpyHeader hdr = parse_npy_header(h, origin, major);
    check_npy_data(hdr, bytes.size() - data_start, origin);
    std::vector<std::uint32_t> out;
    out.reserve(static_cast<std::size_t>(hdr.n));
    converter(hdr.dtype)(b + data_start, hdr.n, origin, 0, out);
    return out;
}

std::vector<std::uint32_t> lengths_from_raw(std::string_view bytes, LengthDtype dtype, const std::string& origin) {
    const Converter convert = converter(dtype);  // an item size other than 1, 2, 4, 8 throws here
    const std::uint64_t n = raw_count(bytes.size(), dtype, origin);
    std::vector<std::uint32_t> out;
    out.reserve(static_cast<std::size_t>(n));
    convert(reinterpret_cast<const unsigned char*>(bytes.data()), n, origin, 0, out);
    return out;
}

std::vector<std::uint32_t> lengths_from_jsonl(std::string_view text, const std::string& origin,
                                              const std::string& field) {
    std::vector<std::uint32_t> out;
    // Lines as read_lengths_jsonl splits them: at '\n', and a last line without one.
    std::uint64_t lineno = 1;
    for (std::size_t pos = 0; pos < text.size(); ++lineno) {
        const std::size_t nl = std::min(text.find('\n', pos), text.size());
        jsonl_line(std::string(text.substr(pos, nl - pos)), origin + ":" + std::to_string(lineno), field, out);
        pos = nl + 1;
    }
    if (out.empty()) throw ParseError(origin + ": empty dataset (no lines)");
    return out;
}

void write_lengths_npy(const std::string& path, std::span<const std::uint32_t> lengths) {
    std::string h = "{'descr': '<u4', 'fortran_order': False, 'shape': (" + std::to_string(lengths.size()) + ",), }";
    const std::size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h.push_back('\n');
    std::string file = {
        '\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<char>(h.size() & 0xFF), static_cast<char>(h.size() >> 8)};
    file += h;
    file.append(reinterpret_cast<const char*>(lengths.data()), lengths.size() * 4);
    write_file_atomic(path, file);
}

}  // namespace libscale
