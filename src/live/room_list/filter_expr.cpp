#include "live/room_list/filter_expr.hpp"

#include <utility>

namespace herald::live {

RoomFilter compile(const RoomFilterExpr& expr) {
  using Kind = RoomFilterExpr::Kind;
  auto each = [&expr] {
    std::vector<RoomFilter> parts;
    parts.reserve(expr.parts.size());
    for (const RoomFilterExpr& p : expr.parts) parts.push_back(compile(p));
    return parts;
  };
  switch (expr.kind) {
    case Kind::all:
      return filter_all(each());
    case Kind::any:
      return filter_any(each());
    case Kind::not_:
      return filter_not(expr.parts.empty() ? filter_all({}) : compile(expr.parts.front()));
    case Kind::unread:
      return filter_unread();
    case Kind::mentions:
      return filter_mentions();
    case Kind::favourite:
      return filter_favourite();
    case Kind::low_priority:
      return filter_low_priority();
    case Kind::direct:
      return filter_category(RoomCategory::direct);
    case Kind::group:
      return filter_category(RoomCategory::group);
    case Kind::invite:
      return filter_invite();
    case Kind::joined:
      return filter_joined();
    case Kind::non_left:
      return filter_non_left();
    case Kind::name:
      return filter_normalized_name(expr.text);
    case Kind::fuzzy_name:
      return filter_fuzzy_name(expr.text);
  }
  return filter_none();
}

}  // namespace herald::live
