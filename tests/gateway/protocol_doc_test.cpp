// Runs every ```example block of docs/protocol.md against a real heraldd, so
// the protocol reference cannot drift from the server. See the top of that
// page for the notation. Also checks that its code tables list every code.
#include <simdjson.h>

#include <deque>
#include <fstream>
#include <map>
#include <sstream>

#include "gateway/protocol/codes.hpp"
#include "support/http_client.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

std::string read_doc() {
  std::ifstream in(HERALD_SOURCE_DIR "/docs/protocol.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Example {
  int line = 0;  // where the block starts, for messages
  std::vector<std::string> flags;
  std::vector<std::string> steps;
};

std::vector<Example> examples(const std::string& doc) {
  std::vector<Example> out;
  std::istringstream in(doc);
  std::string line;
  int n = 0;
  Example* cur = nullptr;
  while (std::getline(in, line)) {
    ++n;
    if (line == "```example") {
      out.push_back(Example{n, {}, {}});
      cur = &out.back();
    } else if (cur && line == "```") {
      cur = nullptr;
    } else if (cur && line.starts_with("# flags:")) {
      std::istringstream f(line.substr(8));
      std::string w;
      while (f >> w) cur->flags.push_back(w);
    } else if (cur && !line.empty()) {
      cur->steps.push_back(line);
    }
  }
  return out;
}

using Vars = std::map<std::string, std::string>;

std::string substitute(std::string s, const Vars& vars) {
  for (const auto& [k, v] : vars) {
    std::string key = "{{" + k + "}}";
    for (auto p = s.find(key); p != std::string::npos; p = s.find(key)) s.replace(p, key.size(), v);
  }
  return s;
}

// Structural match: "*" matches anything; "{{x}}" captures (or must equal
// an earlier capture); objects need the same keys; arrays the same length.
bool match(simdjson::dom::element want, simdjson::dom::element got, Vars& vars, std::string& why,
           const std::string& path) {
  std::string_view ws;
  if (want.get(ws) == simdjson::SUCCESS) {
    if (ws == "*") return true;
    if (ws.starts_with("{{") && ws.ends_with("}}")) {
      std::string name(ws.substr(2, ws.size() - 4));
      std::string value = simdjson::minify(got);
      std::string_view gs;
      if (got.get(gs) == simdjson::SUCCESS) value = std::string(gs);
      auto [it, fresh] = vars.emplace(name, value);
      if (!fresh && it->second != value) {
        why = path + ": " + name + " was " + it->second + ", now " + value;
        return false;
      }
      return true;
    }
  }
  if (want.type() != got.type()) {
    why = path + ": expected " + simdjson::minify(want) + ", got " + simdjson::minify(got);
    return false;
  }
  if (want.is_object()) {
    simdjson::dom::object wo = want.get_object(), go = got.get_object();
    if (wo.size() != go.size()) {
      why =
          path + ": expected keys of " + simdjson::minify(want) + ", got " + simdjson::minify(got);
      return false;
    }
    for (auto field : wo) {
      simdjson::dom::element g;
      if (go[field.key].get(g) != simdjson::SUCCESS) {
        why = path + ": missing key " + std::string(field.key);
        return false;
      }
      if (!match(field.value, g, vars, why, path + "/" + std::string(field.key))) return false;
    }
    return true;
  }
  if (want.is_array()) {
    simdjson::dom::array wa = want.get_array(), ga = got.get_array();
    if (wa.size() != ga.size()) {
      why = path + ": expected " + std::to_string(wa.size()) + " items, got " +
            std::to_string(ga.size());
      return false;
    }
    for (std::size_t i = 0; i < wa.size(); ++i) {
      if (!match(wa.at(i).value_unsafe(), ga.at(i).value_unsafe(), vars, why,
                 path + "/" + std::to_string(i)))
        return false;
    }
    return true;
  }
  if (simdjson::minify(want) != simdjson::minify(got)) {
    why = path + ": expected " + simdjson::minify(want) + ", got " + simdjson::minify(got);
    return false;
  }
  return true;
}

TEST(ProtocolDoc, EveryExampleRunsAsWritten) {
  auto all = examples(read_doc());
  ASSERT_GE(all.size(), 6u) << "docs/protocol.md lost its examples";
  for (const Example& ex : all) {
    SCOPED_TRACE("docs/protocol.md example at line " + std::to_string(ex.line));
    Daemon d(ex.flags);
    ASSERT_NE(d.port, 0);
    std::map<char, std::unique_ptr<WsClient>> clients;
    std::deque<std::string> http_replies;
    Vars vars;
    // "a>" starts a frame of client a and "a+" adds a line to it; it is sent
    // when any other step comes (or the example ends), so commands can share
    // one frame.
    std::map<char, std::string> unsent;
    auto send_unsent = [&] {
      for (auto& [c, frame] : unsent) clients[c]->send(substitute(frame, vars));
      unsent.clear();
    };
    for (const std::string& step : ex.steps) {
      ASSERT_GE(step.size(), 3u) << step;
      char who = step[0];
      char dir = step[1];
      std::string body = step.substr(3);
      std::optional<std::string> got;
      if (dir == '+') {
        ASSERT_TRUE(unsent.count(who)) << "no frame of '" << who << "' to continue: " << step;
        unsent[who] += "\n" + body;
        continue;
      }
      send_unsent();
      if (who == 'h') {
        // "h> POST /api/... {body}" calls the server API (dev mode: no key);
        // "h< {...}" is the reply's body.
        if (dir == '>') {
          std::string rest = substitute(body, vars);
          ASSERT_TRUE(rest.starts_with("POST ")) << step;
          auto space = rest.find(' ', 5);
          std::string path = rest.substr(5, space - 5);
          std::string json = space == std::string::npos ? "" : rest.substr(space + 1);
          http_replies.push_back(api_post(d.port, path, json).body);
          continue;
        }
        ASSERT_FALSE(http_replies.empty()) << "no API call before: " << step;
        got = http_replies.front();
        http_replies.pop_front();
      } else {
        auto& c = clients[who];
        if (!c) c = std::make_unique<WsClient>("127.0.0.1", d.port);
        if (dir == '>') {
          unsent[who] = body;
          continue;
        }
        got = c->next(5s);
      }
      ASSERT_EQ(dir, '<') << step;
      ASSERT_TRUE(got) << "nothing arrived for: " << step;
      simdjson::dom::parser pw, pg;
      simdjson::dom::element want, have;
      ASSERT_EQ(pw.parse(body).get(want), simdjson::SUCCESS) << "bad JSON in the doc: " << body;
      ASSERT_EQ(pg.parse(*got).get(have), simdjson::SUCCESS) << *got;
      std::string why;
      EXPECT_TRUE(match(want, have, vars, why, "")) << step << "\n got: " << *got << "\n " << why;
    }
    send_unsent();
  }
}

TEST(ProtocolDoc, TablesListEveryCode) {
  std::string doc = read_doc();
  for (const auto& e : gateway::protocol::error_table()) {
    std::string row =
        "| " + std::to_string(static_cast<int>(e.code)) + " | " + std::string(e.name) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
  for (const auto& u : gateway::protocol::unsubscribe_table()) {
    std::string row =
        "| " + std::to_string(static_cast<int>(u.code)) + " | " + std::string(u.reason) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
  for (const auto& d : gateway::protocol::disconnect_table()) {
    std::string row =
        "| " + std::to_string(static_cast<int>(d.code)) + " | " + std::string(d.reason) + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
}

}  // namespace
}  // namespace herald::test
