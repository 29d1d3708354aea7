// TrainingConfig (enums as strings), DataPipeline, CheckpointPolicy, MemoryBreakdown,
// StepBreakdown, and the step and memory model entry points.
#include <stdexcept>

#include "common.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/estimate/memory_model.hpp"
#include "libscale/estimate/step_model.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

int parse_reduce_dtype(std::string_view s) {
    if (s == "bf16" || s == "bfloat16") return 2;
    if (s == "fp32" || s == "float32") return 4;
    throw std::invalid_argument("reduce_dtype = '" + std::string(s) + "'; valid: bf16, fp32");
}

const char* reduce_dtype_name(int bytes) {
    return bytes == 2 ? "bf16" : bytes == 4 ? "fp32" : "invalid";
}

Calibration calibration_or_default(const std::optional<Calibration>& cal, const HardwareProfile& hw) {
    return cal ? *cal : default_calibration(hw);
}

// An enum option as a str property, the names the core's parse_* / to_string use.
template <class E, E TrainingConfig::*Field, E (*Parse)(std::string_view)>
void def_option(py::class_<TrainingConfig>& cls, const char* name, const char* doc) {
    cls.def_property(
        name, [](const TrainingConfig& c) { return std::string(to_string(c.*Field)); },
        [](TrainingConfig& c, std::string_view v) { c.*Field = Parse(v); }, doc);
}

}  // namespace

void register_step(py::module_& m) {
    const DataPipeline dd{};
    py::class_<DataPipeline> data_cls(m, "DataPipeline",
                                  "Where a step's tokens come from (defaults: pretokenized, in the page cache).");
    data_cls.def(py::init([](bool pretokenized, double bytes_per_token, bool corpus_in_page_cache,
                         double storage_read_gbps_per_node, double tokenize_tokens_per_s_per_core,
                         std::int64_t loader_workers_per_rank, std::int64_t cpu_cores_per_node) {
                 DataPipeline x;
                 x.pretokenized = pretokenized;
                 x.bytes_per_token = bytes_per_token;
                 x.corpus_in_page_cache = corpus_in_page_cache;
                 x.storage_read_gbps_per_node = storage_read_gbps_per_node;
                 x.tokenize_tokens_per_s_per_core = tokenize_tokens_per_s_per_core;
                 x.loader_workers_per_rank = loader_workers_per_rank;
                 x.cpu_cores_per_node = cpu_cores_per_node;
                 return x;
             }),
             py::kw_only(), py::arg("pretokenized") = dd.pretokenized, py::arg("bytes_per_token") = dd.bytes_per_token,
             py::arg("corpus_in_page_cache") = dd.corpus_in_page_cache,
             py::arg("storage_read_gbps_per_node") = dd.storage_read_gbps_per_node,
             py::arg("tokenize_tokens_per_s_per_core") = dd.tokenize_tokens_per_s_per_core,
             py::arg("loader_workers_per_rank") = dd.loader_workers_per_rank,
             py::arg("cpu_cores_per_node") = dd.cpu_cores_per_node)
        .def_readwrite("pretokenized", &DataPipeline::pretokenized)
        .def_readwrite("bytes_per_token", &DataPipeline::bytes_per_token, "bytes stored per token")
        .def_readwrite("corpus_in_page_cache", &DataPipeline::corpus_in_page_cache)
        .def_readwrite("storage_read_gbps_per_node", &DataPipeline::storage_read_gbps_per_node,
                       "GB/s shared by a node's ranks")
        .def_readwrite("tokenize_tokens_per_s_per_core", &DataPipeline::tokenize_tokens_per_s_per_core)
        .def_readwrite("loader_workers_per_rank", &DataPipeline::loader_workers_per_rank)
        .def_readwrite("cpu_cores_per_node", &DataPipeline::cpu_cores_per_node, "0: not limited by cores");
    def_value_methods(data_cls);

    const CheckpointPolicy dc{};
    py::class_<CheckpointPolicy> ckpt(m, "CheckpointPolicy", "How often the training state is written, and how fast.");
    ckpt.def(py::init([](std::int64_t every_steps, double write_gbps_per_node) {
                 return CheckpointPolicy{every_steps, write_gbps_per_node};
             }),
             py::kw_only(), py::arg("every_steps") = dc.every_steps,
             py::arg("write_gbps_per_node") = dc.write_gbps_per_node)
        .def_readwrite("every_steps", &CheckpointPolicy::every_steps, "0: no checkpoints")
        .def_readwrite("write_gbps_per_node", &CheckpointPolicy::write_gbps_per_node, "GB/s");
    def_value_methods(ckpt);

    const TrainingConfig dt{};
    py::class_<TrainingConfig> cfg(m, "TrainingConfig",
                                   "How a run is laid out: GPUs, batch, sharding strategy, input pipeline, checkpoints.");
    cfg.def(py::init([](std::int64_t gpus, std::int64_t gpus_per_node, std::int64_t seq_len, std::int64_t micro_batch,
                        std::int64_t global_batch_tokens, std::string_view strategy,
                        std::string_view activation_checkpointing, bool reshard_after_forward,
                        std::string_view reduce_dtype, std::string_view grad_sync, double attention_span_tokens,
                        std::string_view precision, bool fp8_all_gather, std::string_view optimizer,
                        std::string_view master_weights, std::string_view loss_kernel,
                        std::string_view attention_kernel, bool torch_compile, std::int64_t checkpoint_every,
                        const DataPipeline& data, const CheckpointPolicy& checkpoint) {
                TrainingConfig c;
                c.gpus = gpus;
                c.gpus_per_node = gpus_per_node;
                c.seq_len = seq_len;
                c.micro_batch = micro_batch;
                c.global_batch_tokens = global_batch_tokens;
                c.strategy = parse_strategy(strategy);
                c.activation_checkpointing = parse_checkpointing(activation_checkpointing);
                c.reshard_after_forward = reshard_after_forward;
                c.reduce_bytes = parse_reduce_dtype(reduce_dtype);
                c.grad_sync = parse_grad_sync(grad_sync);
                c.attention_span_tokens = attention_span_tokens;
                c.precision = parse_precision(precision);
                c.fp8_all_gather = fp8_all_gather;
                c.optimizer = parse_optimizer(optimizer);
                c.master_weights = parse_master_weights(master_weights);
                c.loss_kernel = parse_loss_kernel(loss_kernel);
                c.attention_kernel = parse_attention_kernel(attention_kernel);
                c.torch_compile = torch_compile;
                c.checkpoint_every = checkpoint_every;
                c.data = data;
                c.checkpoint = checkpoint;
                return c;
            }),
            py::kw_only(), py::arg("gpus") = dt.gpus, py::arg("gpus_per_node") = dt.gpus_per_node,
            py::arg("seq_len") = dt.seq_len, py::arg("micro_batch") = dt.micro_batch,
            py::arg("global_batch_tokens") = dt.global_batch_tokens,
            py::arg("strategy") = to_string(dt.strategy),
            py::arg("activation_checkpointing") = to_string(dt.activation_checkpointing),
            py::arg("reshard_after_forward") = dt.reshard_after_forward,
            py::arg("reduce_dtype") = reduce_dtype_name(dt.reduce_bytes),
            py::arg("grad_sync") = to_string(dt.grad_sync),
            py::arg("attention_span_tokens") = dt.attention_span_tokens,
            py::arg("precision") = to_string(dt.precision), py::arg("fp8_all_gather") = dt.fp8_all_gather,
            py::arg("optimizer") = to_string(dt.optimizer), py::arg("master_weights") = to_string(dt.master_weights),
            py::arg("loss_kernel") = to_string(dt.loss_kernel),
            py::arg("attention_kernel") = to_string(dt.attention_kernel), py::arg("torch_compile") = dt.torch_compile,
            py::arg("checkpoint_every") = dt.checkpoint_every, py::arg("data") = dt.data,
            py::arg("checkpoint") = dt.checkpoint,
            "gpus_per_node 0: the hardware's; global_batch_tokens 0: gpus × micro_batch × seq_len; "
            "attention_span_tokens 0: causal, seq_len / 2.")
        .def_readwrite("gpus", &TrainingConfig::gpus)
        .def_readwrite("gpus_per_node", &TrainingConfig::gpus_per_node, "0: the hardware's")
        .def_readwrite("seq_len", &TrainingConfig::seq_len, "tokens")
        .def_readwrite("micro_batch", &TrainingConfig::micro_batch, "sequences per micro-batch per GPU")
        .def_readwrite("global_batch_tokens", &TrainingConfig::global_batch_tokens,
                       "tokens per optimizer step; 0: no accumulation")
        .def_property(
            "strategy", [](const TrainingConfig& c) { return std::string(to_string(c.strategy)); },
            [](TrainingConfig& c, std::string_view s) { c.strategy = parse_strategy(s); },
            "'fsdp' (= 'zero3'), 'hsdp', 'ddp', 'zero1', 'zero2'")
        .def_property(
            "activation_checkpointing",
            [](const TrainingConfig& c) { return std::string(to_string(c.activation_checkpointing)); },
            [](TrainingConfig& c, std::string_view s) { c.activation_checkpointing = parse_checkpointing(s); },
            "'none', 'selective', 'full'")
        .def_readwrite("reshard_after_forward", &TrainingConfig::reshard_after_forward)
        .def_property(
            "reduce_dtype", [](const TrainingConfig& c) { return std::string(reduce_dtype_name(c.reduce_bytes)); },
            [](TrainingConfig& c, std::string_view s) { c.reduce_bytes = parse_reduce_dtype(s); },
            "'bf16' or 'fp32' (gradient reduction)")
        .def_readwrite("reduce_bytes", &TrainingConfig::reduce_bytes, "2 (bf16) or 4 (fp32)")
        .def_property(
            "grad_sync", [](const TrainingConfig& c) { return std::string(to_string(c.grad_sync)); },
            [](TrainingConfig& c, std::string_view s) { c.grad_sync = parse_grad_sync(s); },
            "'every_micro_batch' or 'last_micro_batch'")
        .def_readwrite("attention_span_tokens", &TrainingConfig::attention_span_tokens, "0: causal, seq_len / 2");
    def_option<Precision, &TrainingConfig::precision, parse_precision>(
        cfg, "precision", "'bf16' or 'fp8' (torchao Float8Linear, tensorwise scaling) decoder-layer GEMMs");
    cfg.def_readwrite("fp8_all_gather", &TrainingConfig::fp8_all_gather,
                      "FSDP gathers fp8 weights (needs precision 'fp8' and fsdp or hsdp)");
    def_option<Optimizer, &TrainingConfig::optimizer, parse_optimizer>(
        cfg, "optimizer", "'adamw', 'adamw_8bit' (bitsandbytes), 'sgd' (momentum) or 'adafactor'");
    def_option<MasterWeights, &TrainingConfig::master_weights, parse_master_weights>(
        cfg, "master_weights", "'fp32' (mixed precision) or 'bf16' (weights and states in bf16)");
    def_option<LossKernel, &TrainingConfig::loss_kernel, parse_loss_kernel>(
        cfg, "loss_kernel", "'eager' (fp32 logits) or 'fused' (no fp32 logits: Liger, chunked)");
    def_option<AttentionKernel, &TrainingConfig::attention_kernel, parse_attention_kernel>(
        cfg, "attention_kernel",
        "'flash2', 'flash3', 'cudnn', 'flash1', 'flash_triton', 'llm_foundry_triton', 'xformers' or 'eager'");
    cfg.def_readwrite("torch_compile", &TrainingConfig::torch_compile, "torch.compile of each decoder layer")
        .def_readwrite("checkpoint_every", &TrainingConfig::checkpoint_every,
                       "activation checkpointing on every k-th decoder layer; 1: every layer")
        .def_readwrite("data", &TrainingConfig::data)
        .def_readwrite("checkpoint", &TrainingConfig::checkpoint);
    def_value_methods(cfg);

    py::class_<MemoryBreakdown> mem(m, "MemoryBreakdown", "Memory per GPU, GiB.");
    mem.def_readonly("weights_gib", &MemoryBreakdown::weights_gib)
        .def_readonly("grads_gib", &MemoryBreakdown::grads_gib)
        .def_readonly("optimizer_gib", &MemoryBreakdown::optimizer_gib,
                      "master weights (when fp32) and optimizer states")
        .def_readonly("activations_gib", &MemoryBreakdown::activations_gib)
        .def_readonly("logits_gib", &MemoryBreakdown::logits_gib)
        .def_readonly("buffers_gib", &MemoryBreakdown::buffers_gib, "unsharded parameter / gradient buffers")
        .def_readonly("fragmentation_gib", &MemoryBreakdown::fragmentation_gib,
                      "the caching allocator's reserved-but-unallocated share")
        .def_readonly("reserved_gib", &MemoryBreakdown::reserved_gib)
        .def_readonly("total_gib", &MemoryBreakdown::total_gib)
        .def_readonly("available_gib", &MemoryBreakdown::available_gib)
        .def_readonly("margin", &MemoryBreakdown::margin, "relative uncertainty of total_gib")
        .def_property_readonly(
            "status", [](const MemoryBreakdown& x) { return std::string(to_string(x.status)); },
            "'fits' (with the margin), 'uncertain' (the limit lies within the margin) or 'does_not_fit'")
        .def_readonly("fits", &MemoryBreakdown::fits, "status != 'does_not_fit'");
    def_value_methods(mem);

    py::class_<StepBreakdown> step_cls(m, "StepBreakdown", "One optimizer step: time per phase, throughput, memory.");
    step_cls.def_readonly("gpus", &StepBreakdown::gpus)
        .def_readonly("gpus_per_node", &StepBreakdown::gpus_per_node)
        .def_readonly("nodes", &StepBreakdown::nodes, "nodes the GPUs span (the last may be partial)")
        .def_readonly("grad_accum", &StepBreakdown::grad_accum, "micro-batches per step")
        .def_readonly("tokens_per_micro_batch", &StepBreakdown::tokens_per_micro_batch, "per GPU")
        .def_readonly("tokens_per_step", &StepBreakdown::tokens_per_step, "global batch, tokens")
        .def_readonly("compute_s", &StepBreakdown::compute_s, "all GPU compute: gemm_s + attention_s + "
                      "memory_bound_s + host_wait_s")
        .def_readonly("gemm_s", &StepBreakdown::gemm_s, "of compute_s: GEMMs")
        .def_readonly("attention_s", &StepBreakdown::attention_s, "of compute_s: fused attention")
        .def_readonly("memory_bound_s", &StepBreakdown::memory_bound_s, "of compute_s: memory-bound kernels")
        .def_readonly("host_wait_s", &StepBreakdown::host_wait_s, "of compute_s: the GPU waiting on the host")
        .def_readonly("comm_s", &StepBreakdown::comm_s, "all collectives, hidden or not")
        .def_readonly("exposed_comm_s", &StepBreakdown::exposed_comm_s)
        .def_readonly("optimizer_s", &StepBreakdown::optimizer_s)
        .def_readonly("data_s", &StepBreakdown::data_s)
        .def_readonly("checkpoint_s", &StepBreakdown::checkpoint_s)
        .def_readonly("step_time_s", &StepBreakdown::step_time_s)
        .def_readonly("tokens_per_s", &StepBreakdown::tokens_per_s)
        .def_readonly("tokens_per_s_per_gpu", &StepBreakdown::tokens_per_s_per_gpu)
        .def_readonly("mfu", &StepBreakdown::mfu, "model FLOPs utilization, fraction")
        .def_readonly("hfu", &StepBreakdown::hfu, "hardware FLOPs utilization, fraction")
        .def_readonly("comm_hidden", &StepBreakdown::comm_hidden)
        .def_readonly("energy_per_step_j", &StepBreakdown::energy_per_step_j, "all GPUs, J")
        .def_readonly("memory", &StepBreakdown::memory)
        .def_property_readonly(
            "memory_gib", [](const StepBreakdown& s) { return s.memory.total_gib; }, "memory.total_gib");
    def_value_methods(step_cls);

    m.def("estimate_step",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const std::optional<Calibration>& calibration) {
              return estimate_step(model, hardware, calibration_or_default(calibration, hardware), config);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::kw_only(),
          py::arg("calibration") = py::none(), py::call_guard<py::gil_scoped_release>(),
          "Validate everything, then estimate one step. Does not raise when the model does not fit "
          "(memory.fits says so; see require_fit). calibration None: default_calibration(hardware).");

    m.def("require_fit",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const StepBreakdown& step, const std::optional<Calibration>& calibration) {
              require_fit(model, hardware, calibration_or_default(calibration, hardware), config, step);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::arg("step"), py::kw_only(),
          py::arg("calibration") = py::none(),
          "Raise DoesNotFitError (needed vs available GiB and what would fit) when step.memory.fits is false.");

    m.def("validate_calibration_for",
          [](const Calibration& calibration, const TrainingConfig& config) {
              validate_calibration_for(calibration, config);
          },
          py::arg("calibration"), py::arg("config"),
          "Raise ValueError when the configuration needs what the calibration lacks (fp8 GEMM coefficients).");

    m.def("optimizer_bytes_per_parameter",
          [](const ModelSpec& model, const TrainingConfig& config) {
              model.validate();
              return optimizer_bytes_per_parameter(model, count_parameters(model), config);
          },
          py::arg("model"), py::arg("config"),
          "Bytes per parameter the optimizer holds beyond the bf16 weights and gradients (fp32 masters, states).");

    m.def("optimizer_step_s",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const std::optional<Calibration>& calibration) {
              const Calibration cal = calibration_or_default(calibration, hardware);
              model.validate();
              hardware.validate();
              cal.validate();
              validate_config(model, hardware, config);
              return optimizer_step_s(count_parameters(model), hardware, cal, config);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::kw_only(),
          py::arg("calibration") = py::none(), "The optimizer's step over the local shard, s (bytes over HBM).");

    m.def("fit_suggestion",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const std::optional<Calibration>& calibration) {
              return fit_suggestion(model, hardware, calibration_or_default(calibration, hardware), config);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::kw_only(),
          py::arg("calibration") = py::none(), "What would make a non-fitting configuration fit ('' if nothing).");

    m.def("validate_config",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config) {
              validate_config(model, hardware, config);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"),
          "Raise ValueError naming the field, its value and what would be valid.");

    m.def("check_config",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config) {
              return static_cast<int>(check_config(model, hardware, config));
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"),
          "The configuration's issue code (0: none; describe_issue(code) says what it means).");
}

}  // namespace libscale_py
