// GPU power telemetry as a columnar trace (one row per GPU per sample) and the parsers
// for the two text formats a cluster already writes: nvidia-smi CSV logs and
// dcgm-exporter Prometheus text. Bad lines never abort a parse: they are skipped,
// counted, and the first is reported in ParseReport (line number and text). ParseError
// (error.hpp) only for an unreadable file, a header without the needed columns, or a
// file in which not one line parsed (a foreign file). A live watcher reads the same
// formats incrementally: NvidiaSmiCsvReader for a growing log, parse_dcgm_scrape for one
// GET /metrics at a time.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace libscale {

struct PowerSample {
    double time_s = 0;           // seconds (nvidia-smi wall clock read as UTC epoch seconds)
    int gpu = 0;                 // nvidia-smi index / dcgm `gpu` label
    double power_w = 0;          // board power draw, finite
    double utilization_pct = 0;  // NaN: not reported ("[N/A]" or column absent)
};

// Columnar: row i is (time_s[i], gpu[i], power_w[i], utilization_pct[i]). Rows keep file
// order (GPUs interleaved); the parsers guarantee strictly increasing time per GPU.
struct PowerTrace {
    std::vector<double> time_s;
    std::vector<int> gpu;
    std::vector<double> power_w;
    std::vector<double> utilization_pct;

    std::size_t size() const { return time_s.size(); }
    bool empty() const { return time_s.empty(); }
    void reserve(std::size_t n);
    void push_back(const PowerSample& s);
    PowerSample operator[](std::size_t i) const { return {time_s[i], gpu[i], power_w[i], utilization_pct[i]}; }
    std::vector<int> gpus() const;  // distinct GPU ids, ascending
};

// A log's time going back by more than this is its clock stepping back, not a reordered
// line: StreamOptions' default stale window, the watcher's gap in the other direction.
inline constexpr double kClockStepBackS = 5.0;

// Readings no GPU gives: board power above this (the largest boards draw 1.4 kW, B300 and
// GB300 in the hardware catalog; 10 kW leaves room for any board to come) or utilization
// above 100 %. Such a line is skipped as unparseable and counted, as a garbled one is;
// 1e300 W summed would otherwise be the job's energy.
inline constexpr double kMaxSamplePowerW = 10'000;
inline constexpr double kMaxUtilizationPct = 100;

struct ParseReport {
    std::string source;                  // file path or "<string>"
    std::size_t lines = 0;               // lines read, blank ones included
    std::size_t samples = 0;             // rows in the trace
    std::size_t skipped_lines = 0;       // unparseable lines (skipped)
    std::size_t first_skipped_line = 0;  // 1-based; 0 when none
    std::string first_skipped_text;
    std::string first_skipped_reason;
    std::size_t na_values = 0;                 // "[N/A]", "[Not Supported]", NaN, or a GPU with no power value
    std::size_t duplicate_timestamps = 0;      // same GPU, same time: the later row is dropped
    std::size_t non_monotonic_timestamps = 0;  // same GPU, earlier time: the row is dropped
    std::size_t first_bad_timestamp_line = 0;  // 1-based; 0 when none
    // The log's clock went back by more than kClockStepBackS (nvidia-smi's local time at a
    // daylight-saving change, a clock set back; dcgm-exporter's timestamps or the wall clock
    // stamping a live scrape); later rows are re-based to go on from the last one instead of
    // being dropped as non-monotonic.
    std::size_t clock_steps = 0;
    double clock_step_s = 0;                // seconds added to the rows after the steps, in all
    std::size_t first_clock_step_line = 0;  // 1-based; 0 when none
    // nvidia-smi only, with a `name` column: the GPU model the log names ("NVIDIA H200"),
    // empty when none or when its rows name more than one (mixed_gpu_names).
    std::string gpu_name;
    bool mixed_gpu_names = false;
    std::size_t scrapes = 0;      // dcgm only: scrapes seen
    bool synthetic_time = false;  // dcgm only: no timestamps, time_s = scrape ordinal (0, 1, ...)

    bool clean() const {
        return skipped_lines == 0 && na_values == 0 && duplicate_timestamps == 0 && non_monotonic_timestamps == 0;
    }
    std::string summary() const;  // one line for logs
};

struct ParsedTrace {
    PowerTrace trace;
    ParseReport report;
};

// nvidia-smi --query-gpu=timestamp,index,power.draw,utilization.gpu --format=csv[,noheader][,nounits]
//  * Header (any line containing "power.draw"): columns are taken from it in its order,
//    extra columns are ignored; the units in brackets are dropped from the names. The
//    power column is power.draw, else power.draw.average, else power.draw.instant;
//    timestamp, index and a power column are required (ParseError otherwise);
//    utilization.gpu is optional (NaN when absent). A repeated header (concatenated
//    logs) re-reads the column order.
//  * No header: the order timestamp, index, power.draw, utilization.gpu.
//  * Values with or without units: "75.20 W" or "75.20"; "0 %" or "0". A unit that is not
//    the column's (e.g. "75 %" for power) makes the line unparseable.
//  * timestamp: "YYYY/MM/DD HH:MM:SS[.fff]" (or '-' separators), read as UTC epoch
//    seconds, or a plain number of seconds.
//  * "[N/A]"/"N/A"/"[Not Supported]"/"[Unknown Error]": in power, the row is dropped; in
//    utilization, the row is kept with NaN utilization; both counted in na_values.
ParsedTrace parse_nvidia_smi_csv(std::string_view text, std::string_view source = "<string>");
ParsedTrace read_nvidia_smi_csv(const std::string& path);

// Incremental nvidia-smi CSV reader for a log that is still being written (-f log.csv):
// feed() arbitrary chunks; only complete lines (ending in '\n') are parsed, the rest is
// kept for the next feed; finish() parses a final unterminated line. Same rules and
// counters as parse_nvidia_smi_csv, line numbers continuing across feeds, duplicate and
// non-monotonic timestamps checked against every row this reader accepted. A header
// lacking the needed columns throws ParseError (the line is consumed). Unlike the batch
// parser, nothing parsed yet is not an error: the log may just be empty so far.
// No nvidia-smi or dcgm-exporter line comes near this; a longer one (a binary file, a log
// without newlines) is skipped as one bad line rather than copied whole, so a 4 GiB file of
// NULs costs its own size in memory, not three times it.
inline constexpr std::size_t kMaxTraceLineBytes = std::size_t{64} * 1024;

class NvidiaSmiCsvReader {
public:
    explicit NvidiaSmiCsvReader(std::string source = "<stream>");
    // Appends the rows parsed from the complete lines in `chunk` to `out` and returns how
    // many were appended.
    std::size_t feed(std::string_view chunk, PowerTrace& out);
    std::size_t finish(PowerTrace& out);
    const ParseReport& report() const { return report_; }

private:
    std::size_t parse_line(std::string_view raw, PowerTrace& out);

    ParseReport report_;
    std::string partial_;    // the unterminated tail of the last chunk (its first 200 bytes when overlong_)
    bool overlong_ = false;  // the line being read is past kMaxTraceLineBytes: skipped when it ends
    void skip_overlong();
    // Column positions, -1 = absent; until a header is seen, the noheader order.
    int c_time_ = 0, c_gpu_ = 1, c_power_ = 2, c_util_ = 3, c_name_ = -1;
    std::map<int, double> last_time_;  // per GPU, of the last accepted row (re-based)
    double clock_offset_ = 0;          // added to every row's time since the log's clock stepped back
};

// dcgm-exporter Prometheus text exposition. What is accepted:
//  * Sample lines `DCGM_FI_DEV_POWER_USAGE{...,gpu="0",...} 312.5 [timestamp_ms]` and
//    `DCGM_FI_DEV_GPU_UTIL{...,gpu="0",...} 100 [timestamp_ms]`; the `gpu` label is
//    required. Other metric names are ignored (not counted as bad).
//  * A file holds one or more scrapes. A scrape ends at a blank line or at a comment
//    `# scrape t=<seconds>`, which also gives the time of the scrape that follows.
//    Other `#` comments (HELP, TYPE) are ignored.
//  * Time of a sample: the line's own timestamp (ms since the epoch) if present, else the
//    scrape's t=, else the scrape's ordinal 0, 1, 2, ... (report.synthetic_time).
//  * Power and utilization of the same GPU and time in one scrape join into one row;
//    utilization without power is dropped and counted in na_values; power without
//    utilization gives NaN utilization. A value "NaN" counts in na_values.
ParsedTrace parse_dcgm_prometheus(std::string_view text, std::string_view source = "<string>");

// A trace file (or FIFO) through the input layer (io/input_file.hpp), read once. format:
// "auto" (dcgm-exporter text when its first 64 KiB name a DCGM_FI_DEV_ metric, else
// nvidia-smi CSV), "nvidia-smi" or "dcgm".
ParsedTrace read_power_trace(const std::string& path, std::string_view format = "auto");
ParsedTrace read_dcgm_prometheus(const std::string& path);

// One dcgm-exporter scrape (the body of one GET /metrics), same line rules as above: the
// whole text is one scrape (blank lines and every `#` comment ignored), its samples
// stamped at `time_s` (seconds, finite: std::invalid_argument otherwise) unless a line
// carries its own timestamp (ms). Rows not later than `out`'s last row of their GPU are
// dropped and counted, so successive scrapes into one trace keep it monotonic. Counts go
// into `report`, accumulating across calls (line numbers continue from report.lines;
// report.scrapes += 1 per call). Returns the rows appended to `out`.
std::size_t parse_dcgm_scrape(std::string_view text, double time_s, PowerTrace& out, ParseReport& report);

}  // namespace libscale
