#include "libscale/estimate/fit_advice.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <ostream>
#include <utility>

#include "libscale/estimate/scenario.hpp"
#include "libscale/spec/parallelism.hpp"

namespace libscale {

namespace {

// Far beyond any micro-batch or sequence a GPU holds; the doubling search stops there.
constexpr std::int64_t kMaxSearch = std::int64_t{1} << 40;
// Shorter sequences are offered in whole multiples of this (kernels tile by 64 or 128).
constexpr std::int64_t kSeqLenStep = 128;
// GPU counts tried for "more GPUs": doublings up to this many.
constexpr std::int64_t kMaxGpusTried = 65536;

// The largest x in [1, hi] with ok(x), for ok true up to some point and false past it
// (memory grows with the micro-batch and the sequence); 0 when ok(1) is false.
std::int64_t largest(std::int64_t hi, const std::function<bool(std::int64_t)>& ok) {
    if (hi < 1 || !ok(1)) return 0;
    std::int64_t lo = 1;  // ok(lo)
    while (lo <= hi / 2 && ok(lo * 2)) lo *= 2;
    std::int64_t bad = lo <= hi / 2 ? lo * 2 : hi + 1;  // !ok(bad), or past hi
    while (bad - lo > 1) {
        const std::int64_t mid = lo + (bad - lo) / 2;
        (ok(mid) ? lo : bad) = mid;
    }
    return lo;
}

class Advisor {
public:
    Advisor(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c)
        : m_(m), hw_(hw), cal_(cal), c_(c), p_(count_parameters(m)) {}

    StepBreakdown step(const TrainingConfig& x) const { return estimate_step_unchecked(m_, p_, hw_, cal_, x); }
    bool valid(const TrainingConfig& x) const { return check_config(m_, hw_, x) == ConfigIssue::none; }
    bool fits(const TrainingConfig& x) const { return valid(x) && step(x).memory.fits; }

    // The divisors of the given micro-batch below it, ascending (1 first): those up to 10^6
    // and their cofactors, as a micro-batch is never near 10^12. Computed once.
    const std::vector<std::int64_t>& smaller_divisors() const {
        if (divisors_.empty()) {
            for (std::int64_t i = 1; i <= 1'000'000 && i * i <= c_.micro_batch; ++i)
                if (c_.micro_batch % i == 0) divisors_.insert(divisors_.end(), {i, c_.micro_batch / i});
            std::sort(divisors_.begin(), divisors_.end());
            divisors_.erase(std::unique(divisors_.begin(), divisors_.end()), divisors_.end());
            if (!divisors_.empty() && divisors_.back() == c_.micro_batch) divisors_.pop_back();
        }
        return divisors_;
    }

    // Adds the change when it makes the configuration fit; true when it did.
    bool offer(std::vector<FitChange>& out, const double base_rate, std::string change, const TrainingConfig& x,
               std::string caveat = "") const {
        if (!valid(x)) return false;
        const StepBreakdown s = step(x);
        if (!s.memory.fits) return false;
        FitChange f;
        f.change = std::move(change);
        f.config = x;
        f.memory_gib = s.memory.total_gib;
        f.step_time_s = s.step_time_s;
        f.tokens_per_s_per_gpu = s.tokens_per_s_per_gpu;
        f.gpu_hours_ratio = base_rate / s.tokens_per_s_per_gpu;
        f.caveat = std::move(caveat);
        out.push_back(std::move(f));
        return true;
    }

    // The global batch of c in tokens (unset: one micro-batch per GPU).
    std::int64_t global_tokens() const {
        return c_.global_batch_tokens > 0 ? c_.global_batch_tokens
                                          : data_parallel_size(c_) * c_.micro_batch * c_.seq_len;
    }

    const ModelSpec& m_;
    const HardwareProfile& hw_;
    const Calibration& cal_;
    const TrainingConfig& c_;
    ParameterCounts p_;

private:
    mutable std::vector<std::int64_t> divisors_;
};

// A move changes one group of options of a configuration toward less memory. Applied to x,
// it sets the cheapest variant that fits, or, when none does, the variant that saves the
// most (so that a second move can finish the job). False when it does not apply to x.
struct Step {
    std::string text;    // the change, as FitChange::change spells it
    std::string caveat;  // FitChange::caveat
};
using Move = bool (*)(const Advisor&, TrainingConfig&, Step&);

bool checkpointing_move(const Advisor& a, TrainingConfig& x, Step& out) {
    if (x.activation_checkpointing == Checkpointing::full && x.checkpoint_every == 1) return false;
    // Full recompute of every k-th layer: the largest k that fits recomputes the least.
    x.activation_checkpointing = Checkpointing::full;
    TrainingConfig y = x;
    const std::int64_t k = largest(a.m_.num_layers, [&](std::int64_t every) {
        y.checkpoint_every = every;
        return a.fits(y);
    });
    x.checkpoint_every = std::max<std::int64_t>(k, 1);
    out.text = "activation_checkpointing='full'" + (k > 1 ? ", checkpoint_every=" + std::to_string(k) : "");
    return true;
}

bool selective_move(const Advisor& a, TrainingConfig& x, Step& out) {
    if (a.c_.activation_checkpointing != Checkpointing::none || x.activation_checkpointing != Checkpointing::none)
        return false;
    x.activation_checkpointing = Checkpointing::selective;
    x.checkpoint_every = 1;
    out.text = "activation_checkpointing='selective'";
    return true;
}

// A smaller micro-batch with the same global batch: more accumulation, the same training.
// The largest divisor of the micro-batch that fits, else 1.
bool micro_batch_move(const Advisor& a, TrainingConfig& x, Step& out) {
    if (x.micro_batch <= 1) return false;
    const std::int64_t global = a.global_tokens();
    const std::vector<std::int64_t>& divisors = a.smaller_divisors();  // of x.micro_batch: no move changes it
    TrainingConfig y = x;
    y.global_batch_tokens = global;
    // Memory grows with the micro-batch: bisect the divisors for the largest that fits.
    std::size_t lo = 0, hi = divisors.size();  // divisors[0, lo) fit (divisors[0] = 1 is tried below)
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        y.micro_batch = divisors[mid];
        if (a.fits(y)) lo = mid + 1;
        else hi = mid;
    }
    const std::int64_t pick = lo > 0 ? divisors[lo - 1] : 1;
    x.micro_batch = pick;
    x.global_batch_tokens = global;
    out.text = "micro_batch=" + std::to_string(pick) + ", global_batch_tokens=" + std::to_string(global);
    return true;
}

// PyTorch's eager attention keeps the h × s probabilities of every layer for backward;
// a fused kernel (FlashAttention-2 here, any GPU) keeps none.
bool fused_attention_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.attention_kernel != AttentionKernel::eager) return false;
    x.attention_kernel = AttentionKernel::flash2;
    out.text = "attention_kernel='flash2'";
    return true;
}

bool fused_loss_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.loss_kernel != LossKernel::eager) return false;
    x.loss_kernel = LossKernel::fused;  // the same loss, without the fp32 logits
    out.text = "loss_kernel='fused'";
    return true;
}

bool drop_logits_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (!x.keep_logits) return false;
    x.keep_logits = false;  // the loop keeps the loss only, as torchtitan's `del pred` does
    out.text = "keep_logits=False";
    return true;
}

bool adamw_8bit_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.optimizer != Optimizer::adamw) return false;
    x.optimizer = Optimizer::adamw_8bit;
    out = {"optimizer='adamw_8bit'", "8-bit optimizer states (block-wise quantized m and v)"};
    return true;
}

bool bf16_master_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.master_weights != MasterWeights::fp32) return false;
    x.master_weights = MasterWeights::bf16;
    out = {"master_weights='bf16'", "no fp32 master weights: updates below bf16's resolution are lost"};
    return true;
}

bool fsdp_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.strategy == Strategy::fsdp) return false;
    x.fp8_all_gather = x.fp8_all_gather && x.strategy == Strategy::hsdp;
    x.strategy = Strategy::fsdp;
    out.text = "strategy='fsdp'";
    return true;
}

bool reshard_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.reshard_after_forward || (x.strategy != Strategy::fsdp && x.strategy != Strategy::hsdp)) return false;
    x.reshard_after_forward = true;
    out.text = "reshard_after_forward=True";
    return true;
}

// A full fine-tune that does not fit may as LoRA on a frozen bf16 base, or QLoRA on a 4-bit
// one: no gradients or optimizer states for the base (docs/model.md "Fine-tuning methods").
// Another method, not the same training: the caveat says so.
bool lora_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.fine_tuning != FineTuning::full || x.precision == Precision::fp8) return false;
    x.fine_tuning = FineTuning::lora;
    out = {"fine_tuning='lora'", "LoRA adapters (rank " + std::to_string(x.lora_rank) + ", " +
                                     format_lora_targets(x.lora_targets) + ") on a frozen base: another method"};
    return true;
}

bool qlora_move(const Advisor&, TrainingConfig& x, Step& out) {
    if (x.fine_tuning == FineTuning::qlora || x.fine_tuning == FineTuning::dora || x.precision == Precision::fp8 ||
        x.base_weights != BaseWeights::automatic)
        return false;
    x.fine_tuning = FineTuning::qlora;
    x.train_embeddings = false;
    out = {"fine_tuning='qlora'", "QLoRA adapters (rank " + std::to_string(x.lora_rank) + ", " +
                                      format_lora_targets(x.lora_targets) + ") on a 4-bit NF4 base: another method"};
    return true;
}

// Index 0 and 1 are both checkpointing: never combined; nor are LoRA and QLoRA (10, 11).
constexpr Move kMoves[] = {checkpointing_move, selective_move,   micro_batch_move, fused_attention_move,
                           fused_loss_move,    drop_logits_move, adamw_8bit_move,  bf16_master_move,
                           fsdp_move,          reshard_move,     lora_move,        qlora_move};
constexpr std::size_t kMoveCount = std::size(kMoves);

// Each move alone, then each pair where neither alone fits (the smallest changes first: a
// pair is offered only when no one of its moves is enough).
void add_moves(const Advisor& a, std::vector<FitChange>& out, double rate) {
    bool alone_fits[kMoveCount] = {};
    for (std::size_t i = 0; i < kMoveCount; ++i) {
        TrainingConfig x = a.c_;
        Step step;
        if (!kMoves[i](a, x, step)) continue;
        alone_fits[i] = a.offer(out, rate, step.text, x, step.caveat);
    }
    // Pairs, then triples when no pair fits (activations of a long micro-batch without
    // checkpointing may need checkpointing, a smaller micro-batch and the fused loss).
    const std::size_t singles = out.size();
    // Each move sets the cheapest variant that fits given the moves before it, so the order
    // matters (full checkpointing at micro-batch 1 vs every 4th layer at micro-batch 2):
    // every order is tried and the cheapest that fits kept.
    const auto combine = [&](std::vector<std::size_t> moves) {
        std::vector<FitChange> tried;
        std::sort(moves.begin(), moves.end());
        do {
            TrainingConfig x = a.c_;
            std::string text, caveat;
            bool applies = true;
            for (const std::size_t i : moves) {
                Step step;
                applies = kMoves[i](a, x, step);
                if (!applies) break;
                text += (text.empty() ? "" : ", ") + step.text;
                if (!step.caveat.empty()) caveat += (caveat.empty() ? "" : "; ") + step.caveat;
            }
            if (applies) a.offer(tried, rate, text, x, caveat);
        } while (std::next_permutation(moves.begin(), moves.end()));
        if (tried.empty()) return;
        out.push_back(*std::min_element(tried.begin(), tried.end(), [](const FitChange& p, const FitChange& q) {
            return p.gpu_hours_ratio < q.gpu_hours_ratio;
        }));
    };
    const auto skip = [&](std::size_t i, std::size_t j) {
        return alone_fits[i] || alone_fits[j] || (i <= 1 && j <= 1) || (i >= 10 && j >= 10);
    };
    for (std::size_t i = 0; i < kMoveCount; ++i)
        for (std::size_t j = i + 1; j < kMoveCount; ++j)
            if (!skip(i, j)) combine({i, j});
    if (out.size() > singles) return;
    for (std::size_t i = 0; i < kMoveCount; ++i)
        for (std::size_t j = i + 1; j < kMoveCount; ++j)
            for (std::size_t k = j + 1; k < kMoveCount; ++k)
                if (!skip(i, j) && !skip(i, k) && !skip(j, k)) combine({i, j, k});
}

// Shorter sequences: another recipe (more, shorter samples per step).
void add_seq_len(const Advisor& a, std::vector<FitChange>& out, double rate) {
    TrainingConfig x = a.c_;
    x.global_batch_tokens = 0;
    const std::int64_t steps = largest((a.c_.seq_len - 1) / kSeqLenStep, [&](std::int64_t n) {
        x.seq_len = n * kSeqLenStep;
        return a.fits(x);
    });
    if (steps == 0) return;
    x.seq_len = steps * kSeqLenStep;
    a.offer(out, rate, "seq_len=" + std::to_string(x.seq_len), x,
            "shorter sequences: longer samples are cut or split, and the global batch holds fewer tokens");
}

void add_more_gpus(const Advisor& a, std::vector<FitChange>& out, double rate) {
    const TrainingConfig& c = a.c_;
    // More GPUs, FSDP: the sharded state per GPU falls as 1/N. The global batch is kept where
    // it divides, else the per-GPU batch is.
    for (std::int64_t g = c.gpus * 2; g <= std::min(kMaxGpusTried, kMaxGpus); g *= 2) {
        TrainingConfig x = c;
        x.gpus = g;
        x.strategy = Strategy::fsdp;
        x.fp8_all_gather = c.fp8_all_gather && c.strategy == Strategy::hsdp;
        std::int64_t unit = 0;  // tokens per micro-batch step; past 2^63 so is every larger count
        if (__builtin_mul_overflow(data_parallel_size(x), c.micro_batch, &unit) ||
            __builtin_mul_overflow(unit, c.seq_len, &unit))
            break;
        const bool keeps_batch = a.global_tokens() % unit == 0;
        x.global_batch_tokens = keeps_batch ? a.global_tokens() : 0;
        std::string change = "gpus=" + std::to_string(g);
        if (c.strategy != Strategy::fsdp) change += ", strategy='fsdp'";
        if (a.offer(out, rate, change, x,
                    keeps_batch ? ""
                                : "a larger global batch (" + std::to_string(unit) + " tokens, one micro-batch per " +
                                      (data_parallel_size(x) == g ? "GPU)" : "data-parallel rank)")))
            break;
    }
}

// Model parallelism at the same GPU count (docs/model.md "Tensor, sequence and context
// parallel"; "Mixture of experts"): each degree as given, doubled until one fits, the
// global batch kept (fewer data-parallel ranks take more micro-batches
// each). Context parallel splits each sequence's activations; tensor parallel, inside a node,
// the weights, their states and (with sequence parallel) the activations; expert parallel a
// mixture of experts' gathered experts. The same training; the rules refuse what does not
// divide (heads, the node, the batch), and the next degree is tried. Only under FSDP or HSDP
// (the rules refuse model parallelism with DDP or ZeRO-1/2).
void add_model_parallel(const Advisor& a, std::vector<FitChange>& out, double rate) {
    const TrainingConfig& c = a.c_;
    const std::int64_t gpn = node_gpus(c, a.hw_);
    struct Degree {
        const char* name;
        std::int64_t TrainingConfig::*field;
        std::int64_t limit;
    };
    const Degree degrees[] = {
        {"context_parallel", &TrainingConfig::context_parallel, c.gpus},
        {"tensor_parallel", &TrainingConfig::tensor_parallel, std::min(c.gpus, gpn)},
        {"expert_parallel", &TrainingConfig::expert_parallel, a.m_.moe() ? std::min(c.gpus, a.m_.num_experts) : 1},
    };
    for (const Degree& d : degrees) {
        for (std::int64_t v = std::max<std::int64_t>(c.*d.field, 1) * 2; v <= d.limit; v *= 2) {
            TrainingConfig x = c;
            x.*d.field = v;
            x.global_batch_tokens = a.global_tokens();
            if (a.offer(out, rate, std::string(d.name) + "=" + std::to_string(v), x)) break;
        }
    }
}

std::string ratio_text(double r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "x%.2f", r);
    return buf;
}

// The changes that make the configuration as given (its estimate `given`) fit, in the
// order FitAdvice::changes states; none when it fits.
std::vector<FitChange> changes_of(const Advisor& a, const StepBreakdown& given) {
    std::vector<FitChange> out;
    if (given.memory.fits) return out;
    const double rate = given.tokens_per_s_per_gpu;
    add_moves(a, out, rate);
    add_model_parallel(a, out, rate);
    add_seq_len(a, out, rate);
    add_more_gpus(a, out, rate);
    // Changes that train the same model the same way first, cheapest first; then those
    // that change the recipe (a caveat), however cheap: shorter sequences may cost fewer
    // GPU-hours and still not be the run that was planned.
    // Another fine-tuning method (LoRA, QLoRA) comes last: it is not the run that was planned.
    const auto tier = [&](const FitChange& f) {
        return f.config.fine_tuning != a.c_.fine_tuning ? 2 : f.caveat.empty() ? 0 : 1;
    };
    std::stable_sort(out.begin(), out.end(), [&](const FitChange& x, const FitChange& y) {
        return std::pair(tier(x), x.gpu_hours_ratio) < std::pair(tier(y), y.gpu_hours_ratio);
    });
    return out;
}

}  // namespace

FitAdvice fit_advice(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal, const TrainingConfig& c) {
    const Advisor a(m, hw, cal, c);
    FitAdvice out;
    out.step = a.step(c);
    out.changes = changes_of(a, out.step);
    TrainingConfig x = c;
    x.global_batch_tokens = 0;
    out.max_micro_batch = largest(kMaxSearch, [&](std::int64_t mb) {
        x.micro_batch = mb;
        return a.fits(x);
    });
    x = c;
    x.global_batch_tokens = 0;
    out.max_seq_len = largest(std::min(kMaxSearch, m.max_position_embeddings), [&](std::int64_t s) {
        x.seq_len = s;
        return a.fits(x);
    });
    return out;
}

FitAdvice fit_advice(const Scenario& s) {
    s.validate();
    return fit_advice(s.model, s.hardware, s.coefficients(), s.config);
}

std::string fit_suggestion(const ModelSpec& m, const HardwareProfile& hw, const Calibration& cal,
                           const TrainingConfig& c) {
    // The sentence needs the changes only, not the largest micro-batch and sequence: a
    // projection asks for it once per GPU count that does not fit.
    const Advisor a(m, hw, cal, c);
    FitAdvice advice;
    advice.changes = changes_of(a, a.step(c));
    return fit_advice_text(advice);
}

std::string fit_suggestion(const Scenario& s) {
    return fit_suggestion(s.model, s.hardware, s.coefficients(), s.config);
}

std::string fit_advice_text(const FitAdvice& a, std::size_t max_changes) {
    const std::size_t n = std::min(a.changes.size(), max_changes);
    if (n == 0) return "";
    std::string out = "to fit, try ";
    for (std::size_t i = 0; i < n; ++i) {
        if (i) out += i + 1 == n ? ", or " : ", ";
        out += a.changes[i].change + " (GPU-hours " + ratio_text(a.changes[i].gpu_hours_ratio) + ")";
    }
    return out;
}

std::ostream& operator<<(std::ostream& os, const FitChange& f) {
    return os << "FitChange(change=\"" << f.change << "\", memory_gib=" << f.memory_gib
              << ", step_time_s=" << f.step_time_s << ", gpu_hours_ratio=" << f.gpu_hours_ratio << ", caveat=\""
              << f.caveat << "\")";
}

std::ostream& operator<<(std::ostream& os, const FitAdvice& a) {
    return os << "FitAdvice(status='" << to_string(a.step.memory.status) << "', changes=" << a.changes.size()
              << ", max_micro_batch=" << a.max_micro_batch << ", max_seq_len=" << a.max_seq_len << ")";
}

}  // namespace libscale
