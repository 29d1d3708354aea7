// A stand-in for libnvidia-ml.so.1, for the tests of NvmlSource's loader and error paths
// only (test_nvml.cpp): it exports the NVML symbols NvmlSource resolves, with the
// signatures of nvml_abi (nvml.hpp), and returns fixed, made-up readings. It says nothing
// about real GPUs or real NVML behaviour beyond the declared ABI.
//
// GPU i reads: power 100 + 10 i W (1 s average), instantaneous power 105 + 10 i W,
// utilization 50 + i %, enforced limit 700 W, energy 1000 + 100 i J on the first read
// after nvmlInit_v2, then 0.25 J more on every read. Environment, read at each call:
//   FAKE_NVML_GPU_COUNT=n      n GPUs (default 2, at most 16)
//   FAKE_NVML_INIT_FAIL=1      nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED (9)
//   FAKE_NVML_LOST_GPU=i       every call on GPU i returns NVML_ERROR_GPU_IS_LOST (15)
//   FAKE_NVML_NOT_SUPPORTED=1  instantaneous power and energy return NOT_SUPPORTED (3)
// Built twice: with FAKE_NVML_MINIMAL the optional symbols (nvmlDeviceGetFieldValues,
// nvmlDeviceGetTotalEnergyConsumption) are left out, as in an old driver.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "libscale/triage/nvml.hpp"

using namespace libscale::nvml_abi;

namespace {

constexpr int kMaxGpus = 16;
struct FakeGpu {
    unsigned long long energy_mj = 0;
};
FakeGpu g_gpus[kMaxGpus];
int g_init_count = 0;

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? std::atoi(v) : fallback;
}

int gpu_count() {
    const int n = env_int("FAKE_NVML_GPU_COUNT", 2);
    return n < 0 ? 0 : (n > kMaxGpus ? kMaxGpus : n);
}

// Handles are addresses inside g_gpus; -1 for anything else.
int index_of(Device d) {
    const auto* p = reinterpret_cast<const FakeGpu*>(d);
    for (int i = 0; i < gpu_count(); ++i)
        if (p == &g_gpus[i]) return i;
    return -1;
}

// Common checks of every device call; sets *i to the GPU index on success.
Return enter(Device d, int* i) {
    if (g_init_count == 0) return kUninitialized;
    *i = index_of(d);
    if (*i < 0) return kInvalidArgument;
    if (env_int("FAKE_NVML_LOST_GPU", -1) == *i) return kGpuIsLost;
    return kSuccess;
}

[[maybe_unused]] bool not_supported() { return env_int("FAKE_NVML_NOT_SUPPORTED", 0) == 1; }

Return write_string(char* out, unsigned int length, const char* text) {
    if (out == nullptr) return kInvalidArgument;
    if (std::strlen(text) + 1 > length) return kInsufficientSize;
    std::memcpy(out, text, std::strlen(text) + 1);
    return kSuccess;
}

}  // namespace

extern "C" {

Return nvmlInit_v2() {
    if (env_int("FAKE_NVML_INIT_FAIL", 0) == 1) return kDriverNotLoaded;
    if (g_init_count++ == 0)  // NVML reference-counts init; state restarts with the first
        for (int i = 0; i < kMaxGpus; ++i)
            g_gpus[i].energy_mj = 1'000'000ULL + 100'000ULL * static_cast<unsigned long long>(i);
    return kSuccess;
}

Return nvmlShutdown() {
    if (g_init_count > 0) --g_init_count;
    return kSuccess;
}

const char* nvmlErrorString(Return r) {
    switch (r) {  // NVIDIA's wording for these codes
        case kSuccess: return "Success";
        case kUninitialized: return "Uninitialized";
        case kInvalidArgument: return "Invalid Argument";
        case kNotSupported: return "Not Supported";
        case kInsufficientSize: return "Insufficient Size";
        case kDriverNotLoaded: return "Driver Not Loaded";
        case kGpuIsLost: return "GPU is lost";
        default: return "Unknown Error";
    }
}

Return nvmlDeviceGetCount_v2(unsigned int* count) {
    if (g_init_count == 0) return kUninitialized;
    if (count == nullptr) return kInvalidArgument;
    *count = static_cast<unsigned int>(gpu_count());
    return kSuccess;
}

Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, Device* device) {
    if (g_init_count == 0) return kUninitialized;
    if (device == nullptr || index >= static_cast<unsigned int>(gpu_count())) return kInvalidArgument;
    if (env_int("FAKE_NVML_LOST_GPU", -1) == static_cast<int>(index)) return kGpuIsLost;
    *device = reinterpret_cast<Device>(&g_gpus[index]);
    return kSuccess;
}

Return nvmlDeviceGetName(Device d, char* name, unsigned int length) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    char text[32];
    std::snprintf(text, sizeof text, "Fake NVML GPU %d", i);
    return write_string(name, length, text);
}

Return nvmlDeviceGetUUID(Device d, char* uuid, unsigned int length) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    char text[48];
    std::snprintf(text, sizeof text, "GPU-fa4e0000-0000-0000-0000-%012d", i);
    return write_string(uuid, length, text);
}

Return nvmlDeviceGetPowerUsage(Device d, unsigned int* mw) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    *mw = 100'000U + 10'000U * static_cast<unsigned int>(i);
    return kSuccess;
}

Return nvmlDeviceGetEnforcedPowerLimit(Device d, unsigned int* mw) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    *mw = 700'000U;
    return kSuccess;
}

Return nvmlDeviceGetUtilizationRates(Device d, Utilization* u) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    u->gpu = 50U + static_cast<unsigned int>(i);
    u->memory = 20U;
    return kSuccess;
}

#ifndef FAKE_NVML_MINIMAL
Return nvmlDeviceGetTotalEnergyConsumption(Device d, unsigned long long* mj) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    if (not_supported()) return kNotSupported;
    *mj = g_gpus[i].energy_mj;
    g_gpus[i].energy_mj += 250;
    return kSuccess;
}

Return nvmlDeviceGetFieldValues(Device d, int count, FieldValue* values) {
    int i = 0;
    if (Return r = enter(d, &i); r != kSuccess) return r;
    if (count < 0 || values == nullptr) return kInvalidArgument;
    for (int k = 0; k < count; ++k) {
        FieldValue& f = values[k];
        if (f.fieldId != kFieldPowerInstant || not_supported()) {
            f.nvmlReturn = kNotSupported;
            continue;
        }
        f.nvmlReturn = kSuccess;
        f.valueType = kUnsignedInt;
        f.value.uiVal = 105'000U + 10'000U * static_cast<unsigned int>(i);
    }
    return kSuccess;
}
#endif

}  // extern "C"
