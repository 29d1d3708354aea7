// Long core calls with an optional libscale._core.Progress: the GIL released, and
// Ctrl-C honoured while they run.
//
// A signal only reaches Python code when the main thread runs the interpreter, so a
// compiled call of minutes would otherwise hold Ctrl-C (and Jupyter's "interrupt kernel",
// which sends SIGINT) until it returns. With a Progress the call runs on a worker thread
// while the calling thread runs Python's signal handlers every kSignalPoll; when one
// raises (KeyboardInterrupt), the Progress is cancelled, the worker stops at its next
// report (libscale::Cancelled) and the handler's exception is raised. See "Signal
// handlers and exceptions" in https://docs.python.org/3/library/signal.html and
// PyErr_CheckSignals in https://docs.python.org/3/c-api/exceptions.html.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

#include "common.hpp"
#include "libscale/io/progress.hpp"

namespace libscale_py {

inline constexpr std::chrono::milliseconds kSignalPoll{50};

// Runs work() (C++ only: it must not touch Python objects) with the GIL released and
// returns its result; called with the GIL held. Without a Progress, on this thread.
template <class F>
auto run_released(libscale::Progress* progress, F&& work) -> std::invoke_result_t<F&> {
    using R = std::invoke_result_t<F&>;
    if (!progress) {
        py::gil_scoped_release nogil;
        return work();
    }
    std::conditional_t<std::is_void_v<R>, bool, std::optional<R>> result{};
    std::exception_ptr error;
    std::mutex m;
    std::condition_variable cv;
    bool finished = false, interrupted = false;
    {
        py::gil_scoped_release nogil;
        std::thread worker([&] {
            try {
                if constexpr (std::is_void_v<R>) work();
                else result.emplace(work());
            } catch (...) {
                error = std::current_exception();
            }
            {
                const std::lock_guard<std::mutex> lock(m);
                finished = true;
            }
            cv.notify_one();
        });
        std::unique_lock<std::mutex> lock(m);
        while (!cv.wait_for(lock, kSignalPoll, [&] { return finished; })) {
            if (interrupted) continue;
            lock.unlock();
            {
                py::gil_scoped_acquire gil;
                // On error it leaves the exception set on this thread's state until we raise it below.
                interrupted = PyErr_CheckSignals() != 0;
            }
            if (interrupted) progress->cancel.store(true, std::memory_order_relaxed);
            lock.lock();
        }
        lock.unlock();
        worker.join();
    }
    if (interrupted) throw py::error_already_set();
    if (error) std::rethrow_exception(error);
    if constexpr (!std::is_void_v<R>) return std::move(*result);
}

}  // namespace libscale_py
