// NvmlSource: loading NVML with dlopen, its error messages, and the per-GPU reads, run
// against the stand-in library fake_nvml.cpp (its header lists the readings it returns).
// Nothing here needs a GPU; on a machine with the NVIDIA driver the default-path test
// reads the real GPUs instead.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "libscale/io/error.hpp"
#include "libscale/triage/nvml.hpp"

namespace {

using libscale::NvmlError;
using libscale::NvmlSource;

// Sets (or, with nullopt, unsets) one environment variable for a scope, then restores it.
class ScopedEnv {
public:
    ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
        if (const char* old = std::getenv(name_.c_str())) old_ = old;
        if (value) setenv(name_.c_str(), value->c_str(), 1);
        else unsetenv(name_.c_str());
    }
    ~ScopedEnv() {
        if (old_) setenv(name_.c_str(), old_->c_str(), 1);
        else unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

// The fake library with every FAKE_NVML_* control cleared.
struct FakeNvml {
    ScopedEnv library{"LIBSCALE_NVML_LIBRARY", LIBSCALE_FAKE_NVML_PATH};
    ScopedEnv count{"FAKE_NVML_GPU_COUNT", std::nullopt};
    ScopedEnv init_fail{"FAKE_NVML_INIT_FAIL", std::nullopt};
    ScopedEnv lost{"FAKE_NVML_LOST_GPU", std::nullopt};
    ScopedEnv unsupported{"FAKE_NVML_NOT_SUPPORTED", std::nullopt};
};

template <class E, class F>
std::string message_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an exception";
    return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

double now_s() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

TEST(NvmlSource, MissingLibraryNamesThePathAndTheDriver) {
    ScopedEnv lib("LIBSCALE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
    const std::string msg = message_of<NvmlError>([] { NvmlSource s; });
    EXPECT_TRUE(contains(msg, "'/nonexistent/libnvidia-ml.so.1'")) << msg;
    EXPECT_TRUE(contains(msg, "NVIDIA driver")) << msg;
    EXPECT_TRUE(contains(msg, "LIBSCALE_NVML_LIBRARY")) << msg;
    try {
        NvmlSource s;
    } catch (const NvmlError& e) {
        EXPECT_EQ(e.nvml_return(), -1);  // the loader failed, not NVML
    }
}

// No variable: the driver's own library. On a machine without the driver (this project's
// build machines) that is a clean NvmlError; with the driver, a real read of every GPU.
TEST(NvmlSource, DefaultLibraryReadsGpusOrFailsCleanly) {
    ScopedEnv lib("LIBSCALE_NVML_LIBRARY", std::nullopt);
    try {
        NvmlSource s;
        EXPECT_EQ(s.library_path(), "libnvidia-ml.so.1");
        ASSERT_FALSE(s.gpus().empty());
        const auto samples = s.poll();
        ASSERT_EQ(samples.size(), s.gpus().size());
        for (const auto& x : samples) {
            EXPECT_EQ(x.error, 0) << x.error_text;
            EXPECT_GT(x.power_w, 0.0);
            EXPECT_LE(x.utilization_pct, 100.0);
        }
    } catch (const NvmlError& e) {
        EXPECT_TRUE(contains(e.what(), "libnvidia-ml.so.1")) << e.what();
    }
}

TEST(NvmlSource, LibraryWithoutNvmlSymbolsNamesTheSymbol) {
    ScopedEnv lib("LIBSCALE_NVML_LIBRARY", "libm.so.6");
    const std::string msg = message_of<NvmlError>([] { NvmlSource s; });
    EXPECT_TRUE(contains(msg, "'libm.so.6' has no symbol nvmlInit_v2")) << msg;
}

TEST(NvmlSource, FakeListsEveryGpuWithLimitsInWatts) {
    FakeNvml fake;
    NvmlSource s;
    EXPECT_EQ(s.library_path(), LIBSCALE_FAKE_NVML_PATH);
    ASSERT_EQ(s.gpus().size(), 2u);
    for (int i = 0; i < 2; ++i) {
        const auto& g = s.gpus()[static_cast<std::size_t>(i)];
        EXPECT_EQ(g.index, i);
        EXPECT_EQ(g.name, "Fake NVML GPU " + std::to_string(i));
        EXPECT_EQ(g.uuid, "GPU-fa4e0000-0000-0000-0000-00000000000" + std::to_string(i));
        EXPECT_DOUBLE_EQ(g.power_limit_w, 700.0);  // 700,000 mW
    }
}

TEST(NvmlSource, FakePollConvertsMilliwattsAndMillijoules) {
    FakeNvml fake;
    NvmlSource s;
    const double before = now_s();
    const auto a = s.poll();
    const double after = now_s();
    ASSERT_EQ(a.size(), 2u);
    for (int i = 0; i < 2; ++i) {
        const auto& x = a[static_cast<std::size_t>(i)];
        EXPECT_EQ(x.index, i);
        EXPECT_EQ(x.error, 0);
        EXPECT_EQ(x.error_text, "");
        EXPECT_GE(x.time_s, before);
        EXPECT_LE(x.time_s, after);
        EXPECT_DOUBLE_EQ(x.power_w, 100.0 + 10.0 * i);          // 100,000 + 10,000 i mW
        EXPECT_DOUBLE_EQ(x.power_instant_w, 105.0 + 10.0 * i);  // field 186, uiVal mW
        EXPECT_DOUBLE_EQ(x.utilization_pct, 50.0 + i);
        EXPECT_DOUBLE_EQ(x.energy_j, 1000.0 + 100.0 * i);  // 1,000,000 + 100,000 i mJ
        EXPECT_DOUBLE_EQ(x.power_limit_w, 700.0);
    }
    const auto b = s.poll();
    EXPECT_DOUBLE_EQ(b[0].energy_j - a[0].energy_j, 0.25);  // 250 mJ per read
    EXPECT_DOUBLE_EQ(b[1].energy_j, 1100.25);
}

TEST(NvmlSource, FakeGpuCountComesFromTheLibrary) {
    FakeNvml fake;
    ScopedEnv count("FAKE_NVML_GPU_COUNT", "4");
    NvmlSource s;
    ASSERT_EQ(s.gpus().size(), 4u);
    const auto x = s.poll();
    EXPECT_DOUBLE_EQ(x[3].power_w, 130.0);
    EXPECT_DOUBLE_EQ(x[3].utilization_pct, 53.0);
}

TEST(NvmlSource, SelectsIndicesInTheGivenOrder) {
    FakeNvml fake;
    NvmlSource s({1, 0});
    ASSERT_EQ(s.gpus().size(), 2u);
    EXPECT_EQ(s.gpus()[0].index, 1);
    EXPECT_EQ(s.gpus()[0].name, "Fake NVML GPU 1");
    const auto x = s.poll();
    EXPECT_EQ(x[0].index, 1);
    EXPECT_DOUBLE_EQ(x[0].power_w, 110.0);
    EXPECT_DOUBLE_EQ(x[1].power_w, 100.0);

    NvmlSource one({1});
    ASSERT_EQ(one.poll().size(), 1u);
    EXPECT_DOUBLE_EQ(one.poll()[0].power_instant_w, 115.0);
}

TEST(NvmlSource, BadIndexNamesTheIndexAndTheCount) {
    FakeNvml fake;
    std::string msg = message_of<std::invalid_argument>([] { NvmlSource s({0, 5}); });
    EXPECT_TRUE(contains(msg, "index 5 is out of range")) << msg;
    EXPECT_TRUE(contains(msg, "NVML sees 2 GPUs (valid indices 0 to 1)")) << msg;
    msg = message_of<std::invalid_argument>([] { NvmlSource s({-1}); });
    EXPECT_TRUE(contains(msg, "index -1 is out of range")) << msg;
    msg = message_of<std::invalid_argument>([] { NvmlSource s({1, 1}); });
    EXPECT_TRUE(contains(msg, "index 1 is listed twice")) << msg;
}

TEST(NvmlSource, NoGpusIsAnError) {
    FakeNvml fake;
    ScopedEnv count("FAKE_NVML_GPU_COUNT", "0");
    const std::string msg = message_of<NvmlError>([] { NvmlSource s; });
    EXPECT_TRUE(contains(msg, "no GPUs found")) << msg;
}

TEST(NvmlSource, InitFailureCarriesNvmlErrorString) {
    FakeNvml fake;
    ScopedEnv fail("FAKE_NVML_INIT_FAIL", "1");
    try {
        NvmlSource s;
        ADD_FAILURE() << "nvmlInit_v2 failed, yet the source was made";
    } catch (const NvmlError& e) {
        const std::string msg = e.what();
        EXPECT_TRUE(contains(msg, "nvmlInit_v2")) << msg;
        EXPECT_TRUE(contains(msg, "Driver Not Loaded (NVML return 9)")) << msg;
        EXPECT_EQ(e.nvml_return(), 9);
    }
}

TEST(NvmlSource, GpuLostBeforeStartIsAnErrorNamingIt) {
    FakeNvml fake;
    ScopedEnv lost("FAKE_NVML_LOST_GPU", "1");
    try {
        NvmlSource s;
        ADD_FAILURE() << "GPU 1 is lost, yet the source was made";
    } catch (const NvmlError& e) {
        EXPECT_EQ(std::string(e.what()), "NVML: cannot open GPU 1: GPU is lost");
        EXPECT_EQ(e.nvml_return(), 15);
    }
    NvmlSource only0({0});  // the other GPU can still be watched
    EXPECT_DOUBLE_EQ(only0.poll()[0].power_w, 100.0);
}

TEST(NvmlSource, GpuLostMidRunReportsItAndKeepsTheOthers) {
    FakeNvml fake;
    NvmlSource s;
    ASSERT_EQ(s.poll()[1].error, 0);
    ScopedEnv lost("FAKE_NVML_LOST_GPU", "1");
    std::vector<libscale::NvmlSample> x;
    ASSERT_NO_THROW(x = s.poll());
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[1].index, 1);
    EXPECT_EQ(x[1].error, 15);
    EXPECT_EQ(x[1].error_text, "GPU is lost");
    EXPECT_TRUE(std::isnan(x[1].power_w));
    EXPECT_TRUE(std::isnan(x[1].power_instant_w));
    EXPECT_TRUE(std::isnan(x[1].utilization_pct));
    EXPECT_TRUE(std::isnan(x[1].energy_j));
    EXPECT_TRUE(std::isnan(x[1].power_limit_w));
    EXPECT_GT(x[1].time_s, 0.0);
    EXPECT_EQ(x[0].error, 0);
    EXPECT_DOUBLE_EQ(x[0].power_w, 100.0);
    EXPECT_DOUBLE_EQ(x[0].energy_j, 1000.25);  // its second read
    EXPECT_EQ(s.poll()[1].error, 15);          // and it stays lost
}

TEST(NvmlSource, UnsupportedReadingsAreNaNNotErrors) {
    FakeNvml fake;
    ScopedEnv unsupported("FAKE_NVML_NOT_SUPPORTED", "1");
    NvmlSource s;
    const auto x = s.poll();
    EXPECT_EQ(x[0].error, 0);
    EXPECT_TRUE(std::isnan(x[0].power_instant_w));
    EXPECT_TRUE(std::isnan(x[0].energy_j));
    EXPECT_DOUBLE_EQ(x[0].power_w, 100.0);
    EXPECT_DOUBLE_EQ(x[0].power_limit_w, 700.0);
}

TEST(NvmlSource, MissingOptionalSymbolsGiveNaN) {
    FakeNvml fake;
    ScopedEnv lib("LIBSCALE_NVML_LIBRARY", LIBSCALE_FAKE_NVML_MINIMAL_PATH);
    NvmlSource s;
    const auto x = s.poll();
    ASSERT_EQ(x.size(), 2u);
    EXPECT_EQ(x[1].error, 0);
    EXPECT_TRUE(std::isnan(x[1].power_instant_w));
    EXPECT_TRUE(std::isnan(x[1].energy_j));
    EXPECT_DOUBLE_EQ(x[1].power_w, 110.0);
    EXPECT_DOUBLE_EQ(x[1].utilization_pct, 51.0);
}

TEST(NvmlSource, MovedSourceKeepsReading) {
    FakeNvml fake;
    NvmlSource a;
    NvmlSource b(std::move(a));
    EXPECT_TRUE(a.gpus().empty());  // NOLINT(bugprone-use-after-move): defined as empty
    EXPECT_TRUE(a.poll().empty());
    ASSERT_EQ(b.gpus().size(), 2u);
    EXPECT_DOUBLE_EQ(b.poll()[1].power_w, 110.0);
    NvmlSource c({0});
    c = std::move(b);  // c's own NVML reference is released, b's kept
    EXPECT_DOUBLE_EQ(c.poll()[1].energy_j, 1100.25);
}

}  // namespace
