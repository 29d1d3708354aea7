#include "nccl_collectives.hpp"

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "stats.hpp"

#ifdef LIBSCALE_HAVE_NCCL
#include <nccl.h>
#endif

namespace libscale::harness::cuda {

#ifdef LIBSCALE_HAVE_NCCL

namespace {
using Clock = std::chrono::steady_clock;
Clock::time_point deadline_in(double s) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}
ncclComm_t as_comm(void* c) { return static_cast<ncclComm_t>(c); }
}  // namespace

struct Nccl::Impl {
    World& w;
    double timeout_s;
    ncclComm_t world = nullptr;
    std::map<int, ncclComm_t> rings;  // ring size < world size → its communicator (nullptr outside)
    bool aborted = false;

    Impl(World& world_, double t) : w(world_), timeout_s(t) {}

    std::string who() const { return "rank " + std::to_string(w.rank()); }

    [[noreturn]] void fail(const std::string& what) {
        abort_all();
        throw BackendError("NCCL on " + who() + ": " + what);
    }

    void abort_all() {
        if (aborted) return;
        aborted = true;
        for (auto& [n, c] : rings)
            if (c) (void)ncclCommAbort(c);
        if (world) (void)ncclCommAbort(world);
        rings.clear();
        world = nullptr;
    }

    void check(ncclResult_t r, ncclComm_t comm, const char* call) {
        if (r == ncclSuccess || r == ncclInProgress) return;
        const char* last = comm ? ncclGetLastError(comm) : ncclGetLastError(nullptr);
        fail(std::string(call) + " failed: " + ncclGetErrorString(r) +
             (last && *last ? std::string(" (") + last + ")" : ""));
    }

    // Polls a non-blocking communicator until its pending operation settles.
    void settle(ncclComm_t comm, const std::string& what, Clock::time_point deadline) {
        for (;;) {
            ncclResult_t state = ncclSuccess;
            check(ncclCommGetAsyncError(comm, &state), comm, "ncclCommGetAsyncError");
            if (state == ncclSuccess) return;
            if (state != ncclInProgress)
                fail(what + ": " + ncclGetErrorString(state) + " (" + ncclGetLastError(comm) + ")");
            if (Clock::now() > deadline) fail(what + " did not complete in " + std::to_string(timeout_s) + " s");
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }

    static ncclConfig_t config() {
        ncclConfig_t c = NCCL_CONFIG_INITIALIZER;
        c.blocking = 0;
        return c;
    }

    ncclComm_t world_comm() {
        if (aborted) throw BackendError("NCCL on " + who() + ": the communicator was aborted after an earlier failure");
        if (world) return world;
        ncclUniqueId id{};
        if (w.rank() == 0) check(ncclGetUniqueId(&id), nullptr, "ncclGetUniqueId");
        const std::string sent =
            w.broadcast(std::string(reinterpret_cast<const char*>(&id), sizeof id), timeout_s, "the NCCL unique id");
        if (sent.size() != sizeof id)
            throw BackendError("NCCL on " + who() + ": the unique id broadcast has the wrong size");
        std::memcpy(&id, sent.data(), sizeof id);
        ncclConfig_t cfg = config();
        const auto deadline = deadline_in(timeout_s);
        const ncclResult_t r = ncclCommInitRankConfig(&world, w.size(), id, w.rank(), &cfg);
        check(r, world, "ncclCommInitRankConfig");
        settle(world, "ncclCommInitRankConfig of " + std::to_string(w.size()) + " ranks", deadline);
        return world;
    }

    ncclComm_t ring(int ranks) {
        ncclComm_t parent = world_comm();
        if (ranks >= w.size()) return parent;
        if (const auto it = rings.find(ranks); it != rings.end()) return it->second;
        ncclConfig_t cfg = config();
        ncclComm_t child = nullptr;
        const int color = w.rank() < ranks ? 0 : NCCL_SPLIT_NOCOLOR;
        const auto deadline = deadline_in(timeout_s);
        check(ncclCommSplit(parent, color, w.rank(), &child, &cfg), parent, "ncclCommSplit");
        settle(parent, "ncclCommSplit into " + std::to_string(ranks) + " ranks", deadline);
        if (child) settle(child, "ncclCommSplit into " + std::to_string(ranks) + " ranks", deadline);
        rings[ranks] = child;
        return child;
    }
};

bool Nccl::built() { return true; }

std::string Nccl::version() {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "";
    // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z from 2.9 on (nccl.h).
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

Nccl::Nccl(World& w, double timeout_s) : impl_(std::make_unique<Impl>(w, timeout_s)) {}

Nccl::~Nccl() {
    if (!impl_ || impl_->aborted) return;
    // Finalize flushes pending work; if it does not settle, abort (no throwing here).
    std::vector<ncclComm_t> all;
    for (auto& [n, c] : impl_->rings)
        if (c) all.push_back(c);
    if (impl_->world) all.push_back(impl_->world);
    for (ncclComm_t c : all) {
        const ncclResult_t f = ncclCommFinalize(c);
        bool ok = f == ncclSuccess || f == ncclInProgress;
        const auto deadline = deadline_in(10);
        for (ncclResult_t s = ncclInProgress; ok && s == ncclInProgress;) {
            if (ncclCommGetAsyncError(c, &s) != ncclSuccess || (s != ncclSuccess && s != ncclInProgress) ||
                Clock::now() > deadline)
                ok = false;
            else if (s == ncclInProgress) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        if (ok) (void)ncclCommDestroy(c);
        else (void)ncclCommAbort(c);
    }
}

void* Nccl::ring(int ranks) { return impl_->ring(ranks); }

void Nccl::enqueue(void* comm, Collective op, double bytes, bool fp32, const void* send, void* recv,
                   cudaStream_t stream) {
    ncclComm_t c = as_comm(comm);
    int n = 0;
    impl_->check(ncclCommCount(c, &n), c, "ncclCommCount");
    const ncclDataType_t type = fp32 ? ncclFloat32 : ncclBfloat16;
    const std::size_t element_bytes = fp32 ? 4 : 2;
    const CollectiveBuffers b = collective_buffers(op, bytes, n, element_bytes);
    ncclResult_t r = ncclSuccess;
    const char* name = "";
    switch (op) {
        case Collective::all_gather:
            r = ncclAllGather(send, recv, b.count, type, c, stream), name = "ncclAllGather";
            break;
        case Collective::reduce_scatter:
            r = ncclReduceScatter(send, recv, b.count, type, ncclSum, c, stream), name = "ncclReduceScatter";
            break;
        case Collective::all_reduce:
            r = ncclAllReduce(send, recv, b.count, type, ncclSum, c, stream), name = "ncclAllReduce";
            break;
        case Collective::all_to_all: {
            // As nccl-tests' alltoall times it (NVIDIA/nccl-tests src/alltoall.cu at commit
            // 29f4114f027fed903649a3c81babc5d52e8d41ae, AlltoAllRunColl): one group of an
            // ncclSend and an ncclRecv of the peer's chunk with every rank, this one
            // included, chunk r at offset r·chunk of each buffer. nccl-tests since commit
            // a5c4462bd15e5e44bbf65e584a0993e6347bdd70 call NCCL 2.28's ncclAlltoAll where NCCL
            // has it and keep this group for older NCCL (still so at a0b82b22); the group
            // runs on every NCCL since 2.7, so records taken with any NCCL compare.
            const std::size_t chunk = b.count * element_bytes;
            const auto* in = static_cast<const char*>(send);
            auto* out = static_cast<char*>(recv);
            const auto ok = [](ncclResult_t x) { return x == ncclSuccess || x == ncclInProgress; };
            impl_->check(ncclGroupStart(), c, "ncclGroupStart");
            ncclResult_t first = ncclSuccess;
            const char* failed = "";
            for (int peer = 0; peer < n && ok(first); ++peer) {
                const std::size_t at = static_cast<std::size_t>(peer) * chunk;
                if (const ncclResult_t s = ncclSend(in + at, b.count, type, peer, c, stream); !ok(s))
                    first = s, failed = "ncclSend";
                else if (const ncclResult_t t = ncclRecv(out + at, b.count, type, peer, c, stream); !ok(t))
                    first = t, failed = "ncclRecv";
            }
            // The group is closed even after a failed call, so that none is left open when
            // check() aborts the communicator.
            r = ncclGroupEnd(), name = "ncclGroupEnd (all_to_all: ncclSend/ncclRecv with every peer)";
            if (!ok(first)) impl_->check(first, c, failed);
            break;
        }
    }
    impl_->check(r, c, name);
    // A non-blocking communicator may return ncclInProgress while it enqueues; the next
    // NCCL call must wait until it settles (NCCL docs, "Non-blocking communicators").
    if (r == ncclInProgress) impl_->settle(c, name, deadline_in(impl_->timeout_s));
}

void Nccl::wait(void* comm, cudaStream_t stream, double timeout_s, const std::string& what) {
    ncclComm_t c = as_comm(comm);
    const auto deadline = deadline_in(timeout_s);
    for (;;) {
        const cudaError_t e = cudaStreamQuery(stream);
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) {
            impl_->abort_all();
            throw_cuda(e, ("cudaStreamQuery, waiting for " + what).c_str());
        }
        ncclResult_t state = ncclSuccess;
        impl_->check(ncclCommGetAsyncError(c, &state), c, "ncclCommGetAsyncError");
        if (state != ncclSuccess && state != ncclInProgress)
            impl_->fail(what + ": " + ncclGetErrorString(state) + " (" + ncclGetLastError(c) + ")");
        if (Clock::now() > deadline)
            impl_->fail(what + " did not complete in " + std::to_string(timeout_s) + " s (a peer hangs or died)");
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
}

Timing Nccl::time(const CollectiveCase& c, int warmup, int repeats, double timeout_s) {
    void* comm = ring(c.ranks);
    const CollectiveBuffers b = collective_buffers(c.op, c.bytes, c.ranks, 2);
    DeviceBuffer send, recv;
    std::string skip;
    if (comm) {
        try {
            require_free(static_cast<double>(b.send_bytes + b.recv_bytes));
            send = DeviceBuffer(b.send_bytes), recv = DeviceBuffer(b.recv_bytes);
        } catch (const OutOfMemory& e) {
            skip = e.what();
        }
    }
    skip = agree_skip(impl_->w, skip, timeout_s, "collectives");
    if (!comm) return {0, 0, "not in the ring", 0};
    if (!skip.empty()) return {0, 0, skip, 0};
    Stream stream;
    // Zeros: the sums stay finite however many repeats reduce into them.
    LS_CUDA(cudaMemsetAsync(send.get(), 0, b.send_bytes, stream.get()));
    LS_CUDA(cudaMemsetAsync(recv.get(), 0, b.recv_bytes, stream.get()));
    const std::string what = std::string(to_string(c.op)) + " of " + std::to_string(c.bytes) + " B over " +
                             std::to_string(c.ranks) + " ranks";
    for (int r = 0; r < warmup; ++r) enqueue(comm, c.op, c.bytes, false, send.get(), recv.get(), stream.get());
    wait(comm, stream.get(), timeout_s, what + " (warm-up)");
    std::vector<Event> start, stop;
    for (int r = 0; r < repeats; ++r) {
        start.emplace_back(), stop.emplace_back();
        start.back().record(stream.get());
        enqueue(comm, c.op, c.bytes, false, send.get(), recv.get(), stream.get());
        stop.back().record(stream.get());
    }
    wait(comm, stream.get(), timeout_s, what);
    std::vector<double> secs;
    for (std::size_t r = 0; r < start.size(); ++r) secs.push_back(elapsed_s(start[r], stop[r]));
    return summarize(secs);
}

#else  // no NCCL in this build

struct Nccl::Impl {};
bool Nccl::built() { return false; }
std::string Nccl::version() { return ""; }
Nccl::Nccl(World&, double) {}
Nccl::~Nccl() = default;
void* Nccl::ring(int) { throw BackendError("this build has no NCCL"); }
void Nccl::enqueue(void*, Collective, double, bool, const void*, void*, cudaStream_t) {
    throw BackendError("this build has no NCCL");
}
void Nccl::wait(void*, cudaStream_t, double, const std::string&) { throw BackendError("this build has no NCCL"); }
Timing Nccl::time(const CollectiveCase&, int, int, double) {
    return {0, 0, "this libscale-calibrate was built without NCCL (CMake found no nccl.h / libnccl)", 0};
}

#endif

}  // namespace libscale::harness::cuda
