#include "libscale/estimate/sweep.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "estimate/scenario_detail.hpp"

namespace libscale {

namespace {

// An invalid element: NaN for numbers, 0 for integers and booleans.
void write(const SweepColumn& col, std::size_t i, double value, bool invalid) noexcept {
    switch (col.field->type) {
        case FieldType::number: static_cast<double*>(col.data)[i] = value; break;
        case FieldType::integer:
            static_cast<std::int64_t*>(col.data)[i] = invalid ? 0 : static_cast<std::int64_t>(value);
            break;
        case FieldType::boolean: static_cast<std::uint8_t*>(col.data)[i] = !invalid && value != 0 ? 1 : 0; break;
    }
}

SweepOutputs& add_column(SweepOutputs& out, std::string_view name, void* data, FieldType type) {
    const StepField& f = find_step_field(name);
    if (f.type != type)
        throw std::invalid_argument("sweep output '" + std::string(name) + "' is " + to_string(f.type) + ", not " +
                                    to_string(type));
    out.columns.push_back({&f, data});
    return out;
}

// What a micro-batch's compute depends on in a sweep: the whole values, no bits dropped.
struct MicroBatchKey {
    std::int64_t micro_batch = 0, seq_len = 0;
    bool one_gpu = false;
    bool operator==(const MicroBatchKey&) const = default;
    struct Hash {
        std::size_t operator()(const MicroBatchKey& k) const noexcept {
            // splitmix64's finalizer over the fields mixed together
            std::uint64_t x = static_cast<std::uint64_t>(k.micro_batch) * 0x9e3779b97f4a7c15ULL ^
                              static_cast<std::uint64_t>(k.seq_len) ^ (k.one_gpu ? 0x5851f42d4c957f2dULL : 0);
            x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
            x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
            return static_cast<std::size_t>(x ^ (x >> 31));
        }
    };
};

}  // namespace

SweepOutputs SweepOutputs::from(std::size_t begin) const {
    SweepOutputs out;
    for (const SweepColumn& col : columns) {
        const std::size_t size = col.field->type == FieldType::number    ? sizeof(double)
                                 : col.field->type == FieldType::integer ? sizeof(std::int64_t)
                                                                         : sizeof(std::uint8_t);
        out.columns.push_back({col.field, static_cast<char*>(col.data) + begin * size});
    }
    out.issue = issue ? issue + begin : nullptr;
    return out;
}

SweepOutputs& SweepOutputs::add(std::string_view name, double* data) {
    return add_column(*this, name, data, FieldType::number);
}
SweepOutputs& SweepOutputs::add(std::string_view name, std::int64_t* data) {
    return add_column(*this, name, data, FieldType::integer);
}
SweepOutputs& SweepOutputs::add(std::string_view name, std::uint8_t* data) {
    return add_column(*this, name, data, FieldType::boolean);
}

void sweep(const Scenario& s, const SweepInputs& in, const SweepOutputs& out, Progress* progress) {
    detail::validate_inputs(s);
    const ModelSpec& m = s.model;
    const HardwareProfile& hw = s.hardware;
    const Calibration& cal = s.coefficients();
    const TrainingConfig& base = s.config;
    validate_calibration_for(hw, cal, base);
    const ParameterCounts p = count_parameters(m);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    TrainingConfig c = base;
    // Compute depends only on the micro-batch (micro_batch × seq_len tokens, split over the
    // context-parallel ranks, and the span) and on whether one GPU holds the whole shard group
    // (FSDP2 then casts and copies instead of gathering: plan_operations): a plan for each
    // case, and each micro-batch timed once.
    std::optional<OperationPlan> plans[2];
    std::unordered_map<MicroBatchKey, ComputeTimes, MicroBatchKey::Hash> timed;
    progress_start(progress, in.n);
    ProgressLoop loop(progress, in.n, in.n);
    for (std::size_t i = 0; i < in.n; ++i, loop.step()) {
        if (in.gpus) c.gpus = in.gpus[i];
        if (in.gpus_per_node) c.gpus_per_node = in.gpus_per_node[i];
        if (in.micro_batch) c.micro_batch = in.micro_batch[i];
        if (in.seq_len) c.seq_len = in.seq_len[i];
        if (in.global_batch_tokens) c.global_batch_tokens = in.global_batch_tokens[i];
        const ConfigIssue issue = check_config(m, hw, c);
        if (out.issue) out.issue[i] = static_cast<std::uint8_t>(issue);
        if (issue != ConfigIssue::none) {
            for (const SweepColumn& col : out.columns) write(col, i, nan, true);
            continue;
        }
        const bool one_gpu = c.gpus == std::max<std::int64_t>(c.tensor_parallel, 1);
        const MicroBatchKey key{c.micro_batch, c.seq_len, one_gpu};
        auto it = timed.find(key);
        if (it == timed.end()) {
            std::optional<OperationPlan>& plan = plans[one_gpu ? 1 : 0];
            if (!plan) plan = plan_operations(m, p, c);
            it = timed.emplace(key, compute_times(*plan, hw, cal, rank_tokens(c), attention_span(c))).first;
        }
        const StepBreakdown step = estimate_step_unchecked(m, p, hw, cal, c, it->second);
        for (const SweepColumn& col : out.columns) write(col, i, col.field->get(step), false);
    }
    loop.finish();
}

}  // namespace libscale
