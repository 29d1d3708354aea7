// The output tables (step_fields.hpp): one entry per output of a step and of a projection row.
#include "libscale/estimate/step_fields.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace libscale {

namespace {

using S = const StepBreakdown&;
constexpr auto I = FieldType::integer;
constexpr auto N = FieldType::number;
constexpr auto B = FieldType::boolean;

constexpr std::array kFields{
    StepField{"gpus", I, "GPUs", "GPUs", "integer", "GPUs in the job", in_projection,
              [](S s) noexcept { return static_cast<double>(s.gpus); }},
    StepField{"gpus_per_node", I, "GPUs", "GPUs per node", "integer", "GPUs per node", 0,
              [](S s) noexcept { return static_cast<double>(s.gpus_per_node); }},
    StepField{"nodes", I, "", "nodes", "integer", "nodes the GPUs span (the last may be partial)", in_projection,
              [](S s) noexcept { return static_cast<double>(s.nodes); }},
    StepField{"data_parallel", I, "", "data-parallel ranks", "integer",
              "ranks holding distinct micro-batches: gpus / (tensor_parallel × context_parallel)", 0,
              [](S s) noexcept { return static_cast<double>(s.data_parallel); }},
    StepField{"tensor_parallel", I, "GPUs", "tensor parallel", "integer", "tensor-parallel GPUs of each rank", 0,
              [](S s) noexcept { return static_cast<double>(s.tensor_parallel); }},
    StepField{"context_parallel", I, "GPUs", "context parallel", "integer", "context-parallel GPUs of each rank", 0,
              [](S s) noexcept { return static_cast<double>(s.context_parallel); }},
    StepField{"expert_parallel", I, "GPUs", "expert parallel", "integer",
              "ranks a mixture of experts' experts split over (inside the data-parallel ranks)", 0,
              [](S s) noexcept { return static_cast<double>(s.expert_parallel); }},
    StepField{"grad_accum", I, "", "grad accum", "integer", "micro-batches per step (0 in a sweep: not valid)",
              in_sweep | in_projection, [](S s) noexcept { return static_cast<double>(s.grad_accum); }},
    StepField{"tokens_per_micro_batch", N, "tokens", "tokens per micro-batch per GPU", "fixed:0",
              "tokens of one micro-batch of a data-parallel rank (one GPU without tensor or context parallel)", 0,
              [](S s) noexcept { return s.tokens_per_micro_batch; }},
    StepField{"tokens_per_step", N, "tokens", "tokens per step", "fixed:0", "global batch: tokens per optimizer step",
              0, [](S s) noexcept { return s.tokens_per_step; }},
    StepField{"compute_s", N, "s", "compute", "fixed:3",
              "all GPU compute: gemm_s + attention_s + memory_bound_s + host_wait_s", in_sweep | step_total,
              [](S s) noexcept { return s.compute_s; }},
    StepField{"gemm_s", N, "s", "GEMM", "fixed:3", "of compute_s: GEMMs", step_part,
              [](S s) noexcept { return s.gemm_s; }},
    StepField{"attention_s", N, "s", "attention", "fixed:3", "of compute_s: fused attention", step_part,
              [](S s) noexcept { return s.attention_s; }},
    StepField{"memory_bound_s", N, "s", "memory-bound", "fixed:3", "of compute_s: memory-bound kernels", step_part,
              [](S s) noexcept { return s.memory_bound_s; }},
    StepField{"host_wait_s", N, "s", "host wait", "fixed:3", "of compute_s: the GPU waiting on the host", step_part,
              [](S s) noexcept { return s.host_wait_s; }},
    StepField{"comm_s", N, "s", "comm", "fixed:3", "all collectives, hidden or not", in_sweep,
              [](S s) noexcept { return s.comm_s; }},
    StepField{"exposed_comm_s", N, "s", "exposed comm", "fixed:3", "collective time not hidden under compute",
              in_sweep | step_part, [](S s) noexcept { return s.exposed_comm_s; }},
    StepField{"model_parallel_comm_s", N, "s", "TP/CP/EP comm", "fixed:3",
              "of comm_s: tensor-, context- and expert-parallel collectives (on the critical path unless hidden "
              "under attention)",
              0, [](S s) noexcept { return s.model_parallel_comm_s; }},
    StepField{"optimizer_s", N, "s", "optimizer", "fixed:3", "the optimizer step over the local shard", step_part,
              [](S s) noexcept { return s.optimizer_s; }},
    StepField{"data_s", N, "s", "data", "fixed:3", "input pipeline time not hidden by prefetch", step_part,
              [](S s) noexcept { return s.data_s; }},
    StepField{"checkpoint_s", N, "s", "checkpoint", "fixed:3", "checkpoint write, amortized per step", step_part,
              [](S s) noexcept { return s.checkpoint_s; }},
    StepField{"step_time_s", N, "s", "step", "fixed:3", "wall time of one optimizer step",
              in_sweep | step_total | in_projection, [](S s) noexcept { return s.step_time_s; }},
    StepField{"tokens_per_s", N, "tokens/s", "tokens/s", "fixed:0", "tokens per second, all GPUs",
              in_sweep | in_projection, [](S s) noexcept { return s.tokens_per_s; }},
    StepField{"tokens_per_s_per_gpu", N, "tokens/s", "tokens/s/GPU", "fixed:0", "tokens per second per GPU",
              in_sweep | in_projection, [](S s) noexcept { return s.tokens_per_s_per_gpu; }},
    StepField{"mfu", N, "", "MFU", "percent:1", "model FLOPs utilization, a fraction", in_sweep | in_projection,
              [](S s) noexcept { return s.mfu; }},
    StepField{"hfu", N, "", "HFU", "percent:1", "hardware FLOPs utilization (recompute counted), a fraction", in_sweep,
              [](S s) noexcept { return s.hfu; }},
    StepField{"comm_hidden", B, "", "communication hidden", "yes_no",
              "every unit's communication fits under its compute", 0,
              [](S s) noexcept { return s.comm_hidden ? 1.0 : 0.0; }},
    StepField{"energy_per_step_j", N, "J", "energy per step", "fixed:0", "energy of one step, all GPUs", 0,
              [](S s) noexcept { return s.energy_per_step_j; }},
    // Derived from other outputs, so no member of its own: the table entry is the whole of it.
    StepField{"energy_per_token_j", N, "J", "energy per token", "fixed:3",
              "energy per trained token, all GPUs (energy_per_step_j / tokens_per_step)", 0,
              [](S s) noexcept { return s.tokens_per_step > 0 ? s.energy_per_step_j / s.tokens_per_step : 0.0; }},
    StepField{"memory_gib", N, "GiB", "memory", "fixed:1",
              "peak memory per GPU as nvidia-smi sees the process: tensors, fragmentation and the runtime's reserve "
              "(memory.total_gib)",
              in_sweep | in_projection, [](S s) noexcept { return s.memory.total_gib; }},
    StepField{"fits", B, "", "fits", "yes_no", "memory.status is 'fits' ('uncertain' is not fitting)", in_sweep,
              [](S s) noexcept { return s.memory.fits ? 1.0 : 0.0; }},
};

using P = const ProjectionRow&;

constexpr std::array kRowFields{
    RowField{"speedup", N, "", "speedup", "fixed:2", "tokens/s over the smallest GPU count's", 0,
             [](P r) noexcept { return r.speedup; }},
    RowField{"scaling_efficiency", N, "", "scaling eff", "percent:1", "speedup / (gpus / smallest gpus), a fraction",
             in_projection, [](P r) noexcept { return r.scaling_efficiency; }},
    RowField{"steps", N, "", "steps", "fixed:0",
             "optimizer steps of the job (whole: the last one runs on what is left)", 0,
             [](P r) noexcept { return r.steps; }},
    RowField{"wall_time_h", N, "h", "wall", "fixed:2", "steps × step time", in_projection,
             [](P r) noexcept { return r.wall_time_h; }},
    RowField{"gpu_hours", N, "GPU-h", "GPU-h", "fixed:1", "gpus × wall hours", in_projection,
             [](P r) noexcept { return r.gpu_hours; }},
    RowField{"cost_usd", N, "$", "cost", "fixed:2", "GPU-hours × the price per GPU-hour", in_projection,
             [](P r) noexcept { return r.cost_usd; }},
    RowField{"energy_kwh", N, "kWh", "energy", "fixed:1", "energy of the job, all GPUs", in_projection,
             [](P r) noexcept { return r.energy_kwh; }},
    RowField{"fits", B, "", "fits", "yes_no", "step.memory.fits: the status is 'fits' ('uncertain' is not fitting)", 0,
             [](P r) noexcept { return r.step.memory.fits ? 1.0 : 0.0; }},
    RowField{"needed_gib", N, "GiB", "needed", "fixed:1", "step.memory.total_gib", 0,
             [](P r) noexcept { return r.step.memory.total_gib; }},
    RowField{"available_gib", N, "GiB", "available", "fixed:1", "step.memory.available_gib: the GPU's HBM", 0,
             [](P r) noexcept { return r.step.memory.available_gib; }},
};

using M = const MemoryBreakdown&;

constexpr std::array kMemoryFields{
    MemoryField{"weights_gib", N, "GiB", "weights", "fixed:1",
                "at the peak: sharded weights (FSDP: the master weights)", 0,
                [](M m) noexcept { return m.weights_gib; }},
    MemoryField{"grads_gib", N, "GiB", "gradients", "fixed:1", "at the peak: gradients alive (none before backward)", 0,
                [](M m) noexcept { return m.grads_gib; }},
    MemoryField{"optimizer_gib", N, "GiB", "optimizer", "fixed:1",
                "at the peak: optimizer states (DDP, ZeRO: with fp32 masters)", 0,
                [](M m) noexcept { return m.optimizer_gib; }},
    MemoryField{"activations_gib", N, "GiB", "activations", "fixed:1",
                "at the peak: saved for backward, a recomputed layer, backward's working set", 0,
                [](M m) noexcept { return m.activations_gib; }},
    MemoryField{"logits_gib", N, "GiB", "logits", "fixed:1", "at the peak: logits and what the loss makes of them", 0,
                [](M m) noexcept { return m.logits_gib; }},
    MemoryField{"buffers_gib", N, "GiB", "buffers", "fixed:1",
                "at the peak: unsharded parameters and gradients, reduction buffers", 0,
                [](M m) noexcept { return m.buffers_gib; }},
    MemoryField{"fragmentation_gib", N, "GiB", "fragmentation", "fixed:1",
                "the caching allocator's reserved-but-unallocated share", 0,
                [](M m) noexcept { return m.fragmentation_gib; }},
    MemoryField{"reserved_gib", N, "GiB", "runtime reserve", "fixed:1", "CUDA context, workspaces, NCCL", 0,
                [](M m) noexcept { return m.reserved_gib; }},
    MemoryField{"allocated_gib", N, "GiB", "allocated", "fixed:1",
                "what torch.cuda.max_memory_allocated counts: the tensors", 0,
                [](M m) noexcept { return m.allocated_gib; }},
    MemoryField{"allocator_reserved_gib", N, "GiB", "allocator reserved", "fixed:1",
                "what torch.cuda.max_memory_reserved counts: allocated plus fragmentation", 0,
                [](M m) noexcept { return m.allocator_reserved_gib; }},
    MemoryField{"total_gib", N, "GiB", "total", "fixed:1",
                "what nvidia-smi shows: allocator_reserved_gib plus reserved_gib", 0,
                [](M m) noexcept { return m.total_gib; }},
    MemoryField{"available_gib", N, "GiB", "available", "fixed:1", "the GPU's HBM", 0,
                [](M m) noexcept { return m.available_gib; }},
    MemoryField{"margin", N, "", "margin", "percent:0", "relative uncertainty of total_gib", 0,
                [](M m) noexcept { return m.margin; }},
    MemoryField{"fits", B, "", "fits", "yes_no", "status == 'fits' ('uncertain' is not fitting)", 0,
                [](M m) noexcept { return m.fits ? 1.0 : 0.0; }},
};

}  // namespace

const char* to_string(FieldType t) {
    switch (t) {
        case FieldType::integer: return "integer";
        case FieldType::number: return "number";
        case FieldType::boolean: return "boolean";
    }
    return "?";
}

std::span<const StepField> step_fields() noexcept { return kFields; }

std::span<const RowField> row_fields() noexcept { return kRowFields; }

std::span<const MemoryField> memory_fields() noexcept { return kMemoryFields; }

const StepField& find_step_field(std::string_view name) {
    for (const StepField& f : kFields)
        if (f.name == name) return f;
    std::string valid;
    for (const StepField& f : kFields) valid += (valid.empty() ? "" : ", ") + std::string(f.name);
    throw std::invalid_argument("unknown step output '" + std::string(name) + "'; valid: " + valid);
}

}  // namespace libscale
