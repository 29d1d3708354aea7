#include "device.hpp"

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace libscale::harness::cuda {

std::string cuda_error_text(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

void throw_cuda(cudaError_t e, const char* call) {
    if (e == cudaErrorMemoryAllocation) {
        // Not sticky: clear it so the next case starts clean (CUDA Runtime API, "Error Handling").
        (void)cudaGetLastError();
        throw OutOfMemory(std::string("out of memory in ") + call);
    }
    throw BackendError("CUDA error " + cuda_error_text(e) + " in " + call);
}

static long long mib(double bytes) { return static_cast<long long>(std::ceil(bytes / 1048576.0)); }

std::string out_of_memory_text(double needed_bytes) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    return "out of memory: needs " + std::to_string(mib(needed_bytes)) + " MiB, " +
           std::to_string(static_cast<long long>(static_cast<double>(free_b) / 1048576.0)) + " MiB free";
}

void require_free(double bytes) {
    std::size_t free_b = 0, total_b = 0;
    LS_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (bytes + 256.0 * 1048576.0 > static_cast<double>(free_b)) throw OutOfMemory(out_of_memory_text(bytes));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&p_, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        p_ = nullptr;
        throw OutOfMemory(out_of_memory_text(static_cast<double>(bytes)));
    }
    if (e != cudaSuccess) throw_cuda(e, "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() {
    if (p_) (void)cudaFree(p_);  // a destructor cannot throw; a faulted context reports elsewhere
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        if (p_) (void)cudaFree(p_);
        p_ = o.p_, bytes_ = o.bytes_;
        o.p_ = nullptr, o.bytes_ = 0;
    }
    return *this;
}

Stream::Stream() { LS_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
    if (s_) (void)cudaStreamDestroy(s_);
}

Event::Event(bool timing) {
    LS_CUDA(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
}
Event::~Event() {
    if (e_) (void)cudaEventDestroy(e_);
}
void Event::record(cudaStream_t s) const { LS_CUDA(cudaEventRecord(e_, s)); }

double elapsed_s(const Event& start, const Event& stop) {
    float ms = 0;
    LS_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return static_cast<double>(ms) * 1e-3;
}

void wait_stream(cudaStream_t s, double timeout_s, const std::string& what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        const cudaError_t e = cudaStreamQuery(s);
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) throw_cuda(e, ("cudaStreamQuery, waiting for " + what).c_str());
        if (std::chrono::steady_clock::now() > deadline)
            throw BackendError(what + " did not complete in " + std::to_string(timeout_s) + " s (the GPU hangs)");
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

std::string agree_skip(World& w, const std::string& mine, double timeout_s, const std::string& what) {
    std::string first;
    const std::vector<std::string> all = w.gather(mine, timeout_s, what);
    for (std::size_t r = 0; r < all.size() && first.empty(); ++r)
        if (!all[r].empty()) first = all[r] + " (rank " + std::to_string(r) + ")";
    return w.broadcast(first, timeout_s, what);
}

int device_attribute(cudaDeviceAttr a) {
    int dev = 0, v = 0;
    LS_CUDA(cudaGetDevice(&dev));
    LS_CUDA(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

std::size_t l2_bytes() { return static_cast<std::size_t>(device_attribute(cudaDevAttrL2CacheSize)); }

}  // namespace libscale::harness::cuda
