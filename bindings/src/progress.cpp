// libscale._core.Progress: the counter the long calls (gate.gate, gate.pack,
// gate.shard_and_pack, estimate.sweep, calibrate.fit) advance while they run with the GIL
// released, for a thread to read and draw (libscale._progress.watch_counter).
#include "progress.hpp"

namespace libscale_py {

void register_progress(py::module_& m) {
    using libscale::Progress;
    py::class_<Progress>(m, "Progress",
                         "Work done and total of a long compiled call, read while it runs from another thread. Pass "
                         "a new one as progress= to each call; the unit is the call's own (gate and pack: samples; "
                         "sweep: elements; fit: optimizer iterations, an upper bound). With one, Ctrl-C interrupts "
                         "the call (KeyboardInterrupt).")
        .def(py::init<>())
        .def_property_readonly(
            "done", [](const Progress& p) { return p.done.load(std::memory_order_relaxed); }, "work done so far")
        .def_property_readonly(
            "total", [](const Progress& p) { return p.total.load(std::memory_order_relaxed); },
            "the call's work; 0 until it starts")
        .def("__repr__", [](const Progress& p) {
            return "Progress(done=" + std::to_string(p.done.load(std::memory_order_relaxed)) +
                   ", total=" + std::to_string(p.total.load(std::memory_order_relaxed)) + ")";
        });
}

}  // namespace libscale_py
