#include "state/membership_store.hpp"

#include <lmdb.h>

#include <cstring>
#include <limits>
#include <system_error>
#include <utility>

#include "state/record.hpp"

namespace herald::state {
namespace {

// Safety: MDB_val carries void*; these views read or hand over bytes LMDB
// keeps valid for the transaction (reads) or copies (writes).
std::string_view view_of(const MDB_val& v) {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}
MDB_val val_of(std::string_view s) {
  return {s.size(), const_cast<char*>(s.data())};  // NOLINT: LMDB does not write through it
}

std::string pair_key(std::string_view first, std::string_view second) {
  std::string k;
  k.reserve(first.size() + 1 + second.size());
  k.append(first);
  k.push_back('\0');
  k.append(second);
  return k;
}

std::string lmdb_error(std::string_view what, int rc) {
  return "state: " + std::string(what) + ": " + mdb_strerror(rc);
}

// Why a batch was refused whole when the map is full, naming the setting.
std::string map_full(std::uint64_t max_bytes) {
  return "state.max_bytes (" + std::to_string(max_bytes) +
         " bytes) is reached: raise it, or remove memberships";
}

std::string damaged(std::string_view user, std::string_view room) {
  return "state: a damaged record for user '" + std::string(user) + "', room '" +
         std::string(room) + "'";
}

}  // namespace

struct MembershipStore::Env {
  MDB_env* env = nullptr;
  MDB_dbi member = 0;
  MDB_dbi by_room = 0;
  MDB_dbi counts = 0;
  std::size_t max_key = 0;
  ~Env() {
    if (env != nullptr) mdb_env_close(env);
  }
};

namespace {

// One transaction, aborted unless committed.
class Txn {
 public:
  Txn(MDB_env* env, unsigned flags) { rc_ = mdb_txn_begin(env, nullptr, flags, &txn_); }
  ~Txn() {
    if (txn_ != nullptr) mdb_txn_abort(txn_);
  }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;
  [[nodiscard]] int begun() const { return rc_; }
  [[nodiscard]] MDB_txn* get() const { return txn_; }
  int commit() {
    const int rc = mdb_txn_commit(txn_);
    txn_ = nullptr;
    return rc;
  }

 private:
  MDB_txn* txn_ = nullptr;
  int rc_ = 0;
};

// A change applied inside one write transaction. An LMDB failure (the map
// full, an I/O error) stops the batch: `failed` is set and the caller
// aborts.
class Applier {
 public:
  Applier(const MembershipStore::Options& options, MDB_txn* txn, MDB_dbi member, MDB_dbi by_room,
          MDB_dbi counts, std::size_t max_key)
      : o_(options),
        txn_(txn),
        member_(member),
        by_room_(by_room),
        counts_(counts),
        max_key_(max_key) {}

  std::optional<std::string> failed;

  Outcome operator()(const Join& c) {
    if (!names_ok(c.user, c.room)) return Outcome::bad_name;
    const std::string key = pair_key(c.user, c.room);
    if (auto kept = get(member_, key)) {
      // A member is left as it is, but a join accepts an invitation.
      auto m = decode_record(*kept);
      if (!m) {
        fail(damaged(c.user, c.room));
        return Outcome::unchanged;
      }
      if (m->state != MemberState::invited || c.state != MemberState::joined) {
        return Outcome::unchanged;
      }
      m->state = MemberState::joined;
      put(member_, key, encode_record(*m));
      return Outcome::done;
    }
    if (failed) return Outcome::unchanged;
    const std::string user_count = pair_key("u", c.user);
    const std::string room_count = pair_key("r", c.room);
    const std::uint32_t rooms = count(user_count);
    const std::uint32_t members = count(room_count);
    if (rooms >= o_.max_rooms_per_user) return Outcome::too_many_rooms;
    if (members >= o_.max_members_per_room) return Outcome::too_many_members;
    Membership m;
    m.state = c.state;
    m.flags = flag_if(c.direct, kDirect);
    put(member_, key, encode_record(m));
    put(by_room_, pair_key(c.room, c.user), {});
    set_count(user_count, rooms + 1);
    set_count(room_count, members + 1);
    return Outcome::done;
  }

  Outcome operator()(const Leave& c) {
    if (!names_ok(c.user, c.room)) return Outcome::bad_name;
    const std::string key = pair_key(c.user, c.room);
    if (!get(member_, key)) return Outcome::unchanged;
    del(member_, key);
    del(by_room_, pair_key(c.room, c.user));
    const std::string user_count = pair_key("u", c.user);
    const std::string room_count = pair_key("r", c.room);
    set_count(user_count, count(user_count) - 1);
    set_count(room_count, count(room_count) - 1);
    return Outcome::done;
  }

  Outcome operator()(const SetRead& c) {
    if (c.read.epoch.size() > kMaxEpochBytes) return Outcome::bad_value;
    return update(c.user, c.room, [&](Membership& m) {
      m.read = c.read;
      m.mentions = 0;
      m.flags = static_cast<std::uint16_t>(m.flags & ~kMarkedUnread);
    });
  }

  Outcome operator()(const SetFlags& c) {
    if (((c.flags | c.mask) & ~kKnownFlags) != 0 || (c.notify && *c.notify > NotifyMode::mute))
      return Outcome::bad_value;
    return update(c.user, c.room, [&](Membership& m) {
      m.flags = with_flags(m.flags, c.flags, c.mask);
      if (c.notify) m.notify = *c.notify;
    });
  }

  Outcome operator()(const AddMention& c) {
    return update(c.user, c.room, [](Membership& m) {
      if (m.mentions < std::numeric_limits<std::uint32_t>::max()) ++m.mentions;
    });
  }

 private:
  bool names_ok(std::string_view user, std::string_view room) const {
    return !user.empty() && !room.empty() && user.find('\0') == std::string_view::npos &&
           room.find('\0') == std::string_view::npos && user.size() + 1 + room.size() <= max_key_;
  }

  template <class F>
  Outcome update(const std::string& user, const std::string& room, F&& change) {
    if (!names_ok(user, room)) return Outcome::bad_name;
    const std::string key = pair_key(user, room);
    auto bytes = get(member_, key);
    if (!bytes) return Outcome::not_member;
    auto m = decode_record(*bytes);
    if (!m) {
      fail(damaged(user, room));
      return Outcome::unchanged;
    }
    change(*m);
    put(member_, key, encode_record(*m));
    return Outcome::done;
  }

  std::optional<std::string> get(MDB_dbi dbi, const std::string& key) {
    MDB_val k = val_of(key);
    MDB_val v;
    const int rc = mdb_get(txn_, dbi, &k, &v);
    if (rc == MDB_NOTFOUND) return std::nullopt;
    if (rc != MDB_SUCCESS) {
      fail(lmdb_error("read", rc));
      return std::nullopt;
    }
    return std::string(view_of(v));
  }
  void put(MDB_dbi dbi, const std::string& key, std::string_view value) {
    if (failed) return;
    MDB_val k = val_of(key);
    MDB_val v = val_of(value);
    const int rc = mdb_put(txn_, dbi, &k, &v, 0);
    if (rc == MDB_MAP_FULL) {
      fail(map_full(o_.max_bytes));
    } else if (rc != MDB_SUCCESS) {
      fail(lmdb_error("write", rc));
    }
  }
  void del(MDB_dbi dbi, const std::string& key) {
    if (failed) return;
    MDB_val k = val_of(key);
    const int rc = mdb_del(txn_, dbi, &k, nullptr);
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) fail(lmdb_error("delete", rc));
  }
  std::uint32_t count(const std::string& key) {
    auto v = get(counts_, key);
    std::uint32_t n = 0;
    if (v && v->size() == sizeof n) std::memcpy(&n, v->data(), sizeof n);
    return n;
  }
  void set_count(const std::string& key, std::uint32_t n) {
    if (n == 0) return del(counts_, key);
    std::string bytes(sizeof n, '\0');
    std::memcpy(bytes.data(), &n, sizeof n);
    put(counts_, key, bytes);
  }
  void fail(std::string why) {
    if (!failed) failed = std::move(why);
  }

  const MembershipStore::Options& o_;
  MDB_txn* txn_;
  MDB_dbi member_, by_room_, counts_;
  std::size_t max_key_;
};

// The entries of `dbi` whose key is `first` NUL something, in key order:
// `each(rest, value)` for each.
template <class F>
std::optional<std::string> scan(MDB_txn* txn, MDB_dbi dbi, std::string_view first, F&& each) {
  MDB_cursor* cur = nullptr;
  int rc = mdb_cursor_open(txn, dbi, &cur);
  if (rc != MDB_SUCCESS) return lmdb_error("cursor", rc);
  const std::string prefix = pair_key(first, {});
  MDB_val k = val_of(prefix);
  MDB_val v;
  std::optional<std::string> error;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == MDB_SUCCESS;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    const std::string_view key = view_of(k);
    if (!key.starts_with(prefix)) break;
    if (auto e = each(key.substr(prefix.size()), view_of(v))) {
      error = std::move(e);
      break;
    }
  }
  if (!error && rc != MDB_SUCCESS && rc != MDB_NOTFOUND) error = lmdb_error("read", rc);
  mdb_cursor_close(cur);
  return error;
}

}  // namespace

MembershipStore::MembershipStore(Options options, std::unique_ptr<Env> env)
    : options_(std::move(options)), env_(std::move(env)) {}

MembershipStore::~MembershipStore() = default;

Result<std::unique_ptr<MembershipStore>, std::string> MembershipStore::open(Options options) {
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) return Fail{"state: " + options.dir.string() + ": " + ec.message()};
  auto env = std::make_unique<Env>();
  int rc = mdb_env_create(&env->env);
  if (rc != MDB_SUCCESS) return Fail{lmdb_error("create", rc)};
  rc = mdb_env_set_mapsize(env->env, options.max_bytes);
  if (rc == MDB_SUCCESS) rc = mdb_env_set_maxdbs(env->env, 3);
  if (rc != MDB_SUCCESS) return Fail{lmdb_error("state.max_bytes", rc)};
  const unsigned flags = MDB_NOTLS | (options.sync ? 0U : MDB_NOSYNC);
  rc = mdb_env_open(env->env, options.dir.c_str(), flags, 0640);
  if (rc != MDB_SUCCESS) return Fail{"state: " + options.dir.string() + ": " + mdb_strerror(rc)};
  env->max_key = static_cast<std::size_t>(mdb_env_get_maxkeysize(env->env));
  Txn txn(env->env, 0);
  if (txn.begun() != MDB_SUCCESS) return Fail{lmdb_error("open", txn.begun())};
  for (auto [name, dbi] : {std::pair{"member", &env->member},
                           {"member_by_room", &env->by_room},
                           {"counts", &env->counts}}) {
    rc = mdb_dbi_open(txn.get(), name, MDB_CREATE, dbi);
    if (rc != MDB_SUCCESS) return Fail{lmdb_error(name, rc)};
  }
  rc = txn.commit();
  if (rc != MDB_SUCCESS) return Fail{lmdb_error("open", rc)};
  return std::unique_ptr<MembershipStore>(new MembershipStore(std::move(options), std::move(env)));
}

Result<std::vector<Outcome>, std::string> MembershipStore::apply(std::span<const Change> changes) {
  Txn txn(env_->env, 0);
  if (txn.begun() != MDB_SUCCESS) return Fail{lmdb_error("write", txn.begun())};
  Applier applier(options_, txn.get(), env_->member, env_->by_room, env_->counts, env_->max_key);
  std::vector<Outcome> outcomes;
  outcomes.reserve(changes.size());
  for (const Change& c : changes) {
    outcomes.push_back(std::visit(applier, c));
    if (applier.failed) return Fail{std::move(*applier.failed)};
  }
  const int rc = txn.commit();
  if (rc == MDB_MAP_FULL) {
    return Fail{map_full(options_.max_bytes)};
  }
  if (rc != MDB_SUCCESS) return Fail{lmdb_error("commit", rc)};
  return outcomes;
}

Result<std::vector<Membership>, std::string> MembershipStore::rooms_of(
    std::string_view user) const {
  Txn txn(env_->env, MDB_RDONLY);
  if (txn.begun() != MDB_SUCCESS) return Fail{lmdb_error("read", txn.begun())};
  std::vector<Membership> out;
  auto error =
      scan(txn.get(), env_->member, user,
           [&](std::string_view room, std::string_view bytes) -> std::optional<std::string> {
             auto m = decode_record(bytes);
             if (!m) return damaged(user, room);
             m->room.assign(room);
             out.push_back(std::move(*m));
             return std::nullopt;
           });
  if (error) return Fail{std::move(*error)};
  return out;
}

Result<std::vector<std::string>, std::string> MembershipStore::members_of(
    std::string_view room) const {
  Txn txn(env_->env, MDB_RDONLY);
  if (txn.begun() != MDB_SUCCESS) return Fail{lmdb_error("read", txn.begun())};
  std::vector<std::string> out;
  auto error = scan(txn.get(), env_->by_room, room,
                    [&](std::string_view user, std::string_view) -> std::optional<std::string> {
                      out.emplace_back(user);
                      return std::nullopt;
                    });
  if (error) return Fail{std::move(*error)};
  return out;
}

Result<std::optional<Membership>, std::string> MembershipStore::find(std::string_view user,
                                                                     std::string_view room) const {
  Txn txn(env_->env, MDB_RDONLY);
  if (txn.begun() != MDB_SUCCESS) return Fail{lmdb_error("read", txn.begun())};
  const std::string key = pair_key(user, room);
  MDB_val k = val_of(key);
  MDB_val v;
  const int rc = mdb_get(txn.get(), env_->member, &k, &v);
  if (rc == MDB_NOTFOUND) return std::optional<Membership>();
  if (rc != MDB_SUCCESS) return Fail{lmdb_error("read", rc)};
  auto m = decode_record(view_of(v));
  if (!m) {
    return Fail{damaged(user, room)};
  }
  m->room.assign(room);
  return std::optional<Membership>(std::move(*m));
}

}  // namespace herald::state
