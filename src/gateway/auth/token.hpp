// Connection tokens: JWT (RFC 7519) signed with HS256/384/512 (HMAC),
// RS256/384/512 (RSA PKCS#1 v1.5) or ES256/ES384 (ECDSA on P-256/P-384),
// all through OpenSSL. The header's
// alg picks the check; an alg whose key is not configured is refused (so a
// token cannot downgrade RS256 to HS256 or to "none"). With a JWK set
// (jwks.hpp), a token whose header names a kid is verified with that key
// alone, and its alg must fit it (RS* an RSA key, ES256 P-256, ES384 P-384,
// and the key's own alg when it names one); a kid the set lacks is refused
// (unknown_key). A token without a kid goes to the configured keys as
// before. Claims Herald reads:
//   sub    the user id (required, non-empty string)
//   exp    expiry, seconds since the Unix epoch (optional; checked on connect
//          and enforced while connected)
//   nbf    not before (optional)
//   rooms  room patterns the user may subscribe to and publish in: "*",
//          "ns:*" or an exact room (optional; absent means every room)
//   subs   rooms the connection is subscribed to as part of connect
//          (server-side subscriptions; optional array of room names, or
//          Centrifugo's object keyed by them whose values may give the
//          client's chan_info there, info or b64info, and the data its
//          subscription carries, data or b64data, and an override of
//          the room's options; each name valid and each value of that
//          form, or the token is refused as bad_claim)
//   data   a subscription token's data for the client's subscribe reply
//          (data or b64data, any JSON)
//   override  a subscription token's override of the room's options
//          (auth/subscribe_override.hpp)
//   channel  the room a subscription token is for (Centrifugo's private
//          channels): required in one, refused in a connection token, so
//          neither opens what the other does
//   client   a subscription token's client id, when it is for one
//          connection only (optional)
//   meta   what the application attaches to the connection for its hooks
//          (any JSON; proxy requests carry it, clients never see it)
//   iss    issuer (a string); required to equal auth.issuer, or to match
//          auth.issuer_regex, when one is set
//   aud    audience, a string or an array of strings (RFC 7519 4.1.3);
//          required to contain auth.audience, or an element matching
//          auth.audience_regex, when one is set
// The audience and issuer checks are what keep a token minted for another
// service that shares the key (or the identity provider) from opening a
// session here; unset, any token the key verifies is accepted.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gateway/auth/base64.hpp"
#include "gateway/auth/claim_pattern.hpp"
#include "gateway/auth/subscribe_override.hpp"

namespace herald::gateway::auth {

class Jwks;

struct Claims {
  std::string user;
  std::optional<std::int64_t> expires_at;  // Unix seconds
  std::optional<std::int64_t> not_before;  // Unix seconds
  std::optional<std::vector<std::string>> rooms;
  std::optional<std::string> issuer;
  // Signed as a string when it has one element, as an array otherwise.
  std::vector<std::string> audience;
  // Server-side subscriptions, deduplicated, in the token's order: "subs"
  // as Herald signs it (an array of rooms) or as Centrifugo does (an object
  // keyed by channel), and Centrifugo's "channels" (an array).
  std::vector<std::string> subs;
  // Centrifugo's options per channel of a "subs" object, for the rooms
  // that have any: the client's chan_info in the room ("info" or
  // "b64info") and the data its subscription carries to the client ("data"
  // or "b64data"), each compact JSON or empty, and its "override" of the
  // room's options (auth/subscribe_override.hpp).
  struct SubOptions {
    std::string info_json;
    std::string data_json;
    SubscribeOverride override;
    bool operator==(const SubOptions&) const = default;
  };
  std::map<std::string, SubOptions, std::less<>> sub_options;
  // A subscription token's "data" (or "b64data"): what its subscribe reply
  // carries to the client, compact JSON or empty; and its "override" of
  // the room's options.
  std::string data_json;
  SubscribeOverride override;
  // What the token says of the user for others to see (Centrifugo's "info",
  // any JSON, or "b64info", that JSON base64-encoded): the connection's
  // info in presence and on its publications (conn_info). Empty: none.
  std::string info_json;
  // Centrifugo's "meta" (any JSON): what the application attaches to the
  // connection for its own hooks, never shown to other clients: every
  // hook request made for the connection carries it. Empty: none.
  std::string meta_json;
  // Centrifugo's "expire_at": when the connection ends, apart from when
  // the token stops being accepted (exp); 0 means never.
  std::optional<std::int64_t> expire_at;

  // A subscription token's room and client (both empty in a connection
  // token).
  std::string channel;
  std::string client;

  // When the connection (or subscription) this token opens ends:
  // expire_at when the token has it (0: never), else exp.
  [[nodiscard]] std::optional<std::int64_t> session_expiry() const {
    if (expire_at) return *expire_at == 0 ? std::nullopt : expire_at;
    return expires_at;
  }

  // Whether the claims allow `room` (always, when there is no rooms claim).
  [[nodiscard]] bool allows(std::string_view room) const;
  // How long from `now` (Unix seconds) until expires_at, for the timer that
  // enforces it: 0 when past, and at most kLongestWait. A timer counts
  // steady_clock nanoseconds in 64 bits (about 292 years), so an exp far in
  // the future (253402300799, the year 9999, a common "never") would
  // overflow it; such a token simply outlives the clamp. Null without exp.
  [[nodiscard]] std::optional<std::chrono::seconds> time_to_expiry(std::int64_t now) const;
};

// The wait behind Claims::time_to_expiry, for any expiry in Unix seconds
// (the connect hook's expire_at too): 0 when past, at most kLongestWait.
inline constexpr std::chrono::seconds kLongestWait{std::chrono::hours(24 * 365 * 100)};
[[nodiscard]] std::chrono::seconds wait_until_expiry(std::int64_t expires_at, std::int64_t now);

enum class TokenError : std::uint8_t {
  malformed,        // not three base64url parts, or not JSON objects
  unsupported_alg,  // header alg is none of HS256/384/512, RS256/384/512, ES256/384, or its
                    // key is not configured
  bad_signature,
  missing_subject,
  long_subject,  // sub is over protocol::kMaxUserBytes (user_name.hpp)
  bad_claim,     // a claim has the wrong type
  expired,
  not_yet_valid,
  wrong_audience,      // auth.audience is set and aud does not name it
  wrong_issuer,        // auth.issuer is set and iss is not it
  subscription_token,  // a connection token with a channel claim
  missing_channel,     // a subscription token without one
  unknown_key,         // a kid the JWK set has no key for
  key_pending,         // the same, while the set is fetched again (a temporary refusal: retry)
};

// What a token is presented for: opening a connection, or subscribing to a
// private room (its channel claim tells them apart).
enum class TokenUse : std::uint8_t { connection, subscription };

[[nodiscard]] std::string_view describe(TokenError e);

using VerifyResult = std::variant<Claims, TokenError>;

// What a token must say besides a valid signature; an empty field is not
// checked.
struct Expected {
  std::string audience;  // must be aud, or one element of it
  std::string issuer;    // must be iss
  // Or a pattern one element of aud / iss must match (either one of a
  // pair, never both): claim_pattern.hpp.
  std::optional<ClaimPattern> audience_pattern;
  std::optional<ClaimPattern> issuer_pattern;
};

// Smallest RS256 public key accepted (RFC 7518 3.3 asks for 2048 bits or
// more). Not configurable: a shorter key can be factored.
inline constexpr int kMinRsaBits = 2048;

// A public key the verifier cannot use: which one, and why (std::invalid_
// argument's what()), so the caller can name the setting it came from.
struct KeyError : std::invalid_argument {
  enum class Key : std::uint8_t { rsa, ecdsa };
  KeyError(Key which, const std::string& why) : std::invalid_argument(why), key(which) {}
  Key key;
};

class TokenVerifier {
 public:
  // `secret` enables HS256 (empty: off); its length is checked where the
  // configuration is (gateway::Server), so tests may use short ones.
  // `rsa_public_key_pem` enables RS256 (empty: off); throws KeyError if it
  // is not a PEM RSA public key of at least kMinRsaBits (start-up only).
  // `ecdsa_public_key_pem` enables ES256 (a P-256 key) or ES384 (P-384);
  // empty: off; throws KeyError for anything else.
  explicit TokenVerifier(std::string secret, std::string_view rsa_public_key_pem = {},
                         Expected expected = {}, std::string_view ecdsa_public_key_pem = {});
  ~TokenVerifier();
  TokenVerifier(const TokenVerifier&) = delete;
  TokenVerifier& operator=(const TokenVerifier&) = delete;

  // Checks signature, then claims against `now` (Unix seconds) and `use`.
  [[nodiscard]] VerifyResult verify(std::string_view token, std::int64_t now,
                                    TokenUse use = TokenUse::connection) const;

  // The JWK set tokens with a kid are verified with (null: none), replaced
  // whole: a verification in flight on another thread keeps the set it
  // took. Any thread.
  void set_jwks(std::shared_ptr<const Jwks> keys);
  [[nodiscard]] std::shared_ptr<const Jwks> jwks() const;
  // Where the set comes from a URL (jwks_fetcher.hpp): `wanted` is told of
  // a kid the set lacks, and such a token is refused as key_pending (try
  // again) rather than unknown_key. Set before the verifier is shared.
  void fetch_unknown_kids(std::function<void()> wanted) { wanted_ = std::move(wanted); }

 private:
  std::string secret_;
  Expected expected_;
  mutable std::mutex jwks_mu_;  // guards jwks_ (the pointer, not the set)
  std::shared_ptr<const Jwks> jwks_;
  std::function<void()> wanted_;
  void* rsa_key_ = nullptr;    // EVP_PKEY*, owned; kept opaque to spare includers OpenSSL
  void* ecdsa_key_ = nullptr;  // EVP_PKEY*, owned
  int ecdsa_bits_ = 0;         // 256 or 384 with a key
};

// Signs claims into a token (for tests, tools and dev mode issuance).
[[nodiscard]] std::string sign_hs256(const Claims& claims, std::string_view secret);
// Signs any payload text as it is (tests and fuzzing: claims of the wrong
// type, or no JSON at all, which sign_hs256 cannot write).
[[nodiscard]] std::string sign_hs256_payload(std::string_view payload, std::string_view secret);
// RS256 with a PEM private key; empty on failure.
[[nodiscard]] std::string sign_rs256(const Claims& claims, std::string_view private_key_pem);

}  // namespace herald::gateway::auth
