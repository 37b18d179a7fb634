// Connection tokens: JWT (RFC 7519) signed with HS256 (HMAC-SHA256, through
// OpenSSL). Claims Herald reads:
//   sub    the user id (required, non-empty string)
//   exp    expiry, seconds since the Unix epoch (optional; checked on connect
//          and enforced while connected)
//   nbf    not before (optional)
//   rooms  room patterns the user may subscribe to and publish in: "*",
//          "ns:*" or an exact room (optional; absent means every room)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace herald::gateway::auth {

struct Claims {
  std::string user;
  std::optional<std::int64_t> expires_at;  // Unix seconds
  std::optional<std::int64_t> not_before;  // Unix seconds
  std::optional<std::vector<std::string>> rooms;

  // Whether the claims allow `room` (always, when there is no rooms claim).
  [[nodiscard]] bool allows(std::string_view room) const;
};

enum class TokenError : std::uint8_t {
  malformed,        // not three base64url parts, or not JSON objects
  unsupported_alg,  // header alg is not HS256
  bad_signature,
  missing_subject,
  bad_claim,  // a claim has the wrong type
  expired,
  not_yet_valid,
};

[[nodiscard]] std::string_view describe(TokenError e);

using VerifyResult = std::variant<Claims, TokenError>;

class TokenVerifier {
 public:
  explicit TokenVerifier(std::string secret) : secret_(std::move(secret)) {}
  // Checks signature, then claims against `now` (Unix seconds).
  [[nodiscard]] VerifyResult verify(std::string_view token, std::int64_t now) const;

 private:
  std::string secret_;
};

// Signs claims into a token (for tests, tools and dev mode issuance).
[[nodiscard]] std::string sign_hs256(const Claims& claims, std::string_view secret);

// RFC 4648 base64url without padding. decode returns nullopt on any
// character outside the alphabet or an impossible length.
[[nodiscard]] std::string base64url_encode(std::string_view bytes);
[[nodiscard]] std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace herald::gateway::auth
