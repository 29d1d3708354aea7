#include "libscale/triage/power_trace.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <locale>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "libscale/io/error.hpp"
#include "libscale/io/input_file.hpp"

#if defined(__APPLE__) || defined(__FreeBSD__)
#include <xlocale.h>  // newlocale, strtod_l
#endif

namespace libscale {

void PowerTrace::reserve(std::size_t n) {
    time_s.reserve(n);
    gpu.reserve(n);
    power_w.reserve(n);
    utilization_pct.reserve(n);
}

void PowerTrace::push_back(const PowerSample& s) {
    time_s.push_back(s.time_s);
    gpu.push_back(s.gpu);
    power_w.push_back(s.power_w);
    utilization_pct.push_back(s.utilization_pct);
}

std::vector<int> PowerTrace::gpus() const {
    std::vector<int> ids(gpu);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

std::string ParseReport::summary() const {
    std::ostringstream s;
    s << source << ": " << samples << " samples from " << lines << " lines";
    if (scrapes)
        s << " (" << scrapes << " scrapes" << (synthetic_time ? ", no timestamps: time = scrape ordinal" : "") << ")";
    if (skipped_lines)
        s << "; " << skipped_lines << " unparseable lines skipped, first line " << first_skipped_line << " ("
          << first_skipped_reason << "): '" << first_skipped_text << "'";
    if (na_values) s << "; " << na_values << " N/A values";
    if (duplicate_timestamps || non_monotonic_timestamps)
        s << "; " << duplicate_timestamps << " duplicate and " << non_monotonic_timestamps
          << " non-monotonic timestamps dropped, first at line " << first_bad_timestamp_line;
    if (clock_steps)
        s << "; the log's clock went back " << clock_steps << (clock_steps == 1 ? " time" : " times")
          << ", first at line " << first_clock_step_line << ": later rows re-based by " << clock_step_s << " s";
    return s.str();
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

// strtod in the "C" locale whatever the process locale (a host application may have
// called setlocale, making plain strtod read "1,5"): POSIX newlocale/strtod_l, Windows
// _create_locale/_strtod_l. Only called on text whose syntax parse_double checked.
double strtod_c(const std::string& s) {
#if defined(_WIN32)
    static const _locale_t c_locale = _create_locale(LC_NUMERIC, "C");
    if (c_locale) return _strtod_l(s.c_str(), nullptr, c_locale);
#else
    static const locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", nullptr);
    if (c_locale) return strtod_l(s.c_str(), nullptr, c_locale);
#endif
    // No locale object (out of memory): the classic locale of the C++ library.
    std::istringstream in(s);
    in.imbue(std::locale::classic());
    double v = 0;
    in >> v;
    return v;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The whole field as a decimal number, with std::from_chars' (chars_format::general)
// syntax and results, which libc++ lacks for double before LLVM 20: an optional '-'
// (and here an optional leading '+'), then "inf", "infinity", "nan", "nan(chars)" in any
// case, or digits with an optional '.' and an optional exponent; no hex, no spaces
// inside, nothing after. A value out of double's range (overflow, or a nonzero
// literal that rounds to zero) is rejected, as from_chars' result_out_of_range.
bool parse_double(std::string_view s, double& out) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    const bool negative = !s.empty() && s.front() == '-';
    if (negative) s.remove_prefix(1);
    if (s.empty()) return false;
    if (!is_digit(s.front()) && s.front() != '.') {
        const std::string l = lower(s);
        const double sign = negative ? -1.0 : 1.0;
        if (l == "inf" || l == "infinity") {
            out = sign * std::numeric_limits<double>::infinity();
            return true;
        }
        bool nan = l == "nan";
        if (!nan && l.size() >= 5 && l.compare(0, 4, "nan(") == 0 && l.back() == ')') {
            nan = std::all_of(l.begin() + 4, l.end() - 1,
                              [](char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || c == '_'; });
        }
        if (!nan) return false;
        out = std::copysign(kNaN, sign);
        return true;
    }
    std::size_t i = 0, digits = 0;
    bool nonzero = false;
    const auto mantissa_digits = [&] {
        for (; i < s.size() && is_digit(s[i]); ++i, ++digits) nonzero = nonzero || s[i] != '0';
    };
    mantissa_digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa_digits();
    }
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        const std::size_t exponent_start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == exponent_start) return false;
    }
    if (i != s.size()) return false;
    const double v = strtod_c(std::string(s));
    if (std::isinf(v) || (v == 0 && nonzero)) return false;
    out = negative ? -v : v;
    return true;
}

bool parse_int(std::string_view s, long long& out) {
    s = trim(s);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool is_na(std::string_view s) {
    const std::string l = lower(trim(s));
    return l == "[n/a]" || l == "n/a" || l == "[not supported]" || l == "[unknown error]" || l == "nan";
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
long long days_from_civil(long long y, long long m, long long d) {
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const long long yoe = y - era * 400;
    const long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

// "2026/05/07 22:08:19.005" (or '-' date separators) or plain seconds.
bool parse_timestamp(std::string_view s, double& out) {
    s = trim(s);
    if (parse_double(s, out)) return std::isfinite(out);
    if (s.size() < 19 || (s[4] != '/' && s[4] != '-') || s[7] != s[4] || (s[10] != ' ' && s[10] != 'T') ||
        s[13] != ':' || s[16] != ':')
        return false;
    long long y = 0, mo = 0, d = 0, h = 0, mi = 0;
    double sec = 0;
    if (!parse_int(s.substr(0, 4), y) || !parse_int(s.substr(5, 2), mo) || !parse_int(s.substr(8, 2), d) ||
        !parse_int(s.substr(11, 2), h) || !parse_int(s.substr(14, 2), mi) || !parse_double(s.substr(17), sec))
        return false;
    // Written so that NaN seconds ("22:08:nan", which parse_double reads) fail the range
    // check: a NaN time would pass every later comparison (found by fuzz/fuzz_nvidia_smi_csv's
    // finite-time check).
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61)) return false;
    out = static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60) + sec;
    return true;
}

// A number in [0, max] with an optional unit suffix that must equal `unit` ("W" or "%").
enum class ValueStatus { ok, na, bad };
ValueStatus parse_value(std::string_view s, std::string_view unit, double max, double& out) {
    s = trim(s);
    if (is_na(s)) return ValueStatus::na;
    if (s.size() > unit.size() && s.substr(s.size() - unit.size()) == unit)
        s = trim(s.substr(0, s.size() - unit.size()));
    if (!parse_double(s, out) || !std::isfinite(out) || out < 0 || out > max) return ValueStatus::bad;
    return ValueStatus::ok;
}

void skip(ParseReport& rep, std::size_t line, std::string_view text, const char* why) {
    if (rep.skipped_lines++ == 0) {
        rep.first_skipped_line = line;
        // Control bytes (a binary file's NULs) shown as \xNN: the text ends up in messages.
        std::string shown;
        for (const char ch : text.substr(0, 200)) {
            const auto u = static_cast<unsigned char>(ch);
            if (u < 0x20 || u == 0x7f) {
                static constexpr char kHex[] = "0123456789abcdef";
                shown += {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
            } else {
                shown += ch;
            }
        }
        rep.first_skipped_text = std::move(shown);
        rep.first_skipped_reason = why;
    }
}

// Appends s unless its GPU already has a row at the same or a later time (dropped and
// counted); `last` maps each GPU to the time of its last row and is kept up to date.
bool append_monotonic(std::map<int, double>& last, std::size_t line, const PowerSample& s, PowerTrace& out,
                      ParseReport& rep) {
    auto [it, fresh] = last.try_emplace(s.gpu, s.time_s);
    if (!fresh) {
        if (s.time_s <= it->second) {
            if (s.time_s == it->second) ++rep.duplicate_timestamps;
            else ++rep.non_monotonic_timestamps;
            if (rep.first_bad_timestamp_line == 0) rep.first_bad_timestamp_line = line;
            return false;
        }
        it->second = s.time_s;
    }
    out.push_back(s);
    ++rep.samples;
    return true;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return lines;
}

std::vector<std::string_view> split_csv(std::string_view line) {
    std::vector<std::string_view> f;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t c = line.find(',', pos);
        f.push_back(trim(line.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos)));
        if (c == std::string_view::npos) break;
        pos = c + 1;
    }
    return f;
}

void foreign_if_empty(const ParseReport& rep, const char* what) {
    if (rep.samples == 0 && rep.skipped_lines > 0 && rep.na_values == 0 && rep.duplicate_timestamps == 0 &&
        rep.non_monotonic_timestamps == 0)
        throw ParseError(rep.source + ": not " + what + ": no line parsed; line " +
                         std::to_string(rep.first_skipped_line) + " (" + rep.first_skipped_reason + "): '" +
                         rep.first_skipped_text + "'");
}

// A trace may come through a FIFO (`nvidia-smi ... > fifo`): read to its end.
std::string slurp(const std::string& path) {
    return InputFile(path, "an nvidia-smi CSV or dcgm-exporter text trace", /*allow_stream=*/true)
        .read_all(kMaxTraceFileBytes);
}

// The samples of one dcgm scrape; power and utilization of a (GPU, own timestamp) are
// only joined into a row when the scrape is complete.
class DcgmScrape {
public:
    // One non-blank, non-comment line. True for a well-formed metric line of any name:
    // that is what tells Prometheus text from a foreign file.
    bool add(std::size_t line_no, std::string_view line, ParseReport& rep);
    bool empty() const { return samples_.empty(); }
    bool all_own_timestamps() const {
        return std::all_of(samples_.begin(), samples_.end(), [](const auto& kv) { return kv.first.second >= 0; });
    }
    // t0: the time of the samples without their own timestamp. Returns the rows appended.
    std::size_t flush(double t0, PowerTrace& out, ParseReport& rep);

private:
    struct Pending {
        double power = kNaN, util = kNaN;
        bool has_power = false, has_util = false;
        std::size_t line = 0;
    };
    std::map<std::pair<int, long long>, Pending> samples_;  // key: (gpu, own timestamp in ms or -1)
};

bool DcgmScrape::add(std::size_t line_no, std::string_view line, ParseReport& rep) {
    // name{labels} value [timestamp]
    std::size_t name_end = 0;
    while (name_end < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[name_end])) || line[name_end] == '_' || line[name_end] == ':'))
        ++name_end;
    if (name_end == 0 || std::isdigit(static_cast<unsigned char>(line[0]))) {
        skip(rep, line_no, line, "not a metric line");
        return false;
    }
    const std::string_view name = line.substr(0, name_end);
    std::string_view labels;
    std::size_t pos = name_end;
    if (pos < line.size() && line[pos] == '{') {
        const auto close = line.find('}', pos);
        if (close == std::string_view::npos) {
            skip(rep, line_no, line, "unclosed label set");
            return false;
        }
        labels = line.substr(pos + 1, close - pos - 1);
        pos = close + 1;
    }
    std::string_view rest = trim(line.substr(pos));
    const auto sp = rest.find_first_of(" \t");
    const std::string_view value_text = rest.substr(0, sp);
    const std::string_view ts_text = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp));
    double value = 0;
    const bool value_nan = lower(value_text) == "nan";
    if (!value_nan && !parse_double(value_text, value)) {
        skip(rep, line_no, line, "bad sample value");
        return false;
    }
    long long ts_ms = -1;
    if (!ts_text.empty() && (!parse_int(ts_text, ts_ms) || ts_ms < 0)) {
        skip(rep, line_no, line, "bad sample timestamp");
        return false;
    }
    const bool is_power = name == "DCGM_FI_DEV_POWER_USAGE";
    const bool is_util = name == "DCGM_FI_DEV_GPU_UTIL";
    if (!is_power && !is_util) return true;
    if (std::isfinite(value) && value > (is_power ? kMaxSamplePowerW : kMaxUtilizationPct)) {
        skip(rep, line_no, line, is_power ? "power beyond any GPU board (> 10000 W)" : "utilization above 100 %");
        return true;
    }
    const auto g = labels.find("gpu=\"");
    long long gpu = -1;
    if (g == std::string_view::npos || (g > 0 && labels[g - 1] != ',' && labels[g - 1] != ' ')) {
        skip(rep, line_no, line, "no gpu label");
        return true;
    }
    const auto start = g + 5;
    const auto end = labels.find('"', start);
    if (end == std::string_view::npos || !parse_int(labels.substr(start, end - start), gpu) || gpu < 0 ||
        gpu > 1'000'000) {
        skip(rep, line_no, line, "bad gpu label");
        return true;
    }
    Pending& p = samples_[{static_cast<int>(gpu), ts_ms}];
    if ((is_power && p.has_power) || (is_util && p.has_util)) {
        ++rep.duplicate_timestamps;
        if (rep.first_bad_timestamp_line == 0) rep.first_bad_timestamp_line = line_no;
        return true;
    }
    if (value_nan || !std::isfinite(value) || value < 0) {
        if (is_util) {
            ++rep.na_values;
            p.has_util = true;
            p.util = kNaN;
        } else {
            p.has_power = true;
            p.power = kNaN;
            p.line = line_no;
        }  // counted at flush
        return true;
    }
    if (is_power) {
        p.has_power = true;
        p.power = value;
        p.line = line_no;
    } else {
        p.has_util = true;
        p.util = value;
        if (p.line == 0) p.line = line_no;
    }
    return true;
}

std::size_t DcgmScrape::flush(double t0, PowerTrace& out, ParseReport& rep) {
    const auto has_power = [](const Pending& v) { return v.has_power && !std::isnan(v.power); };
    std::vector<std::pair<std::pair<double, int>, const Pending*>> rows;  // sorted by time, then GPU
    std::vector<int> gpus;
    for (const auto& [k, v] : samples_) {
        rows.push_back({{k.second >= 0 ? static_cast<double>(k.second) / 1000.0 : t0, k.first}, &v});
        if (has_power(v)) gpus.push_back(k.first);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    // `out` is the only state between scrapes (parse_dcgm_scrape keeps none), so the last
    // time of each GPU comes from it; the scan back stops once all of this scrape's GPUs
    // are found, usually within the previous scrape's rows.
    std::map<int, double> last;
    for (std::size_t i = out.size(); i-- > 0 && last.size() < gpus.size();)
        if (std::binary_search(gpus.begin(), gpus.end(), out.gpu[i])) last.try_emplace(out.gpu[i], out.time_s[i]);
    std::size_t n = 0;
    for (const auto& [k, v] : rows) {
        if (!has_power(*v)) {
            ++rep.na_values;
            continue;
        }
        // The exporter's clock (or the watcher's wall clock stamping a live scrape) stepped
        // back: as in the nvidia-smi reader, later rows go on a millisecond after the last
        // one, the step counted. clock_step_s is the offset in force.
        double t = k.first + rep.clock_step_s;
        if (const auto it = last.find(k.second); it != last.end() && it->second - t > kClockStepBackS) {
            const double step = it->second - t + 1e-3;
            rep.clock_step_s += step;
            t += step;
            if (rep.clock_steps++ == 0) rep.first_clock_step_line = v->line;
        }
        n += append_monotonic(last, v->line, {t, k.second, v->power, v->has_util ? v->util : kNaN}, out, rep);
    }
    samples_.clear();
    return n;
}

}  // namespace

NvidiaSmiCsvReader::NvidiaSmiCsvReader(std::string source) { report_.source = std::move(source); }

void NvidiaSmiCsvReader::skip_overlong() {
    skip(report_, ++report_.lines, partial_, "a line longer than 64 KiB: not a trace line");
    partial_.clear();
    overlong_ = false;
}

std::size_t NvidiaSmiCsvReader::feed(std::string_view chunk, PowerTrace& out) {
    std::size_t n = 0;
    for (std::size_t nl = 0; (nl = chunk.find('\n')) != std::string_view::npos; chunk.remove_prefix(nl + 1)) {
        if (overlong_) {
            skip_overlong();
            continue;
        }
        if (partial_.empty()) {
            if (nl > kMaxTraceLineBytes) {
                partial_.assign(chunk.substr(0, 200));
                skip_overlong();
            } else {
                n += parse_line(chunk.substr(0, nl), out);
            }
            continue;
        }
        if (partial_.size() + nl > kMaxTraceLineBytes) {
            partial_.resize(std::min<std::size_t>(partial_.size(), 200));
            skip_overlong();
            continue;
        }
        // Taken out before parsing so that a throwing header leaves no stale tail behind.
        const std::string line = std::move(partial_.append(chunk.substr(0, nl)));
        partial_.clear();
        n += parse_line(line, out);
    }
    if (!overlong_) {
        partial_.append(chunk.substr(0, kMaxTraceLineBytes + 1 - std::min(partial_.size(), kMaxTraceLineBytes)));
        if (partial_.size() > kMaxTraceLineBytes) {
            overlong_ = true;
            partial_.resize(200);
        }
    }
    return n;
}

std::size_t NvidiaSmiCsvReader::finish(PowerTrace& out) {
    if (overlong_) {
        skip_overlong();
        return 0;
    }
    if (partial_.empty()) return 0;
    const std::string line = std::move(partial_);
    partial_.clear();
    return parse_line(line, out);
}

std::size_t NvidiaSmiCsvReader::parse_line(std::string_view raw, PowerTrace& out) {
    auto& rep = report_;
    const std::size_t line_no = ++rep.lines;
    // A UTF-8 byte-order mark (a log saved by an editor, or on Windows) is not part of the
    // header's first column name.
    if (line_no == 1 && raw.starts_with("\xEF\xBB\xBF")) raw.remove_prefix(3);
    const std::string_view line = trim(raw);
    if (line.empty()) return 0;
    const auto f = split_csv(line);
    if (lower(line).find("power.draw") != std::string::npos) {  // header
        int t = -1, g = -1, p = -1, pa = -1, pi = -1, u = -1, n = -1;
        for (std::size_t i = 0; i < f.size(); ++i) {
            std::string_view name = f[i];
            if (const auto br = name.find('['); br != std::string_view::npos) name = trim(name.substr(0, br));
            const std::string nm = lower(name);
            const int ci = static_cast<int>(i);
            if (nm == "timestamp") t = ci;
            else if (nm == "index") g = ci;
            else if (nm == "power.draw") p = ci;
            else if (nm == "power.draw.average") pa = ci;
            else if (nm == "power.draw.instant") pi = ci;
            else if (nm == "utilization.gpu") u = ci;
            else if (nm == "name") n = ci;
        }
        if (p < 0) p = pa >= 0 ? pa : pi;
        std::string missing;
        const auto require = [&](int col, const char* what) {
            if (col < 0) missing += std::string(missing.empty() ? "" : ", ") + what;
        };
        require(t, "timestamp");
        require(g, "index");
        require(p, "power.draw");
        if (!missing.empty())
            throw ParseError(rep.source + ":" + std::to_string(line_no) + ": nvidia-smi header '" + std::string(line) +
                             "' lacks " + missing +
                             "; query it with "
                             "--query-gpu=timestamp,index,power.draw,utilization.gpu");
        c_time_ = t;
        c_gpu_ = g;
        c_power_ = p;
        c_util_ = u;
        c_name_ = n;
        return 0;
    }
    const int need = std::max({c_time_, c_gpu_, c_power_, c_util_});
    if (static_cast<int>(f.size()) <= need) {
        skip(rep, line_no, line, "too few columns");
        return 0;
    }
    PowerSample s;
    if (!parse_timestamp(f[static_cast<std::size_t>(c_time_)], s.time_s)) {
        skip(rep, line_no, line, "bad timestamp");
        return 0;
    }
    long long idx = 0;
    if (!parse_int(f[static_cast<std::size_t>(c_gpu_)], idx) || idx < 0 || idx > 1'000'000) {
        skip(rep, line_no, line, "bad GPU index");
        return 0;
    }
    s.gpu = static_cast<int>(idx);
    if (c_name_ >= 0 && static_cast<int>(f.size()) > c_name_ && !rep.mixed_gpu_names) {
        // The GPU model, for the bands: the first name seen, unless another follows.
        const std::string_view name = trim(f[static_cast<std::size_t>(c_name_)]);
        if (rep.gpu_name.empty()) {
            rep.gpu_name = std::string(name.substr(0, 200));
        } else if (rep.gpu_name != name.substr(0, 200)) {
            rep.mixed_gpu_names = true;
            rep.gpu_name.clear();
        }
    }
    const ValueStatus ps = parse_value(f[static_cast<std::size_t>(c_power_)], "W", kMaxSamplePowerW, s.power_w);
    if (ps == ValueStatus::bad) {
        skip(rep, line_no, line, "bad power.draw (not a number of watts in [0, 10000])");
        return 0;
    }
    s.utilization_pct = kNaN;
    if (c_util_ >= 0) {
        const ValueStatus us =
            parse_value(f[static_cast<std::size_t>(c_util_)], "%", kMaxUtilizationPct, s.utilization_pct);
        if (us == ValueStatus::bad) {
            skip(rep, line_no, line, "bad utilization.gpu (not a percentage in [0, 100])");
            return 0;
        }
        if (us == ValueStatus::na) {
            s.utilization_pct = kNaN;
            ++rep.na_values;
        }
    }
    if (ps == ValueStatus::na) {
        ++rep.na_values;
        return 0;
    }
    s.time_s += clock_offset_;
    if (const auto it = last_time_.find(s.gpu); it != last_time_.end() && it->second - s.time_s > kClockStepBackS) {
        // The log's clock stepped back: later rows go on a millisecond after the last one.
        const double step = it->second - s.time_s + 1e-3;
        clock_offset_ += step;
        s.time_s += step;
        rep.clock_step_s += step;
        if (rep.clock_steps++ == 0) rep.first_clock_step_line = line_no;
    }
    return append_monotonic(last_time_, line_no, s, out, rep) ? 1 : 0;
}

ParsedTrace parse_nvidia_smi_csv(std::string_view text, std::string_view source) {
    NvidiaSmiCsvReader reader{std::string(source)};
    ParsedTrace r;
    r.trace.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    reader.feed(text, r.trace);
    reader.finish(r.trace);
    r.report = reader.report();
    foreign_if_empty(r.report, "nvidia-smi CSV");
    return r;
}

ParsedTrace read_nvidia_smi_csv(const std::string& path) {
    const std::string text = slurp(path);
    return parse_nvidia_smi_csv(text, path);
}

ParsedTrace parse_dcgm_prometheus(std::string_view text, std::string_view source) {
    ParsedTrace r;
    auto& rep = r.report;
    rep.source = std::string(source);
    DcgmScrape scrape;
    double scrape_t = kNaN;  // from `# scrape t=`
    std::size_t ordinal = 0;
    bool any_metric = false;
    const auto flush = [&]() {
        if (!scrape.empty()) {
            ++rep.scrapes;
            double t0 = scrape_t;
            if (std::isnan(t0) && !scrape.all_own_timestamps()) {
                rep.synthetic_time = true;
                t0 = static_cast<double>(ordinal);
            }
            scrape.flush(t0, r.trace, rep);
            ++ordinal;
        }
        scrape_t = kNaN;
    };

    const auto lines = split_lines(text);
    rep.lines = lines.size();
    for (std::size_t li = 0; li < lines.size(); ++li) {
        const std::size_t line_no = li + 1;
        const std::string_view line = trim(lines[li]);
        if (line.empty()) {
            flush();
            continue;
        }
        if (line.front() == '#') {
            std::string_view rest = trim(line.substr(1));
            if (rest.substr(0, 6) == "scrape") {
                flush();
                const auto eq = rest.find("t=");
                double t = 0;
                if (eq != std::string_view::npos) {
                    std::string_view v = rest.substr(eq + 2);
                    v = v.substr(0, v.find_first_of(" \t"));
                    if (parse_double(v, t) && std::isfinite(t)) scrape_t = t;
                    else skip(rep, line_no, line, "bad scrape time");
                }
            }
            continue;
        }
        any_metric = scrape.add(line_no, line, rep) || any_metric;
    }
    flush();
    if (!any_metric) foreign_if_empty(rep, "Prometheus text");
    return r;
}

ParsedTrace read_dcgm_prometheus(const std::string& path) {
    const std::string text = slurp(path);
    return parse_dcgm_prometheus(text, path);
}

ParsedTrace read_power_trace(const std::string& path, std::string_view format) {
    if (format != "auto" && format != "nvidia-smi" && format != "dcgm")
        throw std::invalid_argument("format = '" + std::string(format) + "'; valid: auto, nvidia-smi, dcgm");
    // Read once: the file may be a FIFO, which cannot be read twice to sniff then parse.
    const std::string text = slurp(path);
    // dcgm-exporter text names its metrics; anything else is read as nvidia-smi CSV.
    const bool dcgm =
        format == "dcgm" ||
        (format == "auto" && std::string_view(text).substr(0, 65536).find("DCGM_FI_DEV_") != std::string_view::npos);
    return dcgm ? parse_dcgm_prometheus(text, path) : parse_nvidia_smi_csv(text, path);
}

std::size_t parse_dcgm_scrape(std::string_view text, double time_s, PowerTrace& out, ParseReport& report) {
    if (!std::isfinite(time_s))
        throw std::invalid_argument("parse_dcgm_scrape: time_s must be finite, got " + std::to_string(time_s));
    DcgmScrape scrape;
    for (const std::string_view raw : split_lines(text)) {
        const std::string_view line = trim(raw);
        ++report.lines;
        if (!line.empty() && line.front() != '#') scrape.add(report.lines, line, report);
    }
    ++report.scrapes;
    return scrape.flush(time_s, out, report);
}

}  // namespace libscale
