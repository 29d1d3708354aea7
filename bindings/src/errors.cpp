// The one place where C++ exceptions become Python exceptions.
//
//   std::invalid_argument          -> ValueError (pybind11's own translation)
//   libscale::Error                -> libscale.LibscaleError (a ValueError)
//   libscale::UnknownNameError     -> libscale.UnknownNameError(LibscaleError), .suggestions
//   libscale::DoesNotFitError      -> libscale.DoesNotFitError(LibscaleError), .needed_gib, .available_gib
//   libscale::ParseError           -> libscale.ParseError(LibscaleError)
//   libscale::NvmlError            -> libscale.NvmlError(LibscaleError), .nvml_return (None: the loader's)
//   std::out_of_range, std::length_error, std::domain_error -> ValueError
//   nlohmann::json::exception      -> libscale.ParseError (a JSON value of the wrong type or range)
//   std::bad_alloc                 -> MemoryError
//   std::filesystem::filesystem_error -> OSError
// Messages are made one line (libscale::one_line: control bytes escaped) and decoded as
// UTF-8 with invalid bytes shown as \xNN escapes: a message that quotes a malformed file
// must not span lines or turn into a UnicodeDecodeError of its own.
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "libscale/io/error.hpp"

namespace libscale_py {

namespace {

// Owned for the life of the process (the module cannot be unloaded).
PyObject* g_error = nullptr;
PyObject* g_unknown_name = nullptr;
PyObject* g_does_not_fit = nullptr;
PyObject* g_parse = nullptr;
PyObject* g_nvml = nullptr;

PyObject* new_exception(py::module_& m, const char* name, PyObject* base, const char* doc) {
    const std::string qualified = std::string("libscale.") + name;
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
    if (!type) throw py::error_already_set();
    m.add_object(name, py::reinterpret_borrow<py::object>(type));
    return type;
}

py::str message_of(const char* what) {
    const std::string message = libscale::one_line(what);
    PyObject* s = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "backslashreplace");
    if (!s) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(s);
}

// Raise `type(message)` with extra attributes set on the instance. Falls back to a bare
// message if building the instance fails (never leaves no error set).
template <class SetAttrs>
void raise(PyObject* type, const char* message, SetAttrs&& set_attrs) {
    try {
        py::object exc = py::reinterpret_borrow<py::object>(type)(message_of(message));
        set_attrs(exc);
        PyErr_SetObject(type, exc.ptr());
    } catch (py::error_already_set& e) {
        e.discard_as_unraisable("libscale: building an exception");
        PyErr_SetString(type, "libscale: an error whose message could not be shown");
    }
}

void raise_plain(PyObject* type, const char* message) {
    raise(type, message, [](py::object&) {});
}

}  // namespace

void register_errors(py::module_& m) {
    g_error =
        new_exception(m, "LibscaleError", PyExc_ValueError, "Base class of libscale's own errors (a ValueError).");
    g_unknown_name =
        new_exception(m, "UnknownNameError", g_error,
                      "A model or hardware name that is not in the catalog; .suggestions holds the closest names.");
    g_does_not_fit = new_exception(
        m, "DoesNotFitError", g_error,
        "A configuration whose memory per GPU exceeds the GPU's; .needed_gib and .available_gib say by how much.");
    g_parse = new_exception(m, "ParseError", g_error,
                            "A malformed or foreign input file; the message names the file and line.");
    g_nvml = new_exception(m, "NvmlError", g_error,
                           "NVML (the NVIDIA driver's library) missing or failing; .nvml_return is "
                           "NVML's return code, None when the library could not be loaded.");
    // Class-level defaults, so the attributes exist on instances raised from Python too.
    py::handle(g_unknown_name).attr("suggestions") = py::tuple();
    py::handle(g_does_not_fit).attr("needed_gib") = py::none();
    py::handle(g_does_not_fit).attr("available_gib") = py::none();
    py::handle(g_nvml).attr("nvml_return") = py::none();

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const libscale::UnknownNameError& e) {
            raise(g_unknown_name, e.what(), [&](py::object& exc) {
                py::tuple names(e.suggestions().size());
                for (std::size_t i = 0; i < e.suggestions().size(); ++i) names[i] = py::str(e.suggestions()[i]);
                exc.attr("suggestions") = names;
            });
        } catch (const libscale::DoesNotFitError& e) {
            raise(g_does_not_fit, e.what(), [&](py::object& exc) {
                exc.attr("needed_gib") = e.needed_gib();
                exc.attr("available_gib") = e.available_gib();
            });
        } catch (const libscale::ParseError& e) {
            raise(g_parse, e.what(), [](py::object&) {});
        } catch (const libscale::NvmlError& e) {
            raise(g_nvml, e.what(), [&](py::object& exc) {
                if (e.nvml_return() >= 0) exc.attr("nvml_return") = e.nvml_return();
            });
        } catch (const libscale::Error& e) {
            raise_plain(g_error, e.what());
        } catch (const nlohmann::json::exception& e) {
            raise_plain(g_parse, e.what());
        } catch (const std::invalid_argument& e) {
            raise_plain(PyExc_ValueError, e.what());
        } catch (const std::out_of_range& e) {
            raise_plain(PyExc_ValueError, e.what());
        } catch (const std::length_error& e) {
            raise_plain(PyExc_ValueError, e.what());
        } catch (const std::domain_error& e) {
            raise_plain(PyExc_ValueError, e.what());
        } catch (const std::bad_alloc&) {
            raise_plain(PyExc_MemoryError, "libscale: out of memory (is an input far larger than intended?)");
        } catch (const std::filesystem::filesystem_error& e) {
            raise_plain(PyExc_OSError, e.what());
        }
    });
}

}  // namespace libscale_py
