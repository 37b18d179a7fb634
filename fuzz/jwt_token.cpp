// Fuzz target: connection token verification (base64url, JSON claims,
// signature). Must never crash; a random input must not verify.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gateway/auth/token.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::gateway::auth;
  static const TokenVerifier verifier("fuzz-secret");
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view token(reinterpret_cast<const char*>(data), size);
  VerifyResult r = verifier.verify(token, 1'700'000'000);
  // A verified token always names its user (an empty sub is refused).
  if (auto* claims = std::get_if<Claims>(&r); claims && claims->user.empty()) std::abort();
  (void)base64url_decode(token);
  return 0;
}
