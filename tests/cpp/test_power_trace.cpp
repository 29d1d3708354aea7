// Parsers for nvidia-smi CSV and dcgm-exporter Prometheus text (power_trace.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "libscale/error.hpp"
#include "libscale/power_trace.hpp"

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
    const auto a = parse_nvidia_smi_csv("timestamp, index, power.draw [W], utilization.gpu [%]\n"
                                        "2026/05/07 22:08:19.005, 0, 75.20, 0\n");
    const auto b = parse_nvidia_smi_csv("2026/05/07 22:08:19.005, 0, 75.20 W, 0 %\n"
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
    EXPECT_THROW(parse_nvidia_smi_csv("timestamp, index, power.limit [W]\n"), ParseError);  // no power.draw → not a header…
    EXPECT_THROW(parse_nvidia_smi_csv("timestamp, power.draw [W]\n1, 2\n"), ParseError);   // header lacks index
}

TEST(NvidiaSmiCsv, NotAvailableValues) {
    const auto r = parse_nvidia_smi_csv("0, 0, [N/A], 50 %\n"
                                        "1, 0, 100 W, [N/A]\n"
                                        "2, 0, 110 W, [Not Supported]\n");
    ASSERT_EQ(r.trace.size(), 2u);  // the row without power is dropped
    EXPECT_EQ(r.report.na_values, 3u);
    EXPECT_TRUE(std::isnan(r.trace.utilization_pct[0]));
    EXPECT_DOUBLE_EQ(r.trace.time_s[0], 1);
    EXPECT_EQ(r.report.skipped_lines, 0u);
}

TEST(NvidiaSmiCsv, GarbageLinesAreCountedAndTheFirstReported) {
    const auto r = parse_nvidia_smi_csv("timestamp, index, power.draw [W], utilization.gpu [%]\n"
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

TEST(NvidiaSmiCsv, DuplicateAndNonMonotonicTimestampsAreDroppedAndCounted) {
    const auto r = parse_nvidia_smi_csv("10, 0, 100, 0\n"
                                        "10, 1, 100, 0\n"   // other GPU, same time: fine
                                        "10, 0, 101, 0\n"   // duplicate
                                        "9, 0, 102, 0\n"    // goes back
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
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-aaaa\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"n1\"} 312.5\n"
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
    const auto a = parse_dcgm_prometheus("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 300\n\n"
                                         "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 310\n");
    ASSERT_EQ(a.trace.size(), 2u);
    EXPECT_TRUE(a.report.synthetic_time);
    EXPECT_DOUBLE_EQ(a.trace.time_s[1], 1);
    EXPECT_TRUE(std::isnan(a.trace.utilization_pct[0]));
    const auto b = parse_dcgm_prometheus("DCGM_FI_DEV_POWER_USAGE{gpu=\"2\"} 300 1700000000000\n"
                                         "DCGM_FI_DEV_GPU_UTIL{gpu=\"2\"} 50 1700000000000\n"
                                         "DCGM_FI_DEV_POWER_USAGE{gpu=\"2\"} 301 1700000000500\n");
    ASSERT_EQ(b.trace.size(), 2u);
    EXPECT_FALSE(b.report.synthetic_time);
    EXPECT_DOUBLE_EQ(b.trace.time_s[0], 1700000000.0);
    EXPECT_DOUBLE_EQ(b.trace.utilization_pct[0], 50);
    EXPECT_DOUBLE_EQ(b.trace.time_s[1], 1700000000.5);
}

TEST(DcgmPrometheus, BadLinesNaNAndMissingPower) {
    const auto r = parse_dcgm_prometheus("# scrape t=1\n"
                                         "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} abc\n"  // bad value
                                         "garbage { here\n"
                                         "DCGM_FI_DEV_POWER_USAGE{UUID=\"x\"} 100\n"  // no gpu label
                                         "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} NaN\n"
                                         "DCGM_FI_DEV_GPU_UTIL{gpu=\"2\"} 100\n"     // util without power
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
