// Shared by the gate/ binding files: numpy arrays that own C++ vectors, and per-sample
// lengths as a span over numpy memory (no copy for a C-contiguous uint32 array).
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common.hpp"

namespace libscale_py {

// A numpy array that takes ownership of `v` (its buffer is not copied).
template <class T>
inline py::array_t<T> to_numpy(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
}

// Lengths as a span over numpy memory: the array itself when it is uint32 and
// C-contiguous, else a checked conversion into `storage`.
struct LengthsView {
    py::array keep;  // holds the buffer alive
    std::vector<std::uint32_t> storage;
    std::span<const std::uint32_t> span;
};

[[noreturn]] inline void bad_length(py::ssize_t i, const std::string& v, const char* why) {
    throw std::invalid_argument("lengths[" + std::to_string(i) + "] = " + v + ": " + why);
}

inline LengthsView lengths_view(const py::handle& obj) {
    LengthsView out;
    py::array a = py::array::ensure(obj);
    if (!a) throw py::type_error("lengths: expected a 1-D numpy array (or sequence) of integers");
    if (a.ndim() != 1)
        throw std::invalid_argument("lengths: expected a 1-D array, got " + std::to_string(a.ndim()) + " dimensions");
    const char kind = a.dtype().kind();
    if (a.size() > 0 && kind != 'i' && kind != 'u')
        throw py::type_error("lengths: dtype " + std::string(py::str(a.dtype())) +
                             " is not an integer dtype (token counts must be integers)");
    if (kind == 'u' && a.itemsize() == 4 && (a.flags() & py::array::c_style) && a.dtype().byteorder() != '>') {
        out.keep = a;
        out.span = {static_cast<const std::uint32_t*>(a.data()), static_cast<std::size_t>(a.size())};
    } else if (kind == 'u' && a.itemsize() == 8) {
        auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
        out.storage.resize(static_cast<std::size_t>(u.size()));
        const auto* d = u.data();
        for (py::ssize_t i = 0; i < u.size(); ++i) {
            if (d[i] > std::numeric_limits<std::uint32_t>::max())
                bad_length(i, std::to_string(d[i]), "longer than 4294967295 tokens");
            out.storage[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(d[i]);
        }
        out.span = out.storage;
    } else {
        auto s = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
        if (!s) throw py::error_already_set();
        out.storage.resize(static_cast<std::size_t>(s.size()));
        const auto* d = s.data();
        for (py::ssize_t i = 0; i < s.size(); ++i) {
            if (d[i] < 0) bad_length(i, std::to_string(d[i]), "negative length");
            if (d[i] > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
                bad_length(i, std::to_string(d[i]), "longer than 4294967295 tokens");
            out.storage[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(d[i]);
        }
        out.span = out.storage;
    }
    // A 0-token sample passes: each packer applies its trainer's rule to it (packing.hpp).
    return out;
}

}  // namespace libscale_py
