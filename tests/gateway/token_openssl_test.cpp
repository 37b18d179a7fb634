// JWTs made entirely by an independent signer, the openssl command line:
// its keys (genpkey), its HMAC and its RSA signatures (dgst), only the
// base64url framing done here. The other token tests verify what our own
// signer made, which would pass if signer and verifier shared a mistake;
// these pin the verifier to what any standard JWT library produces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gateway/auth/token.hpp"
#include "support/daemon.hpp"
#include "support/openssl_cli.hpp"
#include "support/process.hpp"

namespace herald::gateway::auth {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using test::openssl;

// header.payload, base64url, as any JWT library frames them.
std::string signing_input(const std::string& alg, const std::string& payload) {
  return base64url_encode(R"({"alg":")" + alg + R"(","typ":"JWT"})") + "." +
         base64url_encode(payload);
}

TEST(TokenFromOpenssl, Hs256SignedByOpensslVerifies) {
  const std::string secret = "an-hmac-secret-of-at-least-32-bytes!";
  const std::string input = signing_input("HS256", R"({"sub":"olga","exp":2000000000})");
  const std::string in_path = test::write_temp_file("hs256.in", input);
  const std::string sig_path = in_path + ".sig";
  openssl({"dgst", "-sha256", "-hmac", secret, "-binary", "-out", sig_path, in_path});
  const std::string token = input + "." + base64url_encode(read_file(sig_path));

  TokenVerifier v(secret);
  auto r = v.verify(token, 1000);
  ASSERT_TRUE(std::holds_alternative<Claims>(r)) << describe(std::get<TokenError>(r));
  EXPECT_EQ(std::get<Claims>(r).user, "olga");
  EXPECT_EQ(std::get<Claims>(r).expires_at, 2000000000);
  // One flipped byte of the payload: openssl's signature no longer fits.
  std::string tampered = token;
  tampered[input.find('.') + 2] ^= 1;
  EXPECT_FALSE(std::holds_alternative<Claims>(v.verify(tampered, 1000)));
}

TEST(TokenFromOpenssl, Rs256SignedByOpensslVerifies) {
  const std::string key = test::write_temp_file("rs256.key", "");
  const std::string pub = key + ".pub";
  openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key});
  openssl({"pkey", "-in", key, "-pubout", "-out", pub});
  const std::string input = signing_input("RS256", R"({"sub":"pavel","rooms":["chat:*"]})");
  const std::string in_path = test::write_temp_file("rs256.in", input);
  const std::string sig_path = in_path + ".sig";
  openssl({"dgst", "-sha256", "-sign", key, "-binary", "-out", sig_path, in_path});
  const std::string token = input + "." + base64url_encode(read_file(sig_path));

  TokenVerifier v("", read_file(pub));
  auto r = v.verify(token, 1000);
  ASSERT_TRUE(std::holds_alternative<Claims>(r)) << describe(std::get<TokenError>(r));
  EXPECT_EQ(std::get<Claims>(r).user, "pavel");
  ASSERT_TRUE(std::get<Claims>(r).rooms);
  EXPECT_EQ(std::get<Claims>(r).rooms->front(), "chat:*");
  // The same token under another key (made by openssl too) is refused.
  const std::string other = key + ".other";
  openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", other});
  openssl({"pkey", "-in", other, "-pubout", "-out", other + ".pub"});
  TokenVerifier wrong("", read_file(other + ".pub"));
  EXPECT_EQ(std::get<TokenError>(wrong.verify(token, 1000)), TokenError::bad_signature);
}

// HS384, HS512, RS384 and RS512, as Centrifugo's token libraries may sign:
// the same keys, each digest openssl's own; a token's alg must match what
// signed it.
TEST(TokenFromOpenssl, Sha384And512SignedByOpensslVerify) {
  const std::string secret = "an-hmac-secret-of-at-least-32-bytes!";
  const std::string key = test::write_temp_file("rs512.key", "");
  openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key});
  openssl({"pkey", "-in", key, "-pubout", "-out", key + ".pub"});
  TokenVerifier v(secret, read_file(key + ".pub"));
  for (const std::string bits : {"384", "512"}) {
    for (const std::string family : {"HS", "RS"}) {
      const std::string alg = family + bits;
      const std::string input = signing_input(alg, R"({"sub":")" + alg + R"("})");
      const std::string in_path = test::write_temp_file(alg + ".in", input);
      const std::string sig_path = in_path + ".sig";
      if (family == "HS") {
        openssl({"dgst", "-sha" + bits, "-hmac", secret, "-binary", "-out", sig_path, in_path});
      } else {
        openssl({"dgst", "-sha" + bits, "-sign", key, "-binary", "-out", sig_path, in_path});
      }
      const std::string signature = base64url_encode(read_file(sig_path));
      auto r = v.verify(input + "." + signature, 1000);
      ASSERT_TRUE(std::holds_alternative<Claims>(r))
          << alg << ": " << describe(std::get<TokenError>(r));
      EXPECT_EQ(std::get<Claims>(r).user, alg);
      // The same signature under a header naming another digest is refused.
      const std::string other = family + (bits == "384" ? "512" : "384");
      const std::string relabelled = base64url_encode(R"({"alg":")" + other + R"(","typ":"JWT"})") +
                                     input.substr(input.find('.')) + "." + signature;
      EXPECT_EQ(std::get<TokenError>(v.verify(relabelled, 1000)), TokenError::bad_signature) << alg;
    }
  }
  // Names that are not JWS algorithms are refused as such.
  for (const std::string alg : {"HS128", "RS1024", "ES256", "none"}) {
    const std::string input = signing_input(alg, R"({"sub":"x"})");
    EXPECT_EQ(std::get<TokenError>(v.verify(input + ".AAAA", 1000)), TokenError::unsupported_alg)
        << alg;
  }
}

}  // namespace
}  // namespace herald::gateway::auth
