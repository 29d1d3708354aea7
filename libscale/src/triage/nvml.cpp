// NvmlSource: NVML loaded with dlopen, resolved with dlsym (nvml.hpp).
#include "libscale/triage/nvml.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

#include "libscale/io/error.hpp"

namespace libscale {

using namespace nvml_abi;

namespace {

constexpr const char* kDefaultLibrary = "libnvidia-ml.so.1";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string library_path_from_env() {
    const char* env = std::getenv("LIBSCALE_NVML_LIBRARY");
    return (env != nullptr && *env != '\0') ? env : kDefaultLibrary;
}

std::string dl_error() {
    const char* e = dlerror();
    return e != nullptr ? e : "no reason given";
}

// NVML fills fixed buffers; a missing terminator must not run past the buffer.
std::string from_buffer(const char* buf, std::size_t size) { return {buf, strnlen(buf, size)}; }

double field_as_double(const FieldValue& f) {
    switch (f.valueType) {
        case kDouble: return f.value.dVal;
        case kUnsignedInt: return f.value.uiVal;
        case kUnsignedLong: return static_cast<double>(f.value.ulVal);
        case kUnsignedLongLong: return static_cast<double>(f.value.ullVal);
        case kSignedLongLong: return static_cast<double>(f.value.sllVal);
        case kSignedInt: return f.value.siVal;
        default: return kNaN;  // a type newer than these declarations: not guessed at
    }
}

double seconds_since_epoch() {
    // system_clock is CLOCK_REALTIME on Linux: the clock nvidia-smi and DCGM stamp with.
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

struct NvmlSource::Impl {
    std::string path;
    void* handle = nullptr;
    bool initialised = false;
    ShutdownFn shutdown = nullptr;
    ErrorStringFn error_string = nullptr;
    DeviceGetUintFn power_usage = nullptr;
    DeviceGetUintFn power_limit = nullptr;
    DeviceGetUtilizationFn utilization = nullptr;
    DeviceGetEnergyFn energy = nullptr;             // optional: pre-Volta drivers
    DeviceGetFieldValuesFn field_values = nullptr;  // optional: older drivers
    std::vector<NvmlGpuInfo> gpus;
    std::vector<Device> devices;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (initialised && shutdown != nullptr) shutdown();
        if (handle != nullptr) dlclose(handle);
    }

    template <class Fn>
    Fn symbol(const char* name, bool required) {
        dlerror();
        void* p = dlsym(handle, name);
        if (p == nullptr && required)
            throw NvmlError("NVML: '" + path + "' has no symbol " + name + " (" + dl_error() +
                            "): it is not NVML, or an NVML older than the API this needs "
                            "(the _v2 entry points, NVML 5.319 or newer)");
        return reinterpret_cast<Fn>(p);
    }

    std::string describe(Return r) const {
        const char* s = error_string != nullptr ? error_string(r) : nullptr;
        return s != nullptr ? s : "NVML error " + std::to_string(r);
    }

    // True on success. NOT_SUPPORTED leaves the value NaN without an error: the GPU simply
    // lacks that reading. Anything else is the sample's error (the first one is kept).
    bool check(NvmlSample& x, Return r) const {
        if (r == kSuccess) return true;
        if (r != kNotSupported && x.error == 0) {
            x.error = r;
            x.error_text = describe(r);
        }
        return false;
    }

    NvmlSample read(std::size_t k) const;
};

NvmlSample NvmlSource::Impl::read(std::size_t k) const {
    NvmlSample x;
    x.index = gpus[k].index;
    x.time_s = seconds_since_epoch();
    x.power_w = x.power_instant_w = x.utilization_pct = x.energy_j = x.power_limit_w = kNaN;
    const Device d = devices[k];
    // A GPU off the bus fails every call, each possibly slowly: stop at the first sign.
    auto lost = [&x] { return x.error == kGpuIsLost; };

    unsigned int mw = 0;
    if (check(x, power_usage(d, &mw))) x.power_w = mw / 1000.0;
    if (lost()) return x;
    if (field_values != nullptr) {
        FieldValue f{};
        f.fieldId = kFieldPowerInstant;
        f.scopeId = 0;  // the GPU alone, as power_w
        if (check(x, field_values(d, 1, &f)) && check(x, f.nvmlReturn)) x.power_instant_w = field_as_double(f) / 1000.0;
        if (lost()) return x;
    }
    Utilization u{};
    if (check(x, utilization(d, &u))) x.utilization_pct = u.gpu;
    if (lost()) return x;
    if (energy != nullptr) {
        unsigned long long mj = 0;
        if (check(x, energy(d, &mj))) x.energy_j = static_cast<double>(mj) / 1000.0;
        if (lost()) return x;
    }
    if (check(x, power_limit(d, &mw))) x.power_limit_w = mw / 1000.0;
    return x;
}

NvmlSource::NvmlSource(std::vector<int> indices) : impl_(std::make_unique<Impl>()) {
    Impl& s = *impl_;  // on any throw below, ~Impl shuts NVML down and closes the library
    s.path = library_path_from_env();
    s.handle = dlopen(s.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (s.handle == nullptr)
        throw NvmlError("NVML: cannot load '" + s.path + "' (" + dl_error() +
                        "). NVML comes with the NVIDIA driver: run on a machine with an NVIDIA "
                        "GPU and its driver installed, or set LIBSCALE_NVML_LIBRARY to the full "
                        "path of libnvidia-ml.so.1 if it lies outside the loader's search path");
    const auto init = s.symbol<InitFn>("nvmlInit_v2", true);
    s.shutdown = s.symbol<ShutdownFn>("nvmlShutdown", true);
    s.error_string = s.symbol<ErrorStringFn>("nvmlErrorString", true);
    const auto get_count = s.symbol<DeviceGetCountFn>("nvmlDeviceGetCount_v2", true);
    const auto get_handle = s.symbol<DeviceGetHandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2", true);
    const auto get_name = s.symbol<DeviceGetStringFn>("nvmlDeviceGetName", true);
    const auto get_uuid = s.symbol<DeviceGetStringFn>("nvmlDeviceGetUUID", true);
    s.power_usage = s.symbol<DeviceGetUintFn>("nvmlDeviceGetPowerUsage", true);
    s.power_limit = s.symbol<DeviceGetUintFn>("nvmlDeviceGetEnforcedPowerLimit", true);
    s.utilization = s.symbol<DeviceGetUtilizationFn>("nvmlDeviceGetUtilizationRates", true);
    s.energy = s.symbol<DeviceGetEnergyFn>("nvmlDeviceGetTotalEnergyConsumption", false);
    s.field_values = s.symbol<DeviceGetFieldValuesFn>("nvmlDeviceGetFieldValues", false);

    Return r = init();
    if (r != kSuccess)
        throw NvmlError("NVML: nvmlInit_v2 from '" + s.path + "' failed: " + s.describe(r) + " (NVML return " +
                            std::to_string(r) +
                            "); NVML needs the NVIDIA kernel driver loaded and access to /dev/nvidia*",
                        r);
    s.initialised = true;

    unsigned int count = 0;
    r = get_count(&count);
    if (r != kSuccess) throw NvmlError("NVML: nvmlDeviceGetCount_v2 failed: " + s.describe(r), r);
    if (count == 0) throw NvmlError("NVML: no GPUs found (library '" + s.path + "')");
    if (indices.empty())
        for (unsigned int i = 0; i < count; ++i) indices.push_back(static_cast<int>(i));
    std::unordered_set<int> seen;
    for (int i : indices) {
        if (i < 0 || static_cast<unsigned int>(i) >= count)
            throw std::invalid_argument("NVML GPU index " + std::to_string(i) + " is out of range: NVML sees " +
                                        std::to_string(count) + " GPUs (valid indices 0 to " +
                                        std::to_string(count - 1) + ")");
        if (!seen.insert(i).second)
            throw std::invalid_argument("NVML GPU index " + std::to_string(i) + " is listed twice");
    }

    for (int i : indices) {
        Device d = nullptr;
        r = get_handle(static_cast<unsigned int>(i), &d);
        if (r != kSuccess) throw NvmlError("NVML: cannot open GPU " + std::to_string(i) + ": " + s.describe(r), r);
        NvmlGpuInfo g;
        g.index = i;
        // Name and UUID only label the GPU; a failure to read them leaves them empty.
        char buf[kNameBufferSize > kUuidBufferSize ? kNameBufferSize : kUuidBufferSize] = {};
        if (get_name(d, buf, kNameBufferSize) == kSuccess) g.name = from_buffer(buf, kNameBufferSize);
        buf[0] = '\0';
        if (get_uuid(d, buf, kUuidBufferSize) == kSuccess) g.uuid = from_buffer(buf, kUuidBufferSize);
        unsigned int mw = 0;
        g.power_limit_w = s.power_limit(d, &mw) == kSuccess ? mw / 1000.0 : kNaN;
        s.gpus.push_back(std::move(g));
        s.devices.push_back(d);
    }
}

NvmlSource::~NvmlSource() = default;
NvmlSource::NvmlSource(NvmlSource&&) noexcept = default;
NvmlSource& NvmlSource::operator=(NvmlSource&&) noexcept = default;

const std::vector<NvmlGpuInfo>& NvmlSource::gpus() const {
    static const std::vector<NvmlGpuInfo> none;  // a moved-from source watches nothing
    return impl_ ? impl_->gpus : none;
}

std::vector<NvmlSample> NvmlSource::poll() {
    std::vector<NvmlSample> out;
    if (!impl_) return out;
    out.reserve(impl_->devices.size());
    for (std::size_t k = 0; k < impl_->devices.size(); ++k) out.push_back(impl_->read(k));
    return out;
}

const std::string& NvmlSource::library_path() const {
    static const std::string none;
    return impl_ ? impl_->path : none;
}

}  // namespace libscale
