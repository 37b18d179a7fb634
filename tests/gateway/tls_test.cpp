// TLS on the listener (server.tls_*), against independent parties: the
// certificates are made by the openssl command line, and `openssl s_client`
// is the client, verifying the chain against the test's certificate. A
// heraldd with a certificate serves https:// only; a plain request gets
// nothing back and the port keeps serving; bad files are refused at start
// naming the key; SIGHUP swaps the pair for new connections, and a pair
// that does not load leaves the old one serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <regex>

#include "support/daemon.hpp"
#include "support/http_client.hpp"
#include "support/openssl_cli.hpp"
#include "support/process.hpp"
#include "support/sse_stream.hpp"
#include "support/temp_dir.hpp"

namespace herald::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A self-signed P-256 certificate for 127.0.0.1 named `cn`, and its key,
// written to <dir>/<stem>.crt and .key.
struct CertPair {
  std::string cert, key;
};
CertPair make_pair(const std::filesystem::path& dir, const std::string& stem,
                   const std::string& cn) {
  std::filesystem::create_directories(dir);
  CertPair p{(dir / (stem + ".crt")).string(), (dir / (stem + ".key")).string()};
  openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
           "-keyout", p.key, "-out", p.cert, "-days", "2", "-subj", "/CN=" + cn, "-addext",
           "subjectAltName=IP:127.0.0.1"});
  return p;
}

// GET `target` over TLS with openssl s_client, verifying the server's
// certificate against `ca`; its whole output (summary and response).
RunResult s_client(std::uint16_t port, const std::string& ca, const std::string& target,
                   std::vector<std::string> extra = {}) {
  std::string cmd = "printf 'GET " + target +
                    " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' | " +
                    OPENSSL_PATH + " s_client -connect 127.0.0.1:" + std::to_string(port) +
                    " -CAfile " + ca + " -verify_return_error -brief -ign_eof";
  for (const auto& e : extra) cmd += " " + e;
  return run({"/bin/sh", "-c", cmd});
}

std::vector<std::string> tls_flags(const CertPair& p) {
  return {"--server.tls_cert_file", p.cert, "--server.tls_key_file", p.key};
}

TEST(Tls, ServesHttpsOnlyAndAPlainRequestGetsNothing) {
  const TempDir tmp("herald-tls-serve");
  const auto& dir = tmp.path;
  const CertPair pair = make_pair(dir, "a", "first");
  Daemon d(tls_flags(pair));
  RunResult r = s_client(d.port, pair.cert, "/healthz");
  EXPECT_THAT(r.output, HasSubstr("Verification: OK"));
  EXPECT_THAT(r.output, HasSubstr("Peer certificate: CN = first"));
  EXPECT_THAT(r.output, HasSubstr("HTTP/1.1 200 OK"));
  // The response ends with close_notify, not a cut connection.
  EXPECT_THAT(r.output, Not(HasSubstr("unexpected eof")));
  // Plain HTTP to the TLS port: no answer, and the port serves on.
  EXPECT_ANY_THROW(http_get("127.0.0.1", d.port, "/healthz"));  // closed, unanswered
  r = s_client(d.port, pair.cert, "/metrics");
  EXPECT_THAT(r.output, HasSubstr("herald_tls_handshake_failures_total 1"));
}

// The SSE fallback over https: curl verifies the certificate and reads the
// stream; a publication made over TLS too (s_client) arrives as its event.
TEST(Tls, AnEventStreamOverHttps) {
  const TempDir tmp("herald-tls-sse");
  const auto& dir = tmp.path;
  const CertPair pair = make_pair(dir, "a", "first");
  Daemon d(tls_flags(pair));
  SseStream s(d.port, "/sse?room=news&user=alice", {}, pair.cert);
  auto connected = s.next();
  ASSERT_TRUE(connected && connected->event == "connected") << s.output();
  ASSERT_TRUE(s.next_named("subscribed")) << s.output();
  const std::string body = R"({"room":"news","data":{"t":1}})";
  const std::string cmd =
      "printf 'POST /api/publish HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: "
      "application/json\\r\\nContent-Length: " +
      std::to_string(body.size()) + "\\r\\nConnection: close\\r\\n\\r\\n" + body + "' | " +
      OPENSSL_PATH + " s_client -connect 127.0.0.1:" + std::to_string(d.port) + " -CAfile " +
      pair.cert + " -verify_return_error -brief -ign_eof";
  RunResult r = run({"/bin/sh", "-c", cmd});
  EXPECT_THAT(r.output, HasSubstr(R"("offset":1)"));
  auto pub = s.next_named("");
  ASSERT_TRUE(pub) << s.output();
  EXPECT_THAT(pub->data, HasSubstr(R"("data":{"t":1})"));
  s.cut();
}

TEST(Tls, MinVersionRefusesOlderClients) {
  const TempDir tmp("herald-tls-version");
  const auto& dir = tmp.path;
  const CertPair pair = make_pair(dir, "a", "first");
  auto flags = tls_flags(pair);
  flags.insert(flags.end(), {"--server.tls_min_version", "1.3"});
  Daemon d(flags);
  EXPECT_THAT(s_client(d.port, pair.cert, "/healthz", {"-tls1_2"}).output,
              Not(HasSubstr("HTTP/1.1 200 OK")));
  RunResult ok = s_client(d.port, pair.cert, "/healthz", {"-tls1_3"});
  EXPECT_THAT(ok.output, HasSubstr("Protocol version: TLSv1.3"));
  EXPECT_THAT(ok.output, HasSubstr("HTTP/1.1 200 OK"));
  // The default accepts TLS 1.2.
  Daemon d12(tls_flags(pair));
  EXPECT_THAT(s_client(d12.port, pair.cert, "/healthz", {"-tls1_2"}).output,
              HasSubstr("HTTP/1.1 200 OK"));
}

// heraldd with `flags`: its exit code and output, expected to stop at once.
RunResult start_refused(std::vector<std::string> flags) {
  std::vector<std::string> argv{HERALDD_PATH, "--server.listen", "127.0.0.1:0"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return run(argv);
}

TEST(Tls, BadFilesAtStartExitTwoNamingTheKey) {
  const TempDir tmp("herald-tls-bad");
  const auto& dir = tmp.path;
  const CertPair a = make_pair(dir, "a", "first");
  const CertPair b = make_pair(dir, "b", "second");
  RunResult r = start_refused(
      {"--server.tls_cert_file", (dir / "missing.crt").string(), "--server.tls_key_file", a.key});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("server.tls_cert_file: '" + (dir / "missing.crt").string()));
  r = start_refused({"--server.tls_cert_file", a.cert, "--server.tls_key_file", b.key});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("server.tls_key_file: '" + b.key + "': is not the key of"));
  r = start_refused({"--server.tls_cert_file", a.cert, "--server.tls_key_file", a.cert});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("server.tls_key_file"));
  r = start_refused({"--server.tls_cert_file", a.cert});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("go together"));
}

TEST(Tls, SighupSwapsThePairAndABadPairKeepsTheOld) {
  const TempDir tmp("herald-tls-reload");
  const auto& dir = tmp.path;
  const CertPair first = make_pair(dir, "a", "first");
  const CertPair second = make_pair(dir, "b", "second");
  // The served paths: the test writes new contents into them.
  const CertPair served{(dir / "served.crt").string(), (dir / "served.key").string()};
  std::filesystem::copy_file(first.cert, served.cert);
  std::filesystem::copy_file(first.key, served.key);
  Daemon d(tls_flags(served));
  EXPECT_THAT(s_client(d.port, first.cert, "/healthz").output,
              HasSubstr("Peer certificate: CN = first"));

  const auto overwrite = std::filesystem::copy_options::overwrite_existing;
  std::filesystem::copy_file(second.cert, served.cert, overwrite);
  std::filesystem::copy_file(second.key, served.key, overwrite);
  d.proc->signal(SIGHUP);
  ASSERT_TRUE(
      d.proc->wait_for_line(std::regex("tls certificate reloaded"), std::chrono::seconds(10)))
      << d.proc->output();
  RunResult r = s_client(d.port, second.cert, "/healthz");
  EXPECT_THAT(r.output, HasSubstr("Peer certificate: CN = second"));
  EXPECT_THAT(r.output, HasSubstr("HTTP/1.1 200 OK"));

  // A key that does not match: logged, and the second pair keeps serving.
  std::filesystem::copy_file(first.key, served.key, overwrite);
  d.proc->signal(SIGHUP);
  auto failed = d.proc->wait_for_line(std::regex("tls reload failed"), std::chrono::seconds(10));
  ASSERT_TRUE(failed) << d.proc->output();
  EXPECT_THAT(*failed, HasSubstr("server.tls_key_file"));
  r = s_client(d.port, second.cert, "/healthz");
  EXPECT_THAT(r.output, HasSubstr("Peer certificate: CN = second"));
  EXPECT_THAT(r.output, HasSubstr("HTTP/1.1 200 OK"));
}

}  // namespace
}  // namespace herald::test
