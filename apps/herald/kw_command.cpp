// Output, the same in both modes:
//   add, rm:  "version V changed N"
//   ls:       "KEYWORD<TAB>ACTION<TAB>CATEGORY" per entry, sorted by keyword
//   match:    "START<TAB>END<TAB>KEYWORD<TAB>ACTION<TAB>CATEGORY" per match,
//             then "verdict VERDICT"
// Exit codes: 0 done, 1 the server or Redis refused or could not be reached
// (the reason on stderr), 2 bad arguments.
#include "kw_command.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <simdjson.h>

#include <cstdlib>
#include <iostream>
#include <iterator>

#include "core/config/values.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "match/store/redis_store.hpp"
#include "match/store/sync.hpp"
#include "redis/topology.hpp"

namespace herald::cli {
namespace {

namespace kw = match::store;
namespace http = boost::beast::http;

struct Args {
  CLI::App* command = nullptr;
  CLI::App *add = nullptr, *rm = nullptr, *ls = nullptr, *match = nullptr;
  std::string server = "127.0.0.1:8080";
  std::string api_key;
  std::string redis;
  std::string redis_topology = "servers";
  std::string redis_shards;
  std::string key_prefix{kw::kDefaultKeyPrefix};
  std::string channel{kw::kDefaultChannel};
  std::string dict;
  std::vector<std::string> words;
  std::string action = "flag";
  std::string category;
};

Args& args() {
  static Args a;
  return a;
}

int fail(const std::string& why) {
  std::cerr << "herald kw: " << why << "\n";
  return 1;
}

void print_write(std::uint64_t version, std::uint64_t changed) {
  std::cout << "version " << version << " changed " << changed << "\n";
}

std::string_view verdict_of(const std::vector<kw::Hit>& hits) {
  std::string_view v = "allow";
  for (const kw::Hit& h : hits) {
    if (h.action == kw::Action::reject) return "reject";
    if (h.action == kw::Action::mask) v = "mask";
    if (h.action == kw::Action::flag && v == "allow") v = "flag";
  }
  return v;
}

std::string read_stdin() {
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

std::string text_argument() {
  const Args& a = args();
  if (a.words.empty()) return read_stdin();
  std::string text;
  for (const std::string& w : a.words) {
    if (!text.empty()) text += ' ';
    text += w;
  }
  return text;
}

// --- against Redis, through the same store heraldd uses -------------------

int run_redis() {
  const Args& a = args();
  auto ep = config::parse_endpoint(a.redis);
  if (!ep || ep->port == 0) {
    std::cerr << "herald kw: --redis: expected HOST:PORT, got '" << a.redis << "'\n";
    return 2;
  }
  kw::RedisStoreOptions o;
  try {
    redis::TopologySettings t;
    t.kind = a.redis_topology;
    t.address = *ep;
    t.shards = a.redis_shards;
    o.topology = redis::make_topology(t, "keywords.redis");
  } catch (const std::runtime_error& e) {
    return fail(std::string(e.what()) + " (--redis-shards)");
  }
  o.key_prefix = a.key_prefix;
  o.channel = a.channel;
  // The same environment variables heraldd reads for these keys, so one
  // environment serves both; never flags, which `ps` would show.
  // Read at start-up, before this process starts any thread: getenv's
  // thread-safety caveat (a concurrent setenv) cannot apply.
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  if (const char* user = std::getenv("HERALD_KEYWORDS_REDIS_USERNAME"))
    o.redis.credentials.username = user;
  // NOLINTNEXTLINE(concurrency-mt-unsafe)
  if (const char* password = std::getenv("HERALD_KEYWORDS_REDIS_PASSWORD"))
    o.redis.credentials.password = password;
  log::init(log::Level::error, log::Format::text);  // the store's reconnect chatter stays quiet
  std::unique_ptr<kw::RedisStore> made;
  try {
    made = std::make_unique<kw::RedisStore>(o);  // a Redis Cluster's slots are read here
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }
  kw::RedisStore& store = *made;
  if (!store.wait_connected(o.redis.connect_timeout + std::chrono::seconds(1))) {
    if (auto refused = store.refusal())
      return fail(*refused +
                  " (set HERALD_KEYWORDS_REDIS_PASSWORD, and "
                  "HERALD_KEYWORDS_REDIS_USERNAME for an ACL user)");
    return fail("redis unavailable at " + ep->to_string());
  }
  if (a.add->parsed()) {
    std::vector<kw::Entry> entries;
    for (const std::string& w : a.words)
      entries.emplace_back(w, *kw::parse_action(a.action), a.category);
    auto r = kw::add_many(store, a.dict, std::move(entries));
    if (!r.ok()) return fail(r.error);
    print_write(r.version, r.changed);
    return 0;
  }
  if (a.rm->parsed()) {
    auto r = kw::remove_many(store, a.dict, a.words);
    if (!r.ok()) return fail(r.error);
    print_write(r.version, r.changed);
    return 0;
  }
  auto e = kw::engine(store, a.dict);
  if (!e.ok()) return fail(e.error);
  if (a.ls->parsed()) {
    for (const kw::Entry& entry : e.engine->entries())
      std::cout << entry.keyword << '\t' << kw::action_name(entry.action) << '\t' << entry.category
                << '\n';
    return 0;
  }
  const std::string text = text_argument();
  std::vector<kw::Hit> hits;
  e.engine->find(text, hits);
  for (const kw::Hit& h : hits)
    std::cout << h.start << '\t' << h.end << '\t' << h.keyword << '\t' << kw::action_name(h.action)
              << '\t' << h.category << '\n';
  std::cout << "verdict " << verdict_of(hits) << "\n";
  return 0;
}

// --- against a running heraldd's API ---------------------------------------

struct HttpResult {
  std::string error;  // transport failure
  int status = 0;
  std::string body;
};

HttpResult http_call(const config::Endpoint& ep, http::verb method, const std::string& target,
                     const std::string& body) {
  HttpResult out;
  try {
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    boost::beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(30));
    stream.connect(resolver.resolve(ep.host, std::to_string(ep.port)));
    http::request<http::string_body> req{method, target, 11};
    req.set(http::field::host, ep.host);
    req.set(http::field::content_type, "application/json");
    if (!args().api_key.empty()) req.set(http::field::authorization, "apikey " + args().api_key);
    req.body() = body;
    req.prepare_payload();
    http::write(stream, req);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    out.status = static_cast<int>(res.result_int());
    out.body = std::move(res.body());
  } catch (const std::exception& e) {
    out.error = "cannot reach heraldd at " + ep.to_string() + ": " + e.what();
  }
  return out;
}

std::string json_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    json::append_string(out, items[i]);
  }
  return out + "]";
}

std::string sv(simdjson::dom::element e, const char* key) {
  std::string_view s;
  return e[key].get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}
std::uint64_t uv(simdjson::dom::element e, const char* key) {
  std::uint64_t v = 0;
  return e[key].get(v) == simdjson::SUCCESS ? v : 0;
}

int run_http() {
  const Args& a = args();
  auto ep = config::parse_endpoint(a.server);
  if (!ep || ep->port == 0) {
    std::cerr << "herald kw: --server: expected HOST:PORT, got '" << a.server << "'\n";
    return 2;
  }
  const std::string base = "/api/keywords/" + a.dict;
  HttpResult r;
  if (a.add->parsed()) {
    std::string body = "{\"keywords\":[";
    for (std::size_t i = 0; i < a.words.size(); ++i) {
      if (i) body += ',';
      body += "{\"keyword\":";
      json::append_string(body, a.words[i]);
      body += ",\"action\":";
      json::append_string(body, a.action);
      body += ",\"category\":";
      json::append_string(body, a.category);
      body += '}';
    }
    r = http_call(*ep, http::verb::post, base + "/add", body + "]}");
  } else if (a.rm->parsed()) {
    r = http_call(*ep, http::verb::post, base + "/remove",
                  "{\"keywords\":" + json_string_array(a.words) + "}");
  } else if (a.ls->parsed()) {
    r = http_call(*ep, http::verb::get, base, "");
  } else {
    std::string body = "{\"text\":";
    json::append_string(body, text_argument());
    r = http_call(*ep, http::verb::post, base + "/match", body + "}");
  }
  if (!r.error.empty()) return fail(r.error);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(r.body).get(doc) != simdjson::SUCCESS)
    return fail("heraldd answered " + std::to_string(r.status) + " with a body that is not JSON");
  simdjson::dom::element result;
  if (r.status != 200 || doc["result"].get(result) != simdjson::SUCCESS) {
    simdjson::dom::element err;
    std::string message = doc["error"].get(err) == simdjson::SUCCESS ? sv(err, "message") : "";
    return fail("heraldd answered " + std::to_string(r.status) + ": " + message);
  }
  if (a.add->parsed() || a.rm->parsed()) {
    print_write(uv(result, "version"), uv(result, "changed"));
    return 0;
  }
  simdjson::dom::array items;
  if (a.ls->parsed()) {
    if (result["keywords"].get(items) == simdjson::SUCCESS) {
      for (simdjson::dom::element e : items)
        std::cout << sv(e, "keyword") << '\t' << sv(e, "action") << '\t' << sv(e, "category")
                  << '\n';
    }
    return 0;
  }
  if (result["matches"].get(items) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : items)
      std::cout << uv(e, "start") << '\t' << uv(e, "end") << '\t' << sv(e, "keyword") << '\t'
                << sv(e, "action") << '\t' << sv(e, "category") << '\n';
  }
  std::cout << "verdict " << sv(result, "verdict") << "\n";
  return 0;
}

}  // namespace

void add_kw_command(CLI::App& app) {
  Args& a = args();
  a.command = app.add_subcommand(
      "kw", "Keyword dictionaries: through a running heraldd (default) or directly in Redis");
  a.command->require_subcommand(1);
  a.command->add_option("--server", a.server, "heraldd's HTTP address (HOST:PORT)")
      ->capture_default_str();
  a.command->add_option("--api-key", a.api_key, "heraldd's api.key, when it has one");
  a.command->add_option("--redis", a.redis,
                        "Talk to this Redis (HOST:PORT) directly instead of to heraldd; its "
                        "password and ACL user come from HERALD_KEYWORDS_REDIS_PASSWORD and "
                        "HERALD_KEYWORDS_REDIS_USERNAME, as for heraldd");
  a.command
      ->add_option("--redis-topology", a.redis_topology,
                   "With --redis: keywords.redis.topology (servers, or cluster: --redis is "
                   "a node of a Redis Cluster)")
      ->check(CLI::IsMember({"servers", "cluster"}))
      ->capture_default_str();
  a.command->add_option("--redis-shards", a.redis_shards,
                        "With --redis: keywords.redis.shards (\"HOST:PORT, HOST:PORT\"), the "
                        "same list heraldd has, so that each dictionary is found on its server");
  a.command->add_option("--key-prefix", a.key_prefix, "With --redis: keywords.redis.key_prefix")
      ->capture_default_str();
  a.command->add_option("--channel", a.channel, "With --redis: keywords.redis.channel")
      ->capture_default_str();

  a.add = a.command->add_subcommand("add", "Add keywords (one write, whatever their number)");
  a.add->add_option("dict", a.dict, "Dictionary name")->required();
  a.add->add_option("keywords", a.words, "Keywords")->required();
  a.add->add_option("--action", a.action, "What moderation does with a match")
      ->check(CLI::IsMember({"reject", "mask", "flag"}))
      ->capture_default_str();
  a.add->add_option("--category", a.category, "A category for these keywords");

  a.rm = a.command->add_subcommand("rm", "Remove keywords");
  a.rm->add_option("dict", a.dict, "Dictionary name")->required();
  a.rm->add_option("keywords", a.words, "Keywords")->required();

  a.ls = a.command->add_subcommand("ls", "List a dictionary");
  a.ls->add_option("dict", a.dict, "Dictionary name")->required();

  a.match = a.command->add_subcommand("match", "Search a text (the arguments, or stdin)");
  a.match->add_option("dict", a.dict, "Dictionary name")->required();
  a.match->add_option("text", a.words, "Text (default: stdin)");
}

bool kw_selected() {
  return args().command != nullptr && args().command->parsed();
}

int run_kw() {
  return args().redis.empty() ? run_http() : run_redis();
}

}  // namespace herald::cli
