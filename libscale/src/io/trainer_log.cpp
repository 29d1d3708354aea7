#include "libscale/io/trainer_log.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <system_error>

// Each rule below mirrors one regular expression of bindings/libscale/logs/torchtitan.py
// (named in the comments) as Python's re applies it to an ASCII line: \s is
// [ \t\n\r\v\f\x1c-\x1f] (str.isspace), \d [0-9], \w [A-Za-z0-9_], and search() returns
// the leftmost match. Where following the expression exactly would take backtracking
// this scanner does not do, the line is deferred to Python instead.

namespace libscale {

namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_space(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == ' ' || u == '\t' || u == '\n' || u == '\r' || u == 0x0b || u == 0x0c || (u >= 0x1c && u <= 0x1f);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_word(char c) { return is_digit(c) || is_alpha(c) || c == '_'; }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// \b before s[i], a word character.
bool boundary_before(std::string_view s, std::size_t i) { return i == 0 || !is_word(s[i - 1]); }

std::size_t skip_spaces(std::string_view s, std::size_t i) {
    while (i < s.size() && is_space(s[i])) ++i;
    return i;
}

template <class Pred>
std::size_t skip_while(std::string_view s, std::size_t i, Pred pred) {
    while (i < s.size() && pred(s[i])) ++i;
    return i;
}

// Bytes that may start a line break of str.splitlines().
constexpr std::array<bool, 256> kMayBreak = [] {
    std::array<bool, 256> t{};
    for (const std::size_t c : {0x0aU, 0x0bU, 0x0cU, 0x0dU, 0x1cU, 0x1dU, 0x1eU, 0xc2U, 0xe2U}) t[c] = true;
    return t;
}();

// Length of the line break starting at text[i]; 0 when none starts there.
std::size_t break_length(std::string_view text, std::size_t i) {
    const auto at = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0U; };
    switch (at(i)) {
        case 0x0a:
        case 0x0b:
        case 0x0c:
        case 0x1c:
        case 0x1d:
        case 0x1e: return 1;
        case 0x0d: return at(i + 1) == 0x0a ? 2 : 1;
        case 0xc2: return at(i + 1) == 0x85 ? 2 : 0;                                              // U+0085
        case 0xe2: return at(i + 1) == 0x80 && (at(i + 2) == 0xa8 || at(i + 2) == 0xa9) ? 3 : 0;  // U+2028/9
        default: return 0;
    }
}

// The line without ANSI escapes (_ANSI: \x1b\[[0-9;]*[A-Za-z]), in `buffer` when it had any.
std::string_view strip_ansi(std::string_view line, std::string& buffer) {
    std::size_t esc = line.find('\x1b');
    if (esc == npos) return line;
    buffer.clear();
    std::size_t kept = 0;  // line[kept, esc) is copied next
    for (; esc != npos; esc = line.find('\x1b', esc + 1)) {
        if (esc + 1 >= line.size() || line[esc + 1] != '[') continue;
        const std::size_t j = skip_while(line, esc + 2, [](char c) { return is_digit(c) || c == ';'; });
        if (j >= line.size() || !is_alpha(line[j])) continue;
        buffer.append(line, kept, esc - kept);
        kept = j + 1;
        esc = j;
    }
    buffer.append(line, kept);
    return buffer;
}

// float(text) where text is made of [-0-9.]: false where Python's float() would raise (or
// where the value overflows, which float() turns into inf: the caller defers then).
bool parse_number(std::string_view text, double& out) {
    const std::size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
    int digits = 0;
    int dots = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
        if (is_digit(text[i])) ++digits;
        else if (text[i] == '.') ++dots;
        else return false;
    }
    if (digits == 0 || dots > 1) return false;
    // from_chars takes the range [first, last): no terminator is read.
    const char* const first = text.data();
    const char* const last = first + text.size();
    const auto r = std::from_chars(first, last, out);
    return r.ec == std::errc() && r.ptr == last;
}

enum class Read { match, no_match, bad };  // bad: matches, but Python's float() would raise

// _TT_MEM \bmemory:\s*([\d.]+)GiB\(([\d.]+)%\) from just after "memory:".
Read read_memory(std::string_view s, std::size_t i, double& out) {
    i = skip_spaces(s, i);
    const auto num = [](char c) { return is_digit(c) || c == '.'; };
    const std::size_t a = skip_while(s, i, num);
    if (a == i || s.substr(a, 4) != "GiB(") return Read::no_match;
    const std::size_t b = skip_while(s, a + 4, num);
    if (b == a + 4 || s.substr(b, 2) != "%)") return Read::no_match;
    return parse_number(s.substr(i, a - i), out) ? Read::match : Read::bad;
}

// _TT_MFU \bmfu:\s*([-\d.]+|nan)% from just after "mfu:".
Read read_mfu(std::string_view s, std::size_t i, double& out) {
    i = skip_spaces(s, i);
    const std::size_t a = skip_while(s, i, [](char c) { return is_digit(c) || c == '.' || c == '-'; });
    if (a > i && a < s.size() && s[a] == '%') return parse_number(s.substr(i, a - i), out) ? Read::match : Read::bad;
    if (s.substr(i, 4) == "nan%") {
        out = std::nan("");
        return Read::match;
    }
    return Read::no_match;
}

// _TT_TFLOPS \btflops:\s*([-\d,.]+|nan) from just after "tflops:"; float() of the group
// without its commas.
Read read_tflops(std::string_view s, std::size_t i, double& out) {
    i = skip_spaces(s, i);
    const std::size_t a = skip_while(s, i, [](char c) { return is_digit(c) || c == '.' || c == '-' || c == ','; });
    if (a > i) {
        std::array<char, 64> digits{};
        std::size_t n = 0;
        for (std::size_t k = i; k < a; ++k) {
            if (s[k] == ',') continue;
            if (n == digits.size()) return Read::bad;  // float() reads it; defer rather than follow
            digits[n++] = s[k];
        }
        return parse_number({digits.data(), n}, out) ? Read::match : Read::bad;
    }
    if (s.substr(i, 3) == "nan") {
        out = std::nan("");
        return Read::match;
    }
    return Read::no_match;
}

enum class Field { absent, read, defer };

// re.search(r"\bNAME...", line) where NAME starts at AT[0] first and at AT[1] next (npos:
// nowhere): the first occurrence decides, unless it does not match and there is another
// (the search would go on there: defer).
template <class Reader>
Field first_field(std::string_view s, const std::array<std::size_t, 2>& at, std::size_t name_size, double& out,
                  Reader reader) {
    if (at[0] == npos) return Field::absent;
    const Read r = boundary_before(s, at[0]) ? reader(s, at[0] + name_size, out) : Read::no_match;
    if (r == Read::match) return Field::read;
    if (r == Read::bad) return Field::defer;
    return at[1] == npos ? Field::absent : Field::defer;
}

// Up to 18 digits (fits an int64), else false.
bool parse_int(std::string_view digits, std::int64_t& out) {
    if (digits.empty() || digits.size() > 18) return false;
    out = 0;
    for (const char c : digits) out = out * 10 + (c - '0');
    return true;
}

// What one pass over a line finds: where each name the expressions look for starts (the
// first two occurrences, found at the ":" that ends each), whether it names the
// configuration, and whether it has a byte >= 0x80. One pass with a byte table instead of
// a search per name: most of a step line's bytes are none of these.
struct Marks {
    std::array<std::size_t, 2> step{npos, npos}, memory{npos, npos}, mfu{npos, npos}, tflops{npos, npos};
    std::array<std::size_t, 8> rates{};  // "tps:" / "wps:" in any case
    std::size_t n_rates = 0;
    bool configuration = false;
    bool non_ascii = false;
    bool too_many = false;  // more rate names than `rates` holds
};

enum : unsigned char { kPlain, kColon, kHigh, kRare };

// kRare: a byte that is rare in a step line and in one of the configuration phrases.
constexpr std::array<unsigned char, 256> kByteClass = [] {
    std::array<unsigned char, 256> t{};
    t[':'] = kColon;
    for (std::size_t c = 0x80; c < 256; ++c) t[c] = kHigh;
    for (const unsigned char c : {'z', 'q', 'c', 'v', 'A'}) t[c] = kRare;
    return t;
}();

// The configuration phrases (_TT_INIT is only looked for on lines with one of the first
// three; _TT_MESH, _TT_AC, _TT_DP need the others), each with the offset of its rare byte.
struct Phrase {
    char rare;
    std::size_t offset;
    std::string_view text;
};
constexpr std::array<Phrase, 5> kPhrases{{{'z', 8, "batch size"},
                                          {'q', 2, "sequence length"},
                                          {'c', 1, "accumulation"},
                                          {'v', 2, "device mesh"},
                                          {'A', 0, "Applied "}}};

void note(std::array<std::size_t, 2>& at, std::size_t pos) {
    if (at[0] == npos) at[0] = pos;
    else if (at[1] == npos) at[1] = pos;
}

// s[end - name.size(), end) == name, compared byte by byte: a call to memcmp per name at
// every ":" of a step line costs more than the comparison.
bool ends_with(std::string_view s, std::size_t end, std::string_view name) {
    if (end < name.size()) return false;
    for (std::size_t k = 0; k < name.size(); ++k)
        if (s[end - name.size() + k] != name[k]) return false;
    return true;
}

Marks mark(std::string_view s) {
    Marks m;
    for (std::size_t i = 0; i < s.size(); ++i) {
        switch (kByteClass[static_cast<unsigned char>(s[i])]) {
            case kPlain: break;
            case kHigh: m.non_ascii = true; break;
            case kRare:
                for (const Phrase& ph : kPhrases)
                    if (ph.rare == s[i] && i >= ph.offset && s.substr(i - ph.offset, ph.text.size()) == ph.text)
                        m.configuration = true;
                break;
            case kColon:
                switch (lower(i > 0 ? s[i - 1] : '\0')) {
                    case 'p':
                        if (ends_with(s, i, "step")) note(m.step, i - 4);
                        break;
                    case 'y':
                        if (ends_with(s, i, "memory")) note(m.memory, i - 6);
                        break;
                    case 'u':
                        if (ends_with(s, i, "mfu")) note(m.mfu, i - 3);
                        break;
                    case 's':
                        if (ends_with(s, i, "tflops")) {
                            note(m.tflops, i - 6);
                        } else if (i >= 3 && (lower(s[i - 3]) == 't' || lower(s[i - 3]) == 'w') &&
                                   lower(s[i - 2]) == 'p') {
                            if (m.n_rates == m.rates.size()) m.too_many = true;
                            else m.rates[m.n_rates++] = i - 3;
                        }
                        break;
                    default: break;
                }
                break;
            default: break;
        }
    }
    return m;
}

enum class Kind { none, step, defer };

// What torchtitan.py's per-line loop does with LINE (ANSI escapes removed).
Kind classify(std::string_view s, TorchtitanStepLine& row) {
    const Marks m = mark(s);
    if (m.configuration) return Kind::defer;
    const std::size_t p = m.step[0];
    if (p == npos) return Kind::none;
    if (m.step[1] != npos || m.non_ascii || m.too_many) return Kind::defer;

    // _TT_STEP_SIMPLE (?P<pre>.{0,9})\bstep:\s*(?P<step>\d+)\s+loss:\s*(?P<loss>\S+)
    if (!boundary_before(s, p)) return Kind::none;
    std::size_t i = skip_spaces(s, p + 5);
    const std::size_t step_end = skip_while(s, i, is_digit);
    if (step_end == i) return Kind::none;
    const std::string_view step_digits = s.substr(i, step_end - i);
    i = skip_spaces(s, step_end);
    if (i == step_end || s.substr(i, 5) != "loss:") return Kind::none;
    i = skip_spaces(s, i + 5);
    const std::size_t loss_end = skip_while(s, i, [](char c) { return !is_space(c); });
    if (loss_end == i) return Kind::none;
    if (s.substr(p >= 9 ? p - 9 : 0, p >= 9 ? 9 : p).find("validate") != npos) return Kind::none;
    if (!parse_int(step_digits, row.step)) return Kind::defer;

    // _TT_RATE \b(tps|wps):\s*(value)(?=\s|$), case-insensitive, searched after the loss;
    // read here only as digits and commas.
    std::size_t q = npos;
    for (std::size_t k = 0; k < m.n_rates && q == npos; ++k)
        if (m.rates[k] >= loss_end) q = m.rates[k];
    if (q == npos || !boundary_before(s, q)) return Kind::defer;  // no rate: an error, or a cut line
    row.wps = lower(s[q]) == 'w';
    i = skip_spaces(s, q + 4);
    const std::size_t rate_end = skip_while(s, i, [](char c) { return !is_space(c); });
    if (rate_end == i || !is_digit(s[i]) || !is_digit(s[rate_end - 1])) return Kind::defer;
    std::array<char, 64> digits{};
    std::size_t n = 0, group = 0, commas = 0;
    for (std::size_t k = i; k < rate_end; ++k) {
        if (s[k] == ',') {
            // Thousands groups (5,731): a first group of 1-3 digits, then 3 each. "5,7" is a
            // line cut mid-number, which the Python parser reports (_time_value).
            if ((commas++ == 0 ? group > 3 : group != 3)) return Kind::defer;
            group = 0;
            continue;
        }
        if (!is_digit(s[k]) || n == digits.size()) return Kind::defer;
        digits[n++] = s[k];
        ++group;
    }
    if (commas > 0 && group != 3) return Kind::defer;
    if (!parse_number({digits.data(), n}, row.rate) || !std::isfinite(row.rate) || row.rate <= 0) return Kind::defer;

    if (first_field(s, m.memory, 7, row.memory_gib, read_memory) == Field::defer ||
        first_field(s, m.mfu, 4, row.mfu_pct, read_mfu) == Field::defer ||
        first_field(s, m.tflops, 7, row.tflops, read_tflops) == Field::defer)
        return Kind::defer;

    // _TT_RANK ^\[rank(\d+)\]:
    if (s.substr(0, 5) == "[rank") {
        const std::size_t e = skip_while(s, 5, is_digit);
        if (e > 5 && s.substr(e, 2) == "]:" && !parse_int(s.substr(5, e - 5), row.rank)) return Kind::defer;
    }
    return Kind::step;
}

// Whether every line break in TEXT is \n (the usual log): lines are then found with memchr.
bool only_newlines(std::string_view text) {
    for (const char c : {'\r', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e'})
        if (text.find(c) != npos) return false;
    for (std::size_t i = text.find('\xc2'); i != npos; i = text.find('\xc2', i + 1))
        if (break_length(text, i)) return false;
    for (std::size_t i = text.find('\xe2'); i != npos; i = text.find('\xe2', i + 1))
        if (break_length(text, i)) return false;
    return true;
}

}  // namespace

TorchtitanScan scan_torchtitan_log(std::string_view text) {
    TorchtitanScan out;
    out.steps.reserve(text.size() / 160);  // a step line is ~150-180 bytes
    const bool plain = only_newlines(text);
    std::string buffer;
    std::size_t begin = 0;
    while (begin < text.size()) {
        std::size_t end = begin;
        std::size_t brk = 0;
        if (plain) {
            const void* nl = std::memchr(text.data() + begin, '\n', text.size() - begin);
            end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
            brk = nl ? 1 : 0;
        } else {
            while (end < text.size() &&
                   (!kMayBreak[static_cast<unsigned char>(text[end])] || (brk = break_length(text, end)) == 0))
                ++end;
        }
        ++out.lines;
        const std::string_view raw = text.substr(begin, end - begin);
        TorchtitanStepLine row;
        switch (classify(strip_ansi(raw, buffer), row)) {
            case Kind::step:
                row.line = out.lines;
                out.steps.push_back(row);
                break;
            case Kind::defer:
                out.deferred.push_back({out.lines, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)});
                break;
            case Kind::none: break;
        }
        begin = end + brk;
    }
    return out;
}

}  // namespace libscale
