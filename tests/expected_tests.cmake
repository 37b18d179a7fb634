# Fails unless ctest lists every test that needs an optional tool (node,
# kdig, nsd, delv, knotd and keymgr, libldns, clang-format) or data file
# (unicode-data's CaseFolding.txt and UnicodeData.txt), and, with the
# benchmarks built, the keyword engine's two peers (Hyperscan and the
# aho-corasick crate): a configure on a machine missing one leaves its tests
# out with a warning (cmake/HeraldTools.cmake), and this test makes that
# visible as a failure instead of a shorter, green suite.
# Run by ctest as:
#   cmake -DCTEST=<ctest> -DBUILD_DIR=<dir> -DBENCH=<HERALD_BUILD_BENCH> -P expected_tests.cmake
set(EXPECTED
  format_check
  node_chat node_tls node_failover node_centrifuge_sdk node_centrifuge_jwks node_centrifuge_cluster example_backend
  browser_chat browser_chat_deflate browser_origin browser_tls browser_sse browser_backend
  browser_client
  gateway_proxy_test cluster_proxy_test cluster_discovery_test
  dns_process_test dns_nsd_diff_test dns_signing_test dns_online_test dns_knot_diff_test
  match_unicode_oracle_test)
if(BENCH)
  list(APPEND EXPECTED bench_match_k2_counts)
endif()
execute_process(COMMAND ${CTEST} -N WORKING_DIRECTORY ${BUILD_DIR}
  OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest -N failed in ${BUILD_DIR}")
endif()
set(missing "")
foreach(name IN LISTS EXPECTED)
  if(NOT listing MATCHES "Test +#[0-9]+: ${name}\n")
    list(APPEND missing ${name})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "tests missing from this build: ${missing}. A tool they need was not "
    "found at configure time (see its warning); run scripts/setup.sh and configure again")
endif()
list(LENGTH EXPECTED count)
message(STATUS "all ${count} expected tests present")
