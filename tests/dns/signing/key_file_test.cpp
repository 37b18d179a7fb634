// Key files as ldns-keygen writes them (tests/dns/data/online/keys, made by
// keys.sh; tests/dns/data/server/keys for the pre-signed zones), and each
// way a pair can be wrong, refused with the file, the line and the fix.
#include "dns/signing/key_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../test_util.hpp"
#include "dns/detail/text_codecs.hpp"

namespace herald::dns::signing {
namespace {

using test::name;
using test::TempDir;
namespace fs = std::filesystem;

const std::string kData = HERALD_DNS_TEST_DATA;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(KeyFile, EveryCommittedKeyLoadsWithTheTagOfItsFileName) {
  struct Case {
    std::string dir, base, zone;
    std::uint8_t algorithm;
    std::uint16_t tag;
    bool sep;
  };
  const Case cases[] = {
      {"online/keys", "Konline.example.+013+11254", "online.example.", 13, 11254, true},
      {"online/keys", "Ked25519.example.+015+36831", "ed25519.example.", 15, 36831, true},
      {"online/keys", "Ksplit.example.+013+34179", "split.example.", 13, 34179, true},
      {"online/keys", "Ksplit.example.+013+18214", "split.example.", 13, 18214, false},
      {"server/keys", "Ksigned.example.+013+20381", "signed.example.", 13, 20381, false},
      {"server/keys", "Ksigned.example.+013+40359", "signed.example.", 13, 40359, true},
      {"server/keys", "Knsec3.example.+013+46308", "nsec3.example.", 13, 46308, true},
      {"server/keys", "Knsec3.example.+013+63677", "nsec3.example.", 13, 63677, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.base);
    auto k = read_key_pair(kData + "/" + c.dir + "/" + c.base + ".private", name(c.zone));
    ASSERT_TRUE(k) << k.error().to_string();
    EXPECT_EQ(k->algorithm, c.algorithm);
    EXPECT_EQ(k->tag, c.tag);
    EXPECT_EQ(k->sep(), c.sep);
    EXPECT_NE(k->pkey, nullptr);
    // The DNSKEY RDATA is the .key's: flags, protocol 3, algorithm, key.
    EXPECT_EQ(k->dnskey[2], 3);
    EXPECT_EQ(k->dnskey[3], c.algorithm);
    EXPECT_EQ(k->dnskey.size(), 4u + (c.algorithm == 13 ? 64u : 32u));
  }
}

TEST(KeyFile, KeyTagsOfTheRfcExamples) {
  auto rdata = [](std::uint16_t flags, std::uint8_t alg, const std::string& b64) {
    std::vector<std::uint8_t> v{static_cast<std::uint8_t>(flags >> 8),
                                static_cast<std::uint8_t>(flags), 3, alg};
    EXPECT_TRUE(detail::base64_decode(b64, v));
    return v;
  };
  // RFC 8080 §6.1 and RFC 6605 §6.1.
  EXPECT_EQ(key_tag(rdata(257, 15, "l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=")), 3613);
  EXPECT_EQ(key_tag(rdata(257, 13,
                          "GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+"
                          "MAnLr+Wi9xMWyQLc8NAA==")),
            55648);
}

// One wrong pair per case: the files are the committed online.example key
// with one change, and the error must name the file, the line and say what.
TEST(KeyFile, AWrongPairIsRefusedNamingFileAndLine) {
  const std::string keys = kData + "/online/keys/";
  const std::string good_private = slurp(keys + "Konline.example.+013+11254.private");
  const std::string good_key = slurp(keys + "Konline.example.+013+11254.key");
  const std::string other_key = slurp(keys + "Ksplit.example.+013+34179.key");
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    const std::size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
  };
  const std::string good_secret = good_private.substr(good_private.find("PrivateKey: ") + 12, 44);
  // The split.example KSK's public key, under online.example's name.
  const std::string foreign_public =
      "online.example.\tIN\tDNSKEY\t" + other_key.substr(other_key.find("257 3 13 "));

  struct Case {
    const char* what;
    std::string base;  // file name without extension
    std::string private_text;
    std::optional<std::string> key_text;  // nullopt: no .key file
    std::string zone;
    std::string file_suffix;  // the file the error names
    std::size_t line;
    std::string message;
  };
  const std::string base = "Konline.example.+013+11254";
  const Case cases[] = {
      {"an RSA key", base, replace(good_private, "13 (ECDSAP256SHA256)", "8 (RSASHA256)"), good_key,
       "online.example.", ".private", 2, "13 (ECDSAP256SHA256) or 15 (ED25519)"},
      {"no PrivateKey", base, good_private.substr(0, good_private.find("PrivateKey")), good_key,
       "online.example.", ".private", 1, "no PrivateKey line"},
      {"PrivateKey not base64", base, replace(good_private, good_secret, "not*base64"), good_key,
       "online.example.", ".private", 3, "not base64"},
      {"a 33-octet ECDSA secret", base, replace(good_private, good_secret, std::string(44, 'A')),
       good_key, "online.example.", ".private", 3,
       "33 octets; an ECDSA P-256 secret is at most 32"},
      {"no format line", base, replace(good_private, "Private-key-format", "Format"), good_key,
       "online.example.", ".private", 1, "not a BIND/ldns private key"},
      {"no .key beside it", base, good_private, std::nullopt, "online.example.", ".key", 0,
       "cannot read the public key file"},
      {"another key's public half", base, good_private, foreign_public, "online.example.", ".key",
       1, "not the private key's"},
      {"the tag in the name is not the key's", "Konline.example.+013+11255", good_private, good_key,
       "online.example.", ".key", 1, "the key's tag is 11254"},
      {"a key of another zone", base, good_private, good_key, "other.example.", ".private", 0,
       "the key is for online.example."},
      {"the DNSKEY owned by another name", base, good_private,
       replace(good_key, "online.example.", "www.online.example."), "online.example.", ".key", 1,
       "owned by www.online.example."},
      {"not a zone key", base, good_private, replace(good_key, "257 3 13", "1 3 13"),
       "online.example.", ".key", 1, "not a zone key"},
      {"algorithm 15 in the .key", base, good_private, replace(good_key, "257 3 13", "257 3 15"),
       "online.example.", ".key", 1, "the DNSKEY's algorithm is 15"},
      {"a format other than v1", base, replace(good_private, "v1.2", "v2.0"), good_key,
       "online.example.", ".private", 1, "only the v1.x format"},
      {"a public key off the curve", base, good_private,
       "online.example. IN DNSKEY 257 3 13 " + std::string(86, 'A') + "==\n", "online.example.",
       ".key", 1, "not a P-256 point"},
      {"a file name not of the form", "online-key", good_private, good_key, "online.example.",
       ".private", 0, "K<zone>+<algorithm>+<tag>.private"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    TempDir dir("herald-keys");
    write(dir.path / (c.base + ".private"), c.private_text);
    if (c.key_text) write(dir.path / (c.base + ".key"), *c.key_text);
    auto k = read_key_pair((dir.path / (c.base + ".private")).string(), name(c.zone));
    ASSERT_FALSE(k);
    const ZoneError& e = k.error();
    EXPECT_EQ(e.file, (dir.path / (c.base + c.file_suffix)).string());
    EXPECT_EQ(e.line, c.line) << e.to_string();
    EXPECT_NE(e.message.find(c.message), std::string::npos) << e.to_string();
  }
}

TEST(KeyFile, AnEd25519SecretOfOtherThan32OctetsIsRefused) {
  TempDir dir("herald-keys");
  const std::string keys = kData + "/online/keys/";
  const std::string base = "Ked25519.example.+015+36831";
  write(dir.path / (base + ".private"),
        "Private-key-format: v1.2\nAlgorithm: 15 (ED25519)\nPrivateKey: " + std::string(40, 'A') +
            "AA==\n");
  write(dir.path / (base + ".key"), slurp(keys + base + ".key"));
  auto k = read_key_pair((dir.path / (base + ".private")).string(), name("ed25519.example."));
  ASSERT_FALSE(k);
  EXPECT_EQ(k.error().line, 3u);
  EXPECT_NE(k.error().message.find("31 octets; an Ed25519 secret is 32"), std::string::npos)
      << k.error().to_string();
}

TEST(KeyFile, AnEd25519KeyWhosePublicHalfIsAnothersIsRefused) {
  TempDir dir("herald-keys");
  const std::string keys = kData + "/online/keys/";
  const std::string base = "Ked25519.example.+015+36831";
  write(dir.path / (base + ".private"), slurp(keys + base + ".private"));
  // RFC 8080's example public key under this key's owner.
  write(dir.path / (base + ".key"),
        "ed25519.example. IN DNSKEY 257 3 15 l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=\n");
  auto k = read_key_pair((dir.path / (base + ".private")).string(), name("ed25519.example."));
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find("not the private key's"), std::string::npos)
      << k.error().to_string();
}

}  // namespace
}  // namespace herald::dns::signing
