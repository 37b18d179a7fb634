// Fuzz target: connection token verification (base64url, JSON claims,
// signature). Must never crash; a random input must not verify. The input
// is also signed as a token's payload, so that the claims parser sees every
// shape of JSON: what verifies under auth.audience / auth.issuer names that
// audience (aud, or an element of it) and that issuer.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gateway/auth/token.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace herald::gateway::auth;
  static const TokenVerifier verifier("fuzz-secret");
  static const TokenVerifier strict("fuzz-secret", {},
                                    Expected{"herald", "https://id.example", {}, {}});
  // Safety: the fuzzer's bytes are read as chars, no layout is assumed.
  std::string_view token(reinterpret_cast<const char*>(data), size);
  VerifyResult r = verifier.verify(token, 1'700'000'000);
  // A verified token always names its user (an empty sub is refused).
  if (auto* claims = std::get_if<Claims>(&r); claims && claims->user.empty()) std::abort();
  (void)base64url_decode(token);

  const std::string signed_payload = sign_hs256_payload(token, "fuzz-secret");
  (void)verifier.verify(signed_payload, 1'700'000'000);
  VerifyResult s = strict.verify(signed_payload, 1'700'000'000);
  if (auto* claims = std::get_if<Claims>(&s)) {
    if (claims->user.empty() || claims->issuer != "https://id.example") std::abort();
    if (std::find(claims->audience.begin(), claims->audience.end(), "herald") ==
        claims->audience.end())
      std::abort();
  }
  return 0;
}
