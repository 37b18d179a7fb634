#include "gateway/auth/token.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <limits>

namespace herald::gateway::auth {
namespace {

TEST(Base64Url, RoundTripsAndRejectsJunk) {
  for (std::string s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar",
                                                std::string("\0\xff\x10", 3)}) {
    auto enc = base64url_encode(s);
    EXPECT_EQ(enc.find('='), std::string::npos);
    EXPECT_EQ(base64url_decode(enc), s) << enc;
  }
  EXPECT_EQ(base64url_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_FALSE(base64url_decode("Zm9v+"));  // '+' is base64, not base64url
  EXPECT_FALSE(base64url_decode("Z"));      // impossible length
  EXPECT_FALSE(base64url_decode("Zh"));     // non-zero padding bits
}

TEST(Token, VerifiesWhatItSigns) {
  Claims c;
  c.user = "alice";
  c.expires_at = 2'000'000'000;
  c.rooms = std::vector<std::string>{"chat:*", "news"};
  std::string token = sign_hs256(c, "s3cret");
  TokenVerifier v("s3cret");
  auto r = v.verify(token, 1'700'000'000);
  ASSERT_TRUE(std::holds_alternative<Claims>(r)) << describe(std::get<TokenError>(r));
  const Claims& got = std::get<Claims>(r);
  EXPECT_EQ(got.user, "alice");
  EXPECT_EQ(got.expires_at, 2'000'000'000);
  EXPECT_TRUE(got.allows("chat:lobby"));
  EXPECT_TRUE(got.allows("news"));
  EXPECT_FALSE(got.allows("news:x"));
  EXPECT_FALSE(got.allows("chat"));
}

TEST(Token, MatchesAnIndependentImplementation) {
  // Computed with Python's hmac and base64 modules, independently of this
  // code: {"alg":"HS256","typ":"JWT"} . {"sub":"alice"}, secret "s3cret".
  const std::string token =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSJ9."
      "iG4X-JVfvYJy3rzsCErGO9LGFikv8Egjz-G6NhqV50k";
  Claims c;
  c.user = "alice";
  EXPECT_EQ(sign_hs256(c, "s3cret"), token);
}

TEST(Token, TimeToExpiryCannotOverflowATimer) {
  using std::chrono::seconds;
  gateway::auth::Claims c;
  c.user = "u";
  EXPECT_FALSE(c.time_to_expiry(1'000).has_value());
  c.expires_at = 1'060;
  EXPECT_EQ(c.time_to_expiry(1'000), seconds(60));
  EXPECT_EQ(c.time_to_expiry(2'000), seconds(0));
  // The year 9999, a common "never": clamped, and the clamp fits a
  // steady_clock time point from now (nanoseconds in 64 bits).
  c.expires_at = 253402300799;
  const auto wait = c.time_to_expiry(1'764'547'200);
  ASSERT_TRUE(wait.has_value());
  EXPECT_EQ(*wait, gateway::auth::kLongestWait);
  const auto deadline = std::chrono::steady_clock::now() + *wait;
  EXPECT_GT(deadline, std::chrono::steady_clock::now());
  c.expires_at = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(c.time_to_expiry(0), gateway::auth::kLongestWait);
}

TEST(Token, RefusesWhatItShould) {
  TokenVerifier v("s3cret");
  Claims c;
  c.user = "bob";
  std::string good = sign_hs256(c, "s3cret");
  auto error = [&](std::string_view t, std::int64_t now = 1000) {
    auto r = v.verify(t, now);
    return std::holds_alternative<TokenError>(r) ? std::get<TokenError>(r)
                                                 : static_cast<TokenError>(255);
  };
  EXPECT_EQ(error(sign_hs256(c, "other")), TokenError::bad_signature);
  EXPECT_EQ(error(good.substr(0, good.size() - 2) + "AA"), TokenError::bad_signature);
  EXPECT_EQ(error("a.b"), TokenError::malformed);
  EXPECT_EQ(error("a.b.c.d"), TokenError::malformed);
  EXPECT_EQ(error("!!.!!.!!"), TokenError::malformed);
  // alg none, with the signature stripped: must never verify.
  std::string none =
      base64url_encode(R"({"alg":"none"})") + "." + base64url_encode(R"({"sub":"x"})") + ".";
  EXPECT_EQ(error(none), TokenError::unsupported_alg);
  c.expires_at = 999;
  EXPECT_EQ(error(sign_hs256(c, "s3cret")), TokenError::expired);
  c.expires_at.reset();
  c.not_before = 5000;
  EXPECT_EQ(error(sign_hs256(c, "s3cret")), TokenError::not_yet_valid);
  Claims empty;
  EXPECT_EQ(error(sign_hs256(empty, "s3cret")), TokenError::missing_subject);
  // sub is a user name: 64 bytes pass, 65 do not (protocol/user_name.hpp).
  Claims named;
  named.user = std::string(64, 'u');
  EXPECT_TRUE(std::holds_alternative<Claims>(v.verify(sign_hs256(named, "s3cret"), 1000)));
  named.user += 'u';
  EXPECT_EQ(error(sign_hs256(named, "s3cret")), TokenError::long_subject);
}

TEST(Token, AudienceAndIssuerAreCheckedWhenConfigured) {
  TokenVerifier v("s3cret", {}, Expected{"herald", "https://id.example", {}, {}});
  auto verify = [&](const Claims& c) { return v.verify(sign_hs256(c, "s3cret"), 1000); };
  auto error = [&](const Claims& c) {
    auto r = verify(c);
    return std::holds_alternative<TokenError>(r) ? std::get<TokenError>(r)
                                                 : static_cast<TokenError>(255);
  };
  Claims c;
  c.user = "bob";
  c.issuer = "https://id.example";
  c.audience = {"herald"};
  auto ok = verify(c);
  ASSERT_TRUE(std::holds_alternative<Claims>(ok)) << describe(std::get<TokenError>(ok));
  EXPECT_EQ(std::get<Claims>(ok).audience, std::vector<std::string>{"herald"});
  // aud as an array holding it (RFC 7519 4.1.3).
  c.audience = {"billing", "herald"};
  EXPECT_TRUE(std::holds_alternative<Claims>(verify(c)));
  // A token for another service, or with no aud at all.
  c.audience = {"billing"};
  EXPECT_EQ(error(c), TokenError::wrong_audience);
  c.audience = {"billing", "herald-staging"};
  EXPECT_EQ(error(c), TokenError::wrong_audience);
  c.audience.clear();
  EXPECT_EQ(error(c), TokenError::wrong_audience);
  c.audience = {"herald"};
  c.issuer = "https://evil.example";
  EXPECT_EQ(error(c), TokenError::wrong_issuer);
  c.issuer.reset();
  EXPECT_EQ(error(c), TokenError::wrong_issuer);
  // Wrong types are bad claims, configured or not (sign_hs256 only writes
  // well-typed claims).
  TokenVerifier unchecked("s3cret");
  for (std::string_view payload :
       {R"({"sub":"x","aud":7})", R"({"sub":"x","aud":["a",7]})", R"({"sub":"x","iss":["a"]})"}) {
    const std::string token = sign_hs256_payload(payload, "s3cret");
    auto r = unchecked.verify(token, 1000);
    ASSERT_TRUE(std::holds_alternative<TokenError>(r)) << payload;
    EXPECT_EQ(std::get<TokenError>(r), TokenError::bad_claim) << payload;
    EXPECT_EQ(std::get<TokenError>(v.verify(token, 1000)), TokenError::bad_claim) << payload;
  }
  // Without expectations, aud and iss are read but not required.
  c.issuer = "anyone";
  c.audience = {"anything"};
  auto free = unchecked.verify(sign_hs256(c, "s3cret"), 1000);
  ASSERT_TRUE(std::holds_alternative<Claims>(free));
  EXPECT_EQ(std::get<Claims>(free).issuer, "anyone");
}

// Centrifugo's issuer_regex and audience_regex: a match anywhere in the
// claim, as Go's MatchString, in Go's syntax (named groups, inline flags).
TEST(ClaimPattern, MatchesAsGosRegexpDoes) {
  auto compiled = [](std::string_view pattern) {
    auto r = ClaimPattern::compile(pattern);
    if (auto* why = std::get_if<std::string>(&r)) ADD_FAILURE() << pattern << ": " << *why;
    return std::get<ClaimPattern>(std::move(r));
  };
  const ClaimPattern tenants = compiled(R"(^https://idp\.example/(?P<tenant>[a-z0-9-]+)$)");
  EXPECT_TRUE(tenants.matches("https://idp.example/acme-1"));
  EXPECT_FALSE(tenants.matches("https://idp.example/acme/1"));
  EXPECT_FALSE(tenants.matches("https://idp.example/"));
  EXPECT_FALSE(tenants.matches("xhttps://idp.example/acme"));
  // Unanchored: anywhere, as Go's MatchString.
  const ClaimPattern anywhere = compiled("herald");
  EXPECT_TRUE(anywhere.matches("my-herald-staging"));
  EXPECT_TRUE(compiled("(?i)^HERALD$").matches("herald"));
  // A claim that is not UTF-8, or longer than the bound, matches nothing.
  EXPECT_FALSE(anywhere.matches("herald\xff"));
  EXPECT_FALSE(anywhere.matches(std::string(ClaimPattern::kMaxSubjectBytes, 'x') + "herald"));
  // Catastrophic backtracking is cut off: a mismatch, soon.
  const ClaimPattern nested = compiled("^(a+)+$");
  EXPECT_FALSE(nested.matches(std::string(64, 'a') + "b"));
  EXPECT_TRUE(nested.matches(std::string(64, 'a')));
  // A pattern that does not compile says what and where.
  auto bad = ClaimPattern::compile("^(tenant");
  ASSERT_TRUE(std::holds_alternative<std::string>(bad));
  EXPECT_THAT(std::get<std::string>(bad), ::testing::HasSubstr("at offset 8"));
}

TEST(Token, IssuerAndAudiencePatternsAreCheckedWhenConfigured) {
  auto pattern = [](std::string_view p) {
    return std::get<ClaimPattern>(ClaimPattern::compile(p));
  };
  TokenVerifier v("s3cret", {},
                  Expected{{}, {}, pattern("^herald-"), pattern(R"(^https://idp\.example/\w+$)")});
  auto result = [&](std::optional<std::string> iss, std::vector<std::string> aud) {
    Claims c;
    c.user = "bob";
    c.issuer = std::move(iss);
    c.audience = std::move(aud);
    auto r = v.verify(sign_hs256(c, "s3cret"), 1000);
    return std::holds_alternative<TokenError>(r) ? std::get<TokenError>(r)
                                                 : static_cast<TokenError>(255);
  };
  constexpr auto kOk = static_cast<TokenError>(255);
  EXPECT_EQ(result("https://idp.example/acme", {"herald-eu"}), kOk);
  EXPECT_EQ(result("https://idp.example/acme", {"billing", "herald-us"}), kOk);
  EXPECT_EQ(result("https://idp.example/acme", {"billing"}), TokenError::wrong_audience);
  EXPECT_EQ(result("https://idp.example/acme", {}), TokenError::wrong_audience);
  EXPECT_EQ(result("https://idp.example/a/b", {"herald-eu"}), TokenError::wrong_issuer);
  EXPECT_EQ(result(std::nullopt, {"herald-eu"}), TokenError::wrong_issuer);
}

// Tokens as Centrifugo issues them: server-side subscriptions as "channels"
// or as "subs" keyed by channel, the user's info as JSON or base64, and
// expire_at apart from exp.
TEST(Token, ReadsCentrifugosClaims) {
  TokenVerifier v("s3cret");
  auto claims = [&](std::string_view payload) {
    auto r = v.verify(sign_hs256_payload(payload, "s3cret"), 1000);
    if (auto* e = std::get_if<TokenError>(&r)) ADD_FAILURE() << payload << ": " << describe(*e);
    return std::holds_alternative<Claims>(r) ? std::get<Claims>(r) : Claims{};
  };
  auto refused = [&](std::string_view payload) {
    auto r = v.verify(sign_hs256_payload(payload, "s3cret"), 1000);
    return std::holds_alternative<TokenError>(r) ? std::get<TokenError>(r)
                                                 : static_cast<TokenError>(255);
  };
  EXPECT_EQ(claims(R"({"sub":"42","channels":["news","chat:a"]})").subs,
            (std::vector<std::string>{"news", "chat:a"}));
  EXPECT_EQ(claims(R"({"sub":"42","subs":{"news":{"data":{"x":1}},"chat:a":{}}})").subs,
            (std::vector<std::string>{"news", "chat:a"}));
  // Each channel's options: info/b64info and data/b64data, compact; a
  // channel with none has no entry.
  Claims opts = claims(
      R"({"sub":"42","subs":{"news":{"info":{"role": "ed"},"b64data":"eyJ4IjoxfQ=="},"b":{}}})");
  EXPECT_EQ(opts.sub_options.size(), 1U);
  EXPECT_EQ(opts.sub_options["news"], (Claims::SubOptions{R"({"role":"ed"})", R"({"x":1})", {}}));
  // A subscription token's data, for its subscribe reply.
  EXPECT_EQ(std::get<Claims>(v.verify(sign_hs256_payload(
                                          R"({"sub":"42","channel":"$x","data":[1, 2]})", "s3cret"),
                                      1000, TokenUse::subscription))
                .data_json,
            "[1,2]");
  // Both, and Herald's array form: one list, each room once.
  EXPECT_EQ(claims(R"({"sub":"42","subs":["news"],"channels":["news","b"]})").subs,
            (std::vector<std::string>{"news", "b"}));
  EXPECT_EQ(claims(R"({"sub":"42","info":{"name": "Ann"}})").info_json, R"({"name":"Ann"})");
  // base64 of {"name":"Ann"}, standard alphabet with padding.
  EXPECT_EQ(claims(R"({"sub":"42","b64info":"eyJuYW1lIjoiQW5uIn0="})").info_json,
            R"({"name":"Ann"})");
  // expire_at ends the connection apart from exp; 0 means never.
  Claims both = claims(R"({"sub":"42","exp":2000,"expire_at":5000})");
  EXPECT_EQ(both.expires_at, 2000);
  EXPECT_EQ(both.session_expiry(), 5000);
  EXPECT_EQ(claims(R"({"sub":"42","exp":2000,"expire_at":0})").session_expiry(), std::nullopt);
  EXPECT_EQ(claims(R"({"sub":"42","exp":2000})").session_expiry(), 2000);
  for (std::string_view bad :
       {R"({"sub":"42","channels":"news"})", R"({"sub":"42","channels":[""]})",
        R"({"sub":"42","subs":{"bad room":{}}})", R"({"sub":"42","b64info":"not base64!"})",
        R"({"sub":"42","b64info":"bm90IGpzb24="})", R"({"sub":"42","expire_at":-1})",
        R"({"sub":"42","expire_at":"soon"})", R"({"sub":"42","subs":{"news":7}})",
        R"({"sub":"42","subs":{"news":{"b64data":"bm90IGpzb24="}}})",
        R"({"sub":"42","subs":{"news":{"b64info":5}}})"}) {
    EXPECT_EQ(refused(bad), TokenError::bad_claim) << bad;
  }
  // A channel's override of its room's options, each a BoolValue ({} is
  // false), in a subs entry and in a subscription token; what is not of
  // that form, or not an option, is refused.
  Claims over = claims(
      R"({"sub":"42","subs":{"news":{"override":{"presence":{"value":false},)"
      R"("join_leave":{"value":true},"force_push_join_leave":{},"force_recovery":{"value":true}}}}})");
  SubscribeOverride news;
  news.presence = false;
  news.join_leave = true;
  news.push_join_leave = false;
  news.recovery = true;
  EXPECT_EQ(over.sub_options["news"].override, news);
  auto sub_token =
      v.verify(sign_hs256_payload(
                   R"({"sub":"42","channel":"$x","override":{"force_positioning":{"value":true}}})",
                   "s3cret"),
               1000, TokenUse::subscription);
  ASSERT_TRUE(std::holds_alternative<Claims>(sub_token));
  EXPECT_EQ(std::get<Claims>(sub_token).override.positioning, true);
  EXPECT_EQ(std::get<Claims>(sub_token).override.presence, std::nullopt);
  for (std::string_view bad :
       {R"({"sub":"42","subs":{"news":{"override":{"presence":true}}}})",
        R"({"sub":"42","subs":{"news":{"override":{"presence":{"value":1}}}}})",
        R"({"sub":"42","subs":{"news":{"override":{"presence":{"valeu":true}}}}})",
        R"({"sub":"42","subs":{"news":{"override":{"presense":{"value":true}}}}})",
        R"({"sub":"42","subs":{"news":{"override":[]}}})"}) {
    EXPECT_EQ(refused(bad), TokenError::bad_claim) << bad;
  }
  // A subscription token names its channel (and may name a client); it
  // opens no connection, and a connection token subscribes to nothing.
  EXPECT_EQ(refused(R"({"sub":"42","channel":"$x"})"), TokenError::subscription_token);
  auto as_sub = [&](std::string_view payload) {
    return v.verify(sign_hs256_payload(payload, "s3cret"), 1000, TokenUse::subscription);
  };
  ASSERT_TRUE(
      std::holds_alternative<Claims>(as_sub(R"({"sub":"42","channel":"$x","client":"c1"})")));
  EXPECT_EQ(std::get<Claims>(as_sub(R"({"sub":"42","channel":"$x","client":"c1"})")).client, "c1");
  EXPECT_EQ(std::get<TokenError>(as_sub(R"({"sub":"42"})")), TokenError::missing_channel);
  EXPECT_EQ(std::get<TokenError>(as_sub(R"({"sub":"42","channel":7})")), TokenError::bad_claim);
  // What sign_hs256 writes, verify reads back.
  Claims c;
  c.user = "42";
  c.info_json = R"({"n":1})";
  c.expire_at = 7000;
  auto back = v.verify(sign_hs256(c, "s3cret"), 1000);
  ASSERT_TRUE(std::holds_alternative<Claims>(back));
  EXPECT_EQ(std::get<Claims>(back).info_json, c.info_json);
  EXPECT_EQ(std::get<Claims>(back).expire_at, 7000);
  c.channel = "$x";
  auto sub_back = v.verify(sign_hs256(c, "s3cret"), 1000, TokenUse::subscription);
  ASSERT_TRUE(std::holds_alternative<Claims>(sub_back));
  EXPECT_EQ(std::get<Claims>(sub_back).channel, "$x");
}

}  // namespace
}  // namespace herald::gateway::auth

#include "support/rsa.hpp"

namespace herald::gateway::auth {
namespace {

TEST(Token, Rs256VerifiesAndRefusesAlgorithmSwitches) {
  auto [priv, pub] = test::rsa_key_pair();
  Claims c;
  c.user = "dora";
  std::string token = sign_rs256(c, priv);
  ASSERT_FALSE(token.empty());
  TokenVerifier rsa_only("", pub);
  auto r = rsa_only.verify(token, 1000);
  ASSERT_TRUE(std::holds_alternative<Claims>(r)) << describe(std::get<TokenError>(r));
  EXPECT_EQ(std::get<Claims>(r).user, "dora");
  // Another key's signature does not verify.
  auto [priv2, pub2] = test::rsa_key_pair();
  auto other = rsa_only.verify(sign_rs256(c, priv2), 1000);
  EXPECT_EQ(std::get<TokenError>(other), TokenError::bad_signature);
  // HS256 is off when no secret is configured, even if someone signs with
  // the public key as an HMAC secret (the classic algorithm confusion).
  auto confused = rsa_only.verify(sign_hs256(c, pub), 1000);
  EXPECT_EQ(std::get<TokenError>(confused), TokenError::unsupported_alg);
  // And RS256 is off without a public key.
  TokenVerifier hmac_only("s3cret");
  EXPECT_EQ(std::get<TokenError>(hmac_only.verify(token, 1000)), TokenError::unsupported_alg);
  EXPECT_THROW(TokenVerifier("", "not a key"), std::invalid_argument);
}

TEST(Token, Rs256KeysUnder2048BitsAreRefused) {
  auto [priv, pub] = test::rsa_key_pair(1024);
  try {
    TokenVerifier v("", pub);
    FAIL() << "a 1024-bit key was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1024-bit"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2048"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace herald::gateway::auth
