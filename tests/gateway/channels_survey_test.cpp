// Centrifugo's channels over many nodes: the survey (broker/survey.hpp)
// between Survey objects joined by an in-process channel that delivers
// every message to every node, as the Redis channel does, and the
// question and answer texts (api/channels.hpp) read back as written. The
// Redis path end to end is Cluster.ChannelsAddsEveryNodesRooms.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <memory>
#include <vector>

#include "gateway/api/channels.hpp"
#include "gateway/broker/redis_schema.hpp"
#include "gateway/broker/survey.hpp"

namespace herald::gateway {
namespace {

using broker::Survey;
using broker::SurveyResult;
using namespace std::chrono_literals;

// Nodes on one channel: a message published by any is read by all (the
// publisher too), each on a later turn, as pub/sub delivers it.
struct Bus {
  boost::asio::io_context io;
  std::vector<std::pair<std::string, std::unique_ptr<Survey>>> nodes;
  std::vector<std::string> silent;  // nodes that read nothing (stopped)
  std::size_t bad = 0;

  Survey& add(const std::string& id, std::string answer) {
    auto s = std::make_unique<Survey>(
        io,
        [this](std::string message) {
          boost::asio::post(io, [this, message = std::move(message)] {
            for (auto& [node, survey] : nodes) {
              if (std::find(silent.begin(), silent.end(), node) != silent.end()) continue;
              if (!survey->on_message(node, message)) ++bad;
            }
          });
        },
        200ms);
    s->set_responder([answer](std::string_view q) { return std::string(q) + "=" + answer; });
    nodes.emplace_back(id, std::move(s));
    return *nodes.back().second;
  }
  SurveyResult ask(Survey& from, const std::string& self, std::set<std::string> live) {
    std::optional<SurveyResult> got;
    from.ask(self, std::move(live), "q?", [&got](SurveyResult r) { got = std::move(r); });
    io.restart();
    while (!got && io.run_one() > 0) {
    }
    EXPECT_TRUE(got);
    return got.value_or(SurveyResult{"never answered", {}});
  }
};

TEST(Survey, EveryOtherLiveNodeAnswersOnce) {
  Bus bus;
  Survey& a = bus.add("a", "1");
  bus.add("b", "2");
  bus.add("c", "3");
  SurveyResult r = bus.ask(a, "a", {"a", "b", "c"});
  EXPECT_FALSE(r.error) << *r.error;
  std::sort(r.answers.begin(), r.answers.end());
  EXPECT_EQ(r.answers,
            (std::vector<std::pair<std::string, std::string>>{{"b", "q?=2"}, {"c", "q?=3"}}));
  // Alone: answered at once, nothing asked.
  r = bus.ask(a, "a", {"a"});
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(r.answers.empty());
  EXPECT_EQ(bus.bad, 0u);
}

TEST(Survey, ANodeThatDoesNotAnswerFailsTheSurveyByName) {
  Bus bus;
  Survey& a = bus.add("a", "1");
  bus.add("b", "2");
  bus.add("c", "3");
  bus.silent = {"c"};
  SurveyResult r = bus.ask(a, "a", {"a", "b", "c"});
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("from c"), std::string::npos) << *r.error;
  EXPECT_TRUE(r.answers.empty());  // no partial answer
  // A node listed but never started (not on the channel at all) too.
  bus.silent.clear();
  r = bus.ask(a, "a", {"a", "b", "ghost"});
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->find("from ghost"), std::string::npos) << *r.error;
}

TEST(Survey, ForeignAndOtherNodesMessagesAreNotAnswers) {
  Bus bus;
  Survey& a = bus.add("a", "1");
  EXPECT_FALSE(a.on_message("a", "hello"));
  EXPECT_FALSE(a.on_message("a", "a b"));
  EXPECT_FALSE(a.on_message("a", "q  1 x"));
  EXPECT_FALSE(a.on_message("a", "a a x b body"));
  // Well formed but not for a pending survey of a's: read and dropped.
  EXPECT_TRUE(a.on_message("a", broker::redis_schema::survey_answer("b", 7, "c", "x")));
  EXPECT_TRUE(a.on_message("a", broker::redis_schema::survey_answer("a", 99, "c", "x")));
}

TEST(SurveyMessages, RoundTrip) {
  namespace rs = broker::redis_schema;
  const std::string question = rs::survey_question("node-1", 42, "channels chat:*");
  auto q = rs::parse_survey_message(question);  // views into `question`
  ASSERT_TRUE(q);
  EXPECT_FALSE(q->answer);
  EXPECT_EQ(q->asker, "node-1");
  EXPECT_EQ(q->id, 42u);
  EXPECT_EQ(q->body, "channels chat:*");
  const std::string answer = rs::survey_answer("node-1", 42, "node-2", "3 a\n1 b\n");
  auto a = rs::parse_survey_message(answer);
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->answer);
  EXPECT_EQ(a->answerer, "node-2");
  EXPECT_EQ(a->body, "3 a\n1 b\n");
  // An empty answer (no room matched) is an answer.
  const std::string empty = rs::survey_answer("x", 1, "y", "");
  a = rs::parse_survey_message(empty);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->body, "");
}

TEST(ChannelsAnswer, ReadsBackWhatTheCensusHoldsAndAddsNodes) {
  client::NodeCensus census;
  for (const char* room : {"chat:1", "chat:1", "chat:2", "news", "dialog#4,5"})
    census.subscribed(room);
  const std::string answer = api::answer_survey(census, api::channels_question("chat:*"));
  api::RoomCounts rooms{{"chat:1", 4}, {"other", 1}};
  ASSERT_TRUE(api::add_answer(answer, rooms));
  EXPECT_EQ(rooms, (api::RoomCounts{{"chat:1", 6}, {"chat:2", 1}, {"other", 1}}));
  EXPECT_EQ(api::local_rooms(census, ""),
            (api::RoomCounts{{"chat:1", 2}, {"chat:2", 1}, {"news", 1}, {"dialog#4,5", 1}}));
  EXPECT_EQ(api::local_rooms(census, "dialog#?,[0-9]"), (api::RoomCounts{{"dialog#4,5", 1}}));
  EXPECT_EQ(api::answer_survey(census, "something new"), "");
  EXPECT_EQ(api::channels_result({{"a", 2}, {"b\"", 1}}),
            R"({"channels":{"a":{"num_clients":2},"b\"":{"num_clients":1}}})");
  for (const char* bad : {"x a\n", "1\n", "1 \n", "-1 a\n", "1a b\n"}) {
    api::RoomCounts into;
    EXPECT_FALSE(api::add_answer(bad, into)) << bad;
  }
}

}  // namespace
}  // namespace herald::gateway
