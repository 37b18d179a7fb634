#include "gateway/auth/subscribe_override.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace herald::gateway::auth {

std::optional<std::string> read_subscribe_override(simdjson::dom::element value,
                                                   SubscribeOverride& out) {
  simdjson::dom::object obj;
  if (value.get(obj) != simdjson::SUCCESS) return "override: expected an object";
  const std::array<std::pair<std::string_view, std::optional<bool>*>, 5> options{{
      {"presence", &out.presence},
      {"join_leave", &out.join_leave},
      {"force_push_join_leave", &out.push_join_leave},
      {"force_recovery", &out.recovery},
      {"force_positioning", &out.positioning},
  }};
  for (auto field : obj) {
    const auto* option = std::find_if(options.begin(), options.end(),
                                      [&](const auto& o) { return o.first == field.key; });
    if (option == options.end()) {
      return "override." + std::string(field.key) +
             ": not an option (presence, join_leave, force_push_join_leave, force_recovery, "
             "force_positioning)";
    }
    // {} is false: protobuf's JSON leaves a BoolValue's false value out.
    simdjson::dom::object wrapped;
    bool flag = false;
    const bool ok = field.value.get(wrapped) == simdjson::SUCCESS &&
                    (wrapped.size() == 0 ||
                     (wrapped.size() == 1 && wrapped["value"].get(flag) == simdjson::SUCCESS));
    if (!ok) return "override." + std::string(field.key) + R"(: expected {"value": boolean})";
    *option->second = flag;
  }
  return std::nullopt;
}

}  // namespace herald::gateway::auth
