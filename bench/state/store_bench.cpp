// S1: the store behind per-user room state (issue 43), measured before it is
// chosen. The state is one small record per (user, room) membership: the
// offset the user has read up to and a few flags (tags, DM, mute). Counts
// are derived from offsets, so a publication writes nothing per member; the
// writes are read-marker changes and membership changes, and the reads are
// "every room of this user" when a connection opens and "every member of
// this room" (the server API's members, a room's member limit).
//
// Two candidates from Debian, each used as its own documentation advises
// for this shape:
//   sqlite  SQLite 3, WAL journal, a WITHOUT ROWID table keyed (user, room)
//           and an index on (room, user), prepared statements, one
//           transaction per batch, a 256 MiB page cache and mmap reads;
//   lmdb    LMDB, a B+tree keyed "user\0room" holding a fixed 16-byte
//           value and one keyed "room\0user" holding nothing (the index,
//           kept by hand in the same transaction), one write transaction
//           per batch.
// and two durability levels, as the issue asks for the first:
//   process  survives the process being killed (SIGKILL): SQLite
//            synchronous=NORMAL (WAL fsyncs only at checkpoints), LMDB
//            MDB_NOSYNC (commits reach the OS, not the disk);
//   power    survives the machine losing power: synchronous=FULL, and LMDB's
//            default fsync per commit.
//
// Phases, each timed on its own: load (the memberships, in batches of
// 1,000), update (random read markers, in batches of --batch), open (every
// room of a random user, as on connect), members (every member of a random
// room). Printed as one JSON line per
// store and level, with the bytes the store takes on disk.
//
//   bench_state_store --users 10000 --rooms-per-user 100 --updates 200000
//       --batch 64 --opens 10000 --dir /tmp/s1   (one command line)
#include <CLI/CLI.hpp>
#include <lmdb.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Workload {
  std::uint32_t users = 10'000;
  std::uint32_t rooms_per_user = 100;
  std::uint32_t rooms = 20'000;  // rooms are drawn from this many
  std::uint32_t updates = 200'000;
  std::uint32_t batch = 64;
  std::uint32_t opens = 10'000;
  std::uint64_t seed = 42;
};

// One membership's record, as both stores keep it.
struct Record {
  std::uint64_t read_offset = 0;
  std::uint32_t flags = 0;
  std::uint32_t reserved = 0;
};
static_assert(sizeof(Record) == 16);

std::string user_name(std::uint32_t u) {
  return "user-" + std::to_string(u);
}
std::string room_name(std::uint32_t r) {
  return "team:room-" + std::to_string(r);
}

// The rooms of user `u`: rooms_per_user distinct rooms, the same every run.
std::vector<std::uint32_t> rooms_of(const Workload& w, std::uint32_t u) {
  std::mt19937_64 rng(w.seed * 1'000'003 + u);
  std::vector<std::uint32_t> out;
  out.reserve(w.rooms_per_user);
  std::uniform_int_distribution<std::uint32_t> pick(0, w.rooms - 1);
  while (out.size() < w.rooms_per_user) {
    const std::uint32_t r = pick(rng);
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

// What a store must do; each implementation owns its files under `dir`.
class Store {
 public:
  virtual ~Store() = default;
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void put(const std::string& user, const std::string& room, const Record& r) = 0;
  virtual void set_read(const std::string& user, const std::string& room, std::uint64_t off) = 0;
  // Every room of `user` / every member of `room`; returns how many.
  virtual std::size_t open_user(const std::string& user) = 0;
  virtual std::size_t members(const std::string& room) = 0;
};

void check_sqlite(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
}

class SqliteStore final : public Store {
 public:
  SqliteStore(const std::filesystem::path& dir, bool power) {
    const std::string file = (dir / "state.sqlite").string();
    check_sqlite(sqlite3_open(file.c_str(), &db_), db_, "open");
    exec("PRAGMA journal_mode=WAL");
    exec(power ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
    // A page cache that holds the whole table, and reads through mmap, as
    // SQLite's documentation advises for speed: LMDB reads through the
    // OS's page cache with no limit, so SQLite is not held to 2 MiB.
    exec("PRAGMA cache_size=-262144");
    exec("PRAGMA mmap_size=1073741824");
    exec(
        "CREATE TABLE IF NOT EXISTS member(user TEXT NOT NULL, room TEXT NOT NULL, "
        "read_offset INTEGER NOT NULL, flags INTEGER NOT NULL, PRIMARY KEY(user, room)) "
        "WITHOUT ROWID");
    exec("CREATE INDEX IF NOT EXISTS member_by_room ON member(room, user)");
    prepare(&put_, "INSERT OR REPLACE INTO member VALUES(?1, ?2, ?3, ?4)");
    prepare(&set_read_, "UPDATE member SET read_offset = ?3 WHERE user = ?1 AND room = ?2");
    prepare(&open_, "SELECT room, read_offset, flags FROM member WHERE user = ?1");
    prepare(&members_, "SELECT user FROM member WHERE room = ?1");
  }
  ~SqliteStore() override {
    for (sqlite3_stmt* s : {put_, set_read_, open_, members_}) sqlite3_finalize(s);
    sqlite3_close(db_);
  }
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  void begin() override { exec("BEGIN"); }
  void commit() override { exec("COMMIT"); }
  void put(const std::string& user, const std::string& room, const Record& r) override {
    bind_key(put_, user, room);
    sqlite3_bind_int64(put_, 3, static_cast<sqlite3_int64>(r.read_offset));
    sqlite3_bind_int64(put_, 4, r.flags);
    step_done(put_, "put");
  }
  void set_read(const std::string& user, const std::string& room, std::uint64_t off) override {
    bind_key(set_read_, user, room);
    sqlite3_bind_int64(set_read_, 3, static_cast<sqlite3_int64>(off));
    step_done(set_read_, "set_read");
  }
  std::size_t open_user(const std::string& user) override {
    sqlite3_bind_text(open_, 1, user.data(), static_cast<int>(user.size()), SQLITE_STATIC);
    std::size_t n = 0;
    std::uint64_t sum = 0;
    while (sqlite3_step(open_) == SQLITE_ROW) {
      sum += static_cast<std::uint64_t>(sqlite3_column_int64(open_, 1)) +
             static_cast<std::uint64_t>(sqlite3_column_bytes(open_, 0));
      ++n;
    }
    sqlite3_reset(open_);
    sink_ += sum;
    return n;
  }
  std::size_t members(const std::string& room) override {
    sqlite3_bind_text(members_, 1, room.data(), static_cast<int>(room.size()), SQLITE_STATIC);
    std::size_t n = 0;
    while (sqlite3_step(members_) == SQLITE_ROW) {
      sink_ += static_cast<std::uint64_t>(sqlite3_column_bytes(members_, 0));
      ++n;
    }
    sqlite3_reset(members_);
    return n;
  }

 private:
  void exec(const char* sql) {
    check_sqlite(sqlite3_exec(db_, sql, nullptr, nullptr, nullptr), db_, sql);
  }
  void prepare(sqlite3_stmt** s, const char* sql) {
    check_sqlite(sqlite3_prepare_v2(db_, sql, -1, s, nullptr), db_, sql);
  }
  static void bind_key(sqlite3_stmt* s, const std::string& user, const std::string& room) {
    sqlite3_bind_text(s, 1, user.data(), static_cast<int>(user.size()), SQLITE_STATIC);
    sqlite3_bind_text(s, 2, room.data(), static_cast<int>(room.size()), SQLITE_STATIC);
  }
  void step_done(sqlite3_stmt* s, const char* what) {
    check_sqlite(sqlite3_step(s), db_, what);
    sqlite3_reset(s);
  }

  sqlite3* db_ = nullptr;
  sqlite3_stmt* put_ = nullptr;
  sqlite3_stmt* set_read_ = nullptr;
  sqlite3_stmt* open_ = nullptr;
  sqlite3_stmt* members_ = nullptr;
  std::uint64_t sink_ = 0;  // keeps the reads from being optimized away
};

void check_lmdb(int rc, const char* what) {
  if (rc != MDB_SUCCESS) throw std::runtime_error(std::string(what) + ": " + mdb_strerror(rc));
}

class LmdbStore final : public Store {
 public:
  LmdbStore(const std::filesystem::path& dir, bool power) {
    check_lmdb(mdb_env_create(&env_), "env_create");
    check_lmdb(mdb_env_set_mapsize(env_, std::size_t{8} << 30), "set_mapsize");
    check_lmdb(mdb_env_set_maxdbs(env_, 2), "set_maxdbs");
    const unsigned flags = power ? 0U : MDB_NOSYNC;
    check_lmdb(mdb_env_open(env_, dir.c_str(), flags, 0644), "env_open");
    MDB_txn* txn = nullptr;
    check_lmdb(mdb_txn_begin(env_, nullptr, 0, &txn), "txn_begin");
    check_lmdb(mdb_dbi_open(txn, "member", MDB_CREATE, &dbi_), "dbi_open");
    check_lmdb(mdb_dbi_open(txn, "member_by_room", MDB_CREATE, &by_room_), "dbi_open");
    check_lmdb(mdb_txn_commit(txn), "txn_commit");
  }
  ~LmdbStore() override {
    if (txn_ != nullptr) mdb_txn_abort(txn_);
    mdb_env_close(env_);
  }
  LmdbStore(const LmdbStore&) = delete;
  LmdbStore& operator=(const LmdbStore&) = delete;

  void begin() override { check_lmdb(mdb_txn_begin(env_, nullptr, 0, &txn_), "txn_begin"); }
  void commit() override {
    check_lmdb(mdb_txn_commit(txn_), "txn_commit");
    txn_ = nullptr;
  }
  void put(const std::string& user, const std::string& room, const Record& r) override {
    key_of(user, room);
    MDB_val k{key_.size(), key_.data()};
    // Safety: MDB_val's data is void*; LMDB copies the record's 16 bytes.
    MDB_val v{sizeof(Record), const_cast<Record*>(&r)};
    check_lmdb(mdb_put(txn_, dbi_, &k, &v, 0), "put");
    std::string by_room = room;
    by_room.push_back('\0');
    by_room.append(user);
    MDB_val rk{by_room.size(), by_room.data()};
    MDB_val none{0, nullptr};
    check_lmdb(mdb_put(txn_, by_room_, &rk, &none, 0), "put");
  }
  void set_read(const std::string& user, const std::string& room, std::uint64_t off) override {
    key_of(user, room);
    MDB_val k{key_.size(), key_.data()};
    MDB_val v;
    check_lmdb(mdb_get(txn_, dbi_, &k, &v), "get");
    Record r;
    std::memcpy(&r, v.mv_data, sizeof r);
    r.read_offset = off;
    MDB_val nv{sizeof(Record), &r};
    check_lmdb(mdb_put(txn_, dbi_, &k, &nv, 0), "put");
  }
  std::size_t open_user(const std::string& user) override { return scan(dbi_, user); }
  std::size_t members(const std::string& room) override { return scan(by_room_, room); }

 private:
  // The entries of `dbi` whose key starts with `first` and a NUL.
  std::size_t scan(MDB_dbi dbi, const std::string& first) {
    MDB_txn* txn = nullptr;
    check_lmdb(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "txn_begin");
    MDB_cursor* cur = nullptr;
    check_lmdb(mdb_cursor_open(txn, dbi, &cur), "cursor_open");
    std::string prefix = first;
    prefix.push_back('\0');
    MDB_val k{prefix.size(), prefix.data()};
    MDB_val v;
    std::size_t n = 0;
    std::uint64_t sum = 0;
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == MDB_SUCCESS;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      // Safety: the key's bytes, read as text for the prefix test.
      const std::string_view key(static_cast<const char*>(k.mv_data), k.mv_size);
      if (!key.starts_with(prefix)) break;
      if (v.mv_size == sizeof(Record)) {
        Record r;
        std::memcpy(&r, v.mv_data, sizeof r);
        sum += r.read_offset;
      }
      sum += key.size();
      ++n;
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    sink_ += sum;
    return n;
  }

  void key_of(const std::string& user, const std::string& room) {
    key_.assign(user);
    key_.push_back('\0');
    key_.append(room);
  }
  MDB_env* env_ = nullptr;
  MDB_dbi dbi_ = 0;
  MDB_dbi by_room_ = 0;
  MDB_txn* txn_ = nullptr;
  std::string key_;
  std::uint64_t sink_ = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::uintmax_t bytes_under(const std::filesystem::path& dir) {
  std::uintmax_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

void run(const std::string& name, const std::string& level, const Workload& w,
         const std::filesystem::path& root) {
  const std::filesystem::path dir = root / (name + "-" + level);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const bool power = level == "power";
  std::unique_ptr<Store> store;
  if (name == "sqlite") {
    store = std::make_unique<SqliteStore>(dir, power);
  } else {
    store = std::make_unique<LmdbStore>(dir, power);
  }

  // load: every membership, 1,000 to a transaction.
  std::vector<std::vector<std::uint32_t>> rooms(w.users);
  for (std::uint32_t u = 0; u < w.users; ++u) rooms[u] = rooms_of(w, u);
  auto t0 = std::chrono::steady_clock::now();
  std::uint32_t in_txn = 0;
  store->begin();
  for (std::uint32_t u = 0; u < w.users; ++u) {
    const std::string user = user_name(u);
    for (std::uint32_t r : rooms[u]) {
      store->put(user, room_name(r), Record{});
      if (++in_txn == 1000) {
        store->commit();
        store->begin();
        in_txn = 0;
      }
    }
  }
  store->commit();
  const double load_s = seconds_since(t0);
  const double memberships = double(w.users) * w.rooms_per_user;

  // update: random read markers, --batch to a transaction.
  std::mt19937_64 rng(w.seed);
  std::uniform_int_distribution<std::uint32_t> pick_user(0, w.users - 1);
  std::uniform_int_distribution<std::uint32_t> pick_slot(0, w.rooms_per_user - 1);
  t0 = std::chrono::steady_clock::now();
  for (std::uint32_t done = 0; done < w.updates;) {
    store->begin();
    for (std::uint32_t i = 0; i < w.batch && done < w.updates; ++i, ++done) {
      const std::uint32_t u = pick_user(rng);
      store->set_read(user_name(u), room_name(rooms[u][pick_slot(rng)]), done + 1);
    }
    store->commit();
  }
  const double update_s = seconds_since(t0);

  // open: every room of a random user.
  t0 = std::chrono::steady_clock::now();
  std::size_t read = 0;
  for (std::uint32_t i = 0; i < w.opens; ++i) read += store->open_user(user_name(pick_user(rng)));
  const double open_s = seconds_since(t0);
  if (read != std::size_t{w.opens} * w.rooms_per_user)
    throw std::runtime_error(name + ": opens read " + std::to_string(read) + " records");

  // members: every member of a random room (the count checked against the
  // memberships loaded).
  std::vector<std::uint32_t> per_room(w.rooms, 0);
  for (const auto& list : rooms)
    for (std::uint32_t r : list) ++per_room[r];
  std::uniform_int_distribution<std::uint32_t> pick_room(0, w.rooms - 1);
  t0 = std::chrono::steady_clock::now();
  std::size_t listed = 0;
  std::size_t expected = 0;
  for (std::uint32_t i = 0; i < w.opens; ++i) {
    const std::uint32_t r = pick_room(rng);
    listed += store->members(room_name(r));
    expected += per_room[r];
  }
  const double members_s = seconds_since(t0);
  if (listed != expected)
    throw std::runtime_error(name + ": members read " + std::to_string(listed) + " of " +
                             std::to_string(expected));
  store.reset();

  std::printf(
      "{\"store\":\"%s\",\"durable_to\":\"%s\",\"memberships\":%.0f,\"load_us_per_membership\":%."
      "3f,"
      "\"updates\":%u,\"batch\":%u,\"update_us\":%.3f,\"opens\":%u,\"rooms_per_user\":%u,"
      "\"open_us\":%.2f,\"members_us\":%.2f,\"members_per_room\":%.1f,\"bytes_on_disk\":%ju,"
      "\"bytes_per_membership\":%.1f}\n",
      name.c_str(), level.c_str(), memberships, load_s * 1e6 / memberships, w.updates, w.batch,
      update_s * 1e6 / w.updates, w.opens, w.rooms_per_user, open_s * 1e6 / w.opens,
      members_s * 1e6 / w.opens, memberships / w.rooms, bytes_under(dir),
      double(bytes_under(dir)) / memberships);
  std::fflush(stdout);
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  Workload w;
  std::string dir = "/tmp/herald-s1";
  std::vector<std::string> stores{"sqlite", "lmdb"};
  std::vector<std::string> levels{"process", "power"};
  CLI::App app{"S1: the per-user room state store, SQLite against LMDB (docs/benchmarks.md)"};
  app.add_option("--users", w.users)->capture_default_str();
  app.add_option("--rooms-per-user", w.rooms_per_user)->capture_default_str();
  app.add_option("--rooms", w.rooms, "rooms the memberships are drawn from")->capture_default_str();
  app.add_option("--updates", w.updates, "read-marker changes timed")->capture_default_str();
  app.add_option("--batch", w.batch, "read-marker changes per transaction")->capture_default_str();
  app.add_option("--opens", w.opens, "users whose rooms are read, timed")->capture_default_str();
  app.add_option("--dir", dir, "where the stores' files go (removed after)")->capture_default_str();
  app.add_option("--stores", stores)->capture_default_str();
  app.add_option("--durable-to", levels, "process, power")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (w.rooms_per_user > w.rooms || w.batch == 0 || w.users == 0) {
    std::fprintf(stderr, "need rooms-per-user <= rooms, batch >= 1, users >= 1\n");
    return 2;
  }
  try {
    for (const auto& level : levels)
      for (const auto& store : stores) run(store, level, w, dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_state_store: %s\n", e.what());
    return 1;
  }
  return 0;
}
