// libscale._core.estimate: projection quantiles (estimate/uncertainty.hpp): the fitted
// coefficients' covariance sampled through the step model (GIL released).
#include "libscale/estimate/uncertainty.hpp"
#include "../common.hpp"
#include "../fields.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

std::string quantiles_repr(const Quantiles& q) {
    std::ostringstream os;
    os << "Quantiles(p10=" << q.p10 << ", p50=" << q.p50 << ", p90=" << q.p90 << ')';
    return os.str();
}

}  // namespace

void register_estimate_uncertainty(py::module_& m) {
    py::class_<Quantiles> q(m, "Quantiles", "P10 / P50 / P90 of one projected figure.");
    def_fields(q, fields(field("p10", &Quantiles::p10), field("p50", &Quantiles::p50), field("p90", &Quantiles::p90)),
               Access::read_only);
    q.def("__repr__", &quantiles_repr);

    using R = RowQuantiles;
    py::class_<RowQuantiles> rq(m, "RowQuantiles", "The quantiles of one GPU count's projected figures.");
    def_fields(
        rq,
        fields(field("gpus", &R::gpus), field("step_time_s", &R::step_time_s), field("tokens_per_s", &R::tokens_per_s),
               field("tokens_per_s_per_gpu", &R::tokens_per_s_per_gpu), field("wall_time_h", &R::wall_time_h),
               field("gpu_hours", &R::gpu_hours), field("cost_usd", &R::cost_usd), field("energy_kwh", &R::energy_kwh)),
        Access::read_only);
    rq.def("__repr__", [](const RowQuantiles& r) {
        std::ostringstream os;
        os << "RowQuantiles(gpus=" << r.gpus << ", tokens_per_s=" << quantiles_repr(r.tokens_per_s)
           << ", gpu_hours=" << quantiles_repr(r.gpu_hours) << ')';
        return os.str();
    });

    const auto opt_fields =
        fields(field("samples", &UncertaintyOptions::samples),
               field("seed", &UncertaintyOptions::seed, "the sampler's seed (same seed: same quantiles)"));
    py::class_<UncertaintyOptions> uopt(m, "UncertaintyOptions", "Sampling options of projection_quantiles.");
    def_init(uopt, opt_fields, "Every field by keyword.");
    def_fields(uopt, opt_fields, Access::read_write);
    uopt.def("__repr__", [](const UncertaintyOptions& o) {
        std::ostringstream os;
        os << "UncertaintyOptions(samples=" << o.samples << ", seed=" << o.seed << ')';
        return os.str();
    });
}

}  // namespace libscale_py
