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
#include <tuple>

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
  for (const std::string alg : {"HS128", "RS1024", "ES256", "ES512", "none"}) {
    const std::string input = signing_input(alg, R"({"sub":"x"})");
    EXPECT_EQ(std::get<TokenError>(v.verify(input + ".AAAA", 1000)), TokenError::unsupported_alg)
        << alg;
  }
}

// The JWS form of an ECDSA signature (RFC 7518 3.4: R || S, each `half`
// bytes) from the DER one openssl writes (SEQUENCE of two INTEGERs, RFC
// 3279), read by hand here so the verifier's own conversion is not used.
std::string jws_ecdsa(const std::string& der, std::size_t half) {
  std::size_t at = 2;  // SEQUENCE tag and a one-byte length (signatures are short)
  if (static_cast<unsigned char>(der[1]) == 0x81) at = 3;
  std::string out;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(der[at], 0x02) << "an INTEGER";
    const std::size_t len = static_cast<unsigned char>(der[at + 1]);
    std::string n = der.substr(at + 2, len);
    at += 2 + len;
    while (n.size() > half && n.front() == '\0') n.erase(0, 1);  // the sign byte
    out += std::string(half - n.size(), '\0') + n;
  }
  return out;
}

// ES256 and ES384 (Centrifugo's ecdsa_public_key): keys made and tokens
// signed by openssl, verified with the P-256 or P-384 public key; the other
// size, a relabelled alg and a corrupted signature are refused.
TEST(TokenFromOpenssl, Es256AndEs384SignedByOpensslVerify) {
  for (const auto& [alg, curve, half] :
       {std::tuple{std::string("ES256"), std::string("prime256v1"), std::size_t{32}},
        std::tuple{std::string("ES384"), std::string("secp384r1"), std::size_t{48}}}) {
    const std::string key = test::write_temp_file(alg + ".key", "");
    openssl({"ecparam", "-name", curve, "-genkey", "-noout", "-out", key});
    openssl({"ec", "-in", key, "-pubout", "-out", key + ".pub"});
    TokenVerifier v("", {}, {}, read_file(key + ".pub"));
    const std::string input = signing_input(alg, R"({"sub":"eve","exp":2000000000})");
    const std::string in_path = test::write_temp_file(alg + ".in", input);
    const std::string sig_path = in_path + ".sig";
    openssl({"dgst", "-sha" + alg.substr(2), "-sign", key, "-binary", "-out", sig_path, in_path});
    const std::string raw = jws_ecdsa(read_file(sig_path), half);
    ASSERT_EQ(raw.size(), 2 * half);
    auto r = v.verify(input + "." + base64url_encode(raw), 1000);
    ASSERT_TRUE(std::holds_alternative<Claims>(r))
        << alg << ": " << describe(std::get<TokenError>(r));
    EXPECT_EQ(std::get<Claims>(r).user, "eve");
    // The DER form is not JWS: refused.
    EXPECT_EQ(
        std::get<TokenError>(v.verify(input + "." + base64url_encode(read_file(sig_path)), 1000)),
        TokenError::bad_signature);
    std::string flipped = raw;
    flipped[5] = static_cast<char>(flipped[5] ^ 1);
    EXPECT_EQ(std::get<TokenError>(v.verify(input + "." + base64url_encode(flipped), 1000)),
              TokenError::bad_signature);
    // The key's curve decides the alg: the other size is not configured.
    const std::string other = alg == "ES256" ? "ES384" : "ES256";
    const std::string relabelled = base64url_encode(R"({"alg":")" + other + R"(","typ":"JWT"})") +
                                   input.substr(input.find('.')) + "." + base64url_encode(raw);
    EXPECT_EQ(std::get<TokenError>(v.verify(relabelled, 1000)), TokenError::unsupported_alg);
  }
  // An RSA key, or no PEM at all, is not an ECDSA key.
  const std::string rsa = test::write_temp_file("not-ec.key", "");
  openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsa});
  openssl({"pkey", "-in", rsa, "-pubout", "-out", rsa + ".pub"});
  EXPECT_THROW(TokenVerifier("", {}, {}, read_file(rsa + ".pub")), std::invalid_argument);
  EXPECT_THROW(TokenVerifier("", {}, {}, "not a key"), std::invalid_argument);
}

}  // namespace
}  // namespace herald::gateway::auth
