// libscale._core.estimate: rank_layouts (estimate/layouts.hpp), the layouts of a scenario's
// GPUs ranked (GIL released); libscale.Layouts (results) holds the ranking with its plan.
#include "libscale/estimate/layouts.hpp"
#include "../common.hpp"
#include "../fields.hpp"

namespace libscale_py {

using namespace libscale;

void register_estimate_layouts(py::module_& m) {
    py::class_<LayoutRow> row(m, "LayoutRow", "One layout that fits: its configuration, mesh and step.");
    def_fields(
        row,
        fields(field("config", &LayoutRow::config), field("mesh", &LayoutRow::mesh), field("step", &LayoutRow::step),
               field("tokens_per_s", &LayoutRow::tokens_per_s,
                     "P10 / P50 / P90 of tokens/s for the leading rows (zeros past LayoutSearch.intervals)")),
        Access::read_only);
    def_value_methods(row);

    py::class_<LayoutRanking> ranking(m, "LayoutRanking", "The layouts that fit, fastest first, and what was tried.");
    def_fields(ranking,
               fields(field("rows", &LayoutRanking::rows), field("tried", &LayoutRanking::tried),
                      field("invalid", &LayoutRanking::invalid, "layouts that break a configuration rule"),
                      field("not_fitting", &LayoutRanking::not_fitting,
                            "valid layouts that do not fit ('uncertain' "
                            "included)"),
                      field("global_batch_tokens", &LayoutRanking::global_batch_tokens)),
               Access::read_only);
    def_value_methods(ranking);

    m.def(
        "rank_layouts",
        [](const Scenario& s, std::vector<std::string> strategies, std::vector<std::int64_t> tensor_parallel,
           std::vector<std::int64_t> context_parallel, std::vector<std::string> context_parallel_methods,
           std::vector<std::int64_t> expert_parallel, std::vector<std::int64_t> micro_batch,
           std::vector<std::string> checkpointing, std::int64_t intervals, const UncertaintyOptions& uncertainty) {
            LayoutSearch search;
            search.strategies.clear();
            for (const std::string& st : strategies) search.strategies.push_back(parse_strategy(st));
            search.tensor_parallel = std::move(tensor_parallel);
            search.context_parallel = std::move(context_parallel);
            search.context_parallel_methods.clear();
            for (const std::string& cm : context_parallel_methods)
                search.context_parallel_methods.push_back(parse_context_parallel_method(cm));
            search.expert_parallel = std::move(expert_parallel);
            search.micro_batch = std::move(micro_batch);
            search.checkpointing.clear();
            for (const std::string& ac : checkpointing) search.checkpointing.push_back(parse_checkpointing(ac));
            search.intervals = intervals;
            search.uncertainty = uncertainty;
            py::gil_scoped_release release;
            return rank_layouts(s, search);
        },
        py::arg("scenario"), py::kw_only(), py::arg("strategies"), py::arg("tensor_parallel"),
        py::arg("context_parallel"), py::arg("context_parallel_methods"), py::arg("expert_parallel"),
        py::arg("micro_batch"), py::arg("checkpointing"), py::arg("intervals") = 10,
        py::arg("uncertainty") = UncertaintyOptions{},
        "Every layout of the scenario's GPUs (strategies × tensor_parallel × context_parallel (× "
        "context_parallel_methods above 1) × expert_parallel "
        "× micro_batch × checkpointing; empty degree lists: 1 and powers of two up to the node / the GPU count / "
        "the experts) at its global batch: those that fit, fastest first, the first `intervals` with their tokens/s "
        "P10-P90.");
}

}  // namespace libscale_py
