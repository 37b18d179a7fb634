# Build options shared by every target. Presets (CMakePresets.json) set these;
# a plain `cmake -B build` gets a warning-clean release-like build.
option(HERALD_WERROR "Treat compiler warnings as errors" OFF)
option(HERALD_BUILD_TESTS "Build tests" ON)
option(HERALD_BUILD_BENCH "Build benchmarks" ON)
option(HERALD_FUZZ "Build libFuzzer binaries (clang only)" OFF)
set(HERALD_SANITIZE "" CACHE STRING "Sanitizers: '', 'address,undefined' or 'thread'")
# asio's io_uring backend (liburing) in place of epoll for every socket. It
# changes the io_context's implementation, so every target must agree: a
# global switch, off by default and experimental (G2 in docs/benchmarks.md
# measured it and lists what failed on this build). Since the gateway writes
# with its own non-blocking sendmsg (src/gateway/ws/write_cork.hpp), the
# switch no longer touches the write path: only reads, waits and timers.
option(HERALD_IO_URING "Build asio with its io_uring backend instead of epoll" OFF)
if(HERALD_IO_URING)
  add_compile_definitions(BOOST_ASIO_HAS_IO_URING=1 BOOST_ASIO_DISABLE_EPOLL=1)
  link_libraries(uring)
endif()

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "" FORCE)
endif()

# herald_warnings: every Herald target links this interface library, so the
# warning set lives in one place. Third-party headers come in as SYSTEM.
add_library(herald_warnings INTERFACE)
target_compile_options(herald_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  -Wimplicit-fallthrough)
# GCC 12 at -O2/-O3 reports -Wrestrict on ordinary std::string concatenation
# inside libstdc++ (GCC bugs 105329, 105651): a false positive in library
# code we cannot change, so it is off for that compiler only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(herald_warnings INTERFACE -Wno-restrict)
endif()
if(HERALD_WERROR)
  target_compile_options(herald_warnings INTERFACE -Werror)
endif()

if(HERALD_SANITIZE)
  add_compile_options(-fsanitize=${HERALD_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${HERALD_SANITIZE})
  if(HERALD_SANITIZE MATCHES "thread" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Asio's fenced blocks use atomic_thread_fence, which TSan does not model;
    # GCC warns about each one. Handlers cross threads through the scheduler's
    # mutex, which TSan does see, so the fences add no happens-before edges
    # that TSan would miss.
    add_compile_options(-Wno-tsan)
  endif()
  if(HERALD_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=all)
  endif()
endif()

# libFuzzer's coverage instrumentation (HERALD_FUZZ, clang): the asan preset
# builds the tests and the libFuzzer binaries in one tree. The coverage goes
# only where a fuzz target can reach: the libraries (herald_library,
# heraldd_lib) and the targets' own sources (herald_fuzz). Tests and apps do
# without: on every source it made the sanitizer build two thirds slower
# (http_session.cpp: 23.5 s without, 39.4 s with, clang -O0), and the
# sanitizer runtime supplies the hooks the libraries' objects call.
set(HERALD_FUZZ_COVERAGE "")
if(HERALD_FUZZ)
  set(HERALD_FUZZ_COVERAGE -fsanitize=fuzzer-no-link)
endif()

# Asio: no deprecated interfaces; Beast: keep debug checks out of release.
add_compile_definitions(BOOST_ASIO_NO_DEPRECATED)
