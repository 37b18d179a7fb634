// A pattern a token's iss or aud must match: Centrifugo's
// client.token.issuer_regex and audience_regex (auth.issuer_regex,
// auth.audience_regex), for the deployments where one Herald serves
// tokens of many issuers, one per tenant ("https://idp.example/tenant-42").
//
// Centrifugo compiles them with Go's regexp (RE2 syntax) and asks for a
// match anywhere in the claim, as Go's MatchString does: a pattern that
// must span the whole claim says so with ^ and $. PCRE2 (Debian's
// libpcre2) reads RE2's syntax as Go writes it, named groups
// (?P<tenant>...) and inline flags (?i) included, so a Centrifugo
// configuration's pattern means the same here; std::regex has neither.
//
// The claim comes from the client, the pattern from the operator: PCRE2
// backtracks, so a pattern with nested repetition could take exponential
// time on a crafted claim. Each match is bounded (kMatchLimit steps of
// PCRE2's matcher, kDepthLimit of its backtracking depth, and claims over
// kMaxSubjectBytes are not tried), and a match that hits a bound is a
// mismatch: the token is refused, and nothing else waits on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

namespace herald::gateway::auth {

class ClaimPattern {
 public:
  static constexpr std::uint32_t kMatchLimit = 100'000;
  static constexpr std::uint32_t kDepthLimit = 1'000;
  static constexpr std::size_t kMaxSubjectBytes = 1024;

  // The compiled pattern, or what is wrong with it and where ("missing
  // closing parenthesis at offset 7").
  [[nodiscard]] static std::variant<ClaimPattern, std::string> compile(std::string_view pattern);

  // Whether the pattern matches somewhere in `claim` within the bounds.
  // Any thread: each call has its own match data.
  [[nodiscard]] bool matches(std::string_view claim) const;

 private:
  struct Compiled;
  explicit ClaimPattern(std::shared_ptr<const Compiled> compiled);
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace herald::gateway::auth
