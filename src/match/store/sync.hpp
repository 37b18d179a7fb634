// Blocking calls over the asynchronous Store, for tools (herald kw) and
// tests. Never call these on the store's own thread (a handler): the reply
// would wait for the thread that is waiting for it.
#pragma once

#include <chrono>
#include <future>
#include <memory>

#include "match/store/store.hpp"

namespace herald::match::store {

// Runs start(handler) and waits for the handler's value, at most `timeout`
// (then a result whose error says so). Every store path answers well
// within its configured timeouts; the bound only keeps a bug from hanging.
template <class R, class Start>
R await(Start&& start, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  auto promise = std::make_shared<std::promise<R>>();
  auto future = promise->get_future();
  start([promise](R r) { promise->set_value(std::move(r)); });
  if (future.wait_for(timeout) != std::future_status::ready) {
    R r;
    r.error = "no answer from the store within " + std::to_string(timeout.count()) + " ms";
    return r;
  }
  return future.get();
}

inline WriteResult add_many(Store& s, std::string dict, std::vector<Entry> entries) {
  return await<WriteResult>([&](auto done) { s.add_many(dict, std::move(entries), done); });
}
inline WriteResult remove_many(Store& s, std::string dict, std::vector<std::string> keywords) {
  return await<WriteResult>([&](auto done) { s.remove_many(dict, std::move(keywords), done); });
}
inline WriteResult flush(Store& s, std::string dict) {
  return await<WriteResult>([&](auto done) { s.flush(dict, done); });
}
inline EngineResult engine(Store& s, std::string dict) {
  return await<EngineResult>([&](auto done) { s.engine(dict, done); });
}
// load(): the dictionary is held (and kept fresh) from then on.
inline EngineResult load(Store& s, std::string dict) {
  return await<EngineResult>([&](auto done) { s.load(dict, done); });
}

}  // namespace herald::match::store
