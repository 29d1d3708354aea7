#include "libscale/io/error.hpp"

#include <algorithm>
#include <cctype>

namespace libscale {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                              std::tolower(static_cast<unsigned char>(b[j - 1]));
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::string one_line(std::string_view message) {
    std::string out;
    out.reserve(message.size());
    for (const char ch : message) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7f) {
            out.push_back(ch);
        } else if (c == '\n') {
            out.append("\\n");
        } else if (c == '\r') {
            out.append("\\r");
        } else if (c == '\t') {
            out.append("\\t");
        } else {
            constexpr const char* kHex = "0123456789abcdef";
            out.append("\\x").push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xf]);
        }
    }
    return out;
}

std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t max_results) {
    std::vector<std::pair<std::size_t, std::string>> scored;
    scored.reserve(candidates.size());
    for (const auto& c : candidates) {
        std::size_t d = edit_distance(name, c);
        // A candidate containing the query ("qwen3" in "qwen3-32b") is a good guess too.
        if (!name.empty() && c.find(name) != std::string::npos) d = std::min<std::size_t>(d, 1);
        scored.emplace_back(d, c);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && out.size() < max_results; ++i) out.push_back(scored[i].second);
    return out;
}

}  // namespace libscale
