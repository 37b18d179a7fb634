#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "live/room_list/filter_expr.hpp"
#include "live/room_list/filters.hpp"
#include "live/room_list/item.hpp"
#include "live/room_list/service.hpp"
#include "live/room_list/sorters.hpp"
#include "live/room_list/view.hpp"
#include "test_support.hpp"

namespace herald::live {

// Diff printing for room list items in failure messages.
inline std::ostream& operator<<(std::ostream& os, const RoomListItem& item) {
  return os << "room" << item.id.value << "(" << item.display_name() << ")";
}

namespace {

RoomInfo room(std::uint32_t id, std::string name, std::uint64_t recency = 0) {
  RoomInfo r;
  r.id = RoomId{id};
  r.display_name = std::move(name);
  r.recency_stamp = recency;
  return r;
}

std::vector<std::uint32_t> ids(const std::vector<RoomListItem>& items) {
  std::vector<std::uint32_t> out;
  for (const auto& i : items) out.push_back(i.id.value);
  return out;
}

TEST(RoomListItem, NormalizesNames) {
  EXPECT_EQ(normalize_name("  Herald   Dev\tTeam "), "herald dev team");
  EXPECT_EQ(normalize_name("ÉCOLE"), "École");  // non-ASCII bytes kept as they are
  EXPECT_EQ(normalize_name(""), "");
  EXPECT_EQ(normalize_name("ABC xyz"), "abc xyz");
}

TEST(RoomListItem, RefreshReportsChangesAndSharesUnchangedNames) {
  RoomInfo info = room(1, "Alpha", 5);
  RoomListItem item(info);
  EXPECT_EQ(item.normalized_name(), "alpha");
  const auto* name_before = item.name.get();
  EXPECT_FALSE(item.refresh(info));
  info.unread_count = 3;
  EXPECT_TRUE(item.refresh(info));
  EXPECT_EQ(item.name.get(), name_before);  // no rename: same shared name
  info.display_name = "Beta";
  EXPECT_TRUE(item.refresh(info));
  EXPECT_EQ(item.normalized_name(), "beta");
  EXPECT_EQ(item.unread_count, 3U);
}

TEST(RoomSorters, EachKeyAndTheCombinator) {
  RoomListItem a(room(1, "b", 10));
  RoomListItem b(room(2, "a", 20));
  EXPECT_TRUE(sort_recency()(b, a) < 0);  // more recent first
  EXPECT_TRUE(sort_name()(b, a) < 0);
  EXPECT_TRUE(sort_unsent_first()(a, b) == 0);
  a.latest_event_is_local = true;
  EXPECT_TRUE(sort_unsent_first()(a, b) < 0);
  const RoomSorter lex = default_room_sorter();
  EXPECT_TRUE(lex(a, b) < 0);  // unsent beats recency
  a.latest_event_is_local = false;
  EXPECT_TRUE(lex(b, a) < 0);  // then recency
  a.recency_stamp = 20;
  EXPECT_TRUE(lex(b, a) < 0);  // then name: "a" < "b"
  RoomListItem never(room(3, "c", 0));
  EXPECT_TRUE(sort_recency()(a, never) < 0);  // no stamp sorts last
  EXPECT_TRUE(sort_lexicographic({})(a, b) == 0);
  EXPECT_TRUE(RoomSorter()(a, b) == 0);
}

TEST(RoomSorters, LexicographicConcatenatesKeysInOrder) {
  const RoomSorter name_then_recency = sort_lexicographic({sort_name(), sort_recency()});
  ASSERT_EQ(name_then_recency.size(), 2U);
  EXPECT_EQ(name_then_recency.key(0), RoomSortKey::name);
  EXPECT_EQ(name_then_recency.key(1), RoomSortKey::recency);
  RoomListItem a(room(1, "same", 1));
  RoomListItem b(room(2, "same", 2));
  EXPECT_TRUE(name_then_recency(b, a) < 0);  // names tie, recency decides
  const RoomSorter nested =
      sort_lexicographic({sort_lexicographic({sort_unsent_first()}), name_then_recency});
  EXPECT_EQ(nested.size(), 3U);
  EXPECT_TRUE(nested(b, a) < 0);
  RoomSorter many;
  for (int i = 0; i < 20; ++i) many.then(sort_name());
  EXPECT_EQ(many.size(), RoomSorter::kMaxKeys);
}

// The unread filter asks whether the room wants attention, as the Matrix
// SDK's: notifications by the room's mode, or marked unread by the user.
TEST(RoomFilters, UnreadFollowsTheNotificationModeAndTheMarkedUnreadFlag) {
  RoomInfo info = room(1, "Herald Dev");
  info.unread_count = 3;
  info.mention_count = 1;
  EXPECT_EQ(RoomListItem(info).notification_count, 3U);
  EXPECT_TRUE(filter_unread()(RoomListItem(info)));

  info.notify = NotifyMode::mentions_only;
  EXPECT_EQ(RoomListItem(info).notification_count, 1U);
  EXPECT_TRUE(filter_unread()(RoomListItem(info)));
  info.mention_count = 0;
  EXPECT_EQ(RoomListItem(info).notification_count, 0U);
  EXPECT_FALSE(filter_unread()(RoomListItem(info)));

  info.notify = NotifyMode::mute;
  info.mention_count = 5;
  const RoomListItem muted(info);
  EXPECT_EQ(muted.notification_count, 0U);
  EXPECT_EQ(muted.unread_count, 3U);  // still unread, just quiet
  EXPECT_FALSE(filter_unread()(muted));

  info.is_marked_unread = true;
  RoomListItem marked(info);
  EXPECT_TRUE(filter_unread()(marked));
  info.unread_count = 0;
  info.mention_count = 0;
  info.notify = NotifyMode::all;
  EXPECT_TRUE(filter_unread()(RoomListItem(info)));

  // A refresh that changes only the mode or the flag changes the item.
  RoomListItem item(info);
  info.is_marked_unread = false;
  EXPECT_TRUE(item.refresh(info));
  info.notify = NotifyMode::mute;
  EXPECT_TRUE(item.refresh(info));
  EXPECT_FALSE(item.refresh(info));
}

// A filter tree compiles into the filters it names, combined as it says.
TEST(RoomFilters, ATreeCompilesIntoItsFilters) {
  using Kind = RoomFilterExpr::Kind;
  RoomInfo info = room(1, "Herald Dev");
  const RoomListItem group(info);
  info.is_direct = true;
  info.unread_count = 2;
  const RoomListItem dm(info);
  info.membership = Membership::invited;
  const RoomListItem invite(info);
  const auto leaf = [](Kind k, std::string text = {}) {
    return RoomFilterExpr{k, std::move(text), {}};
  };
  // Unread direct rooms, or any room whose name fuzzily matches "hd", but
  // never an invite.
  RoomFilterExpr tree{Kind::all, {}, {}};
  RoomFilterExpr any{Kind::any, {}, {}};
  any.parts.push_back(RoomFilterExpr{Kind::all, {}, {leaf(Kind::unread), leaf(Kind::direct)}});
  any.parts.push_back(leaf(Kind::fuzzy_name, "hd"));
  tree.parts.push_back(std::move(any));
  tree.parts.push_back(RoomFilterExpr{Kind::not_, {}, {leaf(Kind::invite)}});
  const RoomFilter f = compile(tree);
  EXPECT_TRUE(f(group));  // by its name
  EXPECT_TRUE(f(dm));
  EXPECT_FALSE(f(invite));
  EXPECT_FALSE(compile(RoomFilterExpr{Kind::all, {}, {leaf(Kind::fuzzy_name, "xyz")}})(group));
  EXPECT_TRUE(compile(RoomFilterExpr{})(invite));  // an empty tree: every room
  EXPECT_FALSE(compile(RoomFilterExpr{Kind::any, {}, {}})(group));
  EXPECT_TRUE(compile(leaf(Kind::group))(group));
  EXPECT_FALSE(compile(leaf(Kind::group))(dm));
  EXPECT_TRUE(compile(leaf(Kind::name, "DEV"))(group));
  EXPECT_TRUE(compile(leaf(Kind::joined))(dm));
  EXPECT_TRUE(compile(leaf(Kind::non_left))(invite));
}

TEST(RoomFilters, EachFilter) {
  RoomInfo info = room(1, "Herald Dev");
  RoomListItem plain(info);
  info.unread_count = 1;
  info.mention_count = 2;
  info.tags = kTagFavourite | kTagLowPriority;
  info.is_direct = true;
  info.membership = Membership::invited;
  RoomListItem busy(info);
  info.membership = Membership::left;
  RoomListItem left(info);

  EXPECT_FALSE(filter_unread()(plain));
  EXPECT_TRUE(filter_unread()(busy));
  EXPECT_TRUE(filter_mentions()(busy));
  EXPECT_FALSE(filter_mentions()(plain));
  EXPECT_TRUE(filter_favourite()(busy));
  EXPECT_FALSE(filter_favourite()(plain));
  EXPECT_TRUE(filter_low_priority()(busy));
  EXPECT_FALSE(filter_low_priority()(plain));
  EXPECT_TRUE(filter_category(RoomCategory::direct)(busy));
  EXPECT_FALSE(filter_category(RoomCategory::direct)(plain));
  EXPECT_TRUE(filter_category(RoomCategory::group)(plain));
  EXPECT_TRUE(filter_invite()(busy));
  EXPECT_FALSE(filter_invite()(plain));
  EXPECT_TRUE(filter_joined()(plain));
  EXPECT_FALSE(filter_joined()(busy));
  EXPECT_TRUE(filter_non_left()(busy));
  EXPECT_FALSE(filter_non_left()(left));
  EXPECT_FALSE(filter_none()(plain));
  EXPECT_TRUE(filter_all({})(plain));
  EXPECT_FALSE(filter_any({})(plain));
  EXPECT_TRUE(filter_all({filter_unread(), filter_mentions()})(busy));
  EXPECT_FALSE(filter_all({filter_unread(), filter_joined()})(busy));
  EXPECT_TRUE(filter_any({filter_joined(), filter_unread()})(busy));
  EXPECT_TRUE(filter_not(filter_unread())(plain));
  EXPECT_TRUE(filter_normalized_name("  DEV")(plain));
  EXPECT_TRUE(filter_normalized_name("")(plain));
  EXPECT_FALSE(filter_normalized_name("devs")(plain));
  EXPECT_TRUE(filter_fuzzy_name("HRLD dv")(plain));
  EXPECT_FALSE(filter_fuzzy_name("dvh")(plain));
  EXPECT_TRUE(fuzzy_match("herald", ""));
  EXPECT_FALSE(fuzzy_match("", "a"));
}

TEST(RoomListService, AddUpdateRemove) {
  RoomListService service;
  auto sub = service.entries().subscribe();
  EXPECT_EQ(service.add_room(room(1, "a")), RoomListError::ok);
  EXPECT_EQ(service.add_room(room(1, "a")), RoomListError::duplicate_room);
  EXPECT_EQ(service.add_room(room(2, "b")), RoomListError::ok);
  EXPECT_EQ(service.update_room(room(9, "x")), RoomListError::unknown_room);
  EXPECT_EQ(service.update_room(room(1, "a")), RoomListError::ok);  // no change: no diff
  EXPECT_EQ(service.update_room(room(1, "a", 7)), RoomListError::ok);
  EXPECT_EQ(service.remove_room(RoomId{1}), RoomListError::ok);
  EXPECT_EQ(service.remove_room(RoomId{1}), RoomListError::unknown_room);
  EXPECT_EQ(service.update_room(room(2, "b", 3)), RoomListError::ok);  // position shifted to 0
  EXPECT_NE(message(RoomListError::unknown_room), "?");
  ASSERT_NE(service.find(RoomId{2}), nullptr);
  EXPECT_EQ(service.find(RoomId{2})->recency_stamp, 3U);
  EXPECT_EQ(service.find(RoomId{1}), nullptr);

  DiffBatch<RoomListItem> b;
  std::vector<DiffOp> ops;
  while (sub.subscriber.next(b)) {
    for (const auto& d : b) ops.push_back(d.op);
  }
  EXPECT_EQ(ops, (std::vector<DiffOp>{DiffOp::push_back, DiffOp::push_back, DiffOp::set,
                                      DiffOp::remove, DiffOp::set}));
}

class RoomListViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Rooms 1..6 with recency 10..60: most recent first is 6, 5, 4, ...
    for (std::uint32_t i = 1; i <= 6; ++i) {
      infos.push_back(room(i, "room " + std::to_string(i), i * 10));
      ASSERT_EQ(service.add_room(infos.back()), RoomListError::ok);
    }
  }
  DiffBatch<RoomListItem> poll(RoomListView& view) {
    DiffBatch<RoomListItem> out;
    view.poll(out);
    return out;
  }
  RoomListService service;
  std::vector<RoomInfo> infos;
};

TEST_F(RoomListViewTest, StartsWithOneResetOfOnePage) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 2);
  const auto out = poll(view);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].op, DiffOp::reset);
  EXPECT_EQ(ids(out[0].values), (std::vector<std::uint32_t>{6, 5}));
  EXPECT_TRUE(poll(view).empty());
}

TEST_F(RoomListViewTest, NewMessageMovesRoomToTop) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 3);
  (void)poll(view);
  infos[0].recency_stamp = 100;  // room 1 gets a message
  ASSERT_EQ(service.update_room(infos[0]), RoomListError::ok);
  const auto out = poll(view);
  // Sorted view: room 1 moves from the end to the front, which pushes room 4
  // out of the page of 3.
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], VectorDiff<RoomListItem>::pop_back());
  EXPECT_EQ(out[1].op, DiffOp::push_front);
  EXPECT_EQ(out[1].value.id, RoomId{1});
}

TEST_F(RoomListViewTest, LeavingRoomIsReplacedFromBeyondThePage) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 2);
  (void)poll(view);
  infos[5].membership = Membership::left;  // room 6, first in the list
  ASSERT_EQ(service.update_room(infos[5]), RoomListError::ok);
  const auto out = poll(view);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], VectorDiff<RoomListItem>::pop_front());
  EXPECT_EQ(out[1].op, DiffOp::push_back);
  EXPECT_EQ(out[1].value.id, RoomId{4});
}

TEST_F(RoomListViewTest, PagingAppendsAndTruncates) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 2);
  (void)poll(view);
  view.add_page();
  auto out = poll(view);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].op, DiffOp::append);
  EXPECT_EQ(ids(out[0].values), (std::vector<std::uint32_t>{4, 3}));
  EXPECT_EQ(view.limit(), 4U);
  view.add_page();
  view.add_page();  // past the end: only what exists
  out = poll(view);
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(ids(out[0].values), (std::vector<std::uint32_t>{2, 1}));
  view.reset_to_one_page();
  out = poll(view);
  EXPECT_EQ(out, (DiffBatch<RoomListItem>{VectorDiff<RoomListItem>::truncate(2)}));
}

TEST_F(RoomListViewTest, ChangingTheFilterRestartsWithReset) {
  RoomListView view(service, default_room_sorter(), filter_non_left(), 2);
  (void)poll(view);
  view.add_page();
  infos[2].unread_count = 4;  // room 3
  ASSERT_EQ(service.update_room(infos[2]), RoomListError::ok);
  view.set_filter(filter_unread());
  const auto out = poll(view);  // pending diffs of the old pipeline are dropped
  ASSERT_EQ(out.size(), 1U);
  EXPECT_EQ(out[0].op, DiffOp::reset);
  EXPECT_EQ(ids(out[0].values), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(view.limit(), 2U);  // back to one page
  infos[0].unread_count = 1;    // room 1 enters the filter, after room 3
  ASSERT_EQ(service.update_room(infos[0]), RoomListError::ok);
  const auto next = poll(view);
  ASSERT_EQ(next.size(), 1U);
  EXPECT_EQ(next[0].op, DiffOp::push_back);
  EXPECT_EQ(next[0].value.id, RoomId{1});
}

TEST_F(RoomListViewTest, NewAndRemovedRooms) {
  RoomListView view(service, default_room_sorter(), filter_all({}), 3);
  (void)poll(view);
  ASSERT_EQ(service.add_room(room(7, "new", 1000)), RoomListError::ok);
  auto out = poll(view);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], VectorDiff<RoomListItem>::pop_back());
  EXPECT_EQ(out[1].value.id, RoomId{7});
  ASSERT_EQ(service.remove_room(RoomId{7}), RoomListError::ok);
  out = poll(view);
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], VectorDiff<RoomListItem>::pop_front());
  EXPECT_EQ(out[1].value.id, RoomId{4});
}

}  // namespace
}  // namespace herald::live
