// libscale._core.estimate: the per-operation compute model (estimate/compute_model.hpp):
// ComputeTimes of one micro-batch and the laws that time a GEMM, a fused attention kernel
// and a memory-bound kernel. Arguments in the C++ order; calibration None: the hardware's
// default. The core's functions take validated inputs; the checks are made here.
#include <cmath>
#include <stdexcept>
#include <string>

#include "../common.hpp"
#include "../fields.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"
#include "libscale/io/catalog.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

Calibration checked(const HardwareProfile& hw, const std::optional<Calibration>& cal) {
    hw.validate();
    Calibration c = cal ? *cal : default_calibration(hw);
    c.validate();
    return c;
}

void positive(const char* name, double v) {
    if (!(v > 0) || !std::isfinite(v))
        throw std::invalid_argument(std::string(name) + " = " + std::to_string(v) + "; it must be a finite number > 0");
}

}  // namespace

void register_estimate_compute(py::module_& m) {
    using T = ComputeTimes;
    py::class_<ComputeTimes> t(m, "ComputeTimes",
                               "Compute time of one micro-batch per GPU, by part (compute_times()).");
    def_fields(t,
               fields(field("layers", &T::layers, "decoder layers, L"),
                      field("layer_forward_s", &T::layer_forward_s, "one decoder layer"),
                      field("layer_backward_s", &T::layer_backward_s,
                            "one decoder layer, with what activation checkpointing recomputes"),
                      field("head_forward_s", &T::head_forward_s, "final norm, output projection, loss"),
                      field("head_backward_s", &T::head_backward_s), field("embed_forward_s", &T::embed_forward_s),
                      field("embed_backward_s", &T::embed_backward_s),
                      field("gemm_s", &T::gemm_s, "device time in GEMMs (all layers, head, embedding)"),
                      field("attention_s", &T::attention_s, "device time in fused attention"),
                      field("memory_s", &T::memory_s, "device time in memory-bound kernels"),
                      field("fsdp_copy_s", &T::fsdp_copy_s,
                            "of memory_s: FSDP2's copies on the compute stream (casts, copy-out, chunk_cat)"),
                      field("loss_s", &T::loss_s, "of memory_s: the loss over the vocabulary"),
                      field("host_wait_s", &T::host_wait_s, "time the GPU waits on the host")),
               Access::read_only);
    t.def_property_readonly("micro_batch_s", &ComputeTimes::micro_batch_s,
                            "L·(layer forward + backward) + head + embedding");
    def_value_methods(t);

    m.def(
        "compute_times",
        [](const ModelSpec& model, const HardwareProfile& hardware, const std::optional<Calibration>& calibration,
           const TrainingConfig& config) {
            const Calibration cal = checked(hardware, calibration);
            model.validate();
            validate_config(model, hardware, config);
            validate_calibration_for(cal, config);
            return compute_times(model, count_parameters(model), hardware, cal, config);
        },
        py::arg("model"), py::arg("hardware"), py::arg("calibration"), py::arg("config"),
        py::call_guard<py::gil_scoped_release>(),
        "Compute time of one micro-batch (config.micro_batch × seq_len tokens per GPU), by part.");

    m.def(
        "gemm_time_s",
        [](const HardwareProfile& hardware, const std::optional<Calibration>& calibration, double m_, double n,
           double k, bool fp8) {
            const Calibration cal = checked(hardware, calibration);
            positive("m", m_);
            positive("n", n);
            positive("k", k);
            return gemm_time_s(hardware, cal, m_, n, k, fp8);
        },
        py::arg("hardware"), py::arg("calibration"), py::arg("m"), py::arg("n"), py::arg("k"), py::arg("fp8") = false,
        "Time of one GEMM C[m×n] = A[m×k]·B[k×n] by the calibration's GEMM law (waves of tiles, bounded "
        "below by HBM traffic). fp8 falls back to bf16 where the GPU or the calibration has no fp8.");

    m.def(
        "attention_time_s",
        [](const HardwareProfile& hardware, const std::optional<Calibration>& calibration, double tokens, double width,
           double head_dim, double span, double seq_len, bool backward, std::string_view kernel) {
            const Calibration cal = checked(hardware, calibration);
            positive("tokens", tokens);
            positive("width", width);
            positive("head_dim", head_dim);
            positive("span", span);
            positive("seq_len", seq_len);
            return attention_time_s(hardware, cal, tokens, width, head_dim, span, seq_len, backward,
                                    parse_attention_kernel(kernel));
        },
        py::arg("hardware"), py::arg("calibration"), py::arg("tokens"), py::arg("width"), py::arg("head_dim"),
        py::arg("span"), py::arg("seq_len"), py::arg("backward") = false, py::arg("kernel") = "flash2",
        "Time of one fused attention kernel: `tokens` queries of width heads × head_dim attending `span` keys "
        "on average, in sequences of seq_len (causal: span = seq_len / 2).");

    m.def(
        "memory_time_s",
        [](const HardwareProfile& hardware, const std::optional<Calibration>& calibration, double bytes) {
            const Calibration cal = checked(hardware, calibration);
            positive("bytes", bytes);
            return memory_time_s(hardware, cal, bytes);
        },
        py::arg("hardware"), py::arg("calibration"), py::arg("bytes"),
        "Time of a memory-bound kernel moving `bytes` (reads plus writes) over HBM.");
}

}  // namespace libscale_py
