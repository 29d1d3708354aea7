# LIBSCALE_SANITIZE: AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer
# on every C++ target of the build: the core, the tests and the fake NVML libraries they
# dlopen, the harness and its CUDA backend's host code (but for the cudnn-frontend file:
# calibration/cuda/CMakeLists.txt says why), the benchmarks, the fuzz targets
# (and whatever a subdirectory adds later), through directory-wide options limited to C++
# compiles and C++ links, so that nvcc never sees these host-only flags. Included by the
# top CMakeLists.txt before any target is defined. Flags (GCC manual, "Program
# Instrumentation Options", https://gcc.gnu.org/onlinedocs/gcc/Instrumentation-Options.html;
# Clang's UndefinedBehaviorSanitizer page, https://clang.llvm.org/docs/UndefinedBehaviorSanitizer.html):
#   -fsanitize=address,undefined  memory errors, leaks, undefined behaviour
#   -fsanitize=float-cast-overflow  a double out of an integer type's range converted to it:
#                                 undefined behaviour that Clang's -fsanitize=undefined
#                                 checks and GCC's leaves out ("not enabled by
#                                 -fsanitize=undefined"), said here so both compilers check it
#   -fno-sanitize-recover=all     a UBSan finding stops the program (exit status non-zero)
#                                 instead of printing and going on, so a test cannot pass over it
#   -fno-omit-frame-pointer       whole stack traces from the fast unwinder
#   -D_GLIBCXX_ASSERTIONS         libstdc++'s precondition checks (operator[] in bounds, front()
#                                 of a non-empty container...), which ASan misses inside a
#                                 container's capacity; no ABI change
#                                 (https://gcc.gnu.org/onlinedocs/libstdc++/manual/using_macros.html)
#   LIBSCALE_SANITIZE_OPT         -Og -g1 by default, after the build type's flags (so it wins
#                                 over -O3): optimised, as the AddressSanitizer wiki advises for
#                                 reasonable speed (https://github.com/google/sanitizers/wiki/AddressSanitizer,
#                                 "-O1 or higher"), at GCC's level for "fast compilation"
#                                 (-Og: -O1 without the passes that hinder debugging; it keeps
#                                 the flow analysis behind -Wmaybe-uninitialized, which -O0
#                                 loses); -g1 for the line tables that stack traces need, without
#                                 the rest of the debug information. Measured on this project's
#                                 2-core machine (GCC 12, CPU seconds): fit_collectives.cpp 56 s
#                                 at -O1 -g, 48 s at -O1 -g1, 35 s at -Og -g1; the whole
#                                 sanitized build 1,247 s at -O1 -g1, 862 s at -Og -g1, its
#                                 ctest 96 s at -O1, 117 s at -Og
#
# The run-time options for the tests are in LIBSCALE_SANITIZER_ENV (a list for a test's
# ENVIRONMENT property), applied to the tests of a folder by libscale_sanitize_tests().
include_guard(GLOBAL)

if(NOT LIBSCALE_SANITIZE)
  set(LIBSCALE_SANITIZER_ENV "")
  function(libscale_sanitize_tests)
  endfunction()
  return()
endif()

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
  message(FATAL_ERROR "libscale: LIBSCALE_SANITIZE needs GCC or Clang (-fsanitize=address,undefined); "
                      "the C++ compiler is ${CMAKE_CXX_COMPILER_ID}")
endif()
if(LIBSCALE_BUILD_PYTHON)
  # A sanitized extension module loads into an unsanitized python only with the ASan run time
  # preloaded (LD_PRELOAD=$(c++ -print-file-name=libasan.so)) and with leak detection off,
  # since CPython keeps its interned objects to the end (LeakSanitizer then reports
  # thousands of "leaks" that are not libscale's): not something pytest or pip can set up
  # for itself. The C++ tests cover the core under the sanitizers; the module is built
  # without them.
  message(FATAL_ERROR "libscale: LIBSCALE_SANITIZE=ON with LIBSCALE_BUILD_PYTHON=ON is not supported: a "
                      "sanitized _core module needs the AddressSanitizer run time preloaded into Python "
                      "(LD_PRELOAD=libasan.so) and leak detection off. Configure the sanitized build "
                      "with -DLIBSCALE_BUILD_PYTHON=OFF (its C++ tests cover the core) and build the "
                      "module in another folder.")
endif()

set(LIBSCALE_SANITIZE_OPT "-Og -g1" CACHE STRING
    "Optimisation and debug-information flags of a LIBSCALE_SANITIZE build (after the build type's)")
separate_arguments(_libscale_sanitize_opt UNIX_COMMAND "${LIBSCALE_SANITIZE_OPT}")
set(_libscale_sanitize_flags -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
    -fno-omit-frame-pointer -D_GLIBCXX_ASSERTIONS ${_libscale_sanitize_opt})
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_libscale_sanitize_flags}>")
add_link_options("$<$<LINK_LANGUAGE:CXX>:-fsanitize=address,undefined,float-cast-overflow>")
# Debian's and Ubuntu's GCC link with --as-needed by default, but not when -fsanitize is
# given (`gcc -dumpspecs`: "%{!fsanitize=*:--as-needed}"). Without it the harness and its
# tests record every library on their link line as needed, the CUDA driver stub among them
# (CUDA::nvrtc depends on CUDA::cuda_driver), and then fail to start on a machine without
# the driver ("libcuda.so.1: cannot open shared object file"). Said again here, so the
# sanitized programs need the same libraries as the others; the sanitizer run times are
# linked --no-as-needed by the compiler driver either way.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:LINKER:--as-needed>")
endif()
message(STATUS "libscale: C++ targets built with AddressSanitizer and UndefinedBehaviorSanitizer (LIBSCALE_SANITIZE)")

# The tests' run-time options, in the environment of every test (so a plain `ctest` in a
# sanitized folder uses them) and of the programs a test starts (libscale-calibrate, and
# mpirun's ranks, inherit it). Option names: https://github.com/google/sanitizers/wiki/SanitizerCommonFlags,
# .../AddressSanitizerFlags, and UBSan's in the Clang manual (page above, "Runtime options").
#   halt_on_error, abort_on_error=0   stop at the first finding with a non-zero exit status
#                                      (not SIGABRT, so ctest shows "Failed", not a core dump)
#   detect_leaks                       LeakSanitizer at exit (on by default on x86_64 Linux,
#                                      said here so that it is on wherever it is supported)
#   detect_stack_use_after_return      instrumented by GCC 12 / Clang 14, off at run time by default
#   check_initialization_order,
#   strict_init_order                  static initialisation order across files
#   print_stacktrace                   UBSan prints where, not only what
# (Open MPI's own leaks: calibration/harness/sanitize_mpi.cpp.)
set(LIBSCALE_SANITIZER_ENV
    "ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
    "UBSAN_OPTIONS=halt_on_error=1:abort_on_error=0:print_stacktrace=1:report_error_type=1")

# libscale_sanitize_tests(<var>...): LIBSCALE_SANITIZER_ENV on the tests that
# gtest_discover_tests() lists in <var> (<target>_TESTS unless TEST_LIST says otherwise; a
# variable "only available in CTest", CMake's GoogleTest module documentation).
# gtest_discover_tests's own PROPERTIES cannot carry it: GoogleTestAddTests.cmake (CMake
# 3.25) writes a list-valued ENVIRONMENT "A=1;B=2" as ENVIRONMENT [==[A=1]==] [==[B=2]==],
# so B=2 becomes a property name and only A reaches the test. A TEST_INCLUDE_FILES script,
# which ctest reads after the discovered tests' (appended after gtest_discover_tests's own),
# sets it whole.
function(libscale_sanitize_tests)
  set(script "${CMAKE_CURRENT_BINARY_DIR}/libscale_sanitizer_env.cmake")
  set(content "")
  foreach(list_var IN LISTS ARGN)
    string(APPEND content
           "if(${list_var})\n  set_tests_properties(\${${list_var}} PROPERTIES ENVIRONMENT [==[${LIBSCALE_SANITIZER_ENV}]==])\nendif()\n")
  endforeach()
  file(WRITE "${script}" "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()
