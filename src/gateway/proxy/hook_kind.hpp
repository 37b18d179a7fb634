// The backend hooks heraldd knows, as one enumeration, so that every table
// kept per hook (the node's Hooks, each shard's clients, the settings that
// name them) is an array indexed by it rather than five named members that
// each caller must remember to visit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace herald::gateway::proxy {

enum class HookKind : std::uint8_t { connect, subscribe, publish, rpc, refresh };

inline constexpr std::size_t kHookCount = 5;
inline constexpr std::array<HookKind, kHookCount> kAllHooks{
    HookKind::connect, HookKind::subscribe, HookKind::publish, HookKind::rpc, HookKind::refresh};

[[nodiscard]] constexpr std::size_t index_of(HookKind h) {
  // Safety: HookKind's five values are 0..4, the indexes of every per-hook
  // array (kHookCount).
  return static_cast<std::size_t>(h);
}

// The hook's name: the metrics' hook label and the word in error messages.
[[nodiscard]] constexpr std::string_view hook_name(HookKind h) {
  constexpr std::array<std::string_view, kHookCount> kNames{"connect", "subscribe", "publish",
                                                            "rpc", "refresh"};
  return kNames[index_of(h)];
}

// Its URL's configuration key.
[[nodiscard]] constexpr std::string_view hook_url_key(HookKind h) {
  constexpr std::array<std::string_view, kHookCount> kKeys{
      "proxy.connect_url", "proxy.subscribe_url", "proxy.publish_url", "proxy.rpc_url",
      "proxy.refresh_url"};
  return kKeys[index_of(h)];
}

// A value per hook, indexed by HookKind.
template <typename T>
class PerHook {
 public:
  [[nodiscard]] constexpr T& operator[](HookKind h) { return values_[index_of(h)]; }
  [[nodiscard]] constexpr const T& operator[](HookKind h) const { return values_[index_of(h)]; }

 private:
  std::array<T, kHookCount> values_{};
};

}  // namespace herald::gateway::proxy
