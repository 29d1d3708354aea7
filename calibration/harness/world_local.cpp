// LocalWorld: one process per GPU on one node, forked by rank 0, messages framed as
// (8-byte length, bytes) over one socket pair per child. poll() gives every read its
// deadline; EOF on a socket means the child exited.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "world.hpp"

namespace libscale::harness {

namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// A message: its kind ('D' data, 'E' a rank's failure), its length, its bytes.
bool send_message(int fd, const std::string& s, char kind = 'D') {
    const std::uint64_t n = s.size();
    char header[9];
    header[0] = kind;
    std::memcpy(header + 1, &n, sizeof n);
    return write_all(fd, header, sizeof header) && write_all(fd, s.data(), s.size());
}

enum class ReadStatus { ok, timeout, closed };

// Reads exactly `size` bytes before `deadline`.
ReadStatus read_all(int fd, char* out, std::size_t size, Clock::time_point deadline) {
    while (size > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        // Past the deadline, what has already arrived is still read (poll with 0 ms).
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 0, 1000)));
        if (r < 0 && errno == EINTR) continue;
        if (r == 0 && left <= 0) return ReadStatus::timeout;
        if (r <= 0) continue;
        const ssize_t n = ::recv(fd, out, size, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return ReadStatus::closed;
        out += n;
        size -= static_cast<std::size_t>(n);
    }
    return ReadStatus::ok;
}

// Messages are records of a phase: far below this; a larger length is a corrupt stream.
constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 32;

ReadStatus read_message(int fd, std::string& out, Clock::time_point deadline, char* kind) {
    char header[9];
    if (const ReadStatus s = read_all(fd, header, sizeof header, deadline); s != ReadStatus::ok) return s;
    std::uint64_t n = 0;
    std::memcpy(&n, header + 1, sizeof n);
    if (n > kMaxMessageBytes || (header[0] != 'D' && header[0] != 'E')) return ReadStatus::closed;
    *kind = header[0];
    out.assign(n, '\0');
    return read_all(fd, out.data(), n, deadline);
}

Clock::time_point deadline_after(double seconds) {
    return Clock::now() + std::chrono::microseconds(static_cast<long long>(std::min(seconds, 1e9) * 1e6));
}

std::string list(const std::vector<int>& ranks) {
    std::ostringstream s;
    for (std::size_t i = 0; i < ranks.size(); ++i) s << (i ? ", " : "") << ranks[i];
    return s.str();
}

class LocalWorld final : public World {
public:
    LocalWorld(int ranks, int nodes) : size_(ranks), nodes_(nodes) {
        std::fflush(nullptr);  // children must not inherit and repeat buffered output
        for (int r = 1; r < ranks; ++r) {
            int fds[2];
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
                throw std::runtime_error(std::string("local world: socketpair failed: ") + std::strerror(errno));
            const pid_t pid = ::fork();
            if (pid < 0) throw std::runtime_error(std::string("local world: fork failed: ") + std::strerror(errno));
            if (pid == 0) {
                ::close(fds[0]);
                for (const int fd : children_fd_) ::close(fd);
                children_fd_.clear();
                children_pid_.clear();
                rank_ = r;
                parent_fd_ = fds[1];
                return;
            }
            ::close(fds[1]);
            children_fd_.push_back(fds[0]);
            children_pid_.push_back(pid);
        }
    }
    ~LocalWorld() override {
        if (rank_ != 0) {
            ::close(parent_fd_);
            return;
        }
        for (const int fd : children_fd_) ::close(fd);
        // Children finish right after the last exchange; one that does not is killed.
        const auto deadline = deadline_after(30);
        for (const pid_t pid : children_pid_) {
            while (::waitpid(pid, nullptr, WNOHANG) == 0) {
                if (Clock::now() > deadline) {
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, nullptr, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
    }
    LocalWorld(const LocalWorld&) = delete;
    LocalWorld& operator=(const LocalWorld&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return rank_ % local_size(); }
    int local_size() const override { return size_ / nodes_; }
    int nodes() const override { return nodes_; }
    std::string kind() const override { return "local"; }

    std::vector<std::string> gather(const std::string& mine, double timeout_s, const std::string& what) override {
        if (rank_ != 0) {
            if (!send_message(parent_fd_, mine)) throw RankFailure("rank 0 exited before '" + what + "'", {0});
            return {};
        }
        std::vector<std::string> out(static_cast<std::size_t>(size_));
        out[0] = mine;
        const auto deadline = deadline_after(timeout_s);
        std::vector<int> late, gone;
        for (int r = 1; r < size_; ++r) {
            char kind = 'D';
            std::string& msg = out[static_cast<std::size_t>(r)];
            const ReadStatus s = read_message(children_fd_[static_cast<std::size_t>(r - 1)], msg, deadline, &kind);
            if (s == ReadStatus::ok && kind == 'E') throw RankFailure(msg, {r});
            if (s == ReadStatus::timeout) late.push_back(r);
            if (s == ReadStatus::closed) gone.push_back(r);
        }
        fail_if(late, gone, timeout_s, what);
        return out;
    }

    std::string broadcast(const std::string& data, double timeout_s, const std::string& what) override {
        if (rank_ == 0) {
            std::vector<int> gone;
            for (int r = 1; r < size_; ++r)
                if (!send_message(children_fd_[static_cast<std::size_t>(r - 1)], data)) gone.push_back(r);
            fail_if({}, gone, timeout_s, what);
            return data;
        }
        std::string out;
        char kind = 'D';
        const ReadStatus s = read_message(parent_fd_, out, deadline_after(timeout_s), &kind);
        if (s == ReadStatus::timeout) fail_if({0}, {}, timeout_s, what);
        if (s == ReadStatus::closed) fail_if({}, {0}, timeout_s, what);
        return out;
    }

    void report_failure(const std::string& what) override {
        if (rank_ != 0) send_message(parent_fd_, what, 'E');
    }

    [[noreturn]] void abort(int code) override {
        std::fflush(nullptr);
        for (const pid_t pid : children_pid_) ::kill(pid, SIGKILL);
        for (const pid_t pid : children_pid_) ::waitpid(pid, nullptr, 0);
        ::_exit(code);
    }

private:
    static void fail_if(const std::vector<int>& late, const std::vector<int>& gone, double timeout_s,
                        const std::string& what) {
        if (late.empty() && gone.empty()) return;
        std::ostringstream msg;
        if (!late.empty())
            msg << (late.size() == 1 ? "rank " : "ranks ") << list(late) << " did not reach '" << what << "' within "
                << timeout_s << " s";
        if (!gone.empty())
            msg << (late.empty() ? "" : "; ") << (gone.size() == 1 ? "rank " : "ranks ") << list(gone)
                << " exited before '" << what << "'";
        std::vector<int> all = late;
        all.insert(all.end(), gone.begin(), gone.end());
        throw RankFailure(msg.str(), all);
    }

    int rank_ = 0;
    int size_ = 1;
    int nodes_ = 1;
    int parent_fd_ = -1;
    std::vector<int> children_fd_;
    std::vector<pid_t> children_pid_;
};

}  // namespace

std::unique_ptr<World> make_local_world(int ranks, int nodes) {
    if (ranks < 1) throw std::invalid_argument("ranks = " + std::to_string(ranks) + "; valid: an integer >= 1");
    if (nodes < 1 || ranks % nodes != 0)
        throw std::invalid_argument("nodes = " + std::to_string(nodes) + "; valid: a divisor of the " +
                                    std::to_string(ranks) + " ranks");
    return std::make_unique<LocalWorld>(ranks, nodes);
}

bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(v)) return true;
    const char* n = std::getenv("SLURM_NTASKS");
    return n && std::atoi(n) > 1;
}

}  // namespace libscale::harness
