// Validation against published step timings: for each series (one table of one
// codebase on one GPU), calibrate on its first row with `fit` (the first row of the
// published table: a rule fixed before looking at the errors), predict every other row,
// and sort the errors by what differs from the calibration row:
//   (a) only the GPU count (and the global batch with it),
//   (b) the model,
//   (c) the same model with another sequence length, micro-batch, checkpointing,
//       precision, attention kernel, compilation or optimizer,
//   (d) the same model trained by another fine-tuning method (full, LoRA, QLoRA, DoRA)
//       or with other adapters (docs/model.md section 8).
// Also the uncalibrated default's ratio for every row, and whether each published run
// is estimated to fit in memory (a run that ran must not be refused). docs/model.md
// "Validation" gives the protocol; README.md shows the table.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "libscale/calibrate/fit.hpp"
#include "libscale/calibrate/measurement.hpp"
#include "libscale/estimate/memory_model.hpp"

namespace libscale {

struct ValidationRow {
    std::string file;  // the measurement file's name
    std::string series;
    std::size_t record = 0;  // index among the file's step records
    std::string model, hardware;
    TrainingConfig config;
    char category = 'x';  // 'x': the calibration row; 'a' to 'e' as above
    double measured_tokens_per_s_per_gpu = 0;
    double default_ratio = 0;  // default calibration's tokens/s over the measured
    // The measured tokens/s lies within the default's P10–P90 (its spread, sampled as any
    // projection's interval is: projection_quantiles).
    bool default_inside_p10_p90 = false;
    double calibrated_error = 0;  // calibrated tokens/s over the measured, minus 1
    FitStatus fit_status = FitStatus::fits;
    double memory_gib = 0;  // estimated per GPU (total_gib)
    double available_gib = 0;
    double published_memory_gib = 0;  // when the source gives one (0: none)
    std::string published_memory_kind;
    // Like with like: the estimate of what the published figure counts (memory_of_kind),
    // and its error relative to the figure; NaN without a published figure.
    double memory_estimate_gib = std::numeric_limits<double>::quiet_NaN();
    double memory_error = std::numeric_limits<double>::quiet_NaN();
};

struct ValidationSeries {
    std::string file, series, hardware;
    std::size_t rows = 0;
    Calibration calibration;  // fitted to the first row
};

struct ErrorSummary {
    std::size_t count = 0;
    // Of calibrated_error; NaN (undefined) when no row falls in the category, so that an
    // empty category is never read as a perfect one.
    double median_abs = std::numeric_limits<double>::quiet_NaN();
    double max_abs = std::numeric_limits<double>::quiet_NaN();
};

struct ValidationReport {
    std::vector<ValidationRow> rows;
    std::vector<ValidationSeries> series;
    std::vector<std::string> excluded;                                          // "file record N: reason"
    ErrorSummary gpu_counts, model_sizes, configurations, fine_tuning_methods;  // (a), (b), (c), (d)
    ErrorSummary parallel_layouts;  // (e) tensor, sequence or context parallel degrees
    std::size_t default_count = 0;
    double default_ratio_median = 0, default_ratio_min = 0, default_ratio_max = 0;
    std::size_t default_inside_p10_p90 = 0;  // rows whose measured value is inside it (80 % if honest)
    std::size_t not_fitting = 0;             // published runs estimated not to fit (should be 0)
    // Peak memory per GPU against every published figure (calibration rows too: memory is
    // not fitted), each compared with the estimate of its own kind; and by kind: figures of
    // torch.cuda.max_memory_allocated (or active) and of max_memory_reserved.
    ErrorSummary memory, memory_allocated, memory_reserved;
};

struct NamedMeasurements {
    std::string name;  // file name, for the report
    MeasurementSet set;
};

ValidationReport validate(const std::vector<NamedMeasurements>& files, const FitOptions& options = {});

}  // namespace libscale
