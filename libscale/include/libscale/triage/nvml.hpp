// Live GPU power readings from NVML, the library the NVIDIA driver ships
// (libnvidia-ml.so.1). It is loaded with dlopen when an NvmlSource is made, never linked:
// libscale builds and runs on machines without the driver, and only a watcher pays for it.
// LIBSCALE_NVML_LIBRARY overrides the library path (non-standard installs, tests).
//
// Errors: NvmlError (error.hpp) when the library cannot be loaded, lacks a required
// symbol, or nvmlInit_v2 / a device handle fails; std::invalid_argument for a GPU index
// that is negative, repeated or not below the GPU count. Once made, poll() never throws
// for one GPU's failure (a GPU fallen off the bus): that GPU's sample carries the NVML
// return code and NaN readings, and the other GPUs keep reporting.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace libscale {

struct NvmlGpuInfo {
    int index = 0;             // NVML index (nvidia-smi's, not necessarily CUDA's)
    std::string name;          // "" when NVML could not say
    std::string uuid;          // "GPU-…"; "" when NVML could not say
    double power_limit_w = 0;  // enforced limit when the source was made; NaN if unsupported
};

// One GPU at one poll. NaN: not supported by this GPU/driver, or the read failed.
struct NvmlSample {
    int index = 0;
    double time_s = 0;           // CLOCK_REALTIME (Unix epoch) seconds, read just before the GPU
    double power_w = 0;          // nvmlDeviceGetPowerUsage: a 1 s average on Ampere and newer
                                 // (except GA100), instantaneous on older GPUs
    double power_instant_w = 0;  // field NVML_FI_DEV_POWER_INSTANT
    double utilization_pct = 0;  // nvmlDeviceGetUtilizationRates().gpu
    double energy_j = 0;         // total energy counter since the driver loaded
    double power_limit_w = 0;    // enforced limit, re-read each poll (it can change mid-run)
    int error = 0;               // 0, or the NVML return code of the first failing read
    std::string error_text;      // nvmlErrorString(error); "" when error == 0
};

class NvmlSource {
public:
    // Loads NVML, initialises it and resolves the GPUs in `indices` (empty: every GPU),
    // in the order given.
    explicit NvmlSource(std::vector<int> indices = {});
    ~NvmlSource();  // nvmlShutdown, then dlclose
    NvmlSource(NvmlSource&&) noexcept;
    NvmlSource& operator=(NvmlSource&&) noexcept;
    NvmlSource(const NvmlSource&) = delete;
    NvmlSource& operator=(const NvmlSource&) = delete;

    const std::vector<NvmlGpuInfo>& gpus() const;
    // One sample per selected GPU, in gpus() order.
    std::vector<NvmlSample> poll();
    // The path given to dlopen: LIBSCALE_NVML_LIBRARY, or "libnvidia-ml.so.1".
    const std::string& library_path() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The NVML C ABI subset used above, declared here because nvml.h is not installed on
// build machines (it comes with the CUDA toolkit's NVML package, not the driver). The
// loader and the tests' stand-in library both compile against these declarations.
// Source of every declaration: NVIDIA's nvml.h (NVML API 12, 2023) as stored in
// XuehaiPan/nvml-dev, path nvml.h; the names and values are NVIDIA's.
namespace nvml_abi {

// enum nvmlReturn_enum (C enums are int-sized on the Linux ABIs) [nvml.h "Return values
// for NVML API calls"].
using Return = int;
inline constexpr Return kSuccess = 0;            // NVML_SUCCESS
inline constexpr Return kUninitialized = 1;      // NVML_ERROR_UNINITIALIZED
inline constexpr Return kInvalidArgument = 2;    // NVML_ERROR_INVALID_ARGUMENT
inline constexpr Return kNotSupported = 3;       // NVML_ERROR_NOT_SUPPORTED
inline constexpr Return kNoPermission = 4;       // NVML_ERROR_NO_PERMISSION
inline constexpr Return kInsufficientSize = 7;   // NVML_ERROR_INSUFFICIENT_SIZE
inline constexpr Return kDriverNotLoaded = 9;    // NVML_ERROR_DRIVER_NOT_LOADED
inline constexpr Return kFunctionNotFound = 13;  // NVML_ERROR_FUNCTION_NOT_FOUND
inline constexpr Return kGpuIsLost = 15;         // NVML_ERROR_GPU_IS_LOST
inline constexpr Return kUnknown = 999;          // NVML_ERROR_UNKNOWN

// typedef struct nvmlDevice_st* nvmlDevice_t;
struct nvmlDevice_st;
using Device = nvmlDevice_st*;

// typedef struct nvmlUtilization_st { unsigned int gpu; unsigned int memory; }
struct Utilization {
    unsigned int gpu;     // % of the last sample period with a kernel running
    unsigned int memory;  // % of the period with device memory being read or written
};

// typedef enum nvmlValueType_enum: DOUBLE 0, UNSIGNED_INT 1, UNSIGNED_LONG 2,
// UNSIGNED_LONG_LONG 3, SIGNED_LONG_LONG 4, SIGNED_INT 5.
enum ValueType : int {
    kDouble = 0,
    kUnsignedInt = 1,
    kUnsignedLong = 2,
    kUnsignedLongLong = 3,
    kSignedLongLong = 4,
    kSignedInt = 5,
};

// typedef union nvmlValue_st
union Value {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
};

// typedef struct nvmlFieldValue_st
struct FieldValue {
    unsigned int fieldId;
    unsigned int scopeId;  // for the power fields: 0 = GPU only, 1 = module (Grace + GPU)
    long long timestamp;   // CPU time of the value, µs since 1970
    long long latencyUsec;
    int valueType;      // nvmlValueType_t
    Return nvmlReturn;  // per-field status: check before reading value
    Value value;
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t is 40 bytes on LP64");

// #define NVML_FI_DEV_POWER_AVERAGE 185 / NVML_FI_DEV_POWER_INSTANT 186 (milliwatts)
inline constexpr unsigned int kFieldPowerAverage = 185;
inline constexpr unsigned int kFieldPowerInstant = 186;

// NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned int kNameBufferSize = 96;
inline constexpr unsigned int kUuidBufferSize = 96;

// Function signatures, as dlsym'd (nvml.h "nvmlReturn_t DECLDIR ..." declarations).
using InitFn = Return (*)();                                          // nvmlInit_v2(void)
using ShutdownFn = Return (*)();                                      // nvmlShutdown(void)
using ErrorStringFn = const char* (*)(Return);                        // nvmlErrorString
using DeviceGetCountFn = Return (*)(unsigned int*);                   // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);   // ..._v2
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);    // GetName, GetUUID
using DeviceGetUintFn = Return (*)(Device, unsigned int*);            // GetPowerUsage (mW),
                                                                      // GetEnforcedPowerLimit (mW)
using DeviceGetUtilizationFn = Return (*)(Device, Utilization*);      // GetUtilizationRates
using DeviceGetEnergyFn = Return (*)(Device, unsigned long long*);    // GetTotalEnergyConsumption (mJ)
using DeviceGetFieldValuesFn = Return (*)(Device, int, FieldValue*);  // GetFieldValues

}  // namespace nvml_abi

}  // namespace libscale
