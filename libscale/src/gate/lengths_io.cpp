// Readers for per-sample token lengths (.npy, raw binary, JSONL).
#include "libscale/gate/lengths_io.hpp"

#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "libscale/io/error.hpp"

namespace libscale {

namespace {

constexpr const char* kValidDtypes = "<u2, <u4, <u8, <i4, <i8";

std::size_t item_size(LengthDtype d) {
    switch (d) {
        case LengthDtype::u16: return 2;
        case LengthDtype::u32:
        case LengthDtype::i32: return 4;
        case LengthDtype::u64:
        case LengthDtype::i64: return 8;
    }
    return 0;
}

std::ifstream open_binary(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::invalid_argument("path = '" + path + "': cannot open the file");
    return f;
}

std::uint64_t file_size(std::ifstream& f) {
    f.seekg(0, std::ios::end);
    const auto size = static_cast<std::uint64_t>(f.tellg());
    f.seekg(0, std::ios::beg);
    return size;
}

template <typename T>
T load_le(const unsigned char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);  // little-endian hosts only (x86-64, aarch64)
    return v;
}

[[noreturn]] void bad_value(const std::string& origin, std::uint64_t index, const std::string& v, const char* why) {
    throw ParseError(origin + ": lengths[" + std::to_string(index) + "] = " + v + ": " + why);
}

// Converts `count` items of `dtype` at `data` into out (validating each).
void convert(const unsigned char* data, std::uint64_t count, LengthDtype dtype, const std::string& origin,
             std::uint64_t first_index, std::vector<std::uint32_t>& out) {
    const std::size_t sz = item_size(dtype);
    for (std::uint64_t k = 0; k < count; ++k) {
        const unsigned char* p = data + k * sz;
        const std::uint64_t idx = first_index + k;
        std::int64_t v = 0;
        switch (dtype) {
            case LengthDtype::u16: v = load_le<std::uint16_t>(p); break;
            case LengthDtype::u32: v = load_le<std::uint32_t>(p); break;
            case LengthDtype::i32: v = load_le<std::int32_t>(p); break;
            case LengthDtype::i64: v = load_le<std::int64_t>(p); break;
            case LengthDtype::u64: {
                const auto u = load_le<std::uint64_t>(p);
                if (u > std::numeric_limits<std::uint32_t>::max())
                    bad_value(origin, idx, std::to_string(u), "longer than 4294967295 tokens");
                v = static_cast<std::int64_t>(u);
                break;
            }
        }
        if (v < 0) bad_value(origin, idx, std::to_string(v), "negative length");
        if (v == 0) bad_value(origin, idx, "0", "every sample must have at least 1 token");
        if (v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
            bad_value(origin, idx, std::to_string(v), "longer than 4294967295 tokens");
        out.push_back(static_cast<std::uint32_t>(v));
    }
}

void check_nonzero(const std::vector<std::uint32_t>& out, const std::string& origin) {
    for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i] == 0) bad_value(origin, i, "0", "every sample must have at least 1 token");
}

// Reads `count` items of dtype from f (positioned at the data).
std::vector<std::uint32_t> read_items(std::ifstream& f, std::uint64_t count, LengthDtype dtype,
                                      const std::string& origin) {
    std::vector<std::uint32_t> out;
    if (dtype == LengthDtype::u32) {
        out.resize(static_cast<std::size_t>(count));
        f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(count * 4));
        if (static_cast<std::uint64_t>(f.gcount()) != count * 4)
            throw ParseError(origin + ": truncated: read " + std::to_string(f.gcount()) + " of " +
                             std::to_string(count * 4) + " data bytes");
        check_nonzero(out, origin);
        return out;
    }
    out.reserve(static_cast<std::size_t>(count));
    const std::size_t sz = item_size(dtype);
    constexpr std::uint64_t kChunk = 1 << 16;
    std::vector<unsigned char> buf(kChunk * sz);
    for (std::uint64_t done = 0; done < count;) {
        const std::uint64_t k = std::min(kChunk, count - done);
        f.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(k * sz));
        if (static_cast<std::uint64_t>(f.gcount()) != k * sz)
            throw ParseError(origin + ": truncated: file ends inside item " +
                             std::to_string(done + static_cast<std::uint64_t>(f.gcount()) / sz));
        convert(buf.data(), k, dtype, origin, done, out);
        done += k;
    }
    return out;
}

// The value of `'key': value` in a .npy header dict, as text up to the next ',' or '}'
// (or the matching ')' for tuples).
std::string header_value(const std::string& h, const std::string& key, const std::string& origin) {
    const auto k = h.find("'" + key + "'");
    if (k == std::string::npos) throw ParseError(origin + ": .npy header lacks '" + key + "'");
    auto p = h.find(':', k);
    if (p == std::string::npos) throw ParseError(origin + ": malformed .npy header");
    ++p;
    while (p < h.size() && h[p] == ' ') ++p;
    std::size_t e = 0;
    if (p < h.size() && h[p] == '(') {
        e = h.find(')', p);
        if (e == std::string::npos) throw ParseError(origin + ": malformed .npy shape");
        ++e;
    } else {
        e = h.find_first_of(",}", p);
        if (e == std::string::npos) throw ParseError(origin + ": malformed .npy header");
    }
    std::string v = h.substr(p, e - p);
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
}

}  // namespace

LengthDtype parse_length_dtype(std::string_view s) {
    if (s == "uint16" || s == "u2" || s == "<u2") return LengthDtype::u16;
    if (s == "uint32" || s == "u4" || s == "<u4") return LengthDtype::u32;
    if (s == "uint64" || s == "u8" || s == "<u8") return LengthDtype::u64;
    if (s == "int32" || s == "i4" || s == "<i4") return LengthDtype::i32;
    if (s == "int64" || s == "i8" || s == "<i8") return LengthDtype::i64;
    throw std::invalid_argument("dtype = '" + std::string(s) +
                                "': must be one of uint16, uint32, uint64, int32, int64");
}

const char* to_string(LengthDtype d) {
    switch (d) {
        case LengthDtype::u16: return "<u2";
        case LengthDtype::u32: return "<u4";
        case LengthDtype::u64: return "<u8";
        case LengthDtype::i32: return "<i4";
        case LengthDtype::i64: return "<i8";
    }
    return "?";
}

std::vector<std::uint32_t> read_lengths_npy(const std::string& path) {
    auto f = open_binary(path);
    const std::uint64_t size = file_size(f);
    unsigned char pre[12] = {};
    f.read(reinterpret_cast<char*>(pre), 10);
    if (f.gcount() < 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
        throw ParseError(path + ": not a .npy file (no \\x93NUMPY magic)");
    const int major = pre[6];
    std::uint64_t header_len = 0;
    std::uint64_t data_start = 0;
    if (major == 1) {
        header_len = load_le<std::uint16_t>(pre + 8);
        data_start = 10 + header_len;
    } else if (major == 2) {
        f.read(reinterpret_cast<char*>(pre + 10), 2);
        header_len = load_le<std::uint32_t>(pre + 8);
        data_start = 12 + header_len;
    } else {
        throw ParseError(path + ": .npy format version " + std::to_string(major) + "." + std::to_string(pre[7]) +
                         ": only 1.0 and 2.0 are read");
    }
    if (data_start > size) throw ParseError(path + ": truncated .npy header");
    std::string h(static_cast<std::size_t>(header_len), '\0');
    f.read(h.data(), static_cast<std::streamsize>(header_len));

    std::string descr = header_value(h, "descr", path);
    if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
    LengthDtype dtype{};
    if (descr == "<u2" || descr == "<u4" || descr == "<u8" || descr == "<i4" || descr == "<i8")
        dtype = parse_length_dtype(descr);
    else
        throw ParseError(path + ": dtype '" + descr + "' is not supported: must be one of " + kValidDtypes +
                         " (little-endian integers)");
    const std::string fortran = header_value(h, "fortran_order", path);
    const std::string shape = header_value(h, "shape", path);
    // 1-D: "(N,)". A 1-D array is laid out the same in C and Fortran order.
    std::uint64_t n = 0;
    {
        std::string inner = shape.substr(1, shape.size() - 2);
        const auto comma = inner.find(',');
        const std::string rest = comma == std::string::npos ? "" : inner.substr(comma + 1);
        if (comma == std::string::npos || rest.find_first_not_of(' ') != std::string::npos)
            throw ParseError(path + ": shape " + shape + ": must be 1-D, e.g. (N,)");
        try {
            std::size_t used = 0;
            n = std::stoull(inner.substr(0, comma), &used);
        } catch (const std::exception&) {
            throw ParseError(path + ": shape " + shape + " is not a 1-D size");
        }
        (void)fortran;
    }
    if (n == 0) throw ParseError(path + ": empty dataset (shape " + shape + ")");
    const std::uint64_t need = n * item_size(dtype);
    if (size - data_start < need)
        throw ParseError(path + ": truncated: header says " + std::to_string(n) + " items of " + descr + " (" +
                         std::to_string(need) + " bytes), the file holds " + std::to_string(size - data_start) +
                         " data bytes");
    f.seekg(static_cast<std::streamoff>(data_start));
    return read_items(f, n, dtype, path);
}

std::vector<std::uint32_t> read_lengths_raw(const std::string& path, LengthDtype dtype) {
    auto f = open_binary(path);
    const std::uint64_t size = file_size(f);
    const std::size_t sz = item_size(dtype);
    if (size == 0) throw ParseError(path + ": empty dataset (0 bytes)");
    if (size % sz != 0)
        throw ParseError(path + ": " + std::to_string(size) + " bytes is not a multiple of " + std::to_string(sz) +
                         " (dtype " + to_string(dtype) + "): truncated file or wrong dtype");
    return read_items(f, size / sz, dtype, path);
}

std::vector<std::uint32_t> read_lengths_jsonl(const std::string& path, const std::string& field) {
    std::ifstream f(path);
    if (!f) throw std::invalid_argument("path = '" + path + "': cannot open the file");
    std::vector<std::uint32_t> out;
    std::string line;
    for (std::uint64_t lineno = 1; std::getline(f, line); ++lineno) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + ":" + std::to_string(lineno);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::parse_error& e) {
            throw ParseError(where + ": not JSON: " + e.what());
        }
        if (!j.is_object()) throw ParseError(where + ": each line must be a JSON object");
        const auto it = j.find(field);
        if (it == j.end()) throw ParseError(where + ": no field '" + field + "'");
        if (!it->is_number_integer())
            throw ParseError(where + ": field '" + field + "' = " + it->dump() + ": must be an integer");
        if (it->is_number_unsigned()) {
            const auto v = it->get<std::uint64_t>();
            if (v == 0)
                throw ParseError(where + ": field '" + field + "' = 0: every sample must have at least 1 token");
            if (v > std::numeric_limits<std::uint32_t>::max())
                throw ParseError(where + ": field '" + field + "' = " + std::to_string(v) +
                                 ": longer than 4294967295 tokens");
            out.push_back(static_cast<std::uint32_t>(v));
        } else {
            const auto v = it->get<std::int64_t>();
            if (v <= 0)
                throw ParseError(where + ": field '" + field + "' = " + std::to_string(v) +
                                 ": must be ≥ 1 (negative or zero length)");
            if (v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
                throw ParseError(where + ": field '" + field + "' = " + std::to_string(v) +
                                 ": longer than 4294967295 tokens");
            out.push_back(static_cast<std::uint32_t>(v));
        }
    }
    if (out.empty()) throw ParseError(path + ": empty dataset (no lines)");
    return out;
}

void write_lengths_npy(const std::string& path, std::span<const std::uint32_t> lengths) {
    std::string h = "{'descr': '<u4', 'fortran_order': False, 'shape': (" + std::to_string(lengths.size()) + ",), }";
    const std::size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h.push_back('\n');
    std::ofstream f(path, std::ios::binary);
    if (!f) throw std::invalid_argument("path = '" + path + "': cannot write the file");
    const unsigned char pre[10] = {0x93,
                                   'N',
                                   'U',
                                   'M',
                                   'P',
                                   'Y',
                                   1,
                                   0,
                                   static_cast<unsigned char>(h.size() & 0xFF),
                                   static_cast<unsigned char>(h.size() >> 8)};
    f.write(reinterpret_cast<const char*>(pre), 10);
    f.write(h.data(), static_cast<std::streamsize>(h.size()));
    f.write(reinterpret_cast<const char*>(lengths.data()), static_cast<std::streamsize>(lengths.size() * 4));
}

}  // namespace libscale
