# Helpers that keep each module's CMakeLists.txt a few lines long.

# herald_library(<name> SOURCES ... [DEPS ...])
# A static library `herald_<name>` with alias `herald::<name>`, include root
# at src/ (so code includes "core/log.hpp", "gateway/server.hpp", ...).
function(herald_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(herald_${name} STATIC ${ARG_SOURCES})
  add_library(herald::${name} ALIAS herald_${name})
  target_include_directories(herald_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(herald_${name} PUBLIC ${ARG_DEPS} PRIVATE herald_warnings)
  target_compile_options(herald_${name} PRIVATE ${HERALD_FUZZ_COVERAGE})
endfunction()

# herald_test(<name> SOURCES ... [DEPS ...] [LABELS ...])
# A GoogleTest executable registered with ctest. Label `threaded` marks tests
# that exercise several threads; the tsan preset runs exactly those.
function(herald_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} herald_test_support GTest::gtest
    GTest::gmock GTest::gtest_main herald_warnings)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 600)
  # The TSan build compiles only what `ctest -L threaded` runs
  # (tests/CMakeLists.txt: threaded_tests).
  if("threaded" IN_LIST ARG_LABELS)
    set_property(GLOBAL APPEND PROPERTY HERALD_THREADED_TESTS ${name})
  endif()
endfunction()

# herald_fuzz(<name> SOURCES ... [DEPS ...])
# One fuzz target per parser. The target's source defines
# LLVMFuzzerTestOneInput and is compiled once, into the object library
# fuzz_<name>_obj (set a target's own definitions and include directories
# there). Two executables link it:
#   fuzz_<name>_replay  plain main (fuzz/replay_main.cpp) that feeds every
#                       file of fuzz/corpus/<name> and fuzz/crashes/<name>;
#                       registered with ctest in every build.
#   fuzz_<name>         the libFuzzer binary, only with HERALD_FUZZ=ON (clang;
#                       the objects carry libFuzzer's coverage then, which
#                       the replay, linked with the sanitizer, ignores).
# Every libFuzzer binary is also listed in the global property HERALD_FUZZERS
# (the `fuzzers` target builds them all, for `make test-fuzz`).
function(herald_fuzz name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  set(corpus ${PROJECT_SOURCE_DIR}/fuzz/corpus/${name})
  set(crashes ${PROJECT_SOURCE_DIR}/fuzz/crashes/${name})
  # The replay main is compiled once (herald_fuzz_replay_main) and linked
  # into every replay binary.
  if(NOT TARGET herald_fuzz_replay_main)
    add_library(herald_fuzz_replay_main OBJECT ${PROJECT_SOURCE_DIR}/fuzz/replay_main.cpp)
    target_link_libraries(herald_fuzz_replay_main PRIVATE herald_warnings)
  endif()
  add_library(fuzz_${name}_obj OBJECT ${ARG_SOURCES})
  target_compile_options(fuzz_${name}_obj PRIVATE ${HERALD_FUZZ_COVERAGE})
  target_link_libraries(fuzz_${name}_obj PRIVATE ${ARG_DEPS} herald_warnings)
  add_executable(fuzz_${name}_replay $<TARGET_OBJECTS:fuzz_${name}_obj>
                 $<TARGET_OBJECTS:herald_fuzz_replay_main>)
  target_link_libraries(fuzz_${name}_replay PRIVATE ${ARG_DEPS})
  if(HERALD_BUILD_TESTS)
    add_test(NAME fuzz_${name}_replay COMMAND fuzz_${name}_replay ${corpus} ${crashes})
    set_tests_properties(fuzz_${name}_replay PROPERTIES LABELS "fuzz")
  endif()
  if(HERALD_FUZZ)
    add_executable(fuzz_${name} $<TARGET_OBJECTS:fuzz_${name}_obj>)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${name} PRIVATE ${ARG_DEPS})
    set_property(GLOBAL APPEND PROPERTY HERALD_FUZZERS fuzz_${name})
  endif()
endfunction()
