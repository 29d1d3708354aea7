// NCCL communicators of the calibration run and the timed collectives (CollectiveCase).
// The world communicator is made on first use from rank 0's ncclUniqueId, broadcast
// through the World; rings of fewer ranks are split from it once per size. Every NCCL
// call is non-blocking (ncclConfig_t.blocking = 0) and every wait polls against a
// deadline, so a hung or failed peer is reported (BackendError naming this rank) and the
// communicator aborted, instead of the rank hanging inside NCCL (NCCL docs, "Fault
// Tolerance" and "Communicator Creation and Management: non-blocking communicators").
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <string>

#include "collective_buffers.hpp"
#include "device.hpp"

namespace libscale::harness::cuda {

class Nccl {
public:
    static bool built();               // false: this build has no NCCL
    static std::string version();      // "2.28.3"; "" without NCCL
    Nccl(World& w, double timeout_s);  // nothing is made until ring()
    ~Nccl();
    Nccl(const Nccl&) = delete;
    Nccl& operator=(const Nccl&) = delete;

    // The communicator of ranks 0..ranks−1 (an ncclComm_t), or nullptr on the ranks outside
    // it. Every rank calls it with the same sizes in the same order (it is collective).
    void* ring(int ranks);

    // Enqueues op on `stream` over a full buffer of `bytes` (nccl-tests' "size": all-gather
    // receives and reduce-scatter sends `bytes`, the other side is bytes / ranks; all-reduce
    // is `bytes` both ways; all-to-all sends and receives `bytes`, bytes / ranks to and from
    // each peer, as one group of ncclSend/ncclRecv) of bf16, or fp32 when `fp32`. The
    // buffers are collective_buffers' sizes.
    void enqueue(void* comm, Collective op, double bytes, bool fp32, const void* send, void* recv, cudaStream_t stream);
    // Waits for `stream` while watching the communicator; aborts it and throws on an NCCL
    // error or when `timeout_s` passes.
    void wait(void* comm, cudaStream_t stream, double timeout_s, const std::string& what);

    // The CollectiveCase on its ring: warm-up, then `repeats` timed with events (each
    // rank's own time, as nccl-tests reports per rank). Ranks outside the ring take part in
    // the split and return "not in the ring".
    Timing time(const CollectiveCase& c, int warmup, int repeats, double timeout_s);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace libscale::harness::cuda
