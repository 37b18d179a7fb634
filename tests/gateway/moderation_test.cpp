// Moderation without a network: the text a publication is searched by, the
// masking rewrite, and the Moderator's verdicts against a real MemoryStore
// (the store heraldd runs with nothing else running), including a plain
// twin: every verdict and masked text compared with the naive matcher run
// over each string (key or value) on its own; and a second plain twin: namespace
// engines built on the moderator's builder thread give what builds inline
// (the synchronous path) give.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "core/metrics/registry.hpp"
#include "gateway/moderation/moderator.hpp"
#include "gateway/moderation/text_fields.hpp"
#include "match/naive.hpp"
#include "match/store/memory_store.hpp"

namespace herald::gateway::moderation {
namespace {

using match::store::Action;
using match::store::Entry;
using match::store::MemoryStore;

TEST(TextFields, JoinsKeysAndStringValuesInDocumentOrder) {
  TextFields f;
  ASSERT_TRUE(f.collect(R"({"text":"hi","n":3,"tags":["a","b\"c"],"o":{"k":"v"}})"));
  EXPECT_EQ(f.size(), 9u);
  EXPECT_EQ(f.joined(), std::string_view("text\0hi\0n\0tags\0a\0b\"c\0o\0k\0v\0", 27));
  EXPECT_TRUE(f.within_one_value(0, 4));   // the key "text"
  EXPECT_TRUE(f.within_one_value(5, 7));   // its value "hi"
  EXPECT_FALSE(f.within_one_value(3, 6));  // "t", separator, "h"
  EXPECT_EQ(f.segment_of(4), f.size());    // a separator
  EXPECT_EQ(f.segment_of(5), 1u);
}

TEST(TextFields, MasksKeysLikeValuesEscapesIncluded) {
  TextFields f;
  // The key is "darn" spelled with an escape, and one holding a quote and
  // a control character, which must come back escaped.
  ASSERT_TRUE(f.collect(R"({"d\u0061rn":1,"x\"darn\n":{"darn":"darn"}})"));
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (std::size_t at = f.joined().find("darn"); at != std::string_view::npos;
       at = f.joined().find("darn", at + 4))
    spans.emplace_back(at, at + 4);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(f.masked_json(spans), R"({"****":1,"x\"****\n":{"****":"****"}})");
}

TEST(TextFields, KeysMaskedToTheSameTextAreBothKept) {
  // Documented in text_fields.hpp: still JSON, members kept in order.
  TextFields f;
  ASSERT_TRUE(f.collect(R"({"darn":1,"heck":2})"));
  EXPECT_EQ(f.masked_json({{0, 4}, {5, 9}}), R"({"****":1,"****":2})");
  simdjson::dom::parser p;
  simdjson::dom::object o;
  ASSERT_EQ(p.parse(std::string(R"({"****":1,"****":2})")).get(o), simdjson::SUCCESS);
  EXPECT_EQ(o.size(), 2u);
}

TEST(TextFields, MaskRewritesOnlyTheSpansAndKeepsTheRest) {
  TextFields f;
  ASSERT_TRUE(f.collect(R"({"text":"you darn fool","n":-1.5e3,"x":[true,null,"darn\n"]})"));
  // "darn" in the value of "text" and in the array.
  std::size_t second = f.joined().find("darn", f.joined().find("darn") + 4);
  std::size_t first = f.joined().find("darn");
  std::string out = f.masked_json({{first, first + 4}, {second, second + 4}});
  EXPECT_EQ(out, R"({"text":"you **** fool","n":-1500.0,"x":[true,null,"****\n"]})");
}

TEST(TextFields, MasksOneStarPerCodePoint) {
  TextFields f;
  ASSERT_TRUE(f.collect(R"("바보야 안녕")"));            // a bare string is data too
  EXPECT_EQ(f.masked_json({{0, 6}}), R"("**야 안녕")");  // 바보: two code points, 6 bytes
}

TEST(TextFields, RejectsWhatIsNotJson) {
  TextFields f;
  auto refused = f.collect("{");
  ASSERT_FALSE(refused);
  EXPECT_FALSE(refused.error().empty());
}

// Moderates `req`, preparing the engine first when it must wait (as
// ModeratingBroker does, without its queue): the verdict.
std::optional<Verdict> moderate_now(Moderator& m, Policy& p, protocol::PublishRequest& req) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    Pending pending{};
    if (auto v = m.moderate(p, req, pending)) return v;
    std::promise<std::string> ready;
    m.prepare(p, [&](std::string error) { ready.set_value(std::move(error)); });
    const std::string error = ready.get_future().get();
    EXPECT_EQ(error, "");
    if (!error.empty()) return std::nullopt;
  }
  ADD_FAILURE() << "the engine never became ready";
  return std::nullopt;
}

struct Fixture : ::testing::Test {
  MemoryStore store;
  metrics::Registry registry;
  Options options;

  void add(const std::string& dict, std::vector<Entry> entries) {
    bool done = false;
    store.add_many(dict, std::move(entries), [&](match::store::WriteResult r) {
      EXPECT_TRUE(r.ok()) << r.error;
      done = true;
    });
    ASSERT_TRUE(done);  // the memory store answers inline
  }
  double metric(const std::string& name) {
    std::string text = registry.render();
    auto p = text.find("\n" + name + " ");
    return p == std::string::npos ? -1 : std::stod(text.substr(p + name.size() + 2));
  }
  // Moderates `data` in `room`: the verdict, with the data as published.
  Verdict run(Moderator& m, const std::string& room, std::string& data,
              std::string* meta = nullptr) {
    Policy* p = m.policy_of(room);
    EXPECT_NE(p, nullptr);
    protocol::PublishRequest req{room, data, ""};
    auto v = moderate_now(m, *p, req);
    EXPECT_TRUE(v.has_value());
    data = req.data_json;
    if (meta) *meta = req.moderation_json;
    return v.value_or(Verdict{});
  }
};

TEST_F(Fixture, RejectMaskAndFlag) {
  add("chat", {{"scam", Action::reject, "fraud"},
               {"darn", Action::mask, "mild"},
               {"buy now", Action::flag, "spam"}});
  options.rooms.moderation.dictionaries = "chat";
  Moderator m(store, options, registry);

  std::string data = R"({"text":"a Darn fine day"})";
  std::string meta;
  Verdict v = run(m, "lobby", data, &meta);
  EXPECT_EQ(v.kind, Verdict::Kind::pass);
  EXPECT_EQ(data, R"({"text":"a **** fine day"})");  // case folded by default
  EXPECT_EQ(meta, R"({"masked":1,"flagged":0,"categories":["mild"]})");

  data = R"({"text":"BUY NOW!"})";
  v = run(m, "lobby", data, &meta);
  EXPECT_EQ(v.kind, Verdict::Kind::pass);
  EXPECT_EQ(data, R"({"text":"BUY NOW!"})");
  EXPECT_EQ(meta, R"({"masked":0,"flagged":1,"categories":["spam"]})");

  data = R"({"text":"a darn scam"})";
  v = run(m, "lobby", data);
  EXPECT_EQ(v.kind, Verdict::Kind::reject);
  EXPECT_NE(v.message.find("category 'fraud'"), std::string::npos) << v.message;

  data = R"({"text":"nothing here"})";
  v = run(m, "lobby", data, &meta);
  EXPECT_EQ(v.kind, Verdict::Kind::pass);
  EXPECT_EQ(meta, "");
  EXPECT_EQ(metric("herald_moderation_searches_total"), 4);
  EXPECT_EQ(metric("herald_moderation_rejected_total"), 1);
  EXPECT_EQ(metric("herald_moderation_masked_total"), 1);
  EXPECT_EQ(metric("herald_moderation_flagged_total"), 1);
  EXPECT_EQ(metric("herald_moderation_builds_total"), 0);  // one dictionary: the store's engine
}

// The finding: {"<banned word>":1} used to pass. A key is text like a
// value: masked, rejected or flagged by the same keywords.
TEST_F(Fixture, ObjectKeysAreModeratedLikeValues) {
  add("chat", {{"scam", Action::reject, "fraud"}, {"darn", Action::mask, "mild"}});
  options.rooms.moderation.dictionaries = "chat";
  Moderator m(store, options, registry);
  std::string data = R"({"DARN":1,"nested":[{"you darn":"ok"}]})";
  std::string meta;
  EXPECT_EQ(run(m, "chat:lobby", data, &meta).kind, Verdict::Kind::pass);
  EXPECT_EQ(data, R"({"****":1,"nested":[{"you ****":"ok"}]})");
  EXPECT_EQ(meta, R"({"masked":2,"flagged":0,"categories":["mild"]})");
  data = R"({"a":{"scam":true}})";
  EXPECT_EQ(run(m, "chat:lobby", data).kind, Verdict::Kind::reject);
  // A match across a key and its value joins two strings: not a match.
  data = R"({"da":"rn"})";
  EXPECT_EQ(run(m, "chat:lobby", data).kind, Verdict::Kind::pass);
  EXPECT_EQ(data, R"({"da":"rn"})");
}

TEST_F(Fixture, NamespacesAreModeratedByTheirOwnSettings) {
  add("chat", {{"ass", Action::mask}});
  options.namespaces["plain"] = options.rooms;  // no moderation
  RoomOptions strict = options.rooms;
  strict.moderation = {"chat", true, true};  // case-sensitive, whole words
  options.namespaces["strict"] = strict;
  RoomOptions loose = options.rooms;
  loose.moderation = {"chat", false, false};
  options.namespaces["loose"] = loose;
  Moderator m(store, options, registry);
  EXPECT_EQ(m.policy_of("plain:x"), nullptr);
  EXPECT_EQ(m.policy_of("lobby"), nullptr);

  std::string data = R"("class ass ASS")";
  run(m, "strict:x", data);
  EXPECT_EQ(data, R"("class *** ASS")");
  data = R"("class ass ASS")";
  run(m, "loose:x", data);
  EXPECT_EQ(data, R"("cl*** *** ***")");
  EXPECT_EQ(metric("herald_moderation_builds_total"), 1);  // strict's own engine
}

TEST_F(Fixture, SeveralDictionariesAndTheStrictestActionWins) {
  add("a", {{"spam", Action::flag}, {"heck", Action::mask}});
  add("b", {{"spam", Action::reject}});
  options.rooms.moderation.dictionaries = "a, b";
  Moderator m(store, options, registry);
  std::string data = R"("heck")";
  EXPECT_EQ(run(m, "r", data).kind, Verdict::Kind::pass);
  EXPECT_EQ(data, R"("****")");
  data = R"("spam")";
  EXPECT_EQ(run(m, "r", data).kind, Verdict::Kind::reject);
}

TEST_F(Fixture, AnEditTakesEffectOnTheNextPublication) {
  add("chat", {{"first", Action::mask}});
  add("more", {{"other", Action::mask}});
  options.rooms.moderation.dictionaries = "chat";
  RoomOptions both = options.rooms;
  both.moderation.dictionaries = "chat,more";
  options.namespaces["both"] = both;
  Moderator m(store, options, registry);
  for (std::string room : {"lobby", "both:x"}) {
    std::string data = R"("first second")";
    run(m, room, data);
    EXPECT_EQ(data, R"("***** second")") << room;
  }
  add("chat", {{"second", Action::mask}});
  for (std::string room : {"lobby", "both:x"}) {
    std::string data = R"("first second")";
    run(m, room, data);
    EXPECT_EQ(data, R"("***** ******")") << room;
  }
  bool removed = false;
  store.remove("chat", "first", [&](match::store::WriteResult r) { removed = r.ok(); });
  ASSERT_TRUE(removed);
  std::string data = R"("first second")";
  run(m, "both:x", data);
  EXPECT_EQ(data, R"("first ******")");
  EXPECT_EQ(metric("herald_moderation_builds_total"), 3);  // one per change seen, not per search
}

TEST_F(Fixture, AMatchAcrossTwoValuesIsNotAMatch) {
  add("chat", {{std::string("ab\0cd", 5), Action::reject}, {"x", Action::mask}});
  options.rooms.moderation.dictionaries = "chat";
  Moderator m(store, options, registry);
  std::string data = R"(["ab","cd","x"])";
  EXPECT_EQ(run(m, "r", data).kind, Verdict::Kind::pass);
  EXPECT_EQ(data, R"(["ab","cd","*"])");
}

TEST_F(Fixture, AnUnloadedDictionaryIsLoadedNotSkipped) {
  options.rooms.moderation.dictionaries = "later";
  Moderator m(store, options, registry);  // loads "later" (empty) at start
  Policy* p = m.policy_of("r");
  protocol::PublishRequest req{"r", R"("hi")", ""};
  Pending pending{};
  EXPECT_TRUE(m.moderate(*p, req, pending).has_value());
}

// A namespace with an engine of its own does not search with a stale one:
// after an edit, moderate() says the publication waits for a build, and
// prepare() builds on the moderator's thread, not the caller's.
TEST_F(Fixture, AStaleEngineWaitsForABuildOnAnotherThread) {
  add("a", {{"first", Action::mask}});
  add("b", {{"other", Action::mask}});
  options.rooms.moderation.dictionaries = "a,b";
  std::vector<std::thread::id> build_threads;
  std::mutex mutex;
  std::vector<std::thread> threads;
  // A runner that runs each build on a thread of its own and notes where.
  BuildRunner runner = [&](std::function<void()> build) {
    std::lock_guard lock(mutex);
    threads.emplace_back([&, build = std::move(build)] {
      {
        std::lock_guard l(mutex);
        build_threads.push_back(std::this_thread::get_id());
      }
      build();
    });
  };
  Moderator m(store, options, registry, runner);
  Policy* p = m.policy_of("r");
  protocol::PublishRequest req{"r", R"("first other second")", ""};
  Pending pending{};
  EXPECT_FALSE(m.moderate(*p, req, pending).has_value());  // never built yet
  EXPECT_EQ(pending, Pending::build);
  ASSERT_TRUE(moderate_now(m, *p, req));
  EXPECT_EQ(req.data_json, R"("***** ***** second")");
  add("a", {{"second", Action::mask}});
  req = {"r", R"("first other second")", ""};
  EXPECT_FALSE(m.moderate(*p, req, pending).has_value());  // the edit is seen, not skipped
  EXPECT_EQ(pending, Pending::build);
  ASSERT_TRUE(moderate_now(m, *p, req));
  EXPECT_EQ(req.data_json, R"("***** ***** ******")");
  for (auto& t : threads) t.join();
  ASSERT_EQ(build_threads.size(), 2u);
  for (auto id : build_threads) EXPECT_NE(id, std::this_thread::get_id());
  EXPECT_EQ(metric("herald_moderation_builds_total"), 2);
}

// The plain twin of the off-shard build: the same edits and publications
// through a moderator whose builds run inline (the synchronous path) and
// one whose builds run on its own builder thread (heraldd's) give the same
// verdicts, masked data and moderation objects, under every option.
TEST(ModerationBuilds, BackgroundBuildsAgreeWithInlineBuilds) {
  std::mt19937 rng(11);
  const std::vector<std::string> alphabet = {"a", "b", "A", " ", "é", "가"};
  auto word = [&](std::size_t len) {
    std::string s;
    for (std::size_t i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  const std::vector<Action> actions = {Action::reject, Action::mask, Action::flag};
  for (int round = 0; round < 8; ++round) {
    MemoryStore store;
    metrics::Registry r1, r2;
    Options o;
    o.rooms.moderation = {"d1,d2,d3", round % 2 == 1, round % 4 >= 2};
    Moderator plain(store, o, r1, inline_builds());
    Moderator background(store, o, r2);
    Policy* p1 = plain.policy_of("r");
    Policy* p2 = background.policy_of("r");
    ASSERT_TRUE(p1 && p2);
    for (int step = 0; step < 30; ++step) {
      if (rng() % 2 == 0) {  // an edit of one dictionary
        const std::string dict = "d" + std::to_string(1 + rng() % 3);
        std::string k = word(1 + rng() % 3);
        if (k.find_first_not_of(' ') == std::string::npos) k = "ab";
        bool ok = false;
        if (rng() % 4 == 0) {
          store.remove(dict, k, [&](match::store::WriteResult w) { ok = w.ok(); });
        } else {
          store.add(dict, {k, actions[rng() % 3], "c" + std::to_string(rng() % 2)},
                    [&](match::store::WriteResult w) { ok = w.ok(); });
        }
        ASSERT_TRUE(ok);
      }
      const std::string data = "[\"" + word(rng() % 10) + "\",\"" + word(rng() % 10) + "\"]";
      protocol::PublishRequest a{"r", data, ""}, b{"r", data, ""};
      auto va = moderate_now(plain, *p1, a);
      auto vb = moderate_now(background, *p2, b);
      ASSERT_TRUE(va && vb);
      EXPECT_EQ(va->kind, vb->kind) << data;
      EXPECT_EQ(va->message, vb->message) << data;
      EXPECT_EQ(a.data_json, b.data_json);
      EXPECT_EQ(a.moderation_json, b.moderation_json);
    }
  }
}

TEST(ModerationSettings, ABadDictionaryListNamesTheSetting) {
  MemoryStore store;
  metrics::Registry registry;
  Options options;
  options.rooms.moderation.dictionaries = "ok, not{ok}";
  try {
    Moderator m(store, options, registry);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rooms.moderation: 'not{ok}'"), std::string::npos)
        << e.what();
  }
  auto names = parse_dictionary_list(" a ,b,, a ");
  ASSERT_TRUE(names) << names.error();
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
}

// The plain twin: the naive matcher over each value on its own, leftmost-
// longest with the same folding and word rule, gives the same masked text
// and verdicts as one search over the joined values, on random texts.
TEST_F(Fixture, AgreesWithTheNaiveMatcherPerValue) {
  std::mt19937 rng(7);
  const std::vector<std::string> alphabet = {"a", "b", "A", " ", "é", "É", "가", "-"};
  auto word = [&](std::size_t len) {
    std::string s;
    for (std::size_t i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 40; ++round) {
    bool case_sensitive = round % 2 == 1;
    bool whole_word = round % 4 >= 2;
    MemoryStore s;
    metrics::Registry r;
    std::vector<Entry> entries;
    std::vector<std::string> keywords;
    for (int i = 0; i < 6; ++i) {
      std::string k = word(1 + rng() % 3);
      if (k.find_first_not_of(' ') == std::string::npos) continue;
      if (std::find(keywords.begin(), keywords.end(), k) != keywords.end()) continue;
      keywords.push_back(k);
      entries.emplace_back(k, Action::mask);
    }
    bool ok = false;
    s.add_many("d", entries, [&](match::store::WriteResult w) { ok = w.ok(); });
    ASSERT_TRUE(ok);
    Options o;
    o.rooms.moderation = {"d", case_sensitive, whole_word};
    Moderator m(s, o, r);
    Policy* p = m.policy_of("r");
    ASSERT_NE(p, nullptr);

    // The naive matcher, built the way Compiled sorts its entries.
    std::vector<std::string> sorted = keywords;
    std::sort(sorted.begin(), sorted.end());
    match::NaiveMatcher naive(sorted, p->match_options());
    for (int t = 0; t < 20; ++t) {
      std::vector<std::string> values = {word(rng() % 12), word(rng() % 12)};
      std::string expected = "[";
      for (std::size_t i = 0; i < values.size(); ++i) {
        std::string v = values[i];
        auto matches = naive.find(v);
        std::string out;
        std::size_t pos = 0;
        for (const auto& mt : matches) {
          out.append(v, pos, mt.start - pos);
          for (std::size_t k = mt.start; k < mt.end; ++k)
            if ((static_cast<unsigned char>(v[k]) & 0xC0) != 0x80) out += '*';
          pos = mt.end;
        }
        out.append(v, pos);
        expected += (i ? ",\"" : "\"") + out + "\"";
      }
      expected += "]";
      protocol::PublishRequest req{"r", "[\"" + values[0] + "\",\"" + values[1] + "\"]", ""};
      auto v = moderate_now(m, *p, req);
      ASSERT_TRUE(v);
      EXPECT_EQ(req.data_json, expected)
          << "case_sensitive=" << case_sensitive << " whole_word=" << whole_word;
    }
  }
}

}  // namespace
}  // namespace herald::gateway::moderation
