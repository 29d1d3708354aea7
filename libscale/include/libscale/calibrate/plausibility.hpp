// Measurements no GPU can produce. A unit slip (milliseconds read as seconds, a log line cut
// mid-number) makes a record faster than the hardware's peak; fitted, it gives a framework
// efficiency of 2 and an MFU above 100 %, and every projection after it is wrong without a
// word. The fitter refuses such records, naming the record, the rate and the peak.
#pragma once

#include <cstddef>

#include "libscale/calibrate/measurement.hpp"
#include "libscale/spec/hardware.hpp"

namespace libscale {

// A kernel may beat the catalog's peak by this much: boost clocks above the rated one and
// peaks published rounded. More than that is not a faster GPU but a broken record.
inline constexpr double kPeakMargin = 1.10;
// A copy small enough to stay in L2 reads L2, not HBM: bounded by this multiple of the HBM
// rate instead (L2 serves a few times HBM's bandwidth; 10 leaves room on every GPU).
inline constexpr double kCacheCopyMargin = 10.0;
// NCCL's NVLink SHARP (NVLS) all-reduce offloads the reduction to the switch, so the bus
// bandwidth it reports can exceed one link direction; twice the link is still impossible.
inline constexpr double kCollectiveMargin = 2.0;
// Board power may overshoot the enforced limit in short excursions; half again is a broken
// reading (the bands refuse the same bound, power_bands.hpp).
inline constexpr double kPowerMargin = 1.5;

// Throws std::invalid_argument for the first GEMM, attention, bandwidth, collective or power
// record of `hw` that beats its peak by more than the margins above (records of other
// hardware are not checked). The message names the record's kind and index, the measured
// rate and the peak.
void check_plausible(const MeasurementSet& data, const HardwareProfile& hw);

// A step whose memory per GPU exceeds the GPU's memory by more than kPeakMargin (a figure in
// GB read as GiB is 7 % over; a total over all GPUs, or bytes, is far more). Throws
// std::invalid_argument naming the record; check_step_plausible calls it too.
void check_memory_plausible(std::size_t index, const StepRun& s, const HardwareProfile& hw);

// A step whose model FLOPs per second exceed every GPU's peak (bf16, or fp8 when its GEMMs
// are fp8) at the record's step time: MFU above 100 % × kPeakMargin. `predicted_mfu` is the
// model's MFU at `predicted_step_time_s` (StepBreakdown). Throws std::invalid_argument naming
// the record. Also checks the record's memory (check_memory_plausible).
void check_step_plausible(std::size_t index, const StepRun& s, double predicted_mfu, double predicted_step_time_s,
                          const HardwareProfile& hw);

}  // namespace libscale
