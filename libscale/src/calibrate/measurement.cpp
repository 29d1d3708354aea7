#include "libscale/calibrate/measurement.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <variant>

#include "libscale/io/error.hpp"
#include "libscale/io/json_io.hpp"

namespace libscale {

using nlohmann::json;

namespace {

// Contradictory duplicates: the same configuration measured more than this factor apart
// is a mislabelled record, not noise (run-to-run spread is a few percent).
constexpr double kContradictionFactor = 1.5;

const char* const kPhases[] = {"compute", "communication", "data_starvation", "checkpoint_or_deadlock", "idle"};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

// Reads the fields of one record; every error names origin, record index and field.
class Record {
public:
    Record(const json& j, std::string_view origin, std::size_t index) : j_(j) {
        std::ostringstream p;
        p << origin << ": record " << index;
        prefix_ = p.str();
        if (!j.is_object()) fail("expected a JSON object, got " + j.dump());
    }
    [[noreturn]] void fail(const std::string& what) const { throw ParseError(prefix_ + ": " + what); }
    [[noreturn]] void bad(const std::string& field, const json& v, const char* expected) const {
        fail("field '" + field + "' = " + v.dump() + "; expected " + expected);
    }
    bool has(const char* field) const {
        const auto it = j_.find(field);
        return it != j_.end() && !it->is_null();
    }
    const json& need(const char* field) const {
        if (!has(field)) fail(std::string("missing field '") + field + "'");
        return j_.at(field);
    }
    std::string str(const char* field) const {
        const json& v = need(field);
        if (!v.is_string() || v.get<std::string>().empty()) bad(field, v, "a non-empty string");
        return v.get<std::string>();
    }
    std::string str_or(const char* field, const std::string& fallback) const {
        return has(field) ? str(field) : fallback;
    }
    // A finite number > 0 (times, sizes, throughputs: zero or negative is a broken record).
    double positive(const char* field) const {
        const json& v = need(field);
        if (!v.is_number()) bad(field, v, "a number");
        const double x = v.get<double>();
        if (!std::isfinite(x)) fail(std::string("field '") + field + "' is not finite (NaN or infinity)");
        if (!(x > 0)) bad(field, v, "a number > 0");
        return x;
    }
    // Integers may arrive as 8.0 from CSV-to-JSON tools; anything fractional is an error.
    std::int64_t integer(const char* field, std::int64_t min) const {
        const json& v = need(field);
        if (v.is_number_integer()) {
            if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
                bad(field, v, "a smaller integer");
            const auto x = v.get<std::int64_t>();
            if (x < min) bad(field, v, min == 0 ? "an integer >= 0" : "an integer >= 1");
            return x;
        }
        if (v.is_number_float()) {
            const double x = v.get<double>();
            if (std::isfinite(x) && x == std::floor(x) && std::abs(x) < 9e15 && x >= static_cast<double>(min))
                return static_cast<std::int64_t>(x);
        }
        bad(field, v, min == 0 ? "an integer >= 0" : "an integer >= 1");
    }
    std::int64_t integer_or(const char* field, std::int64_t fallback, std::int64_t min) const {
        return has(field) ? integer(field, min) : fallback;
    }
    bool boolean_or(const char* field, bool fallback) const {
        if (!has(field)) return fallback;
        const json& v = j_.at(field);
        if (!v.is_boolean()) bad(field, v, "true or false");
        return v.get<bool>();
    }
    template <class F>
    auto parsed(const char* field, const std::string& fallback, F parse) const {
        const std::string s = str_or(field, fallback);
        try {
            return parse(s);
        } catch (const std::invalid_argument& e) {
            fail(std::string("field '") + field + "': " + e.what());
        }
    }

    // One option of a table by its name (absent or null: the struct keeps its default),
    // checked by the table as every front end checks it.
    template <class T>
    void option(const OptionTable<T>& table, T& target, const Option<T>& o) const {
        const std::string name(o.name);
        if (!has(name.c_str())) return;
        const json& v = j_.at(name);
        OptionValue value;
        if (v.is_boolean()) value = v.get<bool>();
        else if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            bad(name, v, "a smaller integer");
        else if (v.is_number_integer()) value = v.get<std::int64_t>();
        else if (v.is_number_float()) value = v.get<double>();
        else if (v.is_string()) value = v.get<std::string>();
        else bad(name, v, "a number, true / false or a string");
        try {
            o.set(target, check_option(table, o, value));
        } catch (const std::invalid_argument& e) {
            fail("field '" + name + "': " + e.what());
        }
    }

private:
    const json& j_;
    std::string prefix_;
};

GemmRun parse_gemm(const Record& r) {
    if (!r.has("m") && r.has("tokens") && r.has("flops"))
        r.fail(
            "a GEMM-chain record (tokens, flops) of libscale.measurements/1 has no shape, and the per-operation "
            "model times each GEMM by its shape; give m, n, k (libscale.measurements/2)");
    GemmRun g;
    g.hardware = r.str("hardware");
    g.m = r.positive("m");
    g.n = r.positive("n");
    g.k = r.positive("k");
    const std::string dtype = r.str_or("dtype", "bf16");
    if (dtype != "bf16" && dtype != "fp8") r.bad("dtype", dtype, "\"bf16\" or \"fp8\"");
    g.fp8 = dtype == "fp8";
    g.seconds = r.positive("seconds");
    return g;
}

AttentionRun parse_attention(const Record& r, AttentionKernel file_kernel) {
    AttentionRun a;
    a.kernel = file_kernel;
    if (r.has("kernel")) {
        const std::string k = r.str("kernel");
        try {
            a.kernel = parse_attention_kernel(k);
        } catch (const std::invalid_argument& e) {
            r.fail(std::string("field 'kernel': ") + e.what());  // as Record::option words a choice's error
        }
    }
    a.hardware = r.str("hardware");
    a.batch = r.positive("batch");
    a.seq_len = r.positive("seq_len");
    a.heads = r.positive("heads");
    a.head_dim = r.positive("head_dim");
    a.causal = r.boolean_or("causal", true);
    const std::string pass = r.str("pass");
    if (pass != "forward" && pass != "backward") r.bad("pass", pass, "\"forward\" or \"backward\"");
    a.backward = pass == "backward";
    a.seconds = r.positive("seconds");
    return a;
}

BandwidthRun parse_bandwidth(const Record& r) {
    BandwidthRun b;
    b.hardware = r.str("hardware");
    b.bytes = r.positive("bytes");
    b.seconds = r.positive("seconds");
    return b;
}

CollectiveRun parse_collective_run(const Record& r) {
    CollectiveRun c;
    c.hardware = r.str("hardware");
    c.op = r.parsed("op", r.str("op"), [](const std::string& s) { return parse_collective(s); });
    c.ranks = r.integer("ranks", 1);
    // A ring over one rank moves nothing: its time is launch overhead, not α or B.
    if (c.ranks < 2) r.bad("ranks", c.ranks, "an integer >= 2 (a collective over one rank moves nothing)");
    c.ranks_per_node = r.integer_or("ranks_per_node", c.ranks, 1);
    c.bytes = r.positive("bytes");
    c.seconds = r.positive("seconds");
    return c;
}

StepRun parse_step(const Record& r) {
    StepRun s;
    s.model = r.str("model");
    s.hardware = r.str("hardware");
    TrainingConfig& c = s.config;
    c.gpus = r.integer("gpus", 1);
    c.gpus_per_node = r.integer_or("gpus_per_node", 0, 0);
    c.seq_len = r.integer("seq_len", 1);
    c.micro_batch = r.integer("micro_batch", 1);
    for (const auto& o : training_options().options)
        if (!is_batch_option(o.name)) r.option(training_options(), c, o);
    // Ranks with distinct micro-batches: the GPUs over the tensor- and context-parallel ones.
    const std::int64_t model_parallel = c.tensor_parallel * c.context_parallel;
    if (c.gpus % model_parallel != 0)
        r.fail("field 'gpus' = " + std::to_string(c.gpus) +
               " is not a multiple of tensor_parallel × context_parallel = " + std::to_string(model_parallel));
    const std::int64_t dp = data_parallel_size(c);
    const char* unit =
        model_parallel == 1 ? "gpus × micro_batch × seq_len" : "data-parallel ranks × micro_batch × seq_len";
    const double per_accum =
        static_cast<double>(dp) * static_cast<double>(c.micro_batch) * static_cast<double>(c.seq_len);
    if (per_accum > 9e15) r.fail(std::string(unit) + " overflows a token count");
    const std::int64_t tokens_per_accum = dp * c.micro_batch * c.seq_len;
    if (r.has("global_batch_tokens")) {
        c.global_batch_tokens = r.integer("global_batch_tokens", 1);
        if (c.global_batch_tokens % tokens_per_accum != 0)
            r.fail("field 'global_batch_tokens' = " + std::to_string(c.global_batch_tokens) +
                   "; expected a multiple of " + unit + " = " + std::to_string(tokens_per_accum));
        if (r.has("grad_accum") && r.integer("grad_accum", 1) * tokens_per_accum != c.global_batch_tokens)
            r.fail(std::string("fields 'grad_accum' and 'global_batch_tokens' disagree: ") + unit +
                   " × grad_accum = " + std::to_string(r.integer("grad_accum", 1) * tokens_per_accum) + " tokens");
    } else {
        const std::int64_t accum = r.integer_or("grad_accum", 1, 1);
        if (static_cast<double>(accum) * per_accum > 9e15) r.fail("field 'grad_accum': the global batch overflows");
        c.global_batch_tokens = accum * tokens_per_accum;
    }
    if (r.has("model_overrides")) {
        const json& o = r.need("model_overrides");
        if (!o.is_object()) r.bad("model_overrides", o, "an object of config.json keys and values");
        s.model_overrides = o;
    }
    if (r.has("memory_gib")) {
        s.memory_gib = r.positive("memory_gib");
        s.memory_kind = r.str_or("memory_kind", "reserved");
        if (s.memory_kind != "reserved" && s.memory_kind != "allocated" && s.memory_kind != "active" &&
            s.memory_kind != "nvidia-smi")
            r.bad("memory_kind", s.memory_kind, "reserved, allocated, active or nvidia-smi");
    }
    if (r.has("memory_reserved_gib")) {
        s.memory_reserved_gib = r.positive("memory_reserved_gib");
        // The caching allocator's reserved segments hold every allocated tensor.
        if ((s.memory_kind == "allocated" || s.memory_kind == "active") && s.memory_reserved_gib < s.memory_gib)
            r.bad("memory_reserved_gib", s.memory_reserved_gib,
                  "a peak at least the allocated memory_gib (max_memory_reserved >= max_memory_allocated)");
    }
    if (r.has("reported_mfu")) s.reported_mfu = r.positive("reported_mfu");
    if (r.has("relative_error")) {
        s.relative_error = r.positive("relative_error");
        if (s.relative_error > 1 || s.relative_error < kMinRelativeError)
            r.bad("relative_error", r.need("relative_error"), "a relative error in [0.001, 1]");
    }
    s.series = r.str_or("series", "");
    s.validation_exclude = r.str_or("validation_exclude", "");

    const char* given[3];
    int count = 0;
    for (const char* f : {"step_time_s", "tokens_per_s", "tokens_per_s_per_gpu"})
        if (r.has(f)) given[count++] = f;
    if (count != 1)
        r.fail(count == 0 ? "missing field: give one of 'step_time_s', 'tokens_per_s', 'tokens_per_s_per_gpu'"
                          : std::string("fields '") + given[0] + "' and '" + given[1] +
                                "' both given; give exactly one of step_time_s, tokens_per_s, tokens_per_s_per_gpu");
    const double tokens = static_cast<double>(c.global_batch_tokens);
    const double v = r.positive(given[0]);
    if (given[0] == std::string("step_time_s")) s.step_time_s = v;
    else if (given[0] == std::string("tokens_per_s")) s.step_time_s = tokens / v;
    else s.step_time_s = tokens / (v * static_cast<double>(c.gpus));
    // A throughput that makes a step shorter than a kernel launch (~5 µs) or longer than a
    // run is a unit mistake or a corrupt log, not a measurement; fitted, it would drive the
    // efficiencies to their bounds and write a calibration that predicts nothing.
    constexpr double kMinStepS = 1e-5, kMaxStepS = 1e7;
    if (!(s.step_time_s >= kMinStepS && s.step_time_s <= kMaxStepS)) {
        std::ostringstream valid;
        valid << "a value giving a step time of 1e-05 to 1e+07 s (this gives " << s.step_time_s << " s for "
              << c.global_batch_tokens << " tokens per step on " << c.gpus << " GPUs)";
        r.bad(given[0], r.need(given[0]), valid.str().c_str());
    }
    s.source = r.str_or("source", "");
    return s;
}

// A step record of the model cut to `layers` decoder layers (at most the model's), timed
// by the harness.
StepRun parse_microrun(const Record& r) {
    StepRun s = parse_step(r);
    s.layers = r.integer("layers", 1);
    if (s.config.global_batch_tokens != data_parallel_size(s.config) * s.config.micro_batch * s.config.seq_len)
        r.fail("a step micro-run runs one micro-batch per GPU: give no grad_accum, or grad_accum = 1");
    return s;
}

PowerRecord parse_power(const Record& r) {
    PowerRecord p;
    p.hardware = r.str("hardware");
    p.phase = r.str("phase");
    if (std::find(std::begin(kPhases), std::end(kPhases), p.phase) == std::end(kPhases))
        r.bad("phase", p.phase, "compute, communication, data_starvation, checkpoint_or_deadlock or idle");
    p.watts = r.positive("watts");
    if (r.has("utilization_pct")) {
        const json& v = r.need("utilization_pct");
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 100))
            r.bad("utilization_pct", v, "a percentage in [0, 100]");
        p.utilization_pct = v.get<double>();
    }
    return p;
}

// Same configuration measured with times more than kContradictionFactor apart.
template <class Key>
class DuplicateCheck {
public:
    void add(const Key& key, double seconds, std::size_t index, std::string_view origin) {
        auto [it, inserted] = seen_.try_emplace(key, Entry{seconds, index, seconds, index});
        if (inserted) return;
        Entry& e = it->second;
        if (seconds < e.lo) {
            e.lo = seconds;
            e.lo_index = index;
        }
        if (seconds > e.hi) {
            e.hi = seconds;
            e.hi_index = index;
        }
        if (e.hi > kContradictionFactor * e.lo) {
            std::ostringstream msg;
            msg << origin << ": record " << std::max(e.lo_index, e.hi_index) << " contradicts record "
                << std::min(e.lo_index, e.hi_index) << ": same configuration, times " << e.lo << " s and " << e.hi
                << " s differ by more than a factor " << kContradictionFactor << " (field 'seconds' / 'step_time_s')";
            throw ParseError(msg.str());
        }
    }

private:
    struct Entry {
        double lo;
        std::size_t lo_index;
        double hi;
        std::size_t hi_index;
    };
    std::map<Key, Entry> seen_;
};

}  // namespace

MeasurementSet measurements_from_json(const json& j, std::string_view origin) {
    const json* records = &j;
    if (j.is_object()) {
        const auto schema = j.find("schema");
        if (schema == j.end()) throw ParseError(std::string(origin) + ": missing field 'schema'");
        if (!schema->is_string() || (schema->get<std::string>() != kMeasurementSchema &&
                                     schema->get<std::string>() != "libscale.measurements/1"))
            throw ParseError(std::string(origin) + ": unknown schema version " + schema->dump() + "; expected \"" +
                             kMeasurementSchema + "\" (or \"libscale.measurements/1\")");
        const auto it = j.find("records");
        if (it == j.end()) throw ParseError(std::string(origin) + ": missing field 'records'");
        records = &*it;
    }
    if (!records->is_array())
        throw ParseError(std::string(origin) + ": expected a list of measurement records or {\"schema\": \"" +
                         kMeasurementSchema + "\", \"records\": [...]}");

    // Attention records without a "kernel" (the harness wrote none before it named it):
    // the CUDA backend has only ever timed cuDNN's fused attention
    // (calibration/cuda/attention_cudnn.cpp), so its files default to cudnn; any other
    // file to FlashAttention-2, the law of the published charts.
    AttentionKernel file_kernel = AttentionKernel::flash2;
    if (j.is_object())
        if (const auto p = j.find("provenance"); p != j.end() && p->is_object())
            if (const auto b = p->find("backend"); b != p->end() && b->is_string() && b->get<std::string>() == "cuda")
                file_kernel = AttentionKernel::cudnn;
    MeasurementSet m;
    DuplicateCheck<std::tuple<std::string, double, double, double, bool>> gemm_dups;
    DuplicateCheck<std::tuple<std::string, double, double, double, double, bool, bool, int>> attention_dups;
    DuplicateCheck<std::tuple<std::string, double>> bandwidth_dups;
    DuplicateCheck<std::tuple<std::string, int, std::int64_t, std::int64_t, double>> coll_dups;
    DuplicateCheck<std::string> step_dups;
    for (std::size_t i = 0; i < records->size(); ++i) {
        const Record r((*records)[i], origin, i);
        const std::string kind = r.str("kind");
        if (kind == "gemm") {
            m.gemm.push_back(parse_gemm(r));
            const GemmRun& g = m.gemm.back();
            gemm_dups.add({lower(g.hardware), g.m, g.n, g.k, g.fp8}, g.seconds, i, origin);
        } else if (kind == "attention") {
            m.attention.push_back(parse_attention(r, file_kernel));
            const AttentionRun& a = m.attention.back();
            attention_dups.add({lower(a.hardware), a.batch, a.seq_len, a.heads, a.head_dim, a.causal, a.backward,
                                static_cast<int>(a.kernel)},
                               a.seconds, i, origin);
        } else if (kind == "bandwidth") {
            m.bandwidth.push_back(parse_bandwidth(r));
            const BandwidthRun& b = m.bandwidth.back();
            bandwidth_dups.add({lower(b.hardware), b.bytes}, b.seconds, i, origin);
        } else if (kind == "collective") {
            m.collectives.push_back(parse_collective_run(r));
            const CollectiveRun& c = m.collectives.back();
            coll_dups.add({lower(c.hardware), static_cast<int>(c.op), c.ranks, c.ranks_per_node, c.bytes}, c.seconds, i,
                          origin);
        } else if (kind == "step") {
            m.steps.push_back(parse_step(r));
            const StepRun& s = m.steps.back();
            std::ostringstream key;
            key << lower(s.model) << '|' << s.model_overrides.dump() << '|' << lower(s.hardware) << '|' << s.config;
            step_dups.add(key.str(), s.step_time_s, i, origin);
        } else if (kind == "step_microrun") {
            m.microruns.push_back(parse_microrun(r));
        } else if (kind == "power") {
            m.power.push_back(parse_power(r));
        } else {
            r.bad("kind", kind,
                  "\"gemm\", \"attention\", \"bandwidth\", \"collective\", \"step\", \"step_microrun\" or "
                  "\"power\"");
        }
    }
    return m;
}

MeasurementSet read_measurements(const std::string& path) {
    return measurements_from_json(read_json_file(path, "a libscale.measurements/1 JSON file", kMaxMeasurementFileBytes),
                                  path);
}

json to_json(const MeasurementSet& m) {
    json records = json::array();
    for (const GemmRun& g : m.gemm)
        records.push_back({{"kind", "gemm"},
                           {"hardware", g.hardware},
                           {"m", g.m},
                           {"n", g.n},
                           {"k", g.k},
                           {"dtype", g.fp8 ? "fp8" : "bf16"},
                           {"seconds", g.seconds}});
    for (const AttentionRun& a : m.attention)
        records.push_back({{"kind", "attention"},
                           {"hardware", a.hardware},
                           {"batch", a.batch},
                           {"seq_len", a.seq_len},
                           {"heads", a.heads},
                           {"head_dim", a.head_dim},
                           {"causal", a.causal},
                           {"pass", a.backward ? "backward" : "forward"},
                           {"kernel", to_string(a.kernel)},
                           {"seconds", a.seconds}});
    for (const BandwidthRun& b : m.bandwidth)
        records.push_back(
            {{"kind", "bandwidth"}, {"hardware", b.hardware}, {"bytes", b.bytes}, {"seconds", b.seconds}});
    for (const CollectiveRun& c : m.collectives)
        records.push_back({{"kind", "collective"},
                           {"hardware", c.hardware},
                           {"op", to_string(c.op)},
                           {"ranks", c.ranks},
                           {"ranks_per_node", c.ranks_per_node},
                           {"bytes", c.bytes},
                           {"seconds", c.seconds}});
    const auto step_json = [](const StepRun& s, const char* kind) {
        const TrainingConfig& c = s.config;
        json r = {{"kind", kind},
                  {"model", s.model},
                  {"hardware", s.hardware},
                  {"gpus", c.gpus},
                  {"gpus_per_node", c.gpus_per_node},
                  {"seq_len", c.seq_len},
                  {"micro_batch", c.micro_batch},
                  {"global_batch_tokens", c.global_batch_tokens},
                  {"step_time_s", s.step_time_s}};
        for (const auto& o : training_options().options) {
            if (is_batch_option(o.name)) continue;
            std::visit(
                [&](const auto& x) {
                    if constexpr (!std::is_same_v<std::decay_t<decltype(x)>, std::monostate>)
                        r[std::string(o.name)] = x;
                },
                o.get(c));
        }
        if (!s.model_overrides.empty()) r["model_overrides"] = s.model_overrides;
        if (s.memory_gib > 0) r["memory_gib"] = s.memory_gib, r["memory_kind"] = s.memory_kind;
        if (s.memory_reserved_gib > 0) r["memory_reserved_gib"] = s.memory_reserved_gib;
        if (s.reported_mfu > 0) r["reported_mfu"] = s.reported_mfu;
        if (s.relative_error > 0) r["relative_error"] = s.relative_error;
        if (!s.series.empty()) r["series"] = s.series;
        if (!s.validation_exclude.empty()) r["validation_exclude"] = s.validation_exclude;
        if (!s.source.empty()) r["source"] = s.source;
        if (s.layers > 0) r["layers"] = s.layers;
        return r;
    };
    for (const StepRun& s : m.steps) records.push_back(step_json(s, "step"));
    for (const StepRun& s : m.microruns) records.push_back(step_json(s, "step_microrun"));
    for (const PowerRecord& p : m.power) {
        json r = {{"kind", "power"}, {"hardware", p.hardware}, {"phase", p.phase}, {"watts", p.watts}};
        if (!std::isnan(p.utilization_pct)) r["utilization_pct"] = p.utilization_pct;
        records.push_back(std::move(r));
    }
    return {{"schema", kMeasurementSchema}, {"records", std::move(records)}};
}

void merge(MeasurementSet& a, const MeasurementSet& b) {
    a.gemm.insert(a.gemm.end(), b.gemm.begin(), b.gemm.end());
    a.attention.insert(a.attention.end(), b.attention.begin(), b.attention.end());
    a.bandwidth.insert(a.bandwidth.end(), b.bandwidth.begin(), b.bandwidth.end());
    a.collectives.insert(a.collectives.end(), b.collectives.begin(), b.collectives.end());
    a.steps.insert(a.steps.end(), b.steps.begin(), b.steps.end());
    a.microruns.insert(a.microruns.end(), b.microruns.begin(), b.microruns.end());
    a.power.insert(a.power.end(), b.power.begin(), b.power.end());
}

}  // namespace libscale
