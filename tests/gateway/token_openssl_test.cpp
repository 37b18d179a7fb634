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

#include "gateway/auth/jwks.hpp"
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

// A JWK set (RFC 7517) of keys openssl made, their numbers read from
// openssl's own output (the RSA modulus it prints, the EC point at the end
// of the DER public key it writes) and only base64url-framed here.
struct OpensslKey {
  std::string file;  // the private key, for openssl dgst -sign
  std::string jwk;   // the public key as a JWK, without kid
};

std::string bytes_of_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

OpensslKey rsa_jwk(const std::string& name) {
  const std::string key = test::write_temp_file(name + ".key", "");
  openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key});
  auto r = test::run({OPENSSL_PATH, "rsa", "-in", key, "-modulus", "-noout"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string hex = r.output.substr(r.output.find('=') + 1);
  hex.erase(hex.find_last_not_of("\n") + 1);
  // e is openssl's default, 65537: AQAB.
  return {key, R"({"kty":"RSA","n":")" + base64url_encode(bytes_of_hex(hex)) + R"(","e":"AQAB")"};
}

OpensslKey ec_jwk(const std::string& name, const std::string& curve, const std::string& crv,
                  std::size_t coordinate) {
  const std::string key = test::write_temp_file(name + ".key", "");
  openssl({"ecparam", "-name", curve, "-genkey", "-noout", "-out", key});
  openssl({"ec", "-in", key, "-pubout", "-outform", "DER", "-out", key + ".der"});
  const std::string der = read_file(key + ".der");
  // The SubjectPublicKeyInfo ends with the uncompressed point: 04, x, y.
  const std::string point = der.substr(der.size() - 1 - 2 * coordinate);
  EXPECT_EQ(point[0], '\x04');
  return {key, R"({"kty":"EC","crv":")" + crv + R"(","x":")" +
                   base64url_encode(point.substr(1, coordinate)) + R"(","y":")" +
                   base64url_encode(point.substr(1 + coordinate)) + "\""};
}

// A token whose header names `kid`, signed by openssl with `key`.
std::string signed_with_kid(const std::string& alg, const std::string& kid, const std::string& key,
                            const std::string& payload = R"({"sub":"kim"})") {
  const std::string input =
      base64url_encode(R"({"alg":")" + alg + R"(","kid":")" + kid + R"(","typ":"JWT"})") + "." +
      base64url_encode(payload);
  const std::string in_path = test::write_temp_file(kid + alg + ".in", input);
  openssl(
      {"dgst", "-sha" + alg.substr(2), "-sign", key, "-binary", "-out", in_path + ".sig", in_path});
  std::string sig = read_file(in_path + ".sig");
  if (alg.starts_with("ES")) sig = jws_ecdsa(sig, alg == "ES256" ? 32 : 48);
  return input + "." + base64url_encode(sig);
}

TokenError refusal(const TokenVerifier& v, const std::string& token) {
  auto r = v.verify(token, 1000);
  return std::holds_alternative<TokenError>(r) ? std::get<TokenError>(r) : TokenError{};
}

// Centrifugo's JWKS: each token verified by the key its kid names, with
// an alg that fits that key; keys the set cannot use are left out, told.
TEST(TokenFromOpenssl, JwksKeysVerifyTheTokensThatNameThem) {
  const OpensslKey rsa = rsa_jwk("jwks-rsa"), rsa2 = rsa_jwk("jwks-rsa2");
  const OpensslKey p256 = ec_jwk("jwks-p256", "prime256v1", "P-256", 32);
  const OpensslKey p384 = ec_jwk("jwks-p384", "secp384r1", "P-384", 48);
  const std::string set = R"({"keys":[)" + rsa.jwk + R"(,"kid":"r1","use":"sig"},)" + rsa2.jwk +
                          R"(,"kid":"r2","alg":"RS384"},)" + p256.jwk + R"(,"kid":"e1"},)" +
                          p384.jwk + R"(,"kid":"e2"},)" + rsa.jwk +
                          R"(,"kid":"enc","use":"enc"},)" +
                          R"({"kty":"oct","kid":"s","k":"c2VjcmV0"},)" + rsa.jwk + "}]}";
  std::vector<std::string> skipped;
  auto keys = std::make_shared<const Jwks>(Jwks::parse(set, &skipped));
  EXPECT_EQ(keys->size(), 4u);
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_NE(skipped[0].find("use is 'enc'"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("key type 'oct'"), std::string::npos) << skipped[1];
  EXPECT_NE(skipped[2].find("no kid"), std::string::npos) << skipped[2];

  TokenVerifier v("an-hmac-secret-of-at-least-32-bytes!");
  v.set_jwks(keys);
  for (const auto& [alg, kid, key] : {std::tuple{"RS256", "r1", rsa.file},
                                      {"RS512", "r1", rsa.file},
                                      {"RS384", "r2", rsa2.file},
                                      {"ES256", "e1", p256.file},
                                      {"ES384", "e2", p384.file}}) {
    auto r = v.verify(signed_with_kid(alg, kid, key), 1000);
    ASSERT_TRUE(std::holds_alternative<Claims>(r))
        << alg << " " << kid << ": " << describe(std::get<TokenError>(r));
    EXPECT_EQ(std::get<Claims>(r).user, "kim");
  }
  // The kid decides the key: another key's signature does not verify, an
  // alg that does not fit the key (or its own alg) is refused, a kid the
  // set lacks too, and HS256 cannot borrow a public key as its secret.
  EXPECT_EQ(refusal(v, signed_with_kid("RS256", "r2", rsa.file)), TokenError::unsupported_alg);
  EXPECT_EQ(refusal(v, signed_with_kid("RS384", "r2", rsa.file)), TokenError::bad_signature);
  EXPECT_EQ(refusal(v, signed_with_kid("ES256", "r1", p256.file)), TokenError::unsupported_alg);
  EXPECT_EQ(refusal(v, signed_with_kid("ES384", "e1", p384.file)), TokenError::unsupported_alg);
  EXPECT_EQ(refusal(v, signed_with_kid("RS256", "enc", rsa.file)), TokenError::unknown_key);
  const std::string hs = base64url_encode(R"({"alg":"HS256","kid":"r1"})") + "." +
                         base64url_encode(R"({"sub":"kim"})");
  EXPECT_EQ(refusal(v, hs + "." + base64url_encode(std::string(32, 'x'))),
            TokenError::unsupported_alg);
  // Without a kid, the configured keys as before (here the HMAC secret).
  Claims plain;
  plain.user = "kim";
  EXPECT_TRUE(std::holds_alternative<Claims>(
      v.verify(sign_hs256(plain, "an-hmac-secret-of-at-least-32-bytes!"), 1000)));
  // A set replaced whole: the old keys are gone.
  v.set_jwks(
      std::make_shared<const Jwks>(Jwks::parse(R"({"keys":[)" + p256.jwk + R"(,"kid":"e1"}]})")));
  EXPECT_EQ(refusal(v, signed_with_kid("RS256", "r1", rsa.file)), TokenError::unknown_key);
}

// A set Herald would half-load is refused, saying what and where.
TEST(TokenFromOpenssl, JwksThatCannotBeUsedIsRefusedSayingWhere) {
  const OpensslKey p256 = ec_jwk("jwks-bad-p256", "prime256v1", "P-256", 32);
  const std::string good = p256.jwk + R"(,"kid":"ok"})";
  // A point off the curve: y of another point.
  std::string off = p256.jwk;
  const std::size_t y = off.find(R"("y":")") + 5;
  off[y] = off[y] == 'A' ? 'B' : 'A';
  struct Case {
    std::string json, says;
  };
  for (const Case& c : std::vector<Case>{
           {"not json", "not a JWK set"},
           {R"({"keys":{}})", "not a JWK set"},
           {R"({"keys":[]})", "no RSA or EC signing key"},
           {R"({"keys":[1]})", "keys[0]: not an object"},
           {R"({"keys":[{"kid":"a"}]})", "keys[0]: \"kty\" is missing"},
           {R"({"keys":[)" + good + R"(,{"kty":"RSA","kid":"b","n":"!!","e":"AQAB"}]})",
            "keys[1] (kid 'b'): \"n\" is not base64url"},
           {R"({"keys":[{"kty":"RSA","kid":"c","n":"AQAB","e":"AQAB"}]})",
            "keys[0] (kid 'c'): a 17-bit RSA key"},
           {R"({"keys":[{"kty":"EC","kid":"d","crv":"P-256","x":"AQAB","y":"AQAB"}]})",
            "x and y must be 32 bytes"},
           {R"({"keys":[)" + off + R"(,"kid":"e"}]})", "not a point on P-256"},
           {R"({"keys":[)" + good + "," + good + "]}", "keys[1] (kid 'ok'): a second key"},
           {R"({"keys":[{"kty":"EC","kid":"f","crv":"P-521","x":"AQAB","y":"AQAB"}]})",
            "no RSA or EC signing key"},
       }) {
    try {
      (void)Jwks::parse(c.json);
      ADD_FAILURE() << "accepted: " << c.json;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos)
          << c.json << "\n  said: " << e.what();
    }
  }
}

}  // namespace
}  // namespace herald::gateway::auth
