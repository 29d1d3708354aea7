// Sequence packing and the pre-launch packing gate (packing.hpp, lengths_io.hpp):
// read_lengths, pack, pack_axolotl_rank, distributed_sampler_indices, gate, and the
// helpers behind the equalize-to-minimum remedy. Lengths come in as numpy arrays
// (uint32 C-contiguous: no copy; other integer dtypes: a checked conversion) and results
// go out as numpy arrays that own the C++ vectors (no copy). Packing and gating run with
// the GIL released.
#include <pybind11/numpy.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "common.hpp"
#include "libscale/io/error.hpp"
#include "libscale/gate/lengths_io.hpp"
#include "libscale/gate/packing.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

// A numpy array that takes ownership of `v` (its buffer is not copied).
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
}

// Lengths as a span over numpy memory: the array itself when it is uint32 and
// C-contiguous, else a checked conversion into `storage`.
struct LengthsView {
    py::array keep;  // holds the buffer alive
    std::vector<std::uint32_t> storage;
    std::span<const std::uint32_t> span;
};

[[noreturn]] void bad_length(py::ssize_t i, const std::string& v, const char* why) {
    throw std::invalid_argument("lengths[" + std::to_string(i) + "] = " + v + ": " + why);
}

LengthsView lengths_view(const py::handle& obj) {
    LengthsView out;
    py::array a = py::array::ensure(obj);
    if (!a) throw py::type_error("lengths: expected a 1-D numpy array (or sequence) of integers");
    if (a.ndim() != 1)
        throw std::invalid_argument("lengths: expected a 1-D array, got " + std::to_string(a.ndim()) +
                                    " dimensions");
    const char kind = a.dtype().kind();
    if (a.size() > 0 && kind != 'i' && kind != 'u')
        throw py::type_error("lengths: dtype " + std::string(py::str(a.dtype())) +
                             " is not an integer dtype (token counts must be integers)");
    if (kind == 'u' && a.itemsize() == 4 && (a.flags() & py::array::c_style) &&
        a.dtype().byteorder() != '>') {
        out.keep = a;
        out.span = {static_cast<const std::uint32_t*>(a.data()), static_cast<std::size_t>(a.size())};
    } else if (kind == 'u' && a.itemsize() == 8) {
        auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
        out.storage.resize(static_cast<std::size_t>(u.size()));
        const auto* d = u.data();
        for (py::ssize_t i = 0; i < u.size(); ++i) {
            if (d[i] > std::numeric_limits<std::uint32_t>::max())
                bad_length(i, std::to_string(d[i]), "longer than 4294967295 tokens");
            out.storage[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(d[i]);
        }
        out.span = out.storage;
    } else {
        auto s = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
        if (!s) throw py::error_already_set();
        out.storage.resize(static_cast<std::size_t>(s.size()));
        const auto* d = s.data();
        for (py::ssize_t i = 0; i < s.size(); ++i) {
            if (d[i] < 0) bad_length(i, std::to_string(d[i]), "negative length");
            if (d[i] > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
                bad_length(i, std::to_string(d[i]), "longer than 4294967295 tokens");
            out.storage[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(d[i]);
        }
        out.span = out.storage;
    }
    for (std::size_t i = 0; i < out.span.size(); ++i)
        if (out.span[i] == 0)
            bad_length(static_cast<py::ssize_t>(i), "0", "every sample must have at least 1 token");
    return out;
}

std::vector<std::uint32_t> read_lengths_file(const std::string& path, std::string format,
                                             const std::optional<std::string>& dtype,
                                             const std::string& field) {
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
            std::ifstream f(path, std::ios::binary);
            if (!f) throw std::invalid_argument("path = '" + path + "': cannot open the file");
            char magic[6] = {};
            f.read(magic, 6);
            if (f.gcount() == 6 && std::string(magic, 6) == "\x93NUMPY") {
                format = "npy";
            } else {
                throw std::invalid_argument(
                    "path = '" + path +
                    "': not a .npy or .jsonl file; for raw little-endian integers give the dtype "
                    "(e.g. dtype='uint32')");
            }
        }
    }
    if (dtype && format != "raw")
        throw std::invalid_argument("dtype = '" + *dtype + "' applies only to raw files (format='raw'), not " +
                                    format);
    if (format == "npy") return read_lengths_npy(path);
    if (format == "jsonl") return read_lengths_jsonl(path, field);
    if (format == "raw") {
        std::ifstream f(path, std::ios::binary);
        char magic[6] = {};
        if (f && f.read(magic, 6) && std::string(magic, 6) == "\x93NUMPY")
            throw std::invalid_argument("path = '" + path +
                                        "' is a .npy file, not raw integers: drop the dtype");
        if (!dtype)
            throw std::invalid_argument("path = '" + path +
                                        "': a raw file needs its dtype (uint16, uint32, uint64, int32, int64)");
        return read_lengths_raw(path, parse_length_dtype(*dtype));
    }
    throw std::invalid_argument("format = '" + format + "': must be one of auto, npy, raw, jsonl");
}

// A bound PackResult: the CSR bins as numpy arrays.
struct PyPackResult {
    std::string packer;
    std::int64_t seq_len = 0;
    std::int64_t num_bins = 0;
    std::int64_t input_tokens = 0;
    OverflowCounts overflow;
    py::array offsets, samples, entry_tokens, bin_tokens;
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

// A bound gate verdict: GateResult plus the configuration it judged.
struct PyGate {
    GateResult r;
    GateConfig c;
};

StepRounding parse_rounding(const std::string& s) {
    if (s == "ceil") return StepRounding::ceil;
    if (s == "floor") return StepRounding::floor;
    throw std::invalid_argument("step_rounding = '" + s + "': must be ceil or floor");
}

template <class F>
py::array_t<F> rank_column(const GateResult& g, F RankReport::*field) {
    py::array_t<F> a(static_cast<py::ssize_t>(g.ranks.size()));
    auto* d = a.mutable_data();
    for (std::size_t i = 0; i < g.ranks.size(); ++i) d[i] = g.ranks[i].*field;
    return a;
}

std::vector<std::vector<std::int64_t>> rank_bins_from_py(const py::sequence& seq) {
    std::vector<std::vector<std::int64_t>> out;
    for (const auto& item : seq) {
        auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(item);
        if (!a || a.ndim() != 1) throw std::invalid_argument("rank_bin_tokens: each rank must be a 1-D array");
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

void register_packing(py::module_& m) {
    py::class_<GateConfig>(m, "GateConfig", "How the trainer packs, shards and steps: what the gate simulates.")
        .def(py::init([](const std::string& packer, std::int64_t seq_len, std::int64_t world_size,
                         std::int64_t micro_batch, std::int64_t grad_accum, bool shuffle, std::uint64_t seed,
                         std::int64_t epoch, bool sampler_drop_last, bool dataloader_drop_last,
                         const std::string& step_rounding, std::int64_t map_batch_size, std::int64_t num_proc,
                         double watchdog_s, bool runtime_equalize, bool shard_before_packing) {
                 GateConfig c;
                 c.packer = parse_packer(packer);
                 c.seq_len = seq_len;
                 c.world_size = world_size;
                 c.micro_batch = micro_batch;
                 c.grad_accum = grad_accum;
                 c.shuffle = shuffle;
                 c.seed = seed;
                 c.epoch = epoch;
                 c.sampler_drop_last = sampler_drop_last;
                 c.dataloader_drop_last = dataloader_drop_last;
                 c.step_rounding = parse_rounding(step_rounding);
                 c.map_batch_size = map_batch_size;
                 c.num_proc = num_proc;
                 c.watchdog_s = watchdog_s;
                 c.runtime_equalize = runtime_equalize;
                 c.shard_before_packing = shard_before_packing;
                 validate(c);
                 return c;
             }),
             py::kw_only(), py::arg("packer"), py::arg("seq_len"), py::arg("world_size"), py::arg("micro_batch") = 1,
             py::arg("grad_accum") = 1, py::arg("shuffle") = false, py::arg("seed") = 0, py::arg("epoch") = 0,
             py::arg("sampler_drop_last") = false, py::arg("dataloader_drop_last") = false,
             py::arg("step_rounding") = "ceil", py::arg("map_batch_size") = 1000, py::arg("num_proc") = 1,
             py::arg("watchdog_s") = kNcclDefaultTimeoutS, py::arg("runtime_equalize") = true,
             py::arg("shard_before_packing") = false)
        .def_property_readonly("packer", [](const GateConfig& c) { return std::string(to_string(c.packer)); })
        .def_readonly("seq_len", &GateConfig::seq_len)
        .def_readonly("world_size", &GateConfig::world_size)
        .def_readonly("micro_batch", &GateConfig::micro_batch)
        .def_readonly("grad_accum", &GateConfig::grad_accum)
        .def_readonly("shuffle", &GateConfig::shuffle)
        .def_readonly("seed", &GateConfig::seed)
        .def_readonly("epoch", &GateConfig::epoch)
        .def_readonly("sampler_drop_last", &GateConfig::sampler_drop_last)
        .def_readonly("dataloader_drop_last", &GateConfig::dataloader_drop_last)
        .def_property_readonly("step_rounding", [](const GateConfig& c) {
            return std::string(c.step_rounding == StepRounding::ceil ? "ceil" : "floor");
        })
        .def_readonly("map_batch_size", &GateConfig::map_batch_size)
        .def_readonly("num_proc", &GateConfig::num_proc)
        .def_readonly("watchdog_s", &GateConfig::watchdog_s)
        .def_readonly("runtime_equalize", &GateConfig::runtime_equalize)
        .def_readonly("shard_before_packing", &GateConfig::shard_before_packing)
        .def("__repr__", [](const GateConfig& c) {
            std::ostringstream os;
            os << "GateConfig(packer='" << to_string(c.packer) << "', seq_len=" << c.seq_len
               << ", world_size=" << c.world_size << ", micro_batch=" << c.micro_batch << ", grad_accum=" << c.grad_accum
               << (c.shuffle ? ", shuffle seed " + std::to_string(c.seed) : std::string()) << ", "
               << (c.shard_before_packing ? "packed per rank" : "packed, then sharded") << ")";
            return os.str();
        });
    m.def("packer_names", [] {
        std::vector<std::string> out;
        for (Packer p : {Packer::trl_bfd, Packer::trl_bfd_split, Packer::trl_wrapped, Packer::nemo_ffd,
                         Packer::torchtune, Packer::torchtune_split, Packer::llamafactory,
                         Packer::axolotl_multipack, Packer::none})
            out.emplace_back(to_string(p));
        return out;
    }, "The packer names pack() and gate() accept, e.g. 'trl_bfd'.");
    m.attr("NCCL_DEFAULT_TIMEOUT_S") = kNcclDefaultTimeoutS;

    m.def("read_lengths",
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
          "Per-sample token lengths from a .npy, raw little-endian (give dtype) or JSONL (field) "
          "file, as a uint32 numpy array.");

    py::class_<OverflowCounts> oc(m, "OverflowCounts", "What happened to samples longer than seq_len.");
    oc.def_readonly("truncated_samples", &OverflowCounts::truncated_samples)
        .def_readonly("truncated_tokens", &OverflowCounts::truncated_tokens)
        .def_readonly("split_samples", &OverflowCounts::split_samples)
        .def_readonly("dropped_samples", &OverflowCounts::dropped_samples)
        .def_readonly("dropped_tokens", &OverflowCounts::dropped_tokens);
    oc.def("to_dict", [](const OverflowCounts& o) {
        py::dict d;
        d["truncated_samples"] = o.truncated_samples;
        d["truncated_tokens"] = o.truncated_tokens;
        d["split_samples"] = o.split_samples;
        d["dropped_samples"] = o.dropped_samples;
        d["dropped_tokens"] = o.dropped_tokens;
        return d;
    });
    def_value_methods(oc);

    py::class_<PyPackResult>(m, "PackResult",
                             "Bins as CSR: bin b holds entries offsets[b]:offsets[b+1] of samples "
                             "(input index) and entry_tokens, in the trainer's order.")
        .def_readonly("packer", &PyPackResult::packer)
        .def_readonly("seq_len", &PyPackResult::seq_len)
        .def_readonly("num_bins", &PyPackResult::num_bins)
        .def_readonly("input_tokens", &PyPackResult::input_tokens)
        .def_readonly("overflow", &PyPackResult::overflow)
        .def_readonly("offsets", &PyPackResult::offsets)
        .def_readonly("samples", &PyPackResult::samples)
        .def_readonly("entry_tokens", &PyPackResult::entry_tokens)
        .def_readonly("bin_tokens", &PyPackResult::bin_tokens)
        .def("__len__", [](const PyPackResult& p) { return p.num_bins; })
        .def("__repr__", [](const PyPackResult& p) { return p.text; });

    m.def("pack",
          [](const py::object& lengths, const std::string& packer, std::int64_t seq_len,
             std::int64_t map_batch_size, std::int64_t num_proc) {
              const Packer p = parse_packer(packer);
              LengthsView v = lengths_view(lengths);
              PackResult r;
              {
                  py::gil_scoped_release nogil;
                  r = pack(p, v.span, seq_len, map_batch_size, num_proc);
              }
              return to_py(std::move(r), packer, seq_len);
          },
          py::arg("lengths"), py::arg("packer"), py::arg("seq_len"), py::kw_only(),
          py::arg("map_batch_size") = 1000, py::arg("num_proc") = 1,
          "Pack lengths as the named trainer does (not axolotl_multipack: see pack_axolotl_rank).");

    m.def("pack_axolotl_rank",
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

    m.def("distributed_sampler_indices",
          [](std::int64_t n, std::int64_t world_size, std::int64_t rank, bool shuffle, std::uint64_t seed,
             std::int64_t epoch, bool drop_last) {
              return to_numpy(distributed_sampler_indices(n, world_size, rank, shuffle, seed, epoch, drop_last));
          },
          py::arg("n"), py::arg("world_size"), py::arg("rank"), py::kw_only(), py::arg("shuffle") = false,
          py::arg("seed") = 0, py::arg("epoch") = 0, py::arg("drop_last") = false,
          "torch DistributedSampler's indices for one rank (shuffled order is libscale's own).");

    py::class_<PyGate>(m, "GateResult", "The packing gate's verdict (libscale.gate).")
        .def_property_readonly("passed", [](const PyGate& g) { return g.r.pass; })
        .def_property_readonly("verdict", [](const PyGate& g) { return g.r.verdict(); })
        .def_property_readonly("packer", [](const PyGate& g) { return std::string(to_string(g.c.packer)); })
        .def_property_readonly("seq_len", [](const PyGate& g) { return g.c.seq_len; })
        .def_property_readonly("world_size", [](const PyGate& g) { return g.c.world_size; })
        .def_property_readonly("micro_batch", [](const PyGate& g) { return g.c.micro_batch; })
        .def_property_readonly("grad_accum", [](const PyGate& g) { return g.c.grad_accum; })
        .def_property_readonly("shuffle", [](const PyGate& g) { return g.c.shuffle; })
        .def_property_readonly("seed", [](const PyGate& g) { return g.c.seed; })
        .def_property_readonly("sampler_drop_last", [](const PyGate& g) { return g.c.sampler_drop_last; })
        .def_property_readonly("watchdog_s", [](const PyGate& g) { return g.c.watchdog_s; })
        .def_property_readonly("rank", [](const PyGate& g) { return rank_column(g.r, &RankReport::rank); })
        .def_property_readonly("sequences",
                               [](const PyGate& g) { return rank_column(g.r, &RankReport::packed_sequences); })
        .def_property_readonly("micro_batches",
                               [](const PyGate& g) { return rank_column(g.r, &RankReport::micro_batches); })
        .def_property_readonly("optimizer_steps",
                               [](const PyGate& g) { return rank_column(g.r, &RankReport::optimizer_steps); })
        .def_property_readonly("tokens", [](const PyGate& g) { return rank_column(g.r, &RankReport::tokens); })
        .def_property_readonly("padding_efficiency",
                               [](const PyGate& g) { return rank_column(g.r, &RankReport::padding_efficiency); })
        .def_property_readonly("min_rank", [](const PyGate& g) { return g.r.min_rank; })
        .def_property_readonly("max_rank", [](const PyGate& g) { return g.r.max_rank; })
        .def_property_readonly("min_micro_batches", [](const PyGate& g) { return g.r.min_micro_batches; })
        .def_property_readonly("max_micro_batches", [](const PyGate& g) { return g.r.max_micro_batches; })
        .def_property_readonly("difference", [](const PyGate& g) { return g.r.difference; })
        .def_property_readonly("trainer_equalizes", [](const PyGate& g) { return g.r.trainer_equalizes; })
        .def_property_readonly("micro_batches_dropped", [](const PyGate& g) { return g.r.micro_batches_dropped; })
        .def_property_readonly("steps_dropped", [](const PyGate& g) { return g.r.optimizer_steps_dropped; },
                               "optimizer steps the remedy drops, summed over ranks")
        .def_property_readonly("tokens_dropped", [](const PyGate& g) { return g.r.tokens_dropped; })
        .def_property_readonly("total_tokens", [](const PyGate& g) { return g.r.total_tokens; })
        .def_property_readonly("tokens_dropped_pct", [](const PyGate& g) { return g.r.tokens_dropped_pct; })
        .def_property_readonly("global_bins", [](const PyGate& g) { return g.r.global_bins; })
        .def_property_readonly("overflow", [](const PyGate& g) { return g.r.overflow; })
        .def_property_readonly("hang_cost_gpu_hours", [](const PyGate& g) { return g.r.hang_cost_gpu_hours; })
        .def_property_readonly("cost_at_risk_gpu_hours",
                               [](const PyGate& g) { return g.r.cost_at_risk_gpu_hours; })
        .def_property_readonly("gpu_hours_saved",
                               [](const PyGate& g) { return g.r.cost_at_risk_gpu_hours; },
                               "GPU-hours the gate saved by catching the hang before launch (0 on PASS)")
        .def("__bool__", [](const PyGate& g) { return g.r.pass; })
        .def("__repr__", [](const PyGate& g) { return repr(g.r); });

    m.def("gate",
          [](const py::object& lengths, const GateConfig& config) {
              PyGate g;
              g.c = config;
              LengthsView v = lengths_view(lengths);
              {
                  py::gil_scoped_release nogil;
                  g.r = run_gate(v.span, g.c);
              }
              return g;
          },
          py::arg("lengths"), py::arg("config"), "Pack, shard and judge: the pre-launch packing gate.");

    m.def("shard_and_pack",
          [](const py::object& lengths, const GateConfig& config) {
              LengthsView v = lengths_view(lengths);
              RankBins rb;
              {
                  py::gil_scoped_release nogil;
                  rb = shard_and_pack(v.span, config);
              }
              return rank_bins_to_py(std::move(rb.rank_bin_tokens));
          },
          py::arg("lengths"), py::arg("config"),
          "Per rank, the tokens of each packed row in the order the trainer feeds them.");

    m.def("equalize_to_minimum",
          [](const py::sequence& rank_bin_tokens, const GateConfig& config) {
              return rank_bins_to_py(equalize_to_minimum(rank_bins_from_py(rank_bin_tokens), config));
          },
          py::arg("rank_bin_tokens"), py::arg("config"),
          "The remedy applied: every rank keeps its first min(micro-batches) × micro_batch rows.");

    m.def("judge",
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
