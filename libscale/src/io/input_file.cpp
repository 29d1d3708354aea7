#include "libscale/io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "libscale/io/error.hpp"

namespace libscale {

namespace {

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string open_error(int err) {
    switch (err) {
        case ENOENT: return "no such file";
        case EACCES: return "permission denied";
        case ELOOP: return "too many levels of symbolic links (a link loop?)";
        case ENOTDIR: return "a component of the path is not a directory";
        case ENAMETOOLONG: return "the path is too long";
        default: return std::strerror(err);
    }
}

// Sizes in messages: "64 MiB" reads better than 67108864.
std::string bytes_text(std::uint64_t n) {
    if (n >= (std::uint64_t{1} << 30) && n % (std::uint64_t{1} << 30) == 0) return std::to_string(n >> 30) + " GiB";
    if (n >= (std::uint64_t{1} << 20) && n % (std::uint64_t{1} << 20) == 0) return std::to_string(n >> 20) + " MiB";
    return std::to_string(n) + " bytes";
}

}  // namespace

InputFile::InputFile(const std::filesystem::path& path, std::string_view expected, bool allow_stream)
    : path_(path.string()), expected_(expected) {
    if (path_.empty()) throw ParseError("the path is empty; expected " + expected_);
    // The C library would stop at the NUL and open a different file than the one named.
    if (const auto nul = path_.find('\0'); nul != std::string::npos)
        throw ParseError(path_.substr(0, nul) + "\\0...: the path holds a NUL byte; expected " + expected_);
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer (open(2), fifo(7));
    // the flag is cleared below once the file is known to be one we read.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
        const int err = errno;
        // A path past PATH_MAX (4096) fails here; its first 100 bytes name it well enough.
        std::string shown = path_.substr(0, 100);
        if (path_.size() > 200) shown += "... (" + std::to_string(path_.size()) + " characters)";
        else shown = path_;
        throw ParseError(shown + ": " + open_error(err) + "; expected " + expected_);
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int err = errno;
        ::close(fd_);
        throw ParseError(path_ + ": cannot stat: " + std::strerror(err));
    }
    regular_ = S_ISREG(st.st_mode);
    const bool stream = S_ISFIFO(st.st_mode);
    if (!regular_ && !(allow_stream && stream)) {
        ::close(fd_);
        throw ParseError(path_ + ": is " + kind_of(st.st_mode) + "; expected " + expected_ +
                         (S_ISDIR(st.st_mode) ? "" : " (libscale reads regular files only)"));
    }
    size_ = regular_ ? static_cast<std::uint64_t>(st.st_size) : 0;
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)),
      expected_(std::move(other.expected_)),
      fd_(std::exchange(other.fd_, -1)),
      regular_(other.regular_),
      size_(other.size_) {}

std::size_t InputFile::read_some(char* buf, std::size_t n) {
    for (;;) {
        const ssize_t got = ::read(fd_, buf, n);
        if (got >= 0) return static_cast<std::size_t>(got);
        if (errno == EINTR) continue;
        const int err = errno;
        throw ParseError(path_ + ": read failed: " + std::strerror(err));
    }
}

std::size_t InputFile::read_full(char* buf, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
        const std::size_t got = read_some(buf + done, n - done);
        if (got == 0) break;
        done += got;
    }
    return done;
}

std::string InputFile::read_all(std::uint64_t max_bytes) {
    const auto too_large = [&] {
        return ParseError(path_ + ": larger than " + bytes_text(max_bytes) + ", the limit for " + expected_ +
                          "; is it the right file?");
    };
    if (size_ > max_bytes) throw too_large();
    std::string out;
    out.reserve(static_cast<std::size_t>(size_));
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    for (;;) {
        const std::size_t at = out.size();
        const std::uint64_t room = max_bytes - at + 1;  // one byte past the limit tells "too large"
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, room));
        out.resize(at + want);
        const std::size_t got = read_some(out.data() + at, want);
        out.resize(at + got);
        if (got == 0) break;
        if (out.size() > max_bytes) throw too_large();
    }
    return out;
}

std::string read_input_file(const std::filesystem::path& path, std::string_view expected, std::uint64_t max_bytes) {
    return InputFile(path, expected).read_all(max_bytes);
}

}  // namespace libscale
