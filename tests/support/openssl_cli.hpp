// The openssl command line as an independent party in tests: it signs
// tokens the server must verify, makes certificates the server must serve,
// and connects as a TLS client. Needs OPENSSL_PATH (CMake's
// find_program(OPENSSL_CLI openssl)) defined by the test target.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/process.hpp"

namespace herald::test {

// openssl <args...>; fails the test with openssl's output on a non-zero exit.
inline void openssl(std::vector<std::string> args) {
  args.insert(args.begin(), OPENSSL_PATH);
  auto r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace herald::test
