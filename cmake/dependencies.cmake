# Eigen3 and nlohmann_json, both header-only: the installed packages when CMake finds
# them (Debian: libeigen3-dev, nlohmann-json3-dev), otherwise the pinned release
# archives, downloaded by FetchContent and checked against their SHA256. Either way the
# targets are Eigen3::Eigen and nlohmann_json::nlohmann_json.
#
#   LIBSCALE_FETCH_DEPS  AUTO (default): find_package, else download
#                        ON: always download (what a manylinux / macOS wheel build does
#                            anyway: neither has the packages)
#                        OFF: find_package only, never download
#   LIBSCALE_EIGEN_URL, LIBSCALE_EIGEN_SHA256, LIBSCALE_JSON_URL, LIBSCALE_JSON_SHA256:
#                        the archives and their checksums (a file:// URL works, for an
#                        offline build or a mirror).
#
# CMAKE_DISABLE_FIND_PACKAGE_Eigen3 / CMAKE_DISABLE_FIND_PACKAGE_nlohmann_json also
# send AUTO to the download, for one package at a time.
include_guard(GLOBAL)

set(LIBSCALE_FETCH_DEPS AUTO CACHE STRING
    "Eigen3 and nlohmann_json: AUTO = installed package, else download the pinned archive; ON = always download; OFF = installed package only")
set_property(CACHE LIBSCALE_FETCH_DEPS PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${LIBSCALE_FETCH_DEPS}" _libscale_fetch_mode)
if(_libscale_fetch_mode MATCHES "^(ON|YES|TRUE|1)$")
  set(_libscale_fetch_mode ON)
elseif(_libscale_fetch_mode MATCHES "^(OFF|NO|FALSE|0)$")
  set(_libscale_fetch_mode OFF)
elseif(NOT _libscale_fetch_mode STREQUAL "AUTO")
  message(FATAL_ERROR "libscale: LIBSCALE_FETCH_DEPS is '${LIBSCALE_FETCH_DEPS}'; use AUTO, ON or OFF")
endif()

# Eigen 3.4.0, the release archive from Eigen's GitLab. SHA256 as published in
# conda-forge's eigen-feedstock, recipe/meta.yaml (source url eigen-3.4.0.tar.gz, sha256),
# https://github.com/conda-forge/eigen-feedstock/blob/main/recipe/meta.yaml ; the same
# url and hash are in Bazel http_archive pins (strip_prefix "eigen-3.4.0": the archive
# holds eigen-3.4.0/Eigen/...).
set(LIBSCALE_EIGEN_URL "https://gitlab.com/libeigen/eigen/-/archive/3.4.0/eigen-3.4.0.tar.gz"
    CACHE STRING "Eigen release archive downloaded when Eigen3 is not installed")
set(LIBSCALE_EIGEN_SHA256 "8586084f71f9bde545ee7fa6d00288b264a2b7ac3607b974e54d13e7162c1c72"
    CACHE STRING "SHA256 of LIBSCALE_EIGEN_URL")
# nlohmann/json 3.11.3, json.tar.xz: the small source archive attached to each release
# for FetchContent (since 3.10.5, nlohmann/json discussion #3255: json/CMakeLists.txt,
# json/include/nlohmann/..., json/single_include/...). SHA256 as pinned for that asset by,
# e.g., IntelRealSense/RealSenseID cmake/nlohmann-json.cmake
# (https://github.com/IntelRealSense/RealSenseID/blob/master/cmake/nlohmann-json.cmake)
# and several other public FetchContent/URL_HASH pins of the same URL.
set(LIBSCALE_JSON_URL "https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz"
    CACHE STRING "nlohmann/json release archive downloaded when nlohmann_json is not installed")
set(LIBSCALE_JSON_SHA256 "d6c65aca6b1ed68e7a182f4757257b107ae403032760ed6ef121c9d55e81757d"
    CACHE STRING "SHA256 of LIBSCALE_JSON_URL")

include(FetchContent)

# Downloads URL (checked against SHA256) into the build tree and defines the IMPORTED
# header-only TARGET with INCLUDE_SUBDIR ("" for the top) of the unpacked archive as its
# include directory; PROBE, a header relative to that directory, must exist there.
# FetchContent drops the archive's single top folder (eigen-3.4.0/, json/).
function(_libscale_fetch_headers name target url sha256 include_subdir probe url_var sha_var)
  string(TOLOWER "${sha256}" sha)
  if(NOT sha MATCHES "^[0-9a-f]+$")
    message(FATAL_ERROR "libscale: ${sha_var} is '${sha256}', not a SHA256 (64 hex digits)")
  endif()
  string(LENGTH "${sha}" len)
  if(NOT len EQUAL 64)
    message(FATAL_ERROR "libscale: ${sha_var} is '${sha256}', not a SHA256 (64 hex digits)")
  endif()
  message(STATUS "libscale: ${name} not taken from the system: downloading ${url} "
                 "(${url_var}), expected SHA256 ${sha} (${sha_var}); "
                 "a mismatch stops the configure here")
  # SOURCE_SUBDIR names a folder that the archive does not have, so that MakeAvailable
  # only downloads and unpacks: the project's own CMakeLists.txt (Eigen's adds its tests
  # and docs) is not added to this build.
  FetchContent_Declare(libscale_${name}
    URL "${url}"
    URL_HASH SHA256=${sha}
    SOURCE_SUBDIR libscale-headers-only)
  FetchContent_MakeAvailable(libscale_${name})
  set(include_dir "${libscale_${name}_SOURCE_DIR}")
  set(layout "${probe}")
  if(include_subdir)
    string(APPEND include_dir "/${include_subdir}")
    set(layout "${include_subdir}/${probe}")
  endif()
  if(NOT EXISTS "${include_dir}/${probe}")
    message(FATAL_ERROR "libscale: the archive ${url} (${url_var}) has no ${layout} under its "
                        "top folder: not the ${name} release layout")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  # An IMPORTED target's include directories are system ones: no warnings from them.
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${include_dir}")
  message(STATUS "libscale: ${name} from ${include_dir}")
endfunction()

if(NOT _libscale_fetch_mode STREQUAL "ON")
  find_package(Eigen3 3.3 QUIET NO_MODULE)
  find_package(nlohmann_json 3.10 QUIET)
endif()
foreach(_pkg Eigen3 nlohmann_json)
  if(NOT ${_pkg}_FOUND AND _libscale_fetch_mode STREQUAL "OFF")
    message(FATAL_ERROR "libscale: ${_pkg} not found and LIBSCALE_FETCH_DEPS=OFF: install it "
                        "(Debian: libeigen3-dev, nlohmann-json3-dev), point CMAKE_PREFIX_PATH at it, "
                        "or set LIBSCALE_FETCH_DEPS=AUTO to download the pinned release")
  endif()
endforeach()

if(Eigen3_FOUND AND TARGET Eigen3::Eigen)
  message(STATUS "libscale: Eigen ${Eigen3_VERSION} from ${Eigen3_DIR}")
else()
  _libscale_fetch_headers(eigen Eigen3::Eigen "${LIBSCALE_EIGEN_URL}" "${LIBSCALE_EIGEN_SHA256}"
                          "" "Eigen/Core" LIBSCALE_EIGEN_URL LIBSCALE_EIGEN_SHA256)
endif()
if(nlohmann_json_FOUND AND TARGET nlohmann_json::nlohmann_json)
  message(STATUS "libscale: nlohmann_json ${nlohmann_json_VERSION} from ${nlohmann_json_DIR}")
else()
  _libscale_fetch_headers(json nlohmann_json::nlohmann_json "${LIBSCALE_JSON_URL}" "${LIBSCALE_JSON_SHA256}"
                          "include" "nlohmann/json.hpp" LIBSCALE_JSON_URL LIBSCALE_JSON_SHA256)
endif()
unset(_libscale_fetch_mode)
unset(_pkg)
