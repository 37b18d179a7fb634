// Fuzz target: a JWK set (auth/jwks.hpp), as auth.jwks_file gives it. Must
// never crash; anything but an invalid_argument is a bug; a set it accepts
// holds at least one key, each findable and usable (RSA of at least
// kMinRsaBits, EC of 256 or 384 bits).
#include "gateway/auth/jwks.hpp"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "gateway/auth/token.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::gateway::auth;
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view json(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<std::string> skipped;
    const Jwks set = Jwks::parse(json, &skipped);
    if (set.size() == 0) std::abort();
  } catch (const std::invalid_argument&) {
    // refused, with a message: fine
  }
  return 0;
}
