// Progress of the long operations (the packers and the packing gate, sweeps, the fitter):
// a counter the caller owns and the operation advances, which another thread may read
// (a progress bar) and through which it may cancel the call.
//
// An operation given a Progress sets `total` to its work when it starts, unless the
// caller has set one already: a caller that splits one job over several calls (one sweep
// call per thread, one pack per rank) sets their sum first. It then adds to `done` once
// per chunk of work, never per element of a hot loop, and returns with done == total.
// The unit is the operation's own (samples, elements, iterations) and is documented
// where it takes the Progress. Use one Progress per call: reused, `done` keeps counting.
// A null Progress* costs one branch per chunk.
//
// Cancelling: set `cancel` from any thread; the operation throws libscale::Cancelled at
// its next report (within one chunk), its outputs left unspecified.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "libscale/io/error.hpp"

namespace libscale {

// Relaxed atomics throughout: the reader only draws a bar, nothing is published through
// these counters, so no ordering with the operation's other memory is needed.
struct Progress {
    std::atomic<std::uint64_t> done{0};
    std::atomic<std::uint64_t> total{0};
    std::atomic<bool> cancel{false};
};

// Thrown by an operation whose Progress was cancelled.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

// The operation's side. All are no-ops on a null Progress.

// Throws Cancelled when the Progress was cancelled.
inline void progress_check(const Progress* p) {
    if (p && p->cancel.load(std::memory_order_relaxed)) throw Cancelled();
}

// At the start: total = work, unless the caller set a total already.
inline void progress_start(Progress* p, std::uint64_t work) {
    if (!p) return;
    std::uint64_t unset = 0;
    p->total.compare_exchange_strong(unset, work, std::memory_order_relaxed);
    progress_check(p);
}

// `work` more units done; throws Cancelled when the Progress was cancelled.
inline void progress_add(Progress* p, std::uint64_t work) {
    if (!p) return;
    progress_check(p);
    p->done.fetch_add(work, std::memory_order_relaxed);
}

// A loop of `steps` iterations that stands for `work` units: step() after each iteration
// reports the share done every kEvery iterations; finish() after the loop adds the rest,
// so the loop adds exactly `work` in all.
class ProgressLoop {
public:
    static constexpr std::uint64_t kEvery = std::uint64_t{1} << 14;

    ProgressLoop(Progress* p, std::uint64_t work, std::uint64_t steps) : p_(p), work_(work), steps_(steps) {}

    void step() {
        if (p_ && ++i_ % kEvery == 0) report(i_ >= steps_ ? work_ : share());
    }
    void finish() { report(work_); }

private:
    // work × i / steps without overflow (double: exact to 2^53, far beyond a bar's resolution).
    std::uint64_t share() const {
        const double f = static_cast<double>(i_) / static_cast<double>(steps_);
        return std::min(work_, static_cast<std::uint64_t>(f * static_cast<double>(work_)));
    }
    void report(std::uint64_t reported) {
        if (reported > reported_) {
            progress_add(p_, reported - reported_);
            reported_ = reported;
        } else {
            progress_check(p_);
        }
    }

    Progress* p_;
    std::uint64_t work_, steps_;
    std::uint64_t i_ = 0, reported_ = 0;
};

}  // namespace libscale
