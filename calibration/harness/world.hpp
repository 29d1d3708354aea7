// The ranks of a calibration run: one process per GPU. Rank 0 gathers every rank's
// records and writes the files. Two ways to start them:
// - MPI (mpirun, or srun with PMI under Slurm): MpiWorld, across nodes;
// - without MPI, on one node: LocalWorld forks one process per GPU and talks to them over
//   socket pairs (before any GPU is touched: CUDA does not survive a fork).
// Every exchange has a deadline, so a rank that hangs or dies is named instead of hanging
// the run (RankFailure).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace libscale::harness {

// Ranks that did not answer in time, or exited: "rank 2 did not reach 'collectives' in 600 s".
class RankFailure : public std::runtime_error {
public:
    RankFailure(const std::string& what, std::vector<int> ranks) : std::runtime_error(what), ranks_(std::move(ranks)) {}
    const std::vector<int>& ranks() const { return ranks_; }

private:
    std::vector<int> ranks_;
};

class World {
public:
    virtual ~World() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    virtual int local_rank() const = 0;  // the GPU this rank uses, within its node
    virtual int local_size() const = 0;  // ranks on this rank's node
    virtual int nodes() const = 0;
    virtual std::string kind() const = 0;  // "mpi" | "local"
    // Rank 0 gets every rank's `mine` in rank order; the others get an empty list. Throws
    // RankFailure naming the ranks that did not send within `timeout_s`, and `what`.
    virtual std::vector<std::string> gather(const std::string& mine, double timeout_s, const std::string& what) = 0;
    // Every rank gets rank 0's `data`.
    virtual std::string broadcast(const std::string& data, double timeout_s, const std::string& what) = 0;
    // A rank other than 0 that cannot go on (its GPU failed) tells rank 0, whose exchange
    // in progress then throws RankFailure with `what`; rank 0 then stops every rank.
    virtual void report_failure(const std::string& what) = 0;
    void barrier(double timeout_s, const std::string& what) {
        gather({}, timeout_s, what);
        broadcast({}, timeout_s, what);
    }
    // Ends every rank now with `code` (MPI_Abort; the local world kills its children).
    [[noreturn]] virtual void abort(int code) = 0;
};

// One rank per GPU on this node, forked from the calling process (ranks 1..ranks−1 are
// children; the caller becomes rank 0). `nodes` > 1 pretends the ranks are spread over
// that many nodes (consecutive ranks per node): for the simulated backend only, so that a
// single machine can exercise the rings that cross nodes. Throws std::invalid_argument
// unless nodes divides ranks.
std::unique_ptr<World> make_local_world(int ranks, int nodes = 1);

// MPI_Init_thread, MPI_COMM_WORLD; the node-local rank from MPI_Comm_split_type. Throws
// std::runtime_error when the harness was built without MPI.
std::unique_ptr<World> make_mpi_world(int* argc, char*** argv);
bool have_mpi();
// True when a launcher started this process as one of several (mpirun, srun): the
// environment names a rank (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, SLURM_NTASKS > 1).
bool launched_by_mpi();

}  // namespace libscale::harness
