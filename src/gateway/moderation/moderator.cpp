#include "gateway/moderation/moderator.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "core/config/values.hpp"
#include "core/json.hpp"
#include "core/log.hpp"
#include "gateway/moderation/text_fields.hpp"

namespace herald::gateway::moderation {
namespace store = match::store;

herald::Result<std::vector<std::string>, std::string> parse_dictionary_list(std::string_view list) {
  std::vector<std::string> names;
  for (std::string_view name : config::split_list(list)) {
    if (auto e = store::dictionary_name_error(name)) return "'" + std::string(name) + "': " + *e;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  }
  return names;
}

BuildRunner inline_builds() {
  return [](const std::function<void()>& build) { build(); };
}

Policy::Policy(std::vector<std::string> dictionaries, const ModerationOptions& options)
    : dictionaries_(std::move(dictionaries)) {
  match_options_ = store::search_options();
  if (options.case_sensitive) match_options_.fold = match::CaseFold::None;
  match_options_.whole_word = options.whole_word;
  const match::Options standard = store::search_options();
  direct_ = dictionaries_.size() == 1 && match_options_.fold == standard.fold &&
            match_options_.whole_word == standard.whole_word;
}

Moderator::Moderator(store::Store& store, const Options& options, metrics::Registry& registry,
                     BuildRunner builds)
    : store_(store), options_(options), builds_(std::move(builds)) {
  auto add = [&](const std::string& setting, const RoomOptions& room) {
    auto names = parse_dictionary_list(room.moderation.dictionaries);
    if (!names) throw std::runtime_error(setting + ": " + names.error());
    if (names->empty()) return;
    policies_.emplace(&room, std::make_unique<Policy>(std::move(*names), room.moderation));
  };
  add("rooms.moderation", options.rooms);
  for (const auto& [name, room] : options.namespaces)
    add("namespaces." + name + ".moderation", room);

  auto counter = [&](const char* name, const char* help) { return &registry.counter(name, help); };
  searches_ = counter("herald_moderation_searches_total",
                      "Publications searched by moderation (one search each)");
  rejected_ = counter("herald_moderation_rejected_total",
                      "Publications refused because they held a reject keyword");
  masked_ =
      counter("herald_moderation_masked_total", "Publications published with mask keywords masked");
  flagged_ = counter("herald_moderation_flagged_total",
                     "Publications published with a flag keyword (and a moderation object)");
  unavailable_ = counter("herald_moderation_unavailable_total",
                         "Publications refused because a dictionary could not be loaded");
  builds_total_ = counter("herald_moderation_builds_total",
                          "Engines built for namespaces with several dictionaries or own options");
  build_failures_ = counter("herald_moderation_build_failures_total",
                            "Namespace engine builds that failed (the last good one is kept)");

  const bool own_engines = std::any_of(policies_.begin(), policies_.end(),
                                       [](const auto& p) { return !p.second->direct(); });
  if (!builds_ && own_engines) {
    // One thread: builds of different namespaces queue, which bounds the
    // memory two large builds would take at once.
    builder_ = std::make_unique<boost::asio::thread_pool>(1);
    builds_ = [pool = builder_.get()](std::function<void()> build) {
      boost::asio::post(*pool, std::move(build));
    };
  }

  for (auto& [room, policy] : policies_) {
    for (const std::string& dict : policy->dictionaries()) {
      store_.load(dict, [dict](store::EngineResult r) {
        if (!r.ok())
          log::warn("moderation dictionary not loaded yet",
                    {{"dictionary", dict}, {"error", r.error}});
      });
    }
  }
}

Policy* Moderator::policy_of(std::string_view room) const {
  if (policies_.empty()) return nullptr;
  auto it = policies_.find(&options_.room_options(room));
  return it == policies_.end() ? nullptr : it->second.get();
}

Moderator::~Moderator() {
  // A build in flight finishes and answers its waiters; their answers are
  // posts to shards, which run or are dropped with the shards.
  if (builder_) builder_->join();
}

herald::Result<std::shared_ptr<const Policy::Engine>, Moderator::NoEngine>
Moderator::current_engine(Policy& policy) {
  const auto& dicts = policy.dictionaries();
  std::shared_ptr<const Policy::Engine> engine = policy.engine_.load();
  // The usual case: the store's engines are the ones this one was built from.
  thread_local std::vector<std::shared_ptr<const store::Compiled>> sources;
  sources.clear();
  bool fresh = engine != nullptr;
  for (std::size_t i = 0; i < dicts.size(); ++i) {
    sources.push_back(store_.warm(dicts[i]));
    if (!sources.back()) {
      sources.clear();
      return NoEngine{Pending::load};
    }
    if (fresh && sources.back() != engine->sources[i]) fresh = false;
  }
  if (!fresh && policy.direct()) {
    // No build: the store's engine is the namespace's.
    engine = std::make_shared<const Policy::Engine>(Policy::Engine{sources, sources[0], {}});
    policy.engine_.store(engine);
    fresh = true;
  }
  sources.clear();
  if (!fresh) return NoEngine{Pending::build};
  if (!engine->compiled) return NoEngine{engine->error};
  return engine;
}

void Moderator::build(Policy& policy, std::function<void(std::string error)> done) {
  {
    std::lock_guard lock(policy.build_mutex_);
    policy.build_waiters_.push_back(std::move(done));
    if (policy.building_) return;  // answered when the build in flight ends
    policy.building_ = true;
  }
  builds_([this, &policy] { build_now(policy); });
}

void Moderator::build_now(Policy& policy) {
  const auto& dicts = policy.dictionaries();
  std::vector<std::shared_ptr<const store::Compiled>> sources;
  std::string error;
  for (const std::string& d : dicts) {
    sources.push_back(store_.warm(d));
    // A loaded dictionary never leaves the store; say so if one did.
    if (!sources.back()) error = "dictionary '" + d + "' is not loaded";
  }
  std::shared_ptr<const Policy::Engine> last = policy.engine_.load();
  if (error.empty() && !(last && last->sources == sources)) {
    std::vector<store::Entry> entries;
    std::uint64_t version = 0;
    for (const auto& s : sources) {
      entries.insert(entries.end(), s->entries().begin(), s->entries().end());
      version += s->version();
    }
    // One keyword in two dictionaries: the stricter entry sorts first and is
    // the one Compiled::build keeps.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const store::Entry& a, const store::Entry& b) {
                       return a.keyword != b.keyword ? a.keyword < b.keyword
                                                     : store::stricter(a.action, b.action);
                     });
    builds_total_->inc();
    auto compiled = store::Compiled::build(version, std::move(entries), policy.match_options());
    if (compiled) {
      policy.engine_.store(std::make_shared<const Policy::Engine>(
          Policy::Engine{sources, std::move(compiled).value(), {}}));
    } else {
      const std::string& build_error = compiled.error();
      build_failures_->inc();
      log::error("moderation engine not built; the last good one stays",
                 {{"dictionaries", dicts.size()}, {"error", build_error}});
      // These sources are answered by the last good engine until one of the
      // dictionaries changes again: one failed build per change, not one
      // per publication.
      policy.engine_.store(std::make_shared<const Policy::Engine>(
          Policy::Engine{sources, last ? last->compiled : nullptr, build_error}));
    }
  }
  std::vector<std::function<void(std::string)>> waiters;
  {
    std::lock_guard lock(policy.build_mutex_);
    waiters.swap(policy.build_waiters_);
    policy.building_ = false;
  }
  // A waiter that came after the sources were read re-checks them when it
  // moderates, and asks again if they changed.
  for (auto& w : waiters) w(error);
}

void Moderator::prepare(Policy& policy, std::function<void(std::string error)> done) {
  load(policy, [this, &policy, done = std::move(done)](std::string error) mutable {
    if (!error.empty() || policy.direct()) return done(std::move(error));
    build(policy, std::move(done));
  });
}

std::optional<Verdict> Moderator::moderate(Policy& policy, protocol::PublishRequest& req,
                                           Pending& pending) {
  auto current = current_engine(policy);
  if (!current) {
    if (const Pending* wait = std::get_if<Pending>(&current.error())) {
      pending = *wait;
      return std::nullopt;
    }
    unavailable_->inc();
    return Verdict{Verdict::Kind::unavailable, "moderation is unavailable for '" + req.room +
                                                   "': " + std::get<std::string>(current.error())};
  }
  const std::shared_ptr<const Policy::Engine>& engine = *current;

  thread_local TextFields fields;
  thread_local std::vector<store::Hit> hits;
  if (auto parsed = fields.collect(req.data_json); !parsed) {
    return Verdict{Verdict::Kind::reject, "publish.data: not JSON: " + parsed.error()};
  }
  searches_->inc();
  engine->compiled->find(fields.joined(), hits);

  Verdict v;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::vector<std::string_view> categories;
  for (const store::Hit& h : hits) {
    if (!fields.within_one_value(h.start, h.end)) continue;  // across two values
    if (h.action == store::Action::reject) {
      rejected_->inc();
      std::string why = "publish.data holds a keyword moderation rejects";
      if (!h.category.empty()) why += " (category '" + std::string(h.category) + "')";
      return Verdict{Verdict::Kind::reject, why + "; nothing was published"};
    }
    if (h.action == store::Action::mask) {
      spans.emplace_back(h.start, h.end);
      ++v.masked;
    } else {
      ++v.flagged;
    }
    if (!h.category.empty() &&
        std::find(categories.begin(), categories.end(), h.category) == categories.end())
      categories.push_back(h.category);
  }
  if (v.masked == 0 && v.flagged == 0) return v;

  if (v.masked > 0) {
    masked_->inc();
    req.data_json = fields.masked_json(spans);  // hits are sorted and disjoint (leftmost)
  }
  if (v.flagged > 0) flagged_->inc();
  std::string& m = req.moderation_json;
  m = "{\"masked\":" + std::to_string(v.masked) + ",\"flagged\":" + std::to_string(v.flagged) +
      ",\"categories\":[";
  for (std::size_t i = 0; i < categories.size(); ++i) {
    if (i) m += ',';
    json::append_string(m, categories[i]);
  }
  m += "]}";
  return v;
}

void Moderator::load(Policy& policy, std::function<void(std::string error)> done) {
  // One load per missing dictionary; `done` once all have answered.
  struct Loads {
    std::atomic<std::size_t> left;
    std::mutex mutex;
    std::string error;
    std::function<void(std::string)> done;
  };
  std::vector<std::string> missing;
  for (const std::string& d : policy.dictionaries())
    if (!store_.warm(d)) missing.push_back(d);
  if (missing.empty()) return done("");
  auto pending = std::make_shared<Loads>();
  pending->left = missing.size();
  pending->done = std::move(done);
  for (std::string& d : missing) {
    store_.load(d, [pending, d](const store::EngineResult& r) {
      if (!r.ok()) {
        std::lock_guard lock(pending->mutex);
        if (pending->error.empty()) pending->error = "dictionary '" + d + "': " + r.error;
      }
      if (pending->left.fetch_sub(1) == 1) {
        std::string error;
        {
          std::lock_guard lock(pending->mutex);
          error = pending->error;
        }
        pending->done(std::move(error));
      }
    });
  }
}

}  // namespace herald::gateway::moderation
