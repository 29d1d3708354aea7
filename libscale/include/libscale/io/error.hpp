// Error types. std::invalid_argument means "this input value is wrong" (Python
// ValueError); the named types below carry a distinct meaning a caller may want to
// catch on its own (Python: libscale.UnknownNameError, DoesNotFitError, ParseError,
// NvmlError).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace libscale {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A model or hardware name that is not in the catalog; `suggestions` are the closest names.
class UnknownNameError : public Error {
public:
    UnknownNameError(const std::string& what, std::vector<std::string> suggestions)
        : Error(what), suggestions_(std::move(suggestions)) {}
    const std::vector<std::string>& suggestions() const { return suggestions_; }

private:
    std::vector<std::string> suggestions_;
};

// A configuration whose per-GPU memory exceeds what the GPU has.
class DoesNotFitError : public Error {
public:
    DoesNotFitError(const std::string& what, double needed_gib, double available_gib)
        : Error(what), needed_gib_(needed_gib), available_gib_(available_gib) {}
    double needed_gib() const { return needed_gib_; }
    double available_gib() const { return available_gib_; }

private:
    double needed_gib_;
    double available_gib_;
};

// Malformed or foreign input file (JSON syntax, wrong schema); the message names the
// file and, for syntax errors, the line.
class ParseError : public Error {
public:
    using Error::Error;
};

// NVML (the NVIDIA driver's monitoring library) missing or failing: library not loadable,
// a required symbol absent, nvmlInit_v2 or a device handle failing. nvml_return() is the
// NVML return code, or -1 when the failure is the loader's (dlopen, dlsym).
class NvmlError : public Error {
public:
    explicit NvmlError(const std::string& what, int nvml_return = -1) : Error(what), nvml_return_(nvml_return) {}
    int nvml_return() const { return nvml_return_; }

private:
    int nvml_return_;
};

// A message as one line of text: newlines, carriage returns, tabs and other control
// bytes (an ANSI escape from a file name, say) become \n, \r, \t and \xNN, so that a
// message quoting user input can neither span lines in a log nor drive the terminal.
// The Python binding and the command-line tools pass every error message through it.
std::string one_line(std::string_view message);

// Closest names by edit distance, for "did you mean" messages.
std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t max_results = 3);

}  // namespace libscale
