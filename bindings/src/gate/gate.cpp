// libscale._core.gate: the pre-launch packing gate (gate/packing.hpp): GateConfig,
// GateResult (with its per-rank reports as numpy columns), gate, and the helpers behind
// the equalize-to-minimum remedy. Gating runs with the GIL released, reporting to an
// optional Progress (in samples).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../common.hpp"
#include "../fields.hpp"
#include "../option_fields.hpp"
#include "../progress.hpp"
#include "lengths.hpp"
#include "libscale/gate/gate_options.hpp"
#include "libscale/gate/packing.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// A bound gate verdict: GateResult plus the configuration it judged.
struct PyGate {
    GateResult r;
    GateConfig c;
};

template <class F>
py::array_t<F> rank_column(const GateResult& g, F RankReport::*field) {
    py::array_t<F> a(static_cast<py::ssize_t>(g.ranks.size()));
    auto* d = a.mutable_data();
    for (std::size_t i = 0; i < g.ranks.size(); ++i) d[i] = g.ranks[i].*field;
    return a;
}

// A field of the C++ GateResult, read through the bound verdict.
template <class V>
auto result_field(const char* name, V GateResult::*member, const char* doc = "") {
    return output_field<V, PyGate>(
        name, [member](const PyGate& g) { return g.r.*member; }, doc);
}

// A field of RankReport as a numpy column, one entry per rank (GateResult.ranks).
template <class V>
auto rank_field(const char* name, V RankReport::*member, const char* doc = "") {
    return output_field<py::array_t<V>, PyGate>(
        name, [member](const PyGate& g) { return rank_column(g.r, member); }, doc);
}

// Integer token counts only: a float would be truncated and a uint64 past int64 would wrap
// negative in the cast, silently. The values themselves are judge()'s to check.
std::vector<std::vector<std::int64_t>> rank_bins_from_py(const py::sequence& seq) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& item : seq) {
        const std::string r = "rank_bin_tokens[" + std::to_string(out.size()) + "]";
        py::array raw = py::array::ensure(item);
        if (!raw || raw.ndim() != 1) throw std::invalid_argument(r + ": each rank must be a 1-D array");
        const char kind = raw.dtype().kind();
        if (raw.size() > 0 && kind != 'i' && kind != 'u')
            throw py::type_error(r + ": dtype " + std::string(py::str(raw.dtype())) +
                                 " is not an integer dtype (token counts are integers)");
        if (kind == 'u' && raw.itemsize() == 8) {
            auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
            for (py::ssize_t k = 0; k < u.size(); ++k)
                if (u.data()[k] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                    throw std::invalid_argument(r + "[" + std::to_string(k) + "] = " + std::to_string(u.data()[k]) +
                                                ": more tokens than an int64 holds");
        }
        auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
        if (!a) throw py::error_already_set();
        out.emplace_back(a.data(), a.data() + a.size());
    }
    return out;
}

py::list rank_bins_to_py(std::vector<std::vector<std::int64_t>>&& v) {
    py::list out;
    for (auto& r : v) out.append(to_numpy(std::move(r)));
    return out;
}

}  // namespace

void register_gate_gate(py::module_& m) {
    m.attr("NCCL_DEFAULT_TIMEOUT_S") = kNcclDefaultTimeoutS;

    py::class_<GateConfig> cfg(m, "GateConfig", "How the trainer packs, shards and steps: what the gate simulates.");
    def_option_init(cfg, gate_options(), "Every gate option by keyword; validated (seq_len is required).");
    def_option_fields(cfg, gate_options(), Access::read_only);

    using G = GateResult;
    py::class_<PyGate> res(m, "GateResult", "The packing gate's verdict (libscale.gate).");
    def_fields(
        res,
        fields(rank_field("rank", &RankReport::rank, "per rank: its index"),
               rank_field("sequences", &RankReport::sequences, "per rank: packed sequences (rows) it iterates"),
               rank_field("micro_batches", &RankReport::micro_batches, "per rank: collective-bearing steps"),
               rank_field("optimizer_steps", &RankReport::optimizer_steps), rank_field("tokens", &RankReport::tokens),
               rank_field("padding_efficiency", &RankReport::padding_efficiency, "tokens / (sequences × seq_len)"),
               result_field("passed", &G::passed,
                            "every rank runs the same number of micro-batches (or the "
                            "trainer equalizes them)"),
               result_field("min_rank", &G::min_rank), result_field("max_rank", &G::max_rank),
               result_field("min_micro_batches", &G::min_micro_batches),
               result_field("max_micro_batches", &G::max_micro_batches), result_field("difference", &G::difference),
               result_field("trainer_equalizes", &G::trainer_equalizes,
                            "Axolotl truncates every rank to the minimum itself"),
               result_field("micro_batches_dropped", &G::micro_batches_dropped, "by the remedy, summed over ranks"),
               result_field("steps_dropped", &G::steps_dropped, "optimizer steps the remedy drops, summed over ranks"),
               result_field("tokens_dropped", &G::tokens_dropped),
               result_field("total_tokens", &G::total_tokens, "tokens over all ranks before equalizing"),
               result_field("tokens_dropped_pct", &G::tokens_dropped_pct),
               result_field("global_bins", &G::global_bins, "packed sequences before sharding (global packers)"),
               result_field("overflow", &G::overflow),
               result_field("hang_cost_gpu_hours", &G::hang_cost_gpu_hours,
                            "GPU-hours a hang would burn before the watchdog fires"),
               result_field("cost_at_risk_gpu_hours", &G::cost_at_risk_gpu_hours,
                            "hang_cost_gpu_hours when the gate fails, else 0")),
        Access::read_only);
    res.def_property_readonly(
           "verdict", [](const PyGate& g) { return g.r.verdict(); }, "one line")
        .def_property_readonly(
            "config", [](const PyGate& g) { return g.c; }, "the GateConfig it judged")
        .def_property_readonly(
            "packer", [](const PyGate& g) { return std::string(to_string(g.c.packer)); }, "config.packer")
        .def_property_readonly(
            "seq_len", [](const PyGate& g) { return g.c.seq_len; }, "config.seq_len")
        .def_property_readonly(
            "world_size", [](const PyGate& g) { return g.c.world_size; }, "config.world_size")
        .def_property_readonly(
            "micro_batch", [](const PyGate& g) { return g.c.micro_batch; }, "config.micro_batch")
        .def_property_readonly(
            "grad_accum", [](const PyGate& g) { return g.c.grad_accum; }, "config.grad_accum")
        .def_property_readonly(
            "shuffle", [](const PyGate& g) { return g.c.shuffle; }, "config.shuffle")
        .def_property_readonly(
            "seed", [](const PyGate& g) { return g.c.seed; }, "config.seed")
        .def_property_readonly(
            "sampler_drop_last", [](const PyGate& g) { return g.c.sampler_drop_last; }, "config.sampler_drop_last")
        .def_property_readonly(
            "watchdog_s", [](const PyGate& g) { return g.c.watchdog_s; }, "config.watchdog_s")
        .def_property_readonly(
            "gpu_hours_saved", [](const PyGate& g) { return g.r.cost_at_risk_gpu_hours; },
            "GPU-hours the gate saved by catching the hang before launch (0 on PASS)")
        .def("__bool__", [](const PyGate& g) { return g.r.passed; })
        .def("__repr__", [](const PyGate& g) { return repr(g.r); });

    m.def(
        "gate",
        [](const py::object& lengths, const GateConfig& config, Progress* progress) {
            PyGate g;
            g.c = config;
            LengthsView v = lengths_view(lengths);
            g.r = run_released(progress, [&] { return run_gate(v.span, g.c, progress); });
            return g;
        },
        py::arg("lengths"), py::arg("config"), py::kw_only(), py::arg("progress") = nullptr,
        "Pack, shard and judge: the pre-launch packing gate (run_gate). progress counts samples (per-rank "
        "packing: the samples of every rank's shard).");

    m.def(
        "shard_and_pack",
        [](const py::object& lengths, const GateConfig& config, Progress* progress) {
            LengthsView v = lengths_view(lengths);
            RankBins rb = run_released(progress, [&] { return shard_and_pack(v.span, config, progress); });
            return rank_bins_to_py(std::move(rb.rank_bin_tokens));
        },
        py::arg("lengths"), py::arg("config"), py::kw_only(), py::arg("progress") = nullptr,
        "Per rank, the tokens of each packed row in the order the trainer feeds them. progress: as gate's.");

    m.def(
        "equalize_to_minimum",
        [](const py::sequence& rank_bin_tokens, const GateConfig& config) {
            return rank_bins_to_py(equalize_to_minimum(rank_bins_from_py(rank_bin_tokens), config));
        },
        py::arg("rank_bin_tokens"), py::arg("config"),
        "The remedy applied: every rank keeps its first min(micro-batches) × micro_batch rows.");

    m.def(
        "judge",
        [](const py::sequence& rank_bin_tokens, const GateConfig& config) {
            PyGate g;
            g.c = config;
            g.r = judge(rank_bins_from_py(rank_bin_tokens), g.c);
            return g;
        },
        py::arg("rank_bin_tokens"), py::arg("config"),
        "Judge given per-rank packed rows (their token counts, in order).");
}

}  // namespace libscale_py
