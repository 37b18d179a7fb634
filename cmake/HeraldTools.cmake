# Tools that some tests need (node, kdig, nsd, clang-format, and unicode-data's
# CaseFolding.txt and UnicodeData.txt). Where one is missing, the tests that
# need it cannot run.
# On a developer's machine that is a warning and those tests are left out;
# in CI (CI=true) and under `make test` (HERALD_REQUIRE_TOOLS=1), where
# scripts/setup.sh has installed everything, it stops the configure, so a
# suite never passes by skipping.
# tests/expected_tests.cmake checks the other way round, from ctest's list.
function(herald_missing_tool what)
  if("$ENV{CI}" STREQUAL "true" OR "$ENV{HERALD_REQUIRE_TOOLS}")
    message(FATAL_ERROR "${what} (scripts/setup.sh installs it)")
  else()
    message(WARNING "${what} (scripts/setup.sh installs it)")
  endif()
endfunction()
