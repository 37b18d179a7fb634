// A dictionary entry (keyword, action, category), the validation every
// store applies before a write, and the metadata encoding kept in Redis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace herald::match::store {

// What moderation does with a message that contains the keyword. Declared
// strictest first: among several hits (or one keyword in two dictionaries)
// the stricter action wins.
enum class Action : std::uint8_t { reject, mask, flag };
[[nodiscard]] constexpr bool stricter(Action a, Action b) {
  return static_cast<std::uint8_t>(a) < static_cast<std::uint8_t>(b);
}

[[nodiscard]] std::string_view action_name(Action a);
[[nodiscard]] std::optional<Action> parse_action(std::string_view name);

struct Entry {
  Entry() = default;
  Entry(std::string k, Action a = Action::flag, std::string c = {})  // NOLINT: {"kw"} reads well
      : keyword(std::move(k)), action(a), category(std::move(c)) {}
  std::string keyword;
  Action action = Action::flag;
  std::string category;
  friend bool operator==(const Entry&, const Entry&) = default;
};

// Limits. A dictionary name is also a Redis hash tag, so it may not hold
// braces; the allowed set ([A-Za-z0-9_.-], 1..64 bytes) keeps it safe in
// URLs, keys and log lines too.
inline constexpr std::size_t kMaxDictionaryNameBytes = 64;
inline constexpr std::size_t kMaxCategoryBytes = 64;

// Each returns what is wrong, or nullopt. Keywords must be valid UTF-8 of
// 1..256 bytes (the engine's limits, with Unicode case folding).
[[nodiscard]] std::optional<std::string> dictionary_name_error(std::string_view name);
[[nodiscard]] std::optional<std::string> keyword_error(std::string_view keyword);
[[nodiscard]] std::optional<std::string> category_error(std::string_view category);

// Metadata as stored in the Redis hash: "<action>:<category>", e.g.
// "reject:spam" or "flag:". decode_meta returns false on anything else.
[[nodiscard]] std::string encode_meta(const Entry& e);
[[nodiscard]] bool decode_meta(std::string_view text, Entry& out);

}  // namespace herald::match::store
