// Parsers for nvidia-smi CSV and dcgm-exporter Prometheus text (power_trace.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>

#include "libscale/io/error.hpp"
#include "libscale/triage/power_trace.hpp"

using namespace libscale;

TEST(NvidiaSmiCsv, HeaderAndUnitsAsNvidiaSmiPrintsThem) {
    const std::string text =
        "timestamp, index, power.draw [W], utilization.gpu [%]\n"
        "2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\n"
        "2026/05/07 22:08:19.005, 1, 612.40 W, 100 %\n"
        "2026/05/07 22:08:19.505, 0, 80.00 W, 5 %\n";
    const auto r = parse_nvidia_smi_csv(text);
    ASSERT_EQ(r.trace.size(), 3u);
    EXPECT_TRUE(r.report.clean()) << r.report.summary();
    EXPECT_EQ(r.trace.gpu[1], 1);
    EXPECT_DOUBLE_EQ(r.trace.power_w[0], 75.2);
    EXPECT_DOUBLE_EQ(r.trace.power_w[1], 612.4);
    EXPECT_DOUBLE_EQ(r.trace.utilization_pct[1], 100);
    EXPECT_NEAR(r.trace.time_s[2] - r.trace.time_s[0], 0.5, 1e-6);
    // 2026-05-07 22:08:19.005 UTC = 1778191699.005 s since the epoch
    EXPECT_NEAR(r.trace.time_s[0], 1778191699.005, 1e-5);
    EXPECT_EQ(r.trace.gpus(), (std::vector<int>{0, 1}));
}

TEST(NvidiaSmiCsv, NoUnitsAndNoHeader) {
    const auto a = parse_nvidia_smi_csv(
        "timestamp, index, power.draw [W], utilization.gpu [%]\n"
        "2026/05/07 22:08:19.005, 0, 75.20, 0\n");
    const auto b = parse_nvidia_smi_csv(
        "2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\n"
        "2026/05/07 22:08:20.005, 0, 300, 80\n");
    ASSERT_EQ(a.trace.size(), 1u);
    ASSERT_EQ(b.trace.size(), 2u);
    EXPECT_DOUBLE_EQ(a.trace.power_w[0], 75.2);
    EXPECT_DOUBLE_EQ(b.trace.power_w[1], 300);
    EXPECT_DOUBLE_EQ(b.trace.utilization_pct[1], 80);
    EXPECT_TRUE(b.report.clean());
}

TEST(NvidiaSmiCsv, HeaderOrderAndExtraColumns) {
    const auto r = parse_nvidia_smi_csv(
        "name, utilization.gpu [%], index, temperature.gpu, power.draw.average [W], timestamp\n"
        "NVIDIA H100 80GB HBM3, 97 %, 3, 61, 655.10 W, 2026/05/07 22:08:19.005\n");
    ASSERT_EQ(r.trace.size(), 1u);
    EXPECT_EQ(r.trace.gpu[0], 3);
    EXPECT_DOUBLE_EQ(r.trace.power_w[0], 655.1);
    EXPECT_DOUBLE_EQ(r.trace.utilization_pct[0], 97);
}

TEST(NvidiaSmiCsv, HeaderWithoutPowerIsAParseError) {
    EXPECT_THROW(parse_nvidia_smi_csv("timestamp, index, power.limit [W]\n"),
                 ParseError);  // no power.draw → not a header…
    EXPECT_THROW(parse_nvidia_smi_csv("timestamp, power.draw [W]\n1, 2\n"), ParseError);  // header lacks index
}

TEST(NvidiaSmiCsv, NotAvailableValues) {
    const auto r = parse_nvidia_smi_csv(
        "0, 0, [N/A], 50 %\n"
        "1, 0, 100 W, [N/A]\n"
        "2, 0, 110 W, [Not Supported]\n");
    ASSERT_EQ(r.trace.size(), 2u);  // the row without power is dropped
    EXPECT_EQ(r.report.na_values, 3u);
    EXPECT_TRUE(std::isnan(r.trace.utilization_pct[0]));
    EXPECT_DOUBLE_EQ(r.trace.time_s[0], 1);
    EXPECT_EQ(r.report.skipped_lines, 0u);
}

TEST(NvidiaSmiCsv, GarbageLinesAreCountedAndTheFirstReported) {
    const auto r = parse_nvidia_smi_csv(
        "timestamp, index, power.draw [W], utilization.gpu [%]\n"
        "2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\n"
        "Killed\n"
        "2026/05/07 22:08:20.005, 0, 75 %, 0 %\n"  // unit in the wrong place
        "2026/05/07 22:08:21.005, 0, 75.1 W\n"     // too few columns
        "\n"
        "2026/05/07 22:08:22.005, 0, 76 W, 1 %\n");
    EXPECT_EQ(r.trace.size(), 2u);
    EXPECT_EQ(r.report.skipped_lines, 3u);
    EXPECT_EQ(r.report.first_skipped_line, 3u);
    EXPECT_EQ(r.report.first_skipped_text, "Killed");
    EXPECT_NE(r.report.summary().find("Killed"), std::string::npos);
}

// A line past 64 KiB (a binary file, NULs, a log without newlines) is one skipped line,
// its first 200 bytes kept for the report, whether it comes whole or in chunks; the lines
// around it are read.
TEST(NvidiaSmiCsv, AnOverlongLineIsSkippedNotCopied) {
    const std::string header = "timestamp, index, power.draw [W], utilization.gpu [%]\n";
    const std::string row1 = "2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\n";
    const std::string row2 = "2026/05/07 22:08:20.005, 0, 76 W, 1 %\n";
    const std::string junk(100 * 1024, 'x');
    const auto r = parse_nvidia_smi_csv(header + row1 + junk + "\n" + row2);
    EXPECT_EQ(r.trace.size(), 2u);
    EXPECT_EQ(r.report.skipped_lines, 1u);
    EXPECT_EQ(r.report.first_skipped_line, 3u);
    EXPECT_EQ(r.report.first_skipped_text, std::string(200, 'x'));
    EXPECT_EQ(r.report.first_skipped_reason, "a line longer than 64 KiB: not a trace line");
    // Fed 1 KiB at a time, and with no newline at the end: the same.
    NvidiaSmiCsvReader reader("chunks");
    PowerTrace out;
    const std::string text = header + row1 + row2 + junk;
    for (std::size_t at = 0; at < text.size(); at += 1024) reader.feed(std::string_view(text).substr(at, 1024), out);
    reader.finish(out);
    EXPECT_EQ(out.size(), 2u);
    EXPECT_EQ(reader.report().skipped_lines, 1u);
    EXPECT_EQ(reader.report().first_skipped_line, 4u);
    EXPECT_EQ(reader.report().first_skipped_text, std::string(200, 'x'));
}

TEST(NvidiaSmiCsv, DuplicateAndNonMonotonicTimestampsAreDroppedAndCounted) {
    const auto r = parse_nvidia_smi_csv(
        "10, 0, 100, 0\n"
        "10, 1, 100, 0\n"  // other GPU, same time: fine
        "10, 0, 101, 0\n"  // duplicate
        "9, 0, 102, 0\n"   // goes back
        "11, 0, 103, 0\n");
    EXPECT_EQ(r.trace.size(), 3u);
    EXPECT_EQ(r.report.duplicate_timestamps, 1u);
    EXPECT_EQ(r.report.non_monotonic_timestamps, 1u);
    EXPECT_EQ(r.report.first_bad_timestamp_line, 3u);
    EXPECT_DOUBLE_EQ(r.trace.power_w[2], 103);
}

TEST(NvidiaSmiCsv, ForeignFileIsAParseErrorButEmptyIsNot) {
    EXPECT_THROW(parse_nvidia_smi_csv("hello world\nthis is not a log\n"), ParseError);
    EXPECT_TRUE(parse_nvidia_smi_csv("").trace.empty());
}

TEST(NvidiaSmiCsv, ReadsAFileAndNamesAMissingOne) {
    const std::string path = std::string(LIBSCALE_TEST_TMPDIR) + "/smi.csv";
    {
        std::ofstream f(path);
        f << "timestamp, index, power.draw [W], utilization.gpu [%]\r\n2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\r\n";
    }
    const auto r = read_nvidia_smi_csv(path);
    EXPECT_EQ(r.trace.size(), 1u);
    EXPECT_EQ(r.report.source, path);
    try {
        read_nvidia_smi_csv(path + ".missing");
        FAIL();
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("smi.csv.missing"), std::string::npos);
    }
}

TEST(DcgmPrometheus, ScrapesWithTimeComments) {
    const std::string text =
        "# scrape t=100.0\n"
        "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
        "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-aaaa\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB "
        "HBM3\",Hostname=\"n1\"} 312.5\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-bbbb\",device=\"nvidia1\"} 640\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aaaa\",device=\"nvidia0\"} 100\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-bbbb\",device=\"nvidia1\"} 99\n"
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 123456789\n"
        "# scrape t=100.5\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 72.0\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 100\n";
    const auto r = parse_dcgm_prometheus(text);
    ASSERT_EQ(r.trace.size(), 3u);
    EXPECT_TRUE(r.report.clean()) << r.report.summary();
    EXPECT_EQ(r.report.scrapes, 2u);
    EXPECT_FALSE(r.report.synthetic_time);
    EXPECT_EQ(r.trace[0].gpu, 0);
    EXPECT_DOUBLE_EQ(r.trace[0].power_w, 312.5);
    EXPECT_DOUBLE_EQ(r.trace[0].utilization_pct, 100);
    EXPECT_DOUBLE_EQ(r.trace[1].utilization_pct, 99);
    EXPECT_DOUBLE_EQ(r.trace[2].time_s, 100.5);
    EXPECT_DOUBLE_EQ(r.trace[2].power_w, 72);
}

TEST(DcgmPrometheus, BlankLineScrapesAndOwnTimestamps) {
    const auto a = parse_dcgm_prometheus(
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300\n\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 310\n");
    ASSERT_EQ(a.trace.size(), 2u);
    EXPECT_TRUE(a.report.synthetic_time);
    EXPECT_DOUBLE_EQ(a.trace.time_s[1], 1);
    EXPECT_TRUE(std::isnan(a.trace.utilization_pct[0]));
    const auto b = parse_dcgm_prometheus(
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"2\"} 300 1700000000000\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"2\"} 50 1700000000000\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"2\"} 301 1700000000500\n");
    ASSERT_EQ(b.trace.size(), 2u);
    EXPECT_FALSE(b.report.synthetic_time);
    EXPECT_DOUBLE_EQ(b.trace.time_s[0], 1700000000.0);
    EXPECT_DOUBLE_EQ(b.trace.utilization_pct[0], 50);
    EXPECT_DOUBLE_EQ(b.trace.time_s[1], 1700000000.5);
}

TEST(DcgmPrometheus, BadLinesNaNAndMissingPower) {
    const auto r = parse_dcgm_prometheus(
        "# scrape t=1\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} abc\n"  // bad value
        "garbage { here\n"
        "DCGM_FI_DEV_POWER_USAGE{UUID=\"x\"} 100\n"  // no gpu label
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} NaN\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"2\"} 100\n"  // util without power
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"3\"} 200\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"3\"} 201\n"  // duplicate in one scrape
        "# scrape t=0.5\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"3\"} 202\n");  // goes back in time
    ASSERT_EQ(r.trace.size(), 1u);
    EXPECT_DOUBLE_EQ(r.trace.power_w[0], 200);
    EXPECT_EQ(r.report.skipped_lines, 3u);
    EXPECT_EQ(r.report.first_skipped_line, 2u);
    EXPECT_EQ(r.report.na_values, 2u);
    EXPECT_EQ(r.report.duplicate_timestamps, 1u);
    EXPECT_EQ(r.report.non_monotonic_timestamps, 1u);
    EXPECT_THROW(parse_dcgm_prometheus("{{{ not prometheus\n"), ParseError);
}

namespace {

auto fields(const ParseReport& r) {
    return std::make_tuple(r.source, r.lines, r.samples, r.skipped_lines, r.first_skipped_line, r.first_skipped_text,
                           r.first_skipped_reason, r.na_values, r.duplicate_timestamps, r.non_monotonic_timestamps,
                           r.first_bad_timestamp_line, r.scrapes, r.synthetic_time);
}

void expect_same_trace(const PowerTrace& a, const PowerTrace& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a.time_s[i], b.time_s[i]) << "row " << i;
        EXPECT_EQ(a.gpu[i], b.gpu[i]) << "row " << i;
        EXPECT_EQ(a.power_w[i], b.power_w[i]) << "row " << i;
        EXPECT_TRUE(a.utilization_pct[i] == b.utilization_pct[i] ||
                    (std::isnan(a.utilization_pct[i]) && std::isnan(b.utilization_pct[i])))
            << "row " << i;
    }
}

// Header with \r\n, units, a utilization N/A, a garbage line, a blank line, a duplicate
// timestamp, a power N/A and an unterminated last line.
const std::string kSmiLog =
    "timestamp, index, power.draw [W], utilization.gpu [%]\r\n"
    "2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\n"
    "2026/05/07 22:08:19.005, 1, 612.40 W, [N/A]\n"
    "Killed\n"
    "\n"
    "2026/05/07 22:08:19.005, 1, 613.00 W, 99 %\n"
    "2026/05/07 22:08:19.505, 0, [N/A], 5 %\n"
    "2026/05/07 22:08:20.005, 0, 80 W, 7 %\n"
    "2026/05/07 22:08:20.005, 1, 600 W, 100 %";

}  // namespace

TEST(NvidiaSmiCsvReader, EverySplitPointGivesTheBatchResult) {
    const auto batch = parse_nvidia_smi_csv(kSmiLog);
    ASSERT_EQ(batch.trace.size(), 4u);
    EXPECT_DOUBLE_EQ(batch.trace.power_w[1], 612.4);
    EXPECT_TRUE(std::isnan(batch.trace.utilization_pct[1]));
    EXPECT_DOUBLE_EQ(batch.trace.power_w[3], 600);
    EXPECT_EQ(batch.report.lines, 9u);
    EXPECT_EQ(batch.report.na_values, 2u);
    EXPECT_EQ(batch.report.skipped_lines, 1u);
    EXPECT_EQ(batch.report.first_skipped_line, 4u);
    EXPECT_EQ(batch.report.duplicate_timestamps, 1u);
    EXPECT_EQ(batch.report.first_bad_timestamp_line, 6u);

    for (std::size_t cut = 0; cut <= kSmiLog.size(); ++cut) {
        SCOPED_TRACE("split at byte " + std::to_string(cut));
        NvidiaSmiCsvReader reader("<string>");
        PowerTrace out;
        const std::string_view text(kSmiLog);
        std::size_t n = reader.feed(text.substr(0, cut), out);
        n += reader.feed(text.substr(cut), out);
        n += reader.finish(out);
        EXPECT_EQ(n, 4u);
        expect_same_trace(out, batch.trace);
        EXPECT_EQ(fields(reader.report()), fields(batch.report));
    }
    NvidiaSmiCsvReader bytewise("<string>");
    PowerTrace out;
    for (const char c : kSmiLog) bytewise.feed(std::string_view(&c, 1), out);
    bytewise.finish(out);
    expect_same_trace(out, batch.trace);
    EXPECT_EQ(fields(bytewise.report()), fields(batch.report));
}

TEST(NvidiaSmiCsvReader, LineSplitAcrossFeedsWaitsForItsNewline) {
    NvidiaSmiCsvReader reader;
    PowerTrace out;
    EXPECT_EQ(reader.feed("2026/05/07 22:08:19.005, 0, 75.", out), 0u);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(reader.report().lines, 0u);
    EXPECT_EQ(reader.feed("20 W, 0 %\n2026/05/07 22:08:19.505, 0, 8", out), 1u);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_DOUBLE_EQ(out.power_w[0], 75.2);
    EXPECT_EQ(reader.feed("1 W, 3 %\n", out), 1u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_DOUBLE_EQ(out.power_w[1], 81);
    EXPECT_DOUBLE_EQ(out.utilization_pct[1], 3);
    EXPECT_NEAR(out.time_s[1] - out.time_s[0], 0.5, 1e-6);
    EXPECT_EQ(reader.report().lines, 2u);
    EXPECT_EQ(reader.report().samples, 2u);
    EXPECT_EQ(reader.report().source, "<stream>");
    EXPECT_TRUE(reader.report().clean());
}

TEST(NvidiaSmiCsvReader, FinishParsesAnUnterminatedLastLine) {
    NvidiaSmiCsvReader reader;
    PowerTrace out;
    EXPECT_EQ(reader.feed("10, 0, 100 W, 5 %\n11, 0, 120 W, 6 %", out), 1u);
    EXPECT_EQ(reader.finish(out), 1u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_DOUBLE_EQ(out.time_s[1], 11);
    EXPECT_DOUBLE_EQ(out.power_w[1], 120);
    EXPECT_EQ(reader.report().lines, 2u);
    EXPECT_EQ(reader.finish(out), 0u);  // nothing left
    EXPECT_EQ(reader.report().lines, 2u);
}

TEST(NvidiaSmiCsvReader, RepeatedHeaderMidStreamRereadsTheColumns) {
    NvidiaSmiCsvReader reader;
    PowerTrace out;
    reader.feed("timestamp, index, power.draw [W], utilization.gpu [%]\n10, 0, 100 W, 5 %\n", out);
    // nvidia-smi restarted with another query order, appended to the same log
    reader.feed("index, utilization.gpu [%], timestamp, power.dr", out);
    EXPECT_EQ(reader.feed("aw [W]\n1, 50 %, 12, 300 W\n", out), 1u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out.gpu[1], 1);
    EXPECT_DOUBLE_EQ(out.time_s[1], 12);
    EXPECT_DOUBLE_EQ(out.power_w[1], 300);
    EXPECT_DOUBLE_EQ(out.utilization_pct[1], 50);
    EXPECT_TRUE(reader.report().clean()) << reader.report().summary();
}

TEST(NvidiaSmiCsvReader, LineNumbersAndTimestampChecksContinueAcrossFeeds) {
    NvidiaSmiCsvReader reader("log.csv");
    PowerTrace first, second;  // a watcher may hand each feed a fresh trace
    reader.feed("10, 0, 100, 0\n11, 0, 101, 0\n12, 0, 102, 0\n", first);
    EXPECT_EQ(reader.feed("\nKilled\n12, 0, 103, 0\n13, 0, 104, 0\noops\n", second), 1u);
    EXPECT_EQ(first.size(), 3u);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_DOUBLE_EQ(second.time_s[0], 13);
    const auto& rep = reader.report();
    EXPECT_EQ(rep.lines, 8u);
    EXPECT_EQ(rep.samples, 4u);
    EXPECT_EQ(rep.skipped_lines, 2u);
    EXPECT_EQ(rep.first_skipped_line, 5u);
    EXPECT_EQ(rep.first_skipped_text, "Killed");
    EXPECT_EQ(rep.duplicate_timestamps, 1u);
    EXPECT_EQ(rep.first_bad_timestamp_line, 6u);
}

TEST(NvidiaSmiCsvReader, BadHeaderThrowsButNothingParsedYetDoesNot) {
    NvidiaSmiCsvReader reader("log.csv");
    PowerTrace out;
    EXPECT_EQ(reader.feed("hello world\n", out), 0u);  // batch: foreign file; reader: keep reading
    EXPECT_EQ(reader.finish(out), 0u);
    EXPECT_EQ(reader.report().skipped_lines, 1u);
    try {
        reader.feed("timestamp, power.draw [W], utilization.gpu [%]\n", out);
        FAIL() << "no ParseError";
    } catch (const ParseError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("log.csv:2"), std::string::npos) << what;
        EXPECT_NE(what.find("lacks index;"), std::string::npos) << what;
    }
    try {
        parse_nvidia_smi_csv("index, power.draw.instant\n");
        FAIL() << "no ParseError";
    } catch (const ParseError& e) {
        EXPECT_NE(std::string(e.what()).find("lacks timestamp;"), std::string::npos) << e.what();
    }
}

TEST(DcgmScrape, StampsSamplesWithTheScrapeTimeAndJoinsPowerAndUtilization) {
    const std::string body =
        "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
        "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-bbbb\"} 640\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-aaaa\"} 312.5\n"
        "\n"
        "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-aaaa\"} 97\n"
        "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1980\n";
    PowerTrace out;
    ParseReport rep;
    EXPECT_EQ(parse_dcgm_scrape(body, 100.0, out, rep), 2u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].gpu, 0);  // GPU order within one time
    EXPECT_DOUBLE_EQ(out[0].time_s, 100);
    EXPECT_DOUBLE_EQ(out[0].power_w, 312.5);
    EXPECT_DOUBLE_EQ(out[0].utilization_pct, 97);
    EXPECT_DOUBLE_EQ(out[1].power_w, 640);
    EXPECT_TRUE(std::isnan(out[1].utilization_pct));
    EXPECT_EQ(rep.scrapes, 1u);
    EXPECT_EQ(rep.lines, 8u);
    EXPECT_FALSE(rep.synthetic_time);

    EXPECT_EQ(parse_dcgm_scrape(body, 100.5, out, rep), 2u);
    EXPECT_EQ(parse_dcgm_scrape(body, 100.5, out, rep), 0u);  // same time again: duplicates
    ASSERT_EQ(out.size(), 4u);
    EXPECT_DOUBLE_EQ(out[3].time_s, 100.5);
    EXPECT_EQ(rep.scrapes, 3u);
    EXPECT_EQ(rep.lines, 24u);
    EXPECT_EQ(rep.samples, 4u);
    EXPECT_EQ(rep.duplicate_timestamps, 2u);
    EXPECT_EQ(rep.first_bad_timestamp_line, 20u);  // GPU 0 comes first in a scrape
    EXPECT_THROW(parse_dcgm_scrape(body, std::nan(""), out, rep), std::invalid_argument);
}

TEST(DcgmScrape, HonoursPerLineMillisecondTimestamps) {
    PowerTrace out;
    ParseReport rep;
    EXPECT_EQ(parse_dcgm_scrape("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300 1700000000500\n"
                                "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 40 1700000000500\n"
                                "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} 200\n",
                                1700000001.0, out, rep),
              2u);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_DOUBLE_EQ(out[0].time_s, 1700000000.5);
    EXPECT_DOUBLE_EQ(out[0].utilization_pct, 40);
    EXPECT_DOUBLE_EQ(out[1].time_s, 1700000001.0);
    EXPECT_EQ(out[1].gpu, 1);
    EXPECT_EQ(rep.scrapes, 1u);
}

TEST(DcgmScrape, ConsecutiveScrapesEqualTheBatchParseOfTheirConcatenation) {
    const std::vector<std::pair<double, std::string>> scrapes = {
        {100.0,
         "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} 310\n"
         "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 90\nDCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 91\n"},
        {100.5,
         "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 305\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} NaN\n"
         "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 92\ngarbage { here\n"},
        {101.0,
         "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} 320\n"
         "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 306 100400\n"},  // own timestamp, before 100.5
    };
    PowerTrace live;
    ParseReport rep;
    std::string concatenated;
    std::size_t appended = 0;
    for (const auto& [t, body] : scrapes) {
        appended += parse_dcgm_scrape(body, t, live, rep);
        concatenated += "# scrape t=" + std::to_string(t) + "\n" + body;
    }
    const auto batch = parse_dcgm_prometheus(concatenated);
    ASSERT_EQ(batch.trace.size(), 4u);
    EXPECT_DOUBLE_EQ(batch.trace.power_w[2], 305);
    EXPECT_DOUBLE_EQ(batch.trace.time_s[3], 101);
    EXPECT_EQ(appended, 4u);
    expect_same_trace(live, batch.trace);
    EXPECT_EQ(rep.samples, batch.report.samples);
    EXPECT_EQ(rep.scrapes, 3u);
    EXPECT_EQ(batch.report.scrapes, 3u);
    EXPECT_EQ(rep.na_values, 1u);
    EXPECT_EQ(batch.report.na_values, 1u);
    EXPECT_EQ(rep.skipped_lines, 1u);
    EXPECT_EQ(batch.report.skipped_lines, 1u);
    EXPECT_EQ(rep.non_monotonic_timestamps, 1u);
    EXPECT_EQ(batch.report.non_monotonic_timestamps, 1u);
    EXPECT_EQ(rep.duplicate_timestamps, batch.report.duplicate_timestamps);
    EXPECT_EQ(rep.lines + scrapes.size(), batch.report.lines);  // the batch text adds a comment per scrape
}

// nvidia-smi stamps local time: at a daylight-saving change the log's clock goes back an
// hour. Every row after it used to be dropped as non-monotonic (a hang after it unseen);
// they are re-based to go on from the last row, counted and said. A row out of order by
// less than 5 s is still dropped.
TEST(NvidiaSmiCsv, AClockStepBackIsRebasedNotDropped) {
    const std::string text =
        "timestamp, index, power.draw [W], utilization.gpu [%]\n"
        "2024/10/27 02:59:59.000, 0, 650 W, 100 %\n"
        "2024/10/27 02:59:59.500, 0, 650 W, 100 %\n"
        "2024/10/27 02:00:00.000, 0, 70 W, 100 %\n"
        "2024/10/27 02:00:00.500, 0, 70 W, 100 %\n"
        "2024/10/27 01:59:59.000, 0, 70 W, 100 %\n";  // then a line 1.5 s early: dropped
    const auto r = parse_nvidia_smi_csv(text);
    ASSERT_EQ(r.trace.size(), 4u);
    EXPECT_EQ(r.report.clock_steps, 1u);
    EXPECT_EQ(r.report.first_clock_step_line, 4u);
    EXPECT_NEAR(r.report.clock_step_s, 3599.5 + 1e-3, 1e-6);
    EXPECT_EQ(r.report.non_monotonic_timestamps, 1u);
    for (std::size_t i = 1; i < r.trace.size(); ++i) EXPECT_GT(r.trace.time_s[i], r.trace.time_s[i - 1]);
    EXPECT_NEAR(r.trace.time_s[3] - r.trace.time_s[1], 0.5 + 1e-3, 1e-6);
    EXPECT_NE(r.report.summary().find("clock went back 1 time"), std::string::npos);
}

// dcgm-exporter's clock (scrape times or per-line timestamps) stepping back, and the wall
// clock stamping live scrapes: re-based as in the nvidia-smi reader, not dropped.
TEST(DcgmPrometheus, AClockStepBackIsRebasedNotDropped) {
    const std::string text =
        "# scrape t=1000\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 650\n"
        "# scrape t=1001\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 650\n"
        "# scrape t=400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 70\n"
        "# scrape t=401\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 70\n";
    const auto r = parse_dcgm_prometheus(text);
    ASSERT_EQ(r.trace.size(), 4u);
    EXPECT_EQ(r.report.clock_steps, 1u);
    EXPECT_EQ(r.report.first_clock_step_line, 6u);
    EXPECT_NEAR(r.report.clock_step_s, 601 + 1e-3, 1e-9);
    EXPECT_EQ(r.report.non_monotonic_timestamps, 0u);
    EXPECT_NEAR(r.trace.time_s[3] - r.trace.time_s[2], 1.0, 1e-9);
    EXPECT_NEAR(r.trace.time_s[2] - r.trace.time_s[1], 1e-3, 1e-9);

    // Live: one scrape at a time, stamped with a wall clock set back 10 minutes.
    PowerTrace live;
    ParseReport rep;
    const std::string scrape = "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 650\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} 640\n";
    for (const double wall : {5000.0, 5001.0, 4401.0, 4402.0}) parse_dcgm_scrape(scrape, wall, live, rep);
    ASSERT_EQ(live.size(), 8u);
    EXPECT_EQ(rep.clock_steps, 1u);  // both GPUs re-based by the one step
    EXPECT_EQ(rep.non_monotonic_timestamps, 0u);
    EXPECT_NEAR(live.time_s[7] - live.time_s[3], 1.0 + 1e-3, 1e-9);
}

// A byte-order mark before the header (an editor's or Windows' UTF-8) is not a column name.
TEST(NvidiaSmiCsv, AByteOrderMarkBeforeTheHeaderIsSkipped) {
    const auto r = parse_nvidia_smi_csv(
        "\xEF\xBB\xBFtimestamp, index, power.draw [W], utilization.gpu [%]\n2024/05/01 12:00:00.000, 0, 650 W, 100 "
        "%\n");
    ASSERT_EQ(r.trace.size(), 1u);
    EXPECT_EQ(r.report.skipped_lines, 0u);
    EXPECT_DOUBLE_EQ(r.trace.power_w[0], 650);
}

// A log queried with `name` says which GPU it is: triage takes that GPU's bands.
TEST(NvidiaSmiCsv, ANameColumnNamesTheGpu) {
    // GPUs 0 and 1 at one time, each row naming its model.
    const auto log = [](const std::string& gpu0, const std::string& gpu1) {
        return parse_nvidia_smi_csv("timestamp, name, index, power.draw [W]\n2024/05/01 12:00:00.000, " + gpu0 +
                                    ", 0, 650 W\n2024/05/01 12:00:00.000, " + gpu1 + ", 1, 640 W\n");
    };
    const auto one = log("NVIDIA H200", "NVIDIA H200");
    EXPECT_EQ(one.report.gpu_name, "NVIDIA H200");
    EXPECT_FALSE(one.report.mixed_gpu_names);
    EXPECT_EQ(one.trace.size(), 2u);
    const auto two = log("NVIDIA H200", "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(two.report.gpu_name, "");
    EXPECT_TRUE(two.report.mixed_gpu_names);
    EXPECT_EQ(parse_nvidia_smi_csv("2024/05/01 12:00:00.000, 0, 650 W, 100 %\n").report.gpu_name, "");
}
