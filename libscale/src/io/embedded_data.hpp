// The shipped data files, compiled in by cmake/embed_data.cmake (generated source).
#pragma once

#include <cstddef>

namespace libscale::detail {

struct EmbeddedFile {
    const char* path;  // relative to calibration/data, e.g. "hardware/b300.json"
    const char* text;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;

}  // namespace libscale::detail
