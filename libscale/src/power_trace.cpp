#include "libscale/power_trace.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "libscale/error.hpp"

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
    if (scrapes) s << " (" << scrapes << " scrapes" << (synthetic_time ? ", no timestamps: time = scrape ordinal" : "") << ")";
    if (skipped_lines)
        s << "; " << skipped_lines << " unparseable lines skipped, first line " << first_skipped_line
          << " (" << first_skipped_reason << "): '" << first_skipped_text << "'";
    if (na_values) s << "; " << na_values << " N/A values";
    if (duplicate_timestamps || non_monotonic_timestamps)
        s << "; " << duplicate_timestamps << " duplicate and " << non_monotonic_timestamps
          << " non-monotonic timestamps dropped, first at line " << first_bad_timestamp_line;
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

bool parse_double(std::string_view s, double& out) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_int(std::string_view s, long long& out) {
    s = trim(s);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool is_na(std::string_view s) {
    const std::string l = lower(trim(s));
    return l == "[n/a]" || l == "n/a" || l == "[not supported]" || l == "[unknown error]" ||
           l == "nan";
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
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61) return false;
    out = static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60) + sec;
    return true;
}

// A number with an optional unit suffix that must equal `unit` ("W" or "%").
enum class ValueStatus { ok, na, bad };
ValueStatus parse_value(std::string_view s, std::string_view unit, double& out) {
    s = trim(s);
    if (is_na(s)) return ValueStatus::na;
    if (s.size() > unit.size() && s.substr(s.size() - unit.size()) == unit) s = trim(s.substr(0, s.size() - unit.size()));
    if (!parse_double(s, out) || !std::isfinite(out) || out < 0) return ValueStatus::bad;
    return ValueStatus::ok;
}

// Appends rows, dropping duplicate and non-monotonic timestamps per GPU.
class Builder {
public:
    explicit Builder(ParsedTrace& r) : r_(r) {}

    void skip(std::size_t line, std::string_view text, const char* why) {
        auto& rep = r_.report;
        if (rep.skipped_lines++ == 0) {
            rep.first_skipped_line = line;
            rep.first_skipped_text = std::string(text.substr(0, 200));
            rep.first_skipped_reason = why;
        }
    }

    void add(std::size_t line, const PowerSample& s) {
        auto [it, fresh] = last_.try_emplace(s.gpu, s.time_s);
        if (!fresh) {
            if (s.time_s <= it->second) {
                auto& rep = r_.report;
                if (s.time_s == it->second) ++rep.duplicate_timestamps;
                else ++rep.non_monotonic_timestamps;
                if (rep.first_bad_timestamp_line == 0) rep.first_bad_timestamp_line = line;
                return;
            }
            it->second = s.time_s;
        }
        r_.trace.push_back(s);
        ++r_.report.samples;
    }

private:
    ParsedTrace& r_;
    std::unordered_map<int, double> last_;
};

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

void foreign_if_empty(const ParsedTrace& r, const char* what) {
    const auto& rep = r.report;
    if (rep.samples == 0 && rep.skipped_lines > 0 && rep.na_values == 0 &&
        rep.duplicate_timestamps == 0 && rep.non_monotonic_timestamps == 0)
        throw ParseError(rep.source + ": not " + what + ": no line parsed; line " +
                         std::to_string(rep.first_skipped_line) + " (" + rep.first_skipped_reason +
                         "): '" + rep.first_skipped_text + "'");
}

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ParseError(path + ": cannot open the file for reading");
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

ParsedTrace parse_nvidia_smi_csv(std::string_view text, std::string_view source) {
    ParsedTrace r;
    r.report.source = std::string(source);
    Builder b(r);
    // Column positions; -1 = absent. Default: the documented noheader order.
    int c_time = 0, c_gpu = 1, c_power = 2, c_util = 3;
    const auto lines = split_lines(text);
    r.report.lines = lines.size();
    r.trace.reserve(lines.size());
    for (std::size_t li = 0; li < lines.size(); ++li) {
        const std::size_t line_no = li + 1;
        const std::string_view line = trim(lines[li]);
        if (line.empty()) continue;
        const auto f = split_csv(line);
        if (lower(line).find("power.draw") != std::string::npos) {  // header
            int t = -1, g = -1, p = -1, pa = -1, pi = -1, u = -1;
            for (std::size_t i = 0; i < f.size(); ++i) {
                std::string_view name = f[i];
                if (const auto br = name.find('['); br != std::string_view::npos) name = trim(name.substr(0, br));
                const std::string n = lower(name);
                const int ci = static_cast<int>(i);
                if (n == "timestamp") t = ci;
                else if (n == "index") g = ci;
                else if (n == "power.draw") p = ci;
                else if (n == "power.draw.average") pa = ci;
                else if (n == "power.draw.instant") pi = ci;
                else if (n == "utilization.gpu") u = ci;
            }
            if (p < 0) p = pa >= 0 ? pa : pi;
            if (t < 0 || g < 0 || p < 0)
                throw ParseError(r.report.source + ":" + std::to_string(line_no) +
                                 ": nvidia-smi header '" + std::string(line) +
                                 "' lacks timestamp, index or power.draw; query them with "
                                 "--query-gpu=timestamp,index,power.draw,utilization.gpu");
            c_time = t; c_gpu = g; c_power = p; c_util = u;
            continue;
        }
        const int need = std::max({c_time, c_gpu, c_power, c_util});
        if (static_cast<int>(f.size()) <= need) { b.skip(line_no, line, "too few columns"); continue; }
        PowerSample s;
        if (!parse_timestamp(f[static_cast<std::size_t>(c_time)], s.time_s)) { b.skip(line_no, line, "bad timestamp"); continue; }
        long long idx = 0;
        if (!parse_int(f[static_cast<std::size_t>(c_gpu)], idx) || idx < 0 || idx > 1'000'000) { b.skip(line_no, line, "bad GPU index"); continue; }
        s.gpu = static_cast<int>(idx);
        const ValueStatus ps = parse_value(f[static_cast<std::size_t>(c_power)], "W", s.power_w);
        if (ps == ValueStatus::bad) { b.skip(line_no, line, "bad power.draw"); continue; }
        ValueStatus us = ValueStatus::na;
        s.utilization_pct = kNaN;
        if (c_util >= 0) {
            us = parse_value(f[static_cast<std::size_t>(c_util)], "%", s.utilization_pct);
            if (us == ValueStatus::bad) { b.skip(line_no, line, "bad utilization.gpu"); continue; }
            if (us == ValueStatus::na) { s.utilization_pct = kNaN; ++r.report.na_values; }
        }
        if (ps == ValueStatus::na) { ++r.report.na_values; continue; }
        b.add(line_no, s);
    }
    foreign_if_empty(r, "nvidia-smi CSV");
    return r;
}

ParsedTrace read_nvidia_smi_csv(const std::string& path) {
    const std::string text = slurp(path);
    return parse_nvidia_smi_csv(text, path);
}

ParsedTrace parse_dcgm_prometheus(std::string_view text, std::string_view source) {
    ParsedTrace r;
    r.report.source = std::string(source);
    Builder b(r);
    struct Pending { double power = kNaN, util = kNaN; bool has_power = false, has_util = false; std::size_t line = 0; };
    // key: (gpu, own timestamp in ms or -1)
    std::map<std::pair<int, long long>, Pending> scrape;
    double scrape_t = kNaN;
    std::size_t ordinal = 0;
    bool any_metric = false;

    const auto flush = [&]() {
        if (scrape.empty()) { scrape_t = kNaN; return; }
        ++r.report.scrapes;
        double t0 = scrape_t;
        if (std::isnan(t0)) {
            bool all_own = true;
            for (const auto& [k, v] : scrape) all_own = all_own && k.second >= 0;
            if (!all_own) { r.report.synthetic_time = true; t0 = static_cast<double>(ordinal); }
        }
        // rows in time order, then GPU order
        std::vector<std::pair<std::pair<double, int>, const Pending*>> rows;
        for (const auto& [k, v] : scrape) {
            const double t = k.second >= 0 ? static_cast<double>(k.second) / 1000.0 : t0;
            rows.push_back({{t, k.first}, &v});
        }
        std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
        for (const auto& [k, v] : rows) {
            if (!v->has_power || std::isnan(v->power)) { ++r.report.na_values; continue; }
            b.add(v->line, {k.first, k.second, v->power, v->has_util ? v->util : kNaN});
        }
        scrape.clear();
        scrape_t = kNaN;
        ++ordinal;
    };

    const auto lines = split_lines(text);
    r.report.lines = lines.size();
    for (std::size_t li = 0; li < lines.size(); ++li) {
        const std::size_t line_no = li + 1;
        const std::string_view line = trim(lines[li]);
        if (line.empty()) { flush(); continue; }
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
                    else b.skip(line_no, line, "bad scrape time");
                }
            }
            continue;
        }
        // name{labels} value [timestamp]
        std::size_t name_end = 0;
        while (name_end < line.size() && (std::isalnum(static_cast<unsigned char>(line[name_end])) ||
                                          line[name_end] == '_' || line[name_end] == ':'))
            ++name_end;
        if (name_end == 0 || std::isdigit(static_cast<unsigned char>(line[0]))) { b.skip(line_no, line, "not a metric line"); continue; }
        const std::string_view name = line.substr(0, name_end);
        std::string_view labels;
        std::size_t pos = name_end;
        if (pos < line.size() && line[pos] == '{') {
            const auto close = line.find('}', pos);
            if (close == std::string_view::npos) { b.skip(line_no, line, "unclosed label set"); continue; }
            labels = line.substr(pos + 1, close - pos - 1);
            pos = close + 1;
        }
        std::string_view rest = trim(line.substr(pos));
        const auto sp = rest.find_first_of(" \t");
        const std::string_view value_text = rest.substr(0, sp);
        const std::string_view ts_text = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp));
        double value = 0;
        const bool value_nan = lower(value_text) == "nan";
        if (!value_nan && !parse_double(value_text, value)) { b.skip(line_no, line, "bad sample value"); continue; }
        long long ts_ms = -1;
        if (!ts_text.empty() && (!parse_int(ts_text, ts_ms) || ts_ms < 0)) { b.skip(line_no, line, "bad sample timestamp"); continue; }
        any_metric = true;
        const bool is_power = name == "DCGM_FI_DEV_POWER_USAGE";
        const bool is_util = name == "DCGM_FI_DEV_GPU_UTIL";
        if (!is_power && !is_util) continue;
        const auto g = labels.find("gpu=\"");
        long long gpu = -1;
        if (g == std::string_view::npos || (g > 0 && labels[g - 1] != ',' && labels[g - 1] != ' ')) { b.skip(line_no, line, "no gpu label"); continue; }
        {
            const auto start = g + 5;
            const auto end = labels.find('"', start);
            if (end == std::string_view::npos || !parse_int(labels.substr(start, end - start), gpu) || gpu < 0 || gpu > 1'000'000) {
                b.skip(line_no, line, "bad gpu label");
                continue;
            }
        }
        Pending& p = scrape[{static_cast<int>(gpu), ts_ms}];
        if ((is_power && p.has_power) || (is_util && p.has_util)) {
            ++r.report.duplicate_timestamps;
            if (r.report.first_bad_timestamp_line == 0) r.report.first_bad_timestamp_line = line_no;
            continue;
        }
        if (value_nan || !std::isfinite(value) || value < 0) {
            if (is_util) { ++r.report.na_values; p.has_util = true; p.util = kNaN; }
            else { p.has_power = true; p.power = kNaN; p.line = line_no; }  // counted at flush
            continue;
        }
        if (is_power) { p.has_power = true; p.power = value; p.line = line_no; }
        else { p.has_util = true; p.util = value; if (p.line == 0) p.line = line_no; }
    }
    flush();
    if (!any_metric) foreign_if_empty(r, "Prometheus text");
    return r;
}

ParsedTrace read_dcgm_prometheus(const std::string& path) {
    const std::string text = slurp(path);
    return parse_dcgm_prometheus(text, path);
}

}  // namespace libscale
