// libscale._core.io: the shipped catalog (io/catalog.hpp): names, lookup by name or file
// path, raw data files, and the Hugging Face model types the config.json reader knows.
#include "libscale/io/catalog.hpp"
#include "../common.hpp"
#include "../json_py.hpp"
#include "libscale/spec/hf_config.hpp"

namespace libscale_py {

void register_io_catalog(py::module_& m) {
    m.def("model_names", &libscale::model_names, "Names of the shipped models.");
    m.def("hardware_names", &libscale::hardware_names, "Names of the shipped hardware profiles.");
    m.def(
        "find_model",
        [](std::string_view name_or_path, py::handle overrides) {
            if (overrides.is_none()) return libscale::find_model(name_or_path);
            if (!py::isinstance<py::dict>(overrides))
                throw py::type_error("overrides: expected a dict of config.json keys, got " +
                                     std::string(py::str(py::type::of(overrides).attr("__name__"))));
            return libscale::find_model(name_or_path, py_to_json(overrides, "overrides"));
        },
        py::arg("name_or_path"), py::arg("overrides") = py::none(),
        "A catalog model (case-insensitive) or a Hugging Face config.json (file or snapshot directory); "
        "overrides: config.json keys replaced first (e.g. {'max_position_embeddings': 65536}).");
    m.def("find_hardware", &libscale::find_hardware, py::arg("name_or_path"),
          "A catalog hardware profile or a libscale.hardware/1 JSON file.");
    m.def("catalog_file", &libscale::catalog_file, py::arg("relative_path"),
          "Raw text of a shipped data file, e.g. 'hardware/b300.json'.");
    m.def("catalog_files", &libscale::catalog_files, "Relative paths of the shipped data files.");
    m.def("supported_model_types", &libscale::supported_model_types,
          "The Hugging Face model_type values the config.json reader supports, sorted.");
}

}  // namespace libscale_py
