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
// (a pointer each). When one changed, moderate() does not search: it says
// the publication must wait (Pending::build), and prepare() builds the new
// engine on the moderator's builder thread, never on a shard, so a large
// dictionary stalls no connection. The publications that wait are queued by
// ModeratingBroker (moderating_broker.hpp), in order, and moderated when
// the build is done.
//
// Invariant: a dictionary edit moderates the next publication. The store
// swaps in the dictionary's engine before it answers the edit, so a
// publication that arrives after the answer sees the change and waits for
// the namespace's engine built from it; it is never searched with an older
// one.
//
// Invariant: a moderated namespace never publishes unmoderated text. While a
// dictionary has never been loaded in this process (Redis down since start),
// publications wait for its load; if the load fails they are refused with
// error 114, never let through. A build that fails keeps the last good
// engine for the dictionaries it was asked for (no build loop); with no good
// engine, publications are refused with 114.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/metrics/registry.hpp"
#include "core/result.hpp"
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
    // sources[0] when direct; after a failed build, the last good engine
    // (nullptr if none) and `error` saying why.
    std::shared_ptr<const match::store::Compiled> compiled;
    std::string error;
  };
  std::vector<std::string> dictionaries_;
  match::Options match_options_;
  bool direct_;
  // The build of this namespace's engine: at most one at a time; whoever
  // asks while one runs is answered when it ends. Never held by a search.
  std::mutex build_mutex_;
  bool building_ = false;
  std::vector<std::function<void(std::string)>> build_waiters_;
  match::store::PtrCell<const Engine> engine_;
};

// What a publication waits for before moderate() can decide.
enum class Pending : std::uint8_t {
  load,   // a dictionary not loaded in this process yet
  build,  // the namespace's own engine, for dictionaries that changed
};

// Runs one build of a namespace's engine: on another thread (heraldd: the
// moderator's builder), or inline on the calling thread (the plain twin the
// tests compare with, which is how every build ran before).
using BuildRunner = std::function<void(std::function<void()> build)>;
[[nodiscard]] BuildRunner inline_builds();

// What moderation decided for one publication.
struct Verdict {
  enum class Kind : std::uint8_t { pass, reject, unavailable };
  Kind kind = Kind::pass;
  std::string message;  // reject, unavailable: said to the publisher
  std::size_t masked = 0;
  std::size_t flagged = 0;
};

// Splits "a, b,c" into names; refused, naming it, if a name is not a valid
// dictionary name.
[[nodiscard]] herald::Result<std::vector<std::string>, std::string> parse_dictionary_list(
    std::string_view list);

class Moderator {
 public:
  // Throws std::runtime_error naming the setting when a dictionary list is
  // not valid. Starts loading every configured dictionary. Builds run on
  // `builds`, or, when it is empty, on a builder thread of the moderator's
  // own (started only if a namespace needs an engine of its own).
  Moderator(match::store::Store& store, const Options& options, metrics::Registry& registry,
            BuildRunner builds = {});
  // Waits for a build in flight on the moderator's own thread.
  ~Moderator();
  Moderator(const Moderator&) = delete;
  Moderator& operator=(const Moderator&) = delete;

  // The policy of `room`, or nullptr when its namespace is not moderated.
  [[nodiscard]] Policy* policy_of(std::string_view room) const;

  // Moderates `req` in place (data masked, moderation_json set). nullopt when
  // the publication must wait (`pending` says for what): prepare(), then
  // call again. Any thread; no I/O, no build, no wait.
  [[nodiscard]] std::optional<Verdict> moderate(Policy& policy, protocol::PublishRequest& req,
                                                Pending& pending);
  // Loads the policy's dictionaries that are not loaded, then builds its
  // engine if it is not the one for the store's current dictionaries;
  // `done` gets an error (a load failed), or "". It runs inline, on the
  // store's thread or on the builder's; it must not block.
  void prepare(Policy& policy, std::function<void(std::string error)> done);

 private:
  // Why a publication has no engine to search with: it must wait (for a
  // load or a build), or the build for these dictionaries failed and there
  // is no good engine to keep (why, in words).
  using NoEngine = std::variant<Pending, std::string>;
  // The policy's engine for the store's current dictionary engines.
  herald::Result<std::shared_ptr<const Policy::Engine>, NoEngine> current_engine(Policy& policy);
  // Loads the policy's dictionaries that are not loaded; `done` gets an
  // error, or "" once all are.
  void load(Policy& policy, std::function<void(std::string error)> done);
  // Queues `done` behind the build in flight, or starts one on builds_.
  void build(Policy& policy, std::function<void(std::string error)> done);
  // One build for the store's engines as they are now; then answers every
  // waiter. Runs on builds_.
  void build_now(Policy& policy);

  match::store::Store& store_;
  std::map<const RoomOptions*, std::unique_ptr<Policy>> policies_;
  metrics::Counter* searches_;
  metrics::Counter* rejected_;
  metrics::Counter* masked_;
  metrics::Counter* flagged_;
  metrics::Counter* unavailable_;
  metrics::Counter* builds_total_;
  metrics::Counter* build_failures_;
  const Options& options_;
  std::unique_ptr<boost::asio::thread_pool> builder_;  // when no BuildRunner was given
  BuildRunner builds_;
};

}  // namespace herald::gateway::moderation
