// libscale._core.triage: live GPU power from NVML (triage/nvml.hpp): NvmlSource(indices) with gpus() and poll().
// Loading and polling run with the GIL released: an NVML call can block (a GPU falling
// off the bus), and a watcher thread must not stall the interpreter meanwhile.
#include <pybind11/numpy.h>

#include <memory>
#include <sstream>
#include <utility>

#include "../common.hpp"
#include "libscale/triage/nvml.hpp"

namespace libscale_py {

using namespace libscale;

namespace {

template <class T, class Get>
py::array_t<T> column(const std::vector<NvmlSample>& samples, Get get) {
    py::array_t<T> a(static_cast<py::ssize_t>(samples.size()));
    auto out = a.template mutable_unchecked<1>();
    for (py::ssize_t i = 0; i < out.shape(0); ++i) out(i) = get(samples[static_cast<std::size_t>(i)]);
    return a;
}

py::dict samples_dict(const std::vector<NvmlSample>& s) {
    py::dict d;
    d["index"] = column<int>(s, [](const NvmlSample& x) { return x.index; });
    d["time_s"] = column<double>(s, [](const NvmlSample& x) { return x.time_s; });
    d["power_w"] = column<double>(s, [](const NvmlSample& x) { return x.power_w; });
    d["power_instant_w"] = column<double>(s, [](const NvmlSample& x) { return x.power_instant_w; });
    d["utilization_pct"] = column<double>(s, [](const NvmlSample& x) { return x.utilization_pct; });
    d["energy_j"] = column<double>(s, [](const NvmlSample& x) { return x.energy_j; });
    d["power_limit_w"] = column<double>(s, [](const NvmlSample& x) { return x.power_limit_w; });
    d["error"] = column<int>(s, [](const NvmlSample& x) { return x.error; });
    py::list text;
    for (const auto& x : s) text.append(x.error_text);
    d["error_text"] = text;
    return d;
}

py::list gpus_list(const NvmlSource& src) {
    py::list out;
    for (const auto& g : src.gpus()) {
        py::dict d;
        d["index"] = g.index;
        d["name"] = g.name;
        d["uuid"] = g.uuid;
        d["power_limit_w"] = nan_to_none(g.power_limit_w);
        out.append(d);
    }
    return out;
}

std::string source_repr(const NvmlSource& src) {
    std::ostringstream os;
    os << "<NvmlSource library='" << src.library_path() << "' gpus=[";
    const char* sep = "";
    for (const auto& g : src.gpus()) {
        os << sep << g.index << ": " << (g.name.empty() ? "?" : g.name);
        sep = ", ";
    }
    os << "]>";
    return os.str();
}

}  // namespace

void register_triage_nvml(py::module_& m) {
    py::class_<NvmlSource>(m, "NvmlSource",
                           "Live GPU power readings from NVML, loaded from the NVIDIA driver at run time "
                           "(LIBSCALE_NVML_LIBRARY overrides the path of libnvidia-ml.so.1).")
        .def(py::init([](std::vector<int> indices) {
                 py::gil_scoped_release release;
                 return std::make_unique<NvmlSource>(std::move(indices));
             }),
             py::arg("indices") = std::vector<int>{},
             "Load NVML and select the GPUs with these NVML indices (empty: every GPU). "
             "Raises NvmlError when NVML is missing or fails, ValueError for a bad index.")
        .def("gpus", &gpus_list, "One dict per selected GPU: index, name, uuid, power_limit_w (None if unsupported).")
        .def(
            "poll",
            [](NvmlSource& self) {
                std::vector<NvmlSample> samples;
                {
                    py::gil_scoped_release release;
                    samples = self.poll();
                }
                return samples_dict(samples);
            },
            "Read every selected GPU once: a dict of numpy arrays, one entry per GPU (index, "
            "time_s, power_w, power_instant_w, utilization_pct, energy_j, power_limit_w, "
            "error) and error_text, a list of str. NaN: reading unsupported or failed; error "
            "is the NVML return code of a GPU's first failing read (15: GPU lost), 0 if none. "
            "Never raises for one GPU's failure.")
        .def_property_readonly("library_path", &NvmlSource::library_path, "The path given to dlopen.")
        .def("__repr__", &source_repr);
}

}  // namespace libscale_py
