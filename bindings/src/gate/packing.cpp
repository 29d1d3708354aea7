// libscale._core.gate: sequence packing as trainers do it (gate/packing.hpp) and length
// files (gate/lengths_io.hpp): read_lengths, pack, pack_axolotl_rank,
// distributed_sampler_indices. Lengths come in as numpy arrays (uint32 C-contiguous: no
// copy; other integer dtypes: a checked conversion) and results go out as numpy arrays
// that own the C++ vectors (no copy). Packing runs with the GIL released, reporting to an
// optional Progress (in samples).
#include <optional>
#include <string>

#include "../common.hpp"
#include "../fields.hpp"
#include "../progress.hpp"
#include "lengths.hpp"
#include "libscale/gate/gate_options.hpp"
#include "libscale/gate/lengths_io.hpp"
#include "libscale/gate/packing.hpp"
#include "libscale/io/error.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

std::vector<std::uint32_t> read_lengths_file(const std::string& path, std::string format,
                                             const std::optional<std::string>& dtype, const std::string& field) {
    auto ends_with = [&](const char* suffix) {
        const std::string s(suffix);
        return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
    };
    if (format == "auto") {
        if (ends_with(".npy")) {
            format = "npy";
        } else if (ends_with(".jsonl") || ends_with(".json") || ends_with(".ndjson")) {
            format = "jsonl";
        } else if (dtype) {
            format = "raw";
        } else {
            if (has_npy_magic(path)) {
                format = "npy";
            } else {
                throw std::invalid_argument("path = '" + path +
                                            "': not a .npy or .jsonl file; for raw integers give the dtype "
                                            "(e.g. dtype='uint32', or '>u4' for big-endian)");
            }
        }
    }
    if (dtype && format != "raw")
        throw std::invalid_argument("dtype = '" + *dtype + "' applies only to raw files (format='raw'), not " + format);
    if (format == "npy") return read_lengths_npy(path);
    if (format == "jsonl") return read_lengths_jsonl(path, field);
    if (format == "raw") {
        if (has_npy_magic(path))
            throw std::invalid_argument("path = '" + path + "' is a .npy file, not raw integers: drop the dtype");
        if (!dtype)
            throw std::invalid_argument("path = '" + path +
                                        "': a raw file needs its dtype (uint8, int8, uint16, int16, uint32, int32, "
                                        "uint64, int64, or a numpy code such as '>u4')");
        return read_lengths_raw(path, parse_length_dtype(*dtype));
    }
    throw std::invalid_argument("format = '" + format + "': must be one of auto, npy, raw, jsonl");
}

// A bound PackResult: the C++ PackResult (its CSR bins as numpy arrays, the overflow
// counts, the input tokens), then the packer and seq_len it was packed with and the bins.
struct PyPackResult {
    py::array_t<std::int64_t> offsets;
    py::array_t<std::uint32_t> samples, entry_tokens;
    py::array_t<std::int64_t> bin_tokens;
    OverflowCounts overflow;
    std::int64_t input_tokens = 0;
    std::string packer;
    std::int64_t seq_len = 0;
    std::int64_t num_bins = 0;
    std::string text;  // operator<< of the C++ result
};

PyPackResult to_py(PackResult&& r, const std::string& packer, std::int64_t seq_len) {
    PyPackResult out;
    out.packer = packer;
    out.seq_len = seq_len;
    out.num_bins = r.bins.num_bins();
    out.input_tokens = r.input_tokens;
    out.overflow = r.overflow;
    out.text = repr(r);
    out.offsets = to_numpy(std::move(r.bins.offsets));
    out.samples = to_numpy(std::move(r.bins.samples));
    out.entry_tokens = to_numpy(std::move(r.bins.entry_tokens));
    out.bin_tokens = to_numpy(std::move(r.bins.bin_tokens));
    return out;
}

}  // namespace

void register_gate_packing(py::module_& m) {
    m.def(
        "packer_names",
        [] {
            std::vector<std::string> out;
            // The gate option table's choices: the one list of packer names.
            for (const std::string_view name : find_option(gate_options(), "packer").choices) out.emplace_back(name);
            return out;
        },
        "The packer names pack() and gate() accept, e.g. 'trl_bfd'.");

    m.def(
        "read_lengths",
        [](const std::string& path, const std::string& format, std::optional<std::string> dtype,
           const std::string& field) {
            std::vector<std::uint32_t> v;
            {
                py::gil_scoped_release nogil;
                v = read_lengths_file(path, format, dtype, field);
            }
            return to_numpy(std::move(v));
        },
        py::arg("path"), py::kw_only(), py::arg("format") = "auto", py::arg("dtype") = py::none(),
        py::arg("field") = "length",
        "Per-sample token lengths from a .npy (any integer dtype, either byte order), raw (give dtype) or JSONL "
        "(field) file, as a uint32 numpy array.");

    using O = OverflowCounts;
    py::class_<OverflowCounts> oc(m, "OverflowCounts",
                                  "What happened to samples longer than seq_len, and to samples the trainer drops.");
    const auto overflow_fields =
        fields(field("truncated_samples", &O::truncated_samples),
               field("truncated_tokens", &O::truncated_tokens, "tokens cut off and lost"),
               field("split_samples", &O::split_samples, "samples cut into ≥ 2 pieces (no tokens lost)"),
               field("dropped_samples", &O::dropped_samples,
                     "samples the trainer filters out whole (TRL: 0-token ones; LLaMA-Factory: longer than seq_len)"),
               field("dropped_tokens", &O::dropped_tokens));
    def_fields(oc, overflow_fields, Access::read_only);
    def_value_methods(oc);

    using R = PyPackResult;
    py::class_<PyPackResult>(m, "PackResult",
                             "Bins as CSR: bin b holds entries offsets[b]:offsets[b+1] of samples "
                             "(input index) and entry_tokens, in the trainer's order.")
        .def_readonly("offsets", &R::offsets, "int64, num_bins + 1")
        .def_readonly("samples", &R::samples, "uint32: the input index of each entry")
        .def_readonly("entry_tokens", &R::entry_tokens, "uint32: each entry's tokens after truncation or splitting")
        .def_readonly("bin_tokens", &R::bin_tokens, "int64: tokens per bin")
        .def_readonly("overflow", &R::overflow)
        .def_readonly("input_tokens", &R::input_tokens, "sum of the input lengths")
        .def_readonly("packer", &R::packer)
        .def_readonly("seq_len", &R::seq_len)
        .def_readonly("num_bins", &R::num_bins)
        .def("__len__", [](const R& p) { return p.num_bins; })
        .def("__repr__", [](const R& p) { return p.text; })
        .def(
            "to_dict", [](py::handle self) { return detail::struct_dict(self); }, "Every field, in order.")
        .attr("_fields") = py::make_tuple("offsets", "samples", "entry_tokens", "bin_tokens", "overflow",
                                          "input_tokens", "packer", "seq_len", "num_bins");

    m.def(
        "pack",
        [](const std::string& packer, const py::object& lengths, std::int64_t seq_len, std::int64_t map_batch_size,
           std::int64_t num_proc, Progress* progress) {
            const Packer p = parse_packer(packer);
            LengthsView v = lengths_view(lengths);
            PackResult r =
                run_released(progress, [&] { return pack(p, v.span, seq_len, map_batch_size, num_proc, progress); });
            return to_py(std::move(r), packer, seq_len);
        },
        py::arg("packer"), py::arg("lengths"), py::arg("seq_len"), py::arg("map_batch_size") = 1000,
        py::arg("num_proc") = 1, py::kw_only(), py::arg("progress") = nullptr,
        "Pack lengths as the named trainer does (not axolotl_multipack: see pack_axolotl_rank). progress counts "
        "samples.");

    m.def(
        "pack_axolotl_rank",
        [](const py::object& lengths, py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> indices,
           std::int64_t seq_len) {
            LengthsView v = lengths_view(lengths);
            if (v.span.empty()) throw std::invalid_argument("lengths: empty dataset (0 samples)");
            std::span<const std::int64_t> idx(indices.data(), static_cast<std::size_t>(indices.size()));
            PackResult r;
            {
                py::gil_scoped_release nogil;
                r.bins = pack_axolotl_rank(v.span, idx, seq_len);
            }
            for (auto t : r.bins.entry_tokens) r.input_tokens += t;
            return to_py(std::move(r), "axolotl_multipack", seq_len);
        },
        py::arg("lengths"), py::arg("indices"), py::arg("seq_len"),
        "Axolotl MultipackBatchSampler's bins on one rank, over that rank's sampler indices.");

    m.def(
        "distributed_sampler_indices",
        [](std::int64_t n, std::int64_t world_size, std::int64_t rank, bool shuffle, std::uint64_t seed,
           std::int64_t epoch, bool drop_last) {
            return to_numpy(distributed_sampler_indices(n, world_size, rank, shuffle, seed, epoch, drop_last));
        },
        py::arg("n"), py::arg("world_size"), py::arg("rank"), py::arg("shuffle") = false, py::arg("seed") = 0,
        py::arg("epoch") = 0, py::arg("drop_last") = false,
        "torch DistributedSampler's indices for one rank (shuffled order is libscale's own).");
}

}  // namespace libscale_py
