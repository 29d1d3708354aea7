// libscale._core.estimate: the vectorized sweep (estimate/sweep.hpp): numpy int64 inputs
// (already broadcast to one shape by the Python layer), numpy outputs allocated here and
// filled in place through SweepOutputs pointers with the GIL released, split across
// threads for large sweeps that report into one Progress; and the configuration issue codes.
#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include <pybind11/numpy.h>

#include "../common.hpp"
#include "../progress.hpp"
#include "libscale/estimate/sweep.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

using IntArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
constexpr int kIssueCount = kConfigIssueCount;
constexpr std::size_t kMinPerThread = 1 << 15;
static_assert(sizeof(bool) == 1, "numpy bool outputs are filled as uint8");

ConfigIssue issue_from_code(int code) {
    if (code < 0 || code >= kIssueCount)
        throw std::invalid_argument("issue code = " + std::to_string(code) + "; valid: 0 to " +
                                    std::to_string(kIssueCount - 1));
    return static_cast<ConfigIssue>(code);
}

// The inputs given, their common shape, and pointers into them.
struct Columns {
    std::vector<py::ssize_t> shape;
    std::size_t n = 1;
    bool have_shape = false;
    std::vector<IntArray> keep;  // keeps converted arrays alive

    const std::int64_t* add(const char* name, const std::optional<IntArray>& a) {
        if (!a) return nullptr;
        std::vector<py::ssize_t> s(a->shape(), a->shape() + a->ndim());
        if (!have_shape) {
            shape = s;
            n = static_cast<std::size_t>(a->size());
            have_shape = true;
        } else if (s != shape) {
            throw std::invalid_argument(std::string(name) + " has shape " + shape_text(s) + ", the other inputs " +
                                        shape_text(shape) +
                                        "; broadcast them to one shape first (libscale.sweep does)");
        }
        keep.push_back(*a);
        return keep.back().data();
    }

    static std::string shape_text(const std::vector<py::ssize_t>& s) {
        std::string out = "(";
        for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
        return out + (s.size() == 1 ? ",)" : ")");
    }
};

py::dict run_sweep(const Scenario& scenario, std::optional<IntArray> gpus, std::optional<IntArray> gpus_per_node,
                   std::optional<IntArray> micro_batch, std::optional<IntArray> seq_len,
                   std::optional<IntArray> global_batch_tokens, int threads, Progress* progress) {
    if (threads < 0)
        throw std::invalid_argument("threads = " + std::to_string(threads) + "; it must be >= 0 (0: auto)");
    Columns cols;
    cols.keep.reserve(5);
    SweepInputs in;
    in.gpus = cols.add("gpus", gpus);
    in.gpus_per_node = cols.add("gpus_per_node", gpus_per_node);
    in.micro_batch = cols.add("micro_batch", micro_batch);
    in.seq_len = cols.add("seq_len", seq_len);
    in.global_batch_tokens = cols.add("global_batch_tokens", global_batch_tokens);
    in.n = cols.n;

    // One numpy column per output the field table marks for sweeps, typed by the field.
    py::dict result;
    SweepOutputs out;
    for (const StepField& f : step_fields()) {
        if ((f.uses & in_sweep) == 0) continue;
        const std::string name(f.name);
        switch (f.type) {
            case FieldType::number: {
                py::array_t<double> a(cols.shape);
                out.add(f.name, a.mutable_data());
                result[name.c_str()] = a;
                break;
            }
            case FieldType::integer: {
                py::array_t<std::int64_t> a(cols.shape);
                out.add(f.name, a.mutable_data());
                result[name.c_str()] = a;
                break;
            }
            case FieldType::boolean: {
                py::array_t<bool> a(cols.shape);
                out.add(f.name, reinterpret_cast<std::uint8_t*>(a.mutable_data()));
                result[name.c_str()] = a;
                break;
            }
        }
    }
    py::array_t<std::uint8_t> issue(cols.shape);
    out.issue = issue.mutable_data();
    result["issue"] = issue;

    run_released(progress, [&] {
        // Validates model, hardware and calibration (throws) before any thread starts.
        sweep(scenario, SweepInputs{}, SweepOutputs{});
        // The whole sweep's total before the chunks start, so each chunk's call leaves it.
        progress_start(progress, in.n);
        std::size_t workers =
            threads > 0 ? static_cast<std::size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
        workers = std::clamp<std::size_t>(std::min(workers, in.n / kMinPerThread), 1, 64);
        const auto chunk = [&](std::size_t begin, std::size_t end) {
            const auto at = [&](auto* p) { return p ? p + begin : p; };
            SweepInputs ci{end - begin,        at(in.gpus),    at(in.gpus_per_node),
                           at(in.micro_batch), at(in.seq_len), at(in.global_batch_tokens)};
            const SweepOutputs co = out.from(begin);
            sweep(scenario, ci, co, progress);
        };
        if (workers == 1) {
            chunk(0, in.n);
        } else {
            std::vector<std::thread> pool;
            std::vector<std::exception_ptr> errors(workers);
            const std::size_t per = (in.n + workers - 1) / workers;
            for (std::size_t w = 0; w < workers; ++w) {
                const std::size_t begin = std::min(in.n, w * per), end = std::min(in.n, begin + per);
                pool.emplace_back([&, w, begin, end] {
                    try {
                        chunk(begin, end);
                    } catch (...) {
                        errors[w] = std::current_exception();
                    }
                });
            }
            for (auto& t : pool) t.join();
            for (auto& e : errors)
                if (e) std::rethrow_exception(e);
        }
    });

    return result;
}

}  // namespace

void register_estimate_sweep(py::module_& m) {
    m.def("sweep", &run_sweep, py::arg("scenario"), py::kw_only(), py::arg("gpus") = py::none(),
          py::arg("gpus_per_node") = py::none(), py::arg("micro_batch") = py::none(), py::arg("seq_len") = py::none(),
          py::arg("global_batch_tokens") = py::none(), py::arg("threads") = 0, py::arg("progress") = nullptr,
          "Estimate one step per element of the given int64 arrays (one common shape; None: the scenario "
          "config's value). Returns a dict of numpy arrays of that shape: each output step_fields() marks "
          "'sweep' (numbers float64, NaN where invalid; integers int64, 0 where invalid; booleans bool), then "
          "issue (uint8 code, 0: valid; see describe_issue). Invalid configurations are flagged, not raised. "
          "threads 0: one per core for large sweeps. progress counts elements.");

    m.def(
        "describe_issue", [](int code) { return std::string(describe(issue_from_code(code))); }, py::arg("code"),
        "What a sweep's issue code means ('ok' for 0).");
    m.def(
        "issue_name", [](int code) { return std::string(to_string(issue_from_code(code))); }, py::arg("code"),
        "Short name of a sweep issue code ('none' for 0).");
    m.attr("ISSUE_COUNT") = kIssueCount;
}

}  // namespace libscale_py
