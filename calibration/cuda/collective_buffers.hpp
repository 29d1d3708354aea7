// The buffer sizes and NCCL count argument of a timed collective (nccl_collectives.hpp),
// apart from the CUDA code so that a build without the CUDA toolkit compiles and tests them.
#pragma once

#include <algorithm>
#include <cstddef>

#include "libscale/estimate/collective.hpp"

namespace libscale::harness::cuda {

// Buffer sizes of a collective over a full buffer of `bytes`, rounded to whole elements.
struct CollectiveBuffers {
    std::size_t send_bytes = 0, recv_bytes = 0, count = 0;  // count: NCCL's element count argument
};

// all_gather receives and reduce_scatter sends `bytes` (the other side is one shard),
// all_reduce is `bytes` both ways, and `count` is what ncclAllGather / ncclReduceScatter /
// ncclAllReduce take. all_to_all sends and receives `bytes`, a chunk to and from each
// peer, and `count` is the chunk's elements, which each ncclSend / ncclRecv of the group
// takes; the chunk is rounded down to whole 16 bytes, as nccl-tests' alltoall does so that
// every peer's chunk starts aligned (NVIDIA/nccl-tests src/alltoall.cu at commit
// 29f4114f027fed903649a3c81babc5d52e8d41ae, AlltoAllGetCollByteCount: paramcount =
// (count/nranks) & -(16/eltSize)), and is at least those 16 bytes.
inline CollectiveBuffers collective_buffers(Collective op, double bytes, int ranks, std::size_t element_bytes) {
    const auto r = static_cast<std::size_t>(ranks > 0 ? ranks : 1);
    const std::size_t elt = element_bytes > 0 ? element_bytes : 1;
    auto shard = static_cast<std::size_t>(bytes / static_cast<double>(elt) / static_cast<double>(r));
    if (shard == 0) shard = 1;
    CollectiveBuffers b;
    switch (op) {
        case Collective::all_gather: b = {shard * elt, shard * r * elt, shard}; break;
        case Collective::reduce_scatter: b = {shard * r * elt, shard * elt, shard}; break;
        case Collective::all_reduce: b = {shard * r * elt, shard * r * elt, shard * r}; break;
        case Collective::all_to_all: {
            const std::size_t unit = std::max<std::size_t>(16 / elt, 1);  // elements in 16 bytes
            const std::size_t chunk = std::max(shard / unit * unit, unit);
            b = {chunk * r * elt, chunk * r * elt, chunk};
            break;
        }
    }
    return b;
}

}  // namespace libscale::harness::cuda
