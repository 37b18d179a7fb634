// A question put to every other live node of the cluster, and their
// answers gathered: what Centrifugo calls a survey, and what its channels
// API rests on (each node knows only its own subscribers). The asking node
// PUBLISHes the question on the cluster's survey channel, every node
// answers on the same channel, and the asker completes when each node the
// registry lists as live (broker/node_registry.hpp) has answered, or fails
// after the timeout naming the ones that did not: an answer short of a
// node would be a silent undercount, so there is none.
//
// One channel for questions and answers: surveys are rare (an operator's
// API call), so every node reading every answer costs little, and a node
// needs no channel of its own, subscribed before it knows its id.
//
// Threading: the broker's thread, as the registry.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace herald::gateway::broker {

// Either why a survey failed, or every answer, each with the id of the
// node that gave it.
struct SurveyResult {
  std::optional<std::string> error;
  std::vector<std::pair<std::string, std::string>> answers;
};

class Survey {
 public:
  using Done = std::function<void(SurveyResult)>;
  // Sends a message on the survey channel.
  using Publish = std::function<void(std::string message)>;
  // This node's answer to `question` (any thread's work, run on this one).
  using Responder = std::function<std::string(std::string_view question)>;

  Survey(boost::asio::io_context& io, Publish publish, std::chrono::milliseconds timeout);

  void set_responder(Responder responder) { responder_ = std::move(responder); }
  // Asks `others` (live node ids, this node left out); `done` runs once,
  // at once when there is nobody to ask.
  void ask(const std::string& self, std::set<std::string> others, const std::string& question,
           Done done);
  // A message of the survey channel, as `self` reads it: a question is
  // answered, an answer to one of this node's questions recorded, anything
  // else (another node's answers, a foreign write) ignored. False for a
  // payload not in the survey format.
  bool on_message(const std::string& self, std::string_view payload);

 private:
  struct Pending {
    std::set<std::string> waiting;
    SurveyResult result;
    Done done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };
  void finish(std::uint64_t id, std::optional<std::string> error);

  boost::asio::io_context& io_;
  Publish publish_;
  std::chrono::milliseconds timeout_;
  Responder responder_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Pending> pending_;
};

}  // namespace herald::gateway::broker
