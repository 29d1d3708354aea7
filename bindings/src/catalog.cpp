// The shipped catalogs: names, lookup by name or file path, raw data files.
#include "common.hpp"
#include "libscale/catalog.hpp"

namespace libscale_py {

void register_catalog(py::module_& m) {
    m.def("model_names", &libscale::model_names, "Names of the shipped models.");
    m.def("hardware_names", &libscale::hardware_names, "Names of the shipped hardware profiles.");
    m.def("find_model", &libscale::find_model, py::arg("name_or_path"),
          "A catalog model (case-insensitive) or a Hugging Face config.json (file or snapshot directory).");
    m.def("find_hardware", &libscale::find_hardware, py::arg("name_or_path"),
          "A catalog hardware profile or a libscale.hardware/1 JSON file.");
    m.def("catalog_file", &libscale::catalog_file, py::arg("relative_path"),
          "Raw text of a shipped data file, e.g. 'hardware/b300.json'.");
    m.def("catalog_files", &libscale::catalog_files, "Relative paths of the shipped data files.");
}

}  // namespace libscale_py
