// The live room list over the protocol (rooms.watch and friends), against a
// real heraldd: a watcher applies every diff batch it receives to its own
// copy of the list, and after each step the copy must equal the list
// recomputed from a model of what happened (activity order, unread and
// mention counts, names, tags, filter, paging). Steps are drawn with a fixed
// seed: publications by another user (some mentioning the watcher, some
// renaming the room), the watcher's own publications (which read the room:
// unread counts are positions, state/membership.hpp), read markers, tags,
// paging, leaving and re-joining rooms, and re-watching with a filter.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/daemon.hpp"
#include "support/eventually.hpp"
#include "support/http_client.hpp"
#include "support/json.hpp"
#include "support/ws_client.hpp"
#include "ws_common.hpp"

namespace herald::test {
namespace {

struct Entry {
  std::string room, name, preview;
  std::uint64_t unread = 0, mentions = 0;
  bool favourite = false;
  std::uint64_t notifications = unread;
  bool marked_unread = false;
  std::string notify = "all";
  std::string membership = "joined";
  friend bool operator==(const Entry&, const Entry&) = default;
};

std::ostream& operator<<(std::ostream& os, const Entry& e) {
  return os << e.room << "(" << e.name << ", unread " << e.unread << ", mentions " << e.mentions
            << ", notifications " << e.notifications << (e.favourite ? ", fav" : "")
            << (e.marked_unread ? ", marked" : "") << ", " << e.notify << ", " << e.membership
            << ", '" << e.preview << "')";
}

Entry entry_at(const std::string& msg, const std::string& ptr) {
  Entry e;
  e.room = json_str(msg, ptr + "/room").value_or("?");
  e.name = json_str(msg, ptr + "/name").value_or("?");
  e.preview = json_str(msg, ptr + "/preview").value_or("?");
  e.unread = json_uint(msg, ptr + "/unread").value_or(999);
  e.mentions = json_uint(msg, ptr + "/mentions").value_or(999);
  e.favourite = json_bool(msg, ptr + "/favourite").value_or(false);
  e.notifications = json_uint(msg, ptr + "/notifications").value_or(999);
  e.marked_unread = json_bool(msg, ptr + "/marked_unread").value_or(false);
  e.notify = json_str(msg, ptr + "/notify").value_or("?");
  e.membership = json_str(msg, ptr + "/membership").value_or("?");
  return e;
}

// Applies one {"rooms":{"diffs":[...]}} push; fails the test on a diff that
// does not fit the list (an index out of range is a server bug).
void apply_diffs(const std::string& msg, std::vector<Entry>& list) {
  const std::size_t n = json_size(msg, "/rooms/diffs").value_or(0);
  ASSERT_GT(n, 0u) << "an empty diff batch was pushed: " << msg;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string d = "/rooms/diffs/" + std::to_string(i);
    const std::string op = json_str(msg, d + "/op").value_or("?");
    if (op == "reset" || op == "append") {
      if (op == "reset") list.clear();
      const std::size_t m = json_size(msg, d + "/values").value_or(0);
      for (std::size_t k = 0; k < m; ++k)
        list.push_back(entry_at(msg, d + "/values/" + std::to_string(k)));
    } else if (op == "clear") {
      list.clear();
    } else if (op == "push_front") {
      list.insert(list.begin(), entry_at(msg, d + "/value"));
    } else if (op == "push_back") {
      list.push_back(entry_at(msg, d + "/value"));
    } else if (op == "pop_front") {
      ASSERT_FALSE(list.empty()) << msg;
      list.erase(list.begin());
    } else if (op == "pop_back") {
      ASSERT_FALSE(list.empty()) << msg;
      list.pop_back();
    } else if (op == "insert") {
      const auto at = json_uint(msg, d + "/index").value_or(1u << 30);
      ASSERT_LE(at, list.size()) << msg;
      list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), entry_at(msg, d + "/value"));
    } else if (op == "set") {
      const auto at = json_uint(msg, d + "/index").value_or(1u << 30);
      ASSERT_LT(at, list.size()) << msg;
      list[at] = entry_at(msg, d + "/value");
    } else if (op == "remove") {
      const auto at = json_uint(msg, d + "/index").value_or(1u << 30);
      ASSERT_LT(at, list.size()) << msg;
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (op == "truncate") {
      const auto len = json_uint(msg, d + "/length").value_or(1u << 30);
      ASSERT_LE(len, list.size()) << msg;
      list.resize(len);
    } else {
      FAIL() << "unknown op " << op << " in " << msg;
    }
  }
}

// What the server should show: the model of every joined room.
struct ModelRoom {
  std::string name, preview;
  std::uint64_t unread = 0, mentions = 0, stamp = 0;
  bool favourite = false, marked = false;
  std::string notify = "all";
  // What asks for attention, by the mode (docs/protocol.md).
  std::uint64_t notifications() const {
    if (notify == "mute") return 0;
    return notify == "mentions" ? mentions : unread;
  }
};

struct Query {
  bool unread_only = false;
  std::string name;  // contains
  std::size_t page_size = 3;
};

std::vector<Entry> expected(const std::map<std::string, ModelRoom>& rooms, const Query& q,
                            std::size_t pages) {
  std::vector<std::pair<std::string, const ModelRoom*>> v;
  for (const auto& [room, m] : rooms) {
    if (q.unread_only && m.notifications() == 0 && !m.marked) continue;
    if (!q.name.empty() && m.name.find(q.name) == std::string::npos) continue;
    v.emplace_back(room, &m);
  }
  // Most recent activity first (never active last), then by name.
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (a.second->stamp != b.second->stamp) return a.second->stamp > b.second->stamp;
    return a.second->name < b.second->name;
  });
  std::vector<Entry> out;
  for (const auto& [room, m] : v) {
    if (out.size() == q.page_size * pages) break;
    out.push_back(Entry{room, m->name, m->preview, m->unread, m->mentions, m->favourite,
                        m->notifications(), m->marked, m->notify});
  }
  return out;
}

class Watcher {
 public:
  explicit Watcher(std::uint16_t port, const std::string& user = "alice")
      : c_(connect_as(port, user)) {}
  WsClient& client() { return *c_; }
  std::vector<Entry>& list() { return list_; }
  // Publications received and not awaited.
  [[nodiscard]] std::size_t pubs_seen() const { return pubs_.size(); }

  // Sends cmd (with a fresh id) and reads through its reply, applying every
  // room-list push on the way; returns the reply.
  std::string command(const std::string& name, const std::string& params) {
    const std::uint32_t id = ++id_;
    c_->send(R"({"id":)" + std::to_string(id) + ",\"" + name + "\":" + params + "}");
    return read_until_reply(id);
  }
  // Reads until a pub push for `room` arrives (applying pushes on the way).
  void await_pub(const std::string& room) {
    for (;;) {
      if (const auto it = pubs_.find(room); it != pubs_.end()) {
        pubs_.erase(it);
        return;
      }
      auto m = c_->next();
      ASSERT_TRUE(m) << "no publication in " << room;
      take(*m);
    }
  }
  // A ping settles the step: every change so far is drained by the flush
  // that carries the ping's reply, into the same frame (so it is already
  // buffered when the reply is read).
  void settle() {
    command("ping", "{}");
    while (auto m = c_->next(std::chrono::milliseconds(30))) take(*m);
  }

 private:
  std::string read_until_reply(std::uint32_t id) {
    for (;;) {
      auto m = c_->next();
      if (!m) {
        ADD_FAILURE() << "no reply to command " << id;
        return {};
      }
      take(*m);
      if (json_uint(*m, "/id") == id) return *m;
    }
  }
  // Applies a room-list push; remembers a publication (its own publish's
  // push may come before or after the reply).
  void take(const std::string& m) {
    if (json_has(m, "/rooms")) apply_diffs(m, list_);
    if (auto room = json_str(m, "/pub/room")) pubs_.insert(*room);
  }
  std::unique_ptr<WsClient> c_;
  std::vector<Entry> list_;
  std::multiset<std::string> pubs_;  // publications seen and not yet awaited
  std::uint32_t id_ = 100;
};

TEST(RoomList, DiffsMatchARecomputedListAfterEveryStep) {
  Daemon d({"--client.publish_rate", "100000"});
  Watcher w(d.port);
  auto bob = connect_as(d.port, "bob");
  std::uint32_t bob_id = 10;

  const int kRooms = 8;
  std::map<std::string, ModelRoom> model;
  const auto room_name = [](int i) { return "rl:r" + std::to_string(i); };
  for (int i = 0; i < kRooms; ++i) {
    ASSERT_TRUE(json_has(w.command("subscribe", R"({"room":")" + room_name(i) + "\"}"), "/result"));
    model[room_name(i)].name = room_name(i);
  }
  Query q;
  std::size_t pages = 1;
  ASSERT_TRUE(json_has(w.command("rooms.watch", R"({"page_size":3})"), "/result"));
  w.settle();
  ASSERT_EQ(w.list(), expected(model, q, pages));

  std::mt19937 rng(20261130);
  std::uint64_t clock = 0;
  int renames = 0;
  for (int step = 0; step < 160; ++step) {
    const std::string room = room_name(static_cast<int>(rng() % kRooms));
    const bool joined = model.contains(room);
    const unsigned kind = rng() % 100;
    std::string what;
    if (kind < 40 && joined) {  // bob writes, sometimes to alice
      const bool mention = rng() % 4 == 0;
      const std::string text = "m" + std::to_string(step) + (mention ? " @alice" : "");
      what = "bob writes '" + text + "' in " + room;
      publish(*bob, ++bob_id, room, R"({"text":")" + text + "\"}");
      w.await_pub(room);
      auto& m = model[room];
      m.stamp = ++clock, m.preview = text, ++m.unread;
      if (mention) ++m.mentions;
    } else if (kind < 47 && joined) {  // bob renames the room
      const std::string name = "name" + std::to_string(++renames);
      what = "bob renames " + room + " to " + name;
      publish(*bob, ++bob_id, room, R"({"rename":")" + name + "\"}");
      w.await_pub(room);
      // A rename is a publication in the stream: counted like any other.
      auto& m = model[room];
      m.stamp = ++clock, m.name = name, m.preview = "renamed the room to " + name, ++m.unread;
    } else if (kind < 57 && joined) {  // alice writes: she has read the room
      what = "alice writes in " + room;
      const std::string reply =
          w.command("publish", R"({"room":")" + room + R"(","data":{"text":"mine"}})");
      ASSERT_TRUE(json_has(reply, "/result")) << reply;
      w.await_pub(room);
      auto& m = model[room];
      m.stamp = ++clock, m.preview = "mine", m.unread = 0, m.mentions = 0, m.marked = false;
    } else if (kind < 67 && joined) {
      what = "alice reads " + room;
      ASSERT_TRUE(json_has(w.command("rooms.read", R"({"room":")" + room + "\"}"), "/result"));
      model[room].unread = 0, model[room].mentions = 0, model[room].marked = false;
    } else if (kind < 71 && joined) {
      auto& m = model[room];
      m.marked = !m.marked;
      what = std::string("alice marks ") + room + (m.marked ? " unread" : " not unread");
      ASSERT_TRUE(json_has(w.command("rooms.mark_unread", R"({"room":")" + room + R"(","unread":)" +
                                                              (m.marked ? "true" : "false") + "}"),
                           "/result"));
    } else if (kind < 74 && joined) {
      static const char* const kModes[] = {"all", "mentions", "mute"};
      auto& m = model[room];
      m.notify = kModes[rng() % 3];
      what = "alice sets " + room + " to notify " + m.notify;
      ASSERT_TRUE(json_has(
          w.command("rooms.notify", R"({"room":")" + room + R"(","mode":")" + m.notify + "\"}"),
          "/result"));
    } else if (kind < 77 && joined) {
      auto& m = model[room];
      m.favourite = !m.favourite;
      what = std::string("alice tags ") + room + (m.favourite ? " favourite" : " plain");
      ASSERT_TRUE(json_has(w.command("rooms.tag", R"({"room":")" + room + R"(","favourite":)" +
                                                      (m.favourite ? "true" : "false") + "}"),
                           "/result"));
    } else if (kind < 83) {
      what = "alice pages";
      if (rng() % 2 == 0 && pages < 3) {
        ++pages;
        ASSERT_TRUE(json_has(w.command("rooms.page", R"({"more":true})"), "/result"));
      } else {
        pages = 1;
        ASSERT_TRUE(json_has(w.command("rooms.page", R"({"reset":true})"), "/result"));
      }
    } else if (kind < 90) {  // leave a joined room, or join it again (fresh state)
      if (joined) {
        what = "alice leaves " + room;
        ASSERT_TRUE(json_has(w.command("unsubscribe", R"({"room":")" + room + "\"}"), "/result"));
        model.erase(room);
      } else {
        what = "alice joins " + room + " again";
        ASSERT_TRUE(json_has(w.command("subscribe", R"({"room":")" + room + "\"}"), "/result"));
        model[room].name = room;
      }
    } else {  // a new query: a Reset of one page
      q.unread_only = rng() % 2 == 0;
      q.name = rng() % 3 == 0 ? std::string("r") + std::to_string(rng() % kRooms) : "";
      pages = 1;
      what = "alice watches again (unread " + std::to_string(q.unread_only) + ", name '" + q.name +
             "')";
      std::string params = R"({"page_size":3,"filter":{"unread":)" +
                           std::string(q.unread_only ? "true" : "false") + R"(,"name":")" + q.name +
                           "\"}}";
      ASSERT_TRUE(json_has(w.command("rooms.watch", params), "/result"));
    }
    if (what.empty()) continue;
    w.settle();
    const auto want = expected(model, q, pages);
    ASSERT_EQ(w.list(), want) << "after step " << step << ": " << what;
  }
}

// Watchers on one shard share one parse of each publication; what follows
// from it (unread, mentions) is still each watcher's own.
TEST(RoomList, WatchersOnOneShardCountForThemselves) {
  Daemon d({"--server.threads", "1"});
  auto bob = connect_as(d.port, "bob");
  std::vector<std::unique_ptr<WsClient>> watchers;
  for (const char* user : {"alice", "carol"}) {
    watchers.push_back(connect_as(d.port, user));
    subscribe(*watchers.back(), 2, "duo");
    ASSERT_TRUE(request(*watchers.back(), 3, R"({"id":3,"rooms.watch":{}})"));
  }
  publish(*bob, 2, "duo", R"({"text":"hi @carol"})");
  const std::uint64_t want_mentions[] = {0, 1};
  for (std::size_t w = 0; w < watchers.size(); ++w) {
    std::optional<std::string> last;
    for (;;) {
      auto m = watchers[w]->next();
      ASSERT_TRUE(m) << "watcher " << w << " got no room-list update";
      if (json_str(*m, "/rooms/diffs/0/op") == "set") {
        last = m;
        break;
      }
    }
    EXPECT_EQ(json_uint(*last, "/rooms/diffs/0/value/unread"), 1u) << *last;
    EXPECT_EQ(json_uint(*last, "/rooms/diffs/0/value/mentions"), want_mentions[w]) << *last;
    EXPECT_EQ(json_str(*last, "/rooms/diffs/0/value/preview"), "hi @carol") << *last;
  }
}

// docs/protocol.md: a preview is cut at 120 bytes. The cut keeps a UTF-8
// character whole (backing up to its first byte, so the preview stays valid
// UTF-8 for a JSON string) and marks the cut with "…"; text of 120 bytes or
// less is shown whole.
TEST(RoomList, APreviewIsCutAt120BytesOnACharacterBoundary) {
  Daemon d;
  Watcher w(d.port);
  auto bob = connect_as(d.port, "bob");
  ASSERT_TRUE(json_has(w.command("subscribe", R"({"room":"cut"})"), "/result"));
  ASSERT_TRUE(json_has(w.command("rooms.watch", "{}"), "/result"));
  const auto preview_of = [&](std::uint32_t id, const std::string& text) {
    publish(*bob, id, "cut", R"({"text":")" + text + "\"}");
    w.await_pub("cut");
    w.settle();
    EXPECT_EQ(w.list().size(), 1u);
    return w.list().empty() ? std::string() : w.list()[0].preview;
  };
  const std::string ascii(200, 'a');
  EXPECT_EQ(preview_of(2, ascii), std::string(120, 'a') + "…");
  EXPECT_EQ(preview_of(3, std::string(120, 'b')), std::string(120, 'b'));  // fits: whole
  // "x" then two-byte characters: byte 120 is the second byte of the
  // 60th "é", which is left out whole: 119 bytes are kept.
  std::string accents = "x";
  for (int i = 0; i < 100; ++i) accents += "é";
  std::string want = "x";
  for (int i = 0; i < 59; ++i) want += "é";
  EXPECT_EQ(preview_of(4, accents), want + "…");
  // Four-byte characters from byte 2: the one over bytes 118..121 is cut
  // before, at 118.
  std::string emoji = "xy";
  for (int i = 0; i < 40; ++i) emoji += "\U0001F600";
  std::string want_emoji = "xy";
  for (int i = 0; i < 29; ++i) want_emoji += "\U0001F600";
  EXPECT_EQ(preview_of(5, emoji), want_emoji + "…");
}

TEST(RoomList, CommandsNeedAWatchOrASubscription) {
  Daemon d;
  auto c = connect_as(d.port, "carol");
  auto r = request(*c, 2, R"({"id":2,"rooms.page":{"more":true}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_uint(*r, "/error/code"), 107u) << *r;
  r = request(*c, 3, R"({"id":3,"rooms.read":{"room":"nowhere"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_uint(*r, "/error/code"), 110u) << *r;
  // Without state.dir no membership is kept: joining says so.
  r = request(*c, 7, R"({"id":7,"rooms.join":{"room":"club:x"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_uint(*r, "/error/code"), 108u) << *r;
  r = request(*c, 4, R"({"id":4,"rooms.watch":{"page_size":0}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json_uint(*r, "/error/code"), 107u) << *r;
  r = request(*c, 5, R"({"id":5,"rooms.watch":{"sort":"size"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(
      json_str(*r, "/error/message"),
      R"(rooms.watch.sort: expected "activity", "name" or a list of "local", "recency" and "name")");
  // An empty list is still a Reset.
  c->send(R"({"id":6,"rooms.watch":{}})");
  bool reset = false;
  for (int i = 0; i < 2; ++i) {
    auto m = c->next();
    ASSERT_TRUE(m);
    if (json_str(*m, "/rooms/diffs/0/op") == "reset") {
      reset = true;
      EXPECT_EQ(json_size(*m, "/rooms/diffs/0/values"), 0u);
    }
  }
  EXPECT_TRUE(reset);
}

// Each watcher's list comes to equal `want` (a change reaches the user's
// other connections shortly after its reply).
void all_show(std::initializer_list<Watcher*> watchers, const std::vector<Entry>& want) {
  for (Watcher* w : watchers) {
    EXPECT_TRUE(eventually([&] {
      w->settle();
      return w->list() == want;
    })) << "a connection shows "
        << ::testing::PrintToString(w->list());
  }
}

// heraldd keeping memberships in a directory of its own (removed at the
// end), and the server API's calls that must answer 200.
struct StateDaemon {
  explicit StateDaemon(const std::string& name, std::vector<std::string> flags)
      : dir(::testing::TempDir() + name + "-" + std::to_string(::getpid())) {
    std::filesystem::remove_all(dir);
    flags.insert(flags.end(), {"--api.key", "k3y", "--state.dir", dir});
    d.emplace(flags);
  }
  ~StateDaemon() {
    d.reset();
    std::filesystem::remove_all(dir);
  }
  void api(const std::string& method, const std::string& body) const {
    const HttpReply r = api_post(d->port, "/api/" + method, body, "k3y");
    EXPECT_EQ(r.status, 200) << method << " " << body << " -> " << r.body;
  }
  std::string dir;
  std::optional<Daemon> d;
};

// With state.dir, the list is the user's memberships (issue 43): rooms the
// connection never subscribed to are listed with their last publication
// and their unread count from the kept read marker; a read or a tag on one
// connection, a membership the server API adds or removes, and a mention,
// is kept and shown on the user's connections, and on a connection that
// comes later.
TEST(RoomList, MembershipsAreListedAndTheirChangesReachEveryConnection) {
  const StateDaemon s("herald-roomlist", {"--server.threads", "2"});
  const Daemon& d = *s.d;
  const auto api = [&](const std::string& method, const std::string& body) { s.api(method, body); };
  api("members_add", R"({"room":"team:ops","user":"ann"})");
  api("members_add", R"({"room":"team:dev","user":"ann"})");
  for (const char* text : {"one", "two", "three"}) {
    api("publish", std::string(R"({"room":"team:ops","data":{"text":")") + text + R"("}})");
  }
  const std::vector<Entry> before{{"team:ops", "team:ops", "three", 3, 0, false},
                                  {"team:dev", "team:dev", "", 0, 0, false}};
  Watcher phone(d.port, "ann");
  Watcher laptop(d.port, "ann");
  for (Watcher* w : {&phone, &laptop}) {
    ASSERT_TRUE(json_has(w->command("rooms.watch", "{}"), "/result"));
    w->settle();
    EXPECT_EQ(w->list(), before);
  }
  // Not a member, not subscribed: refused as before.
  EXPECT_EQ(json_uint(phone.command("rooms.read", R"({"room":"team:qa"})"), "/error/code"), 110u);

  ASSERT_TRUE(json_has(phone.command("rooms.read", R"({"room":"team:ops"})"), "/result"));
  std::vector<Entry> after = before;
  after[0].unread = 0, after[0].notifications = 0;
  phone.settle();
  EXPECT_EQ(phone.list(), after);
  EXPECT_TRUE(eventually([&] {
    laptop.settle();
    return laptop.list() == after;
  })) << "the laptop still shows "
      << ::testing::PrintToString(laptop.list());

  // A tag is kept and shown on the other connection too.
  ASSERT_TRUE(
      json_has(laptop.command("rooms.tag", R"({"room":"team:ops","favourite":true})"), "/result"));
  after[0].favourite = true;
  const auto both_show = [&](const std::vector<Entry>& want) { all_show({&phone, &laptop}, want); };
  both_show(after);
  // So is "marked unread".
  ASSERT_TRUE(json_has(phone.command("rooms.mark_unread", R"({"room":"team:ops"})"), "/result"));
  after[0].marked_unread = true;
  both_show(after);

  // The server API's membership changes reach the watching connections:
  // a room joined is listed with its tail, a room left is gone.
  api("publish", R"({"room":"team:qa","data":{"text":"hello qa"}})");
  api("members_add", R"({"room":"team:qa","user":"ann"})");
  api("members_remove", R"({"room":"team:dev","user":"ann"})");
  std::vector<Entry> now{{"team:qa", "team:qa", "hello qa", 1, 0, false}, after[0]};
  both_show(now);
  // A notification mode, set by a connection that does not watch (the
  // store says it is a membership): its one unread publication mentions
  // nobody, so it asks for no attention any more.
  auto tablet = connect_as(d.port, "ann");
  const auto set =
      request(*tablet, 2, R"({"id":2,"rooms.notify":{"room":"team:qa","mode":"mentions"}})");
  ASSERT_TRUE(set && json_has(*set, "/result")) << set.value_or("no reply");
  now[0].notify = "mentions", now[0].notifications = 0;
  both_show(now);
  // So can a read: the marker goes to the stream's top.
  const auto read = request(*tablet, 3, R"({"id":3,"rooms.read":{"room":"team:qa"}})");
  ASSERT_TRUE(read && json_has(*read, "/result")) << read.value_or("no reply");
  now[0].unread = 0;
  both_show(now);

  // A mention is kept (membership/mentioning_broker.hpp) and shown with
  // its publication on connections not subscribed to the room; the
  // sender's own publication is kept as their read.
  auto bob = connect_as(d.port, "bob");
  api("members_add", R"({"room":"team:ops","user":"bob"})");
  publish(*bob, 2, "team:ops", R"({"text":"@ann look"})");
  std::vector<Entry> mentioned = now;
  mentioned[1] = {"team:ops", "team:ops", "@ann look", 1, 1, true, 1, true};
  std::swap(mentioned[0], mentioned[1]);  // the most recent first
  both_show(mentioned);
  auto bob_rooms = [&] {
    return api_post(d.port, "/api/user_rooms", R"({"user":"bob"})", "k3y").body;
  };
  EXPECT_TRUE(eventually([&] {
    return json_uint(bob_rooms(), "/result/rooms/0/read/offset") == 4;
  })) << bob_rooms();

  Watcher later(d.port, "ann");
  ASSERT_TRUE(json_has(later.command("rooms.watch", "{}"), "/result"));
  later.settle();
  EXPECT_EQ(later.list(), mentioned);
}

// A membership the connection does not subscribe to moves live on its
// list (client/room_list_follows.cpp): each publication shows as it comes,
// and none reaches the client as a publication. Subscribing takes the
// room over (one delivery each, not two), unsubscribing gives it back, and
// a membership removed is no longer followed. A follow is no subscriber:
// a room of rooms.max_subscribers = 1 still takes one.
TEST(RoomList, AMembershipNotSubscribedMovesLiveWithoutItsPublications) {
  const StateDaemon s("herald-roomfollow",
                      {"--server.threads", "2", "--rooms.max_subscribers", "1"});
  const Daemon& d = *s.d;
  const auto api = [&](const std::string& method, const std::string& body) { s.api(method, body); };
  api("members_add", R"({"room":"team:ops","user":"ann"})");
  api("members_add", R"({"room":"team:dev","user":"ann"})");
  Watcher w(d.port, "ann");
  ASSERT_TRUE(json_has(w.command("rooms.watch", "{}"), "/result"));
  w.settle();
  ASSERT_EQ(w.list().size(), 2u);
  const auto subscriptions = [&] {
    return metric_value(http_get("127.0.0.1", d.port, "/metrics").body, "herald_subscriptions");
  };
  EXPECT_EQ(subscriptions(), 0);  // follows are not subscriptions

  auto bob = connect_as(d.port, "bob");
  std::uint32_t bob_id = 10;
  const auto shows = [&](const std::vector<Entry>& want) {
    return eventually([&] {
      w.settle();
      return w.list() == want;
    });
  };
  publish(*bob, ++bob_id, "team:ops", R"({"text":"one"})");
  std::vector<Entry> want{{"team:ops", "team:ops", "one", 1, 0, false},
                          {"team:dev", "team:dev", "", 0, 0, false}};
  EXPECT_TRUE(shows(want)) << ::testing::PrintToString(w.list());
  EXPECT_EQ(w.pubs_seen(), 0u);

  // Subscribed: the room's publications reach the client, once each.
  ASSERT_TRUE(json_has(w.command("subscribe", R"({"room":"team:ops"})"), "/result"));
  // A follow did not take the room's one place.
  auto carol = connect_as(d.port, "carol");
  const auto full = request(*carol, 2, R"({"id":2,"subscribe":{"room":"team:ops"}})");
  ASSERT_TRUE(full);
  EXPECT_EQ(json_uint(*full, "/error/code"), 106u) << *full;
  publish(*bob, ++bob_id, "team:ops", R"({"text":"two"})");
  w.await_pub("team:ops");
  want[0].preview = "two", want[0].unread = 2, want[0].notifications = 2;
  EXPECT_TRUE(shows(want)) << ::testing::PrintToString(w.list());
  EXPECT_EQ(w.pubs_seen(), 0u) << "a publication came twice";

  // Unsubscribed: followed again, its publications stay off the wire.
  ASSERT_TRUE(json_has(w.command("unsubscribe", R"({"room":"team:ops"})"), "/result"));
  EXPECT_TRUE(eventually([&] { return subscriptions() == 0; }));
  publish(*bob, ++bob_id, "team:ops", R"({"text":"three"})");
  want[0].preview = "three", want[0].unread = 3, want[0].notifications = 3;
  EXPECT_TRUE(shows(want)) << ::testing::PrintToString(w.list());
  EXPECT_EQ(w.pubs_seen(), 0u);

  // A membership removed is unlisted and no longer followed.
  api("members_remove", R"({"room":"team:dev","user":"ann"})");
  want.pop_back();
  EXPECT_TRUE(shows(want)) << ::testing::PrintToString(w.list());
  publish(*bob, ++bob_id, "team:dev", R"({"text":"not for ann"})");
  publish(*bob, ++bob_id, "team:ops", R"({"text":"four"})");
  want[0].preview = "four", want[0].unread = 4, want[0].notifications = 4;
  EXPECT_TRUE(shows(want)) << ::testing::PrintToString(w.list());
  EXPECT_EQ(w.pubs_seen(), 0u);
}

// Every filter and sorter of the engine over the wire (step 6 of the
// plan): a filter tree of any, all and not over the engine's conditions,
// and a list of sort keys; each re-watch is a Reset of what it selects.
TEST(RoomList, EveryFilterAndSorterOfTheEngineIsReachable) {
  const StateDaemon s("herald-roomquery", {});
  const Daemon& d = *s.d;
  const auto api = [&](const std::string& method, const std::string& body) { s.api(method, body); };
  api("members_add", R"({"room":"team:ops","user":"ann"})");
  api("members_add", R"({"room":"team:dev","user":"ann"})");
  api("members_add", R"({"room":"dm:bob","user":"ann","direct":true})");
  api("members_add", R"({"room":"team:new","user":"ann","invited":true})");
  api("publish", R"({"room":"team:ops","data":{"text":"@ann look"}})");
  api("publish", R"({"room":"team:dev","data":{"text":"build green"}})");
  Watcher w(d.port, "ann");
  const auto rooms = [&](const std::string& params) {
    EXPECT_TRUE(json_has(w.command("rooms.watch", params), "/result")) << params;
    w.settle();
    std::vector<std::string> names;
    for (const Entry& e : w.list()) names.push_back(e.room);
    return names;
  };
  using Names = std::vector<std::string>;
  // Joined groups, by name.
  EXPECT_EQ(rooms(R"({"sort":["name"],"filter":{"all":[{"non_left":true},)"
                  R"({"not":{"category":"direct"}}],"not":{"invites":true}}})"),
            (Names{"team:dev", "team:ops"}));
  EXPECT_EQ(rooms(R"({"sort":["name"],"filter":{"any":[{"category":"direct"},{"invites":true}]}})"),
            (Names{"dm:bob", "team:new"}));
  EXPECT_EQ(rooms(R"({"filter":{"mentions":true}})"), (Names{"team:ops"}));
  EXPECT_EQ(rooms(R"({"filter":{"fuzzy_name":"tmdv"}})"), (Names{"team:dev"}));
  EXPECT_EQ(rooms(R"({"filter":{"joined":true,"category":"group","unread":true}})"),
            (Names{"team:dev", "team:ops"}));  // most recent first
  EXPECT_EQ(
      rooms(R"({"sort":["local","recency","name"],"filter":{"not":{"any":[{"unread":true}]}}})"),
      (Names{"dm:bob", "team:new"}));
  // A refusal leaves the list as it was.
  EXPECT_EQ(
      json_str(w.command("rooms.watch", R"({"filter":{"any":[{"colour":1}]}})"), "/error/message")
          .value_or("")
          .rfind("rooms.watch.filter.any[0].colour: expected a condition", 0),
      0U);
  w.settle();
  EXPECT_EQ(w.list().size(), 2U);
}

// rooms.join and rooms.leave: a client manages its memberships where its
// room's namespace lets it (client_membership), and may accept an
// invitation anywhere; each change is on every connection's list.
TEST(RoomList, AClientJoinsAndLeavesWhereItsNamespaceLets) {
  const std::string conf =
      write_temp_file("client-membership.toml", "[namespaces.club]\nclient_membership = true\n");
  const StateDaemon s("herald-roomjoin", {"--config", conf});
  const Daemon& d = *s.d;
  Watcher phone(d.port, "ann");
  Watcher laptop(d.port, "ann");
  for (Watcher* w : {&phone, &laptop}) {
    ASSERT_TRUE(json_has(w->command("rooms.watch", R"({"sort":"name"})"), "/result"));
  }
  const auto both_show = [&](const std::vector<Entry>& want) { all_show({&phone, &laptop}, want); };
  ASSERT_TRUE(json_has(phone.command("rooms.join", R"({"room":"club:chess"})"), "/result"));
  std::vector<Entry> want{{"club:chess", "club:chess", "", 0, 0, false}};
  both_show(want);
  // Joining again changes nothing and is no error.
  ASSERT_TRUE(json_has(laptop.command("rooms.join", R"({"room":"club:chess"})"), "/result"));

  // Where the namespace does not let clients: refused, saying why.
  const std::string refused = phone.command("rooms.join", R"({"room":"team:ops"})");
  EXPECT_EQ(json_uint(refused, "/error/code"), 103u) << refused;
  EXPECT_THAT(json_str(refused, "/error/message").value_or(""),
              ::testing::HasSubstr("client_membership = false"));
  // An invitation may be accepted there all the same.
  s.api("members_add", R"({"room":"team:ops","user":"ann","invited":true})");
  want.push_back({"team:ops", "team:ops", "", 0, 0, false});
  want.back().membership = "invited";
  both_show(want);
  ASSERT_TRUE(json_has(laptop.command("rooms.join", R"({"room":"team:ops"})"), "/result"));
  want.back().membership = "joined";
  both_show(want);
  // Accepted, it is an ordinary membership: not the client's to leave.
  EXPECT_EQ(json_uint(phone.command("rooms.leave", R"({"room":"team:ops"})"), "/error/code"), 103u);

  ASSERT_TRUE(json_has(laptop.command("rooms.leave", R"({"room":"club:chess"})"), "/result"));
  want.erase(want.begin());
  both_show(want);
  const HttpReply kept = api_post(d.port, "/api/user_rooms", R"({"user":"ann"})", "k3y");
  EXPECT_EQ(json_size(kept.body, "/result/rooms"), 1u) << kept.body;
  EXPECT_EQ(json_str(kept.body, "/result/rooms/0/state"), "joined") << kept.body;
}

// The cost the plan pins (docs/plans/room-state.md): a publication to a
// room of M members writes nothing for them (their unread counts are
// derived from the stream), only its mentions and its sender's read
// marker: at most state.max_mentions + 1 changes, whatever M.
TEST(RoomList, APublicationWritesNothingForItsRoomsMembers) {
  const StateDaemon s("herald-roomcost", {"--state.max_mentions", "2"});
  const Daemon& d = *s.d;
  const auto api = [&](const std::string& method, const std::string& body) { s.api(method, body); };
  const int kMembers = 200;
  for (int i = 0; i < kMembers; ++i) {
    api("members_add", R"({"room":"big","user":"u)" + std::to_string(i) + R"("})");
  }
  const auto changes = [&] {
    return metric_value(http_get("127.0.0.1", d.port, "/metrics").body,
                        "herald_state_changes_total");
  };
  const double before = changes();
  EXPECT_EQ(before, kMembers);  // one per members_add, each answered once committed
  // 50 publications without a sender or a mention: nothing to keep.
  for (int i = 0; i < 50; ++i) api("publish", R"({"room":"big","data":{"text":"news"}})");
  // 20 by a member, each mentioning three members (two are kept:
  // state.max_mentions) and itself (not a mention: its read marker moves).
  auto u0 = connect_as(d.port, "u0");
  for (std::uint32_t i = 0; i < 20; ++i) {
    publish(*u0, 10 + i, "big", R"({"text":"@u1 @u2 @u3 @u0"})");
  }
  const double want = before + 20 * 3;
  EXPECT_TRUE(eventually([&] { return changes() == want; }))
      << changes() - before << " changes for 70 publications to a room of " << kMembers;
  // And none later: nothing was left queued.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(changes(), want);
  const HttpReply r = api_post(d.port, "/api/user_rooms", R"({"user":"u1"})", "k3y");
  EXPECT_EQ(json_uint(r.body, "/result/rooms/0/mentions"), 20u) << r.body;
  const HttpReply r3 = api_post(d.port, "/api/user_rooms", R"({"user":"u3"})", "k3y");
  EXPECT_EQ(json_uint(r3.body, "/result/rooms/0/mentions"), 0u) << r3.body;  // past the limit
}

}  // namespace
}  // namespace herald::test
