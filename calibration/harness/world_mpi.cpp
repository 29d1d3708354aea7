// MpiWorld: ranks started by mpirun or srun. Gathers and broadcasts are point-to-point
// nonblocking messages polled against a deadline (MPI's blocking collectives cannot time
// out), so a rank that hangs or died is named.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "world.hpp"

namespace libscale::harness {

namespace {

using Clock = std::chrono::steady_clock;

class MpiWorld final : public World {
public:
    MpiWorld(int* argc, char*** argv) {
        int provided = 0;
        MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
        // Errors come back as codes (and become RankFailure) instead of aborting inside MPI.
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_);
        MPI_Comm_rank(node_, &local_rank_);
        MPI_Comm_size(node_, &local_size_);
        // Nodes: the number of node leaders (local rank 0).
        int leader = local_rank_ == 0 ? 1 : 0;
        MPI_Allreduce(&leader, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    ~MpiWorld() override {
        MPI_Comm_free(&node_);
        MPI_Finalize();
    }
    MpiWorld(const MpiWorld&) = delete;
    MpiWorld& operator=(const MpiWorld&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    int local_rank() const override { return local_rank_; }
    int local_size() const override { return local_size_; }
    int nodes() const override { return nodes_; }
    std::string kind() const override { return "mpi"; }

    std::vector<std::string> gather(const std::string& mine, double timeout_s, const std::string& what) override {
        const int tag = next_tag();
        const auto deadline = after(timeout_s);
        if (static_cast<double>(mine.size()) > 2e9) throw std::length_error("a rank's records exceed 2 GB");
        if (rank_ != 0) {
            send(mine, 0, tag, deadline, timeout_s, what);
            return {};
        }
        std::vector<std::string> out(static_cast<std::size_t>(size_));
        out[0] = mine;
        std::vector<bool> got(static_cast<std::size_t>(size_), false);
        got[0] = true;
        int left = size_ - 1;
        while (left > 0) {
            check_failures();
            for (int r = 1; r < size_; ++r) {
                if (got[static_cast<std::size_t>(r)]) continue;
                if (receive_if_ready(r, tag, out[static_cast<std::size_t>(r)])) {
                    got[static_cast<std::size_t>(r)] = true;
                    --left;
                }
            }
            if (left > 0 && Clock::now() > deadline) {
                std::vector<int> late;
                for (int r = 1; r < size_; ++r)
                    if (!got[static_cast<std::size_t>(r)]) late.push_back(r);
                throw RankFailure(describe(late, timeout_s, what), late);
            }
            if (left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return out;
    }

    std::string broadcast(const std::string& data, double timeout_s, const std::string& what) override {
        const int tag = next_tag();
        const auto deadline = after(timeout_s);
        if (rank_ == 0) {
            for (int r = 1; r < size_; ++r) send(data, r, tag, deadline, timeout_s, what);
            return data;
        }
        std::string out;
        while (!receive_if_ready(0, tag, out)) {
            if (Clock::now() > deadline) throw RankFailure(describe({0}, timeout_s, what), {0});
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return out;
    }

    void report_failure(const std::string& what) override {
        if (rank_ == 0) return;
        MPI_Request req;
        MPI_Isend(what.data(), static_cast<int>(what.size()), MPI_CHAR, 0, kFailureTag, MPI_COMM_WORLD, &req);
        MPI_Request_free(&req);
    }

    [[noreturn]] void abort(int code) override {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);  // MPI_Abort does not return; this satisfies [[noreturn]]
    }

private:
    static Clock::time_point after(double s) {
        return Clock::now() + std::chrono::microseconds(static_cast<long long>(std::min(s, 1e9) * 1e6));
    }
    // Tags cycle below MPI_TAG_UB's guaranteed minimum (32767); every rank calls the
    // exchanges in the same order, so their tags agree.
    int next_tag() { return tag_ = tag_ % 30000 + 1; }
    static constexpr int kFailureTag = 30001;

    static std::string describe(const std::vector<int>& ranks, double timeout_s, const std::string& what) {
        std::ostringstream s;
        s << (ranks.size() == 1 ? "rank " : "ranks ");
        for (std::size_t i = 0; i < ranks.size(); ++i) s << (i ? ", " : "") << ranks[i];
        s << " did not reach '" << what << "' within " << timeout_s << " s";
        return s.str();
    }

    void send(const std::string& data, int to, int tag, Clock::time_point deadline, double timeout_s,
              const std::string& what) {
        MPI_Request req;
        if (MPI_Isend(data.data(), static_cast<int>(data.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD, &req) !=
            MPI_SUCCESS)
            throw RankFailure("MPI_Isend to rank " + std::to_string(to) + " failed at '" + what + "'", {to});
        for (int done = 0;;) {
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            if (done) return;
            if (Clock::now() > deadline) {
                MPI_Cancel(&req);
                throw RankFailure(describe({to}, timeout_s, what), {to});
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    // A failure any rank reported (report_failure) ends rank 0's exchange.
    static void check_failures() {
        int ready = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, kFailureTag, MPI_COMM_WORLD, &ready, &st);
        if (!ready) return;
        std::string what;
        receive_if_ready(st.MPI_SOURCE, kFailureTag, what);
        throw RankFailure(what, {st.MPI_SOURCE});
    }

    static bool receive_if_ready(int from, int tag, std::string& out) {
        int ready = 0;
        MPI_Status st;
        MPI_Iprobe(from, tag, MPI_COMM_WORLD, &ready, &st);
        if (!ready) return false;
        int count = 0;
        MPI_Get_count(&st, MPI_CHAR, &count);
        out.assign(static_cast<std::size_t>(count), '\0');
        MPI_Recv(out.data(), count, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return true;
    }

    int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, nodes_ = 1, tag_ = 0;
    MPI_Comm node_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<World> make_mpi_world(int* argc, char*** argv) { return std::make_unique<MpiWorld>(argc, argv); }
bool have_mpi() { return true; }

}  // namespace libscale::harness
