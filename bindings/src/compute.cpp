// The per-operation compute model: ComputeTimes of one micro-batch and the laws that time
// a GEMM, a fused attention kernel and a memory-bound kernel (compute_model.hpp). The
// core's functions take validated inputs; the checks are made here, before the call.
#include <cmath>
#include <stdexcept>
#include <string>

#include "common.hpp"
#include "libscale/io/catalog.hpp"
#include "libscale/estimate/compute_model.hpp"
#include "libscale/estimate/step_model.hpp"

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

void register_compute(py::module_& m) {
    py::class_<ComputeTimes> t(m, "ComputeTimes",
                               "Compute time of one micro-batch per GPU, by part (compute_times()).");
    t.def_readonly("layers", &ComputeTimes::layers, "decoder layers, L")
        .def_readonly("layer_forward_s", &ComputeTimes::layer_forward_s, "one decoder layer")
        .def_readonly("layer_backward_s", &ComputeTimes::layer_backward_s,
                      "one decoder layer, with what activation checkpointing recomputes")
        .def_readonly("head_forward_s", &ComputeTimes::head_forward_s, "final norm, output projection, loss")
        .def_readonly("head_backward_s", &ComputeTimes::head_backward_s)
        .def_readonly("embed_forward_s", &ComputeTimes::embed_forward_s)
        .def_readonly("embed_backward_s", &ComputeTimes::embed_backward_s)
        .def_readonly("gemm_s", &ComputeTimes::gemm_s, "device time in GEMMs (all layers, head, embedding)")
        .def_readonly("attention_s", &ComputeTimes::attention_s, "device time in fused attention")
        .def_readonly("memory_s", &ComputeTimes::memory_s, "device time in memory-bound kernels")
        .def_readonly("host_wait_s", &ComputeTimes::host_wait_s, "time the GPU waits on the host")
        .def_property_readonly("micro_batch_s", &ComputeTimes::micro_batch_s,
                               "L·(layer forward + backward) + head + embedding");
    def_value_methods(t);

    m.def("compute_times",
          [](const ModelSpec& model, const HardwareProfile& hardware, const TrainingConfig& config,
             const std::optional<Calibration>& calibration) {
              const Calibration cal = checked(hardware, calibration);
              model.validate();
              validate_config(model, hardware, config);
              validate_calibration_for(cal, config);
              return compute_times(model, count_parameters(model), hardware, cal, config);
          },
          py::arg("model"), py::arg("hardware"), py::arg("config"), py::kw_only(), py::arg("calibration") = py::none(),
          py::call_guard<py::gil_scoped_release>(),
          "Compute time of one micro-batch (config.micro_batch × seq_len tokens per GPU), by part.");

    m.def("gemm_time_s",
          [](const HardwareProfile& hardware, double m_, double n, double k, bool fp8,
             const std::optional<Calibration>& calibration) {
              const Calibration cal = checked(hardware, calibration);
              positive("m", m_);
              positive("n", n);
              positive("k", k);
              return gemm_time_s(hardware, cal, m_, n, k, fp8);
          },
          py::arg("hardware"), py::arg("m"), py::arg("n"), py::arg("k"), py::kw_only(), py::arg("fp8") = false,
          py::arg("calibration") = py::none(),
          "Time of one GEMM C[m×n] = A[m×k]·B[k×n] by the calibration's GEMM law (waves of tiles, bounded "
          "below by HBM traffic). fp8 falls back to bf16 where the GPU or the calibration has no fp8.");

    m.def("attention_time_s",
          [](const HardwareProfile& hardware, double tokens, double width, double head_dim, double span,
             double seq_len, bool backward, std::string_view kernel, const std::optional<Calibration>& calibration) {
              const Calibration cal = checked(hardware, calibration);
              positive("tokens", tokens);
              positive("width", width);
              positive("head_dim", head_dim);
              positive("span", span);
              positive("seq_len", seq_len);
              return attention_time_s(hardware, cal, tokens, width, head_dim, span, seq_len, backward,
                                      parse_attention_kernel(kernel));
          },
          py::arg("hardware"), py::arg("tokens"), py::arg("width"), py::arg("head_dim"), py::arg("span"),
          py::arg("seq_len"), py::kw_only(), py::arg("backward") = false, py::arg("kernel") = "flash2",
          py::arg("calibration") = py::none(),
          "Time of one fused attention kernel: `tokens` queries of width heads × head_dim attending `span` keys "
          "on average, in sequences of seq_len (causal: span = seq_len / 2).");

    m.def("memory_time_s",
          [](const HardwareProfile& hardware, double bytes, const std::optional<Calibration>& calibration) {
              const Calibration cal = checked(hardware, calibration);
              positive("bytes", bytes);
              return memory_time_s(hardware, cal, bytes);
          },
          py::arg("hardware"), py::arg("bytes"), py::kw_only(), py::arg("calibration") = py::none(),
          "Time of a memory-bound kernel moving `bytes` (reads plus writes) over HBM.");
}

}  // namespace libscale_py
