// Moderation of publications, configured per namespace (rooms.moderation,
// [namespaces.NAME] moderation): the namespace's keyword dictionaries are
// searched once per publication, before the broker encodes it once for
// every recipient. Each keyword carries its action:
//   reject  the publisher gets error 113 and nothing is published;
//   mask    each matched code point becomes '*' in the published data;
//   flag    published as is, with a "moderation" object, and counted.
// A publication that matched mask or flag keywords carries
//   "moderation":{"masked":M,"flagged":F,"categories":[...]}.
//
// Engines. The dictionaries live in the keyword store (match/store), which
// keeps one compiled engine per dictionary, rebuilt off the serving threads
// whenever a write through any node's API changes it. A namespace with one
// dictionary and the store's own options (case folding, any position)
// searches that engine as it is. Otherwise (several dictionaries, or
// case-sensitive or whole-word matching) the namespace has an engine of its
// own built from the entries of its dictionaries' engines: each publication
// compares the store's current engines with the ones it was built from
// (a pointer each), and the first publication that sees a change rebuilds it
// on its shard, once (the other shards wait for that build, then use it).
// So an edit takes effect on the next publication either way.
//
// Invariant: a moderated namespace never publishes unmoderated text. While a
// dictionary has never been loaded in this process (Redis down since start),
// publications wait for its load; if the load fails they are refused with
// error 108, never let through.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/registry.hpp"
#include "gateway/broker/broker.hpp"
#include "gateway/options.hpp"
#include "match/store/store.hpp"

namespace herald::gateway::moderation {

// The keyword dictionaries a namespace is moderated with, and how.
class Policy {
 public:
  Policy(std::vector<std::string> dictionaries, const ModerationOptions& options);
  [[nodiscard]] const std::vector<std::string>& dictionaries() const { return dictionaries_; }
  [[nodiscard]] const match::Options& match_options() const { return match_options_; }
  // One dictionary searched with the store's own engine (no engine of its own).
  [[nodiscard]] bool direct() const { return direct_; }

 private:
  friend class Moderator;
  struct Engine {
    std::vector<std::shared_ptr<const match::store::Compiled>> sources;  // one per dictionary
    std::shared_ptr<const match::store::Compiled> compiled;              // sources[0] when direct
  };
  std::vector<std::string> dictionaries_;
  match::Options match_options_;
  bool direct_;
  std::mutex build_mutex_;  // one build at a time; never held by a search
  match::store::PtrCell<const Engine> engine_;
};

// What moderation decided for one publication.
struct Verdict {
  enum class Kind : std::uint8_t { pass, reject, unavailable };
  Kind kind = Kind::pass;
  std::string message;  // reject, unavailable: said to the publisher
  std::size_t masked = 0;
  std::size_t flagged = 0;
};

// Splits "a, b,c" into names; nullopt and `error` if a name is not a valid
// dictionary name.
[[nodiscard]] std::optional<std::vector<std::string>> parse_dictionary_list(std::string_view list,
                                                                            std::string& error);

class Moderator {
 public:
  // Throws std::runtime_error naming the setting when a dictionary list is
  // not valid. Starts loading every configured dictionary.
  Moderator(match::store::Store& store, const Options& options, metrics::Registry& registry);

  // The policy of `room`, or nullptr when its namespace is not moderated.
  [[nodiscard]] Policy* policy_of(std::string_view room) const;

  // Moderates `req` in place (data masked, moderation_json set). nullopt when
  // a dictionary of the policy is not loaded in this process yet: load() it,
  // then call again. Any thread; no I/O.
  [[nodiscard]] std::optional<Verdict> moderate(Policy& policy, PublishRequest& req);
  // Loads the policy's dictionaries that are not loaded; `done` gets an
  // error, or "" once all are. It may run inline or on the store's thread.
  void load(Policy& policy, std::function<void(std::string error)> done);

 private:
  // The policy's engine for the store's current dictionary engines; nullptr
  // when one is missing (`missing` names it) or a build failed (`error`).
  std::shared_ptr<const Policy::Engine> current_engine(Policy& policy, std::string& missing,
                                                       std::string& error);

  match::store::Store& store_;
  std::map<const RoomOptions*, std::unique_ptr<Policy>> policies_;
  metrics::Counter* searches_;
  metrics::Counter* rejected_;
  metrics::Counter* masked_;
  metrics::Counter* flagged_;
  metrics::Counter* unavailable_;
  metrics::Counter* builds_;
  metrics::Counter* build_failures_;
  const Options& options_;
};

}  // namespace herald::gateway::moderation
