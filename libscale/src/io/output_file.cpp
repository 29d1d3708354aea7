#include "libscale/io/output_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "libscale/io/error.hpp"

namespace libscale {

namespace {

std::string describe(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// The file to replace for `path`: path itself, or the regular file its link points to.
std::filesystem::path target_of(const std::filesystem::path& path) {
    const std::string p = path.string();
    if (p.empty()) throw Error("the output path is empty; give a file name");
    if (const auto nul = p.find('\0'); nul != std::string::npos)
        throw Error(p.substr(0, nul) + "\\0...: the output path holds a NUL byte");
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
        if (errno == ENOENT) return path;
        const int err = errno;
        throw Error(p + ": cannot write: " + std::strerror(err));
    }
    if (S_ISLNK(st.st_mode)) {
        if (::stat(p.c_str(), &st) != 0) {
            const int err = errno;
            throw Error(p + ": is a symbolic link to nothing (" + std::strerror(err) +
                        "); refusing to write through it");
        }
        if (!S_ISREG(st.st_mode))
            throw Error(p + ": is a symbolic link to " + describe(st.st_mode) + "; refusing to replace it");
        std::error_code ec;
        std::filesystem::path real = std::filesystem::canonical(path, ec);
        if (ec) throw Error(p + ": cannot resolve the symbolic link: " + ec.message());
        return real;
    }
    if (!S_ISREG(st.st_mode)) throw Error(p + ": is " + describe(st.st_mode) + "; refusing to replace it with a file");
    return path;
}

// Holds back the signals that end a process by default while a temporary file exists.
class SignalHold {
public:
    SignalHold() {
        sigset_t hold;
        sigemptyset(&hold);
        for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&hold, s);
        ok_ = pthread_sigmask(SIG_BLOCK, &hold, &old_) == 0;
    }
    ~SignalHold() {
        if (ok_) pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SignalHold(const SignalHold&) = delete;
    SignalHold& operator=(const SignalHold&) = delete;

private:
    sigset_t old_{};
    bool ok_ = false;
};

bool write_all(int fd, std::string_view content) {
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path target = target_of(path);
    const std::string shown = path.string();
    std::filesystem::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    mode_t mode = 0644;
    if (struct stat st{}; ::stat(target.c_str(), &st) == 0) mode = st.st_mode & 07777;

    const SignalHold hold;
    // Built by append: operator+ on temporaries trips GCC 12's -Wrestrict false positive.
    std::string leaf = ".";
    leaf.append(target.filename().string()).append(".XXXXXX.tmp");
    const std::string tmpl = (dir / leaf).string();
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = ::mkstemps(name.data(), 4);
    if (fd < 0) {
        const int err = errno;
        throw Error(shown + ": cannot write in " + dir.string() + ": " + std::strerror(err));
    }
    const auto fail = [&](const std::string& what, int err) {
        ::close(fd);
        ::unlink(name.data());
        throw Error(shown + ": " + what + ": " + std::strerror(err));
    };
    if (!write_all(fd, content)) fail("write failed (disk full?)", errno);
    if (::fchmod(fd, mode) != 0) fail("cannot set the permissions", errno);
    if (::fsync(fd) != 0) fail("cannot flush to disk", errno);
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(name.data());
        throw Error(shown + ": write failed: " + std::strerror(err));
    }
    if (::rename(name.data(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(name.data());
        throw Error(shown + ": cannot replace the file: " + std::strerror(err));
    }
    // The rename itself survives a crash once the directory is synced (fsync(2)).
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
    }
}

}  // namespace libscale
