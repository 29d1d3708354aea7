#include "attention_cudnn.hpp"

#ifdef LIBSCALE_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace libscale::harness::cuda {

std::string attention_unavailable() {
#ifdef LIBSCALE_HAVE_CUDNN
    return "cuDNN SDPA graph not implemented in this build";
#else
    return "built without cuDNN";
#endif
}

std::string cudnn_version() {
#ifdef LIBSCALE_HAVE_CUDNN
    // cuDNN 9: CUDNN_VERSION = major·10000 + minor·100 + patch (cudnn_version.h).
    const std::size_t v = cudnnGetVersion();
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
#else
    return "";
#endif
}

Timing time_attention(const AttentionCase&, int, int) { return {0, 0, attention_unavailable(), 0}; }

}  // namespace libscale::harness::cuda
