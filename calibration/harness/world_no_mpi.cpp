// Built when CMake found no MPI: the harness then runs on one node (LocalWorld).
#include <stdexcept>

#include "world.hpp"

namespace libscale::harness {

std::unique_ptr<World> make_mpi_world(int*, char***) {
    throw std::runtime_error(
        "this libscale-calibrate was built without MPI (CMake found none): it runs on one node, one process per GPU; "
        "install an MPI (Debian: libopenmpi-dev) and rebuild to launch it with mpirun or srun across nodes");
}
bool have_mpi() { return false; }

}  // namespace libscale::harness
