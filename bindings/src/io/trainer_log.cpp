// libscale._core.io.scan_torchtitan_log: the step lines of a torchtitan console log
// (io/trainer_log.hpp), as numpy arrays for libscale.logs.parse_torchtitan.
#include "libscale/io/trainer_log.hpp"

#include <pybind11/numpy.h>

#include <string_view>

#include "../common.hpp"

namespace libscale_py {

void register_io_trainer_log(py::module_& m) {
    m.def(
        "scan_torchtitan_log",
        [](const py::bytes& text) {
            const std::string_view view(text);  // bytes are immutable: safe to read without the GIL
            libscale::TorchtitanScan scan;
            {
                py::gil_scoped_release release;
                scan = libscale::scan_torchtitan_log(view);
            }
            const auto n = static_cast<py::ssize_t>(scan.steps.size());
            py::array_t<std::int64_t> ints({n, py::ssize_t{4}});
            py::array_t<double> floats({n, py::ssize_t{4}});
            auto iv = ints.mutable_unchecked<2>();
            auto fv = floats.mutable_unchecked<2>();
            for (py::ssize_t i = 0; i < n; ++i) {
                const auto& s = scan.steps[static_cast<std::size_t>(i)];
                iv(i, 0) = s.line;
                iv(i, 1) = s.rank;
                iv(i, 2) = s.step;
                iv(i, 3) = s.wps ? 1 : 0;
                fv(i, 0) = s.rate;
                fv(i, 1) = s.memory_gib;
                fv(i, 2) = s.mfu_pct;
                fv(i, 3) = s.tflops;
            }
            const auto m_deferred = static_cast<py::ssize_t>(scan.deferred.size());
            py::array_t<std::int64_t> deferred({m_deferred, py::ssize_t{3}});
            auto dv = deferred.mutable_unchecked<2>();
            for (py::ssize_t i = 0; i < m_deferred; ++i) {
                const auto& d = scan.deferred[static_cast<std::size_t>(i)];
                dv(i, 0) = d.line;
                dv(i, 1) = d.begin;
                dv(i, 2) = d.end;
            }
            // a plain tuple: its four parts are typed in the docstring, and the stub stays one line
            return py::tuple(py::make_tuple(scan.lines, ints, floats, deferred));
        },
        py::arg("text"),
        "The step lines of a torchtitan log (UTF-8 bytes), for libscale.logs: (lines, ints, floats, deferred) "
        "with lines = len(text.splitlines()); one row per parsed step line of ints (line, rank or -1, step, "
        "1 for wps else 0) and floats (tps, memory GiB, mfu %, tflops; NaN when absent); and one row per line "
        "left to the caller, (line, begin, end) byte offsets: lines that name the configuration and step lines "
        "not read here. Lines are numbered from 1 as str.splitlines() splits them.");
}

}  // namespace libscale_py
