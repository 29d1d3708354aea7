// Shared by the fuzz targets (fuzz/README.md). A target feeds its input to one parser and
// lets only the errors the parser documents pass: libscale::Error (ParseError and the other
// named types, io/error.hpp) and std::invalid_argument ("this input value is wrong").
// Anything else — another exception, a crash, a sanitizer report, a timeout, or a broken
// invariant (check() below) — ends the run and is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "libscale/io/error.hpp"

namespace libscale::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A broken invariant: print what and abort, so libFuzzer (or the replay driver) stops and
// keeps the input.
[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "fuzz: invariant violated: %s\n", what);
    std::abort();
}

inline void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

// An error the parser documents must still say something.
inline void check_message(const std::exception& e) {
    check(e.what() != nullptr && e.what()[0] != '\0', "empty error message");
}

// Runs f(); a documented refusal returns false, success true. Other exceptions escape to
// std::terminate (a finding).
template <class F>
bool accepted(F&& f) {
    try {
        f();
        return true;
    } catch (const libscale::Error& e) {
        check_message(e);
    } catch (const std::invalid_argument& e) {
        check_message(e);
    }
    return false;
}

}  // namespace libscale::fuzz
