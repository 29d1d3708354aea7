// CUDA error handling and RAII for the backend's host code. Every CUDA call goes through
// LS_CUDA: a fault (illegal address, ECC error, a GPU fallen off the bus) throws
// BackendError naming the CUDA error, which ends the phase on this rank (backend.hpp); an
// allocation that does not fit throws OutOfMemory, which the case turns into a skip, as
// the simulated backend's "out of memory: needs X MiB, Y MiB free" (simulated.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "harness/backend.hpp"

namespace libscale::harness::cuda {

class OutOfMemory : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "cudaErrorIllegalAddress (an illegal memory access was encountered) in <call>"
std::string cuda_error_text(cudaError_t e);
[[noreturn]] void throw_cuda(cudaError_t e, const char* call);

#define LS_CUDA(call)                                                                  \
    do {                                                                               \
        const cudaError_t ls_e_ = (call);                                              \
        if (ls_e_ != cudaSuccess) ::libscale::harness::cuda::throw_cuda(ls_e_, #call); \
    } while (0)

// Throws OutOfMemory when `bytes` (the whole case) exceed what the GPU has free, before
// anything is allocated: cudaMalloc would fail anyway, and a case that fails halfway leaves
// less for the next one. Keeps 256 MiB for the libraries' own allocations.
void require_free(double bytes);
std::string out_of_memory_text(double needed_bytes);

// Device memory, freed on scope exit.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes);
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr, o.bytes_ = 0; }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void* get() const { return p_; }
    template <class T>
    T* as() const {
        return static_cast<T*>(p_);
    }
    std::size_t bytes() const { return bytes_; }

private:
    void* p_ = nullptr;
    std::size_t bytes_ = 0;
};

class Stream {
public:
    Stream();  // non-blocking: never serialized with the legacy default stream
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

// A bf16 value read back from the device: its 16 bits are the top half of an fp32.
inline float bf16_to_float(std::uint16_t v) {
    const std::uint32_t bits = static_cast<std::uint32_t>(v) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

class Event {
public:
    explicit Event(bool timing = true);
    ~Event();
    Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) const;

private:
    cudaEvent_t e_ = nullptr;
};

// Milliseconds → seconds between two recorded, completed events.
double elapsed_s(const Event& start, const Event& stop);

// Waits for a stream without blocking in the driver, so a hang is reported after
// `timeout_s` (BackendError naming `what`) rather than stalling the rank until the
// runner's watchdog kills it.
void wait_stream(cudaStream_t s, double timeout_s, const std::string& what);

// Every rank passes its reason to skip a collective case ("" to go on) and gets the first
// non-empty one, "rank r: …": a rank that skips alone (out of memory) would leave its
// peers waiting inside NCCL until the deadline.
std::string agree_skip(World& w, const std::string& mine, double timeout_s, const std::string& what);

int device_attribute(cudaDeviceAttr a);
std::size_t l2_bytes();

}  // namespace libscale::harness::cuda
