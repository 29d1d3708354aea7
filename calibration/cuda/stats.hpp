// Median and spread of a case's repeats, as Timing reports them (backend.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "harness/backend.hpp"

namespace libscale::harness::cuda {

// seconds = median; spread = (P90 − P10) / median, percentiles by linear interpolation
// between order statistics (numpy's default "linear" method). Empty input: a zero Timing.
Timing summarize(std::vector<double> seconds);

// Times a case on `stream`: `run(i)` enqueues call i; calls 0..warmup−1 warm up, then each
// of `repeats` calls is bracketed by CUDA events. The index keeps counting through the
// repeats, so a case that rotates its inputs over copies (i % copies) reads in every
// repeat a copy last touched `copies` calls ago, not one a warm-up call left in L2.
// Waits for the stream (up to 600 s, naming `what`) and summarizes the repeats.
Timing time_calls(cudaStream_t stream, int warmup, int repeats, const std::function<void(int)>& run,
                  const std::string& what);

}  // namespace libscale::harness::cuda
