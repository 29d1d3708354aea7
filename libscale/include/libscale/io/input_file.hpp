// The one way the core opens a file a user named (config.json, hardware, calibration and
// measurement files, power traces, token-length files): a regular file only unless the
// caller accepts a stream, opened without blocking (a FIFO with no writer is refused, not
// waited on), every read bounded, and one-line errors that name the path and say what was
// expected. Writing is the other half: write_file_atomic (json_io.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace libscale {

// Read limits, in bytes. They refuse a mistaken file (a disk image, /dev/zero through a
// link) before memory runs out, well above any real input: a 100k-record measurement file
// is ~50 MB; a month of 1 Hz nvidia-smi samples of 8 GPUs ~1.5 GB.
inline constexpr std::uint64_t kMaxConfigFileBytes = std::uint64_t{64} << 20;      // config, hardware, calibration
inline constexpr std::uint64_t kMaxMeasurementFileBytes = std::uint64_t{1} << 30;  // measurements, JSONL lengths
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t{4} << 30;        // power traces

class InputFile {
public:
    // Opens `path` for reading. `expected` names what the file should be, for messages
    // ("a libscale.hardware/1 JSON file"). allow_stream: also accept a FIFO or pipe (read to
    // its end; with no writer that is at once); a device (/dev/zero) is never accepted.
    // Throws ParseError: no such file, permission denied, a link loop, a directory, a
    // FIFO / device / socket when not allowed.
    InputFile(const std::filesystem::path& path, std::string_view expected, bool allow_stream = false);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&&) = delete;

    const std::string& path() const { return path_; }
    bool regular() const { return regular_; }
    // A regular file's size when opened; 0 for a stream.
    std::uint64_t size() const { return size_; }
    // Up to n bytes into buf; 0 at the end of the file. Retries EINTR; throws ParseError on
    // a read error (EIO, EISDIR) naming the path.
    std::size_t read_some(char* buf, std::size_t n);
    // Exactly n bytes, or fewer only at the end of the file (returns the count).
    std::size_t read_full(char* buf, std::size_t n);
    // The rest of the file; ParseError when it is larger than max_bytes.
    std::string read_all(std::uint64_t max_bytes);

private:
    std::string path_, expected_;
    int fd_ = -1;
    bool regular_ = false;
    std::uint64_t size_ = 0;
};

// The whole of a regular file, at most max_bytes (errors as InputFile's).
std::string read_input_file(const std::filesystem::path& path, std::string_view expected, std::uint64_t max_bytes);

}  // namespace libscale
