// Sanitizer defaults of libscale-calibrate, compiled in only when it is built with
// LIBSCALE_SANITIZE and MPI (calibration/CMakeLists.txt, cmake/sanitize.cmake).
//
// Open MPI does not free everything it allocates in MPI_Init, its progress thread and its
// plugins by MPI_Finalize (its FAQ: Open MPI is not "Valgrind-clean",
// https://www.open-mpi.org/faq/?category=debugging#valgrind_clean), so LeakSanitizer would
// fail every rank at exit for memory that is not the harness's. Those leaks are suppressed
// by library here, wherever the program runs (ctest, pytest's README commands, by hand).
// A suppression matches a frame of the allocation's stack; Open MPI's plugins are built
// without frame pointers and unloaded by MPI_Finalize, where the fast unwinder stops, so
// the stacks are taken by the slow (DWARF) unwinder, which reaches the libraries above.
// Run-time options in ASAN_OPTIONS / LSAN_OPTIONS still come after these
// (https://github.com/google/sanitizers/wiki/SanitizerCommonFlags).
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>

extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }

extern "C" const char* __lsan_default_suppressions() {
    return "leak:libmpi.so\n"
           "leak:libopen-pal.so\n"
           "leak:libopen-rte.so\n"
           "leak:libpmix.so\n"
           "leak:libevent\n"
           "leak:libhwloc.so\n";
}
