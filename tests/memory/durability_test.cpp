// Durable MemoryGraph: round trips through checkpoint, restart and log replay; torn and damaged
// files; a failing disk; real processes killed with SIGKILL while they write.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "memory/durable/codec.hpp"
#include "memory/durable/files.hpp"
#include "propgraph/deadline.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"

extern char** environ;

namespace propgraph {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() / fmt::format("propgraph-durability-{}-{}", ::getpid(), counter++);
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

MemoryOptions durable(const fs::path& dir, SyncPolicy sync = SyncPolicy::every_commit) {
  return MemoryOptions{.data_dir = dir, .sync = sync, .checkpoint_log_bytes = 0};
}

/// Everything a reader can ask, in one comparable string.
std::string describe(MemoryGraph& g) {
  std::string out = fmt::format("vertices {} edges {}\n", g.count_vertices(), g.count_edges());
  for (const auto& label : g.vertex_labels()) {
    for (const auto& v : g.find_vertices_by_label(label)) out += fmt::format("{}\n", v);
  }
  for (const auto& label : g.edge_labels()) {
    for (const auto& e : g.find_edges_by_label(label)) out += fmt::format("{}\n", e);
  }
  for (const auto& i : g.indexes()) out += fmt::format("index {}.{} unique={}\n", i.label, i.key, i.unique);
  return out;
}

/// A graph with every value type, unicode, a big list, deleted elements and indexes.
void populate(MemoryGraph& g) {
  g.create_index("Person", "email", {.unique = true});
  g.create_index("Person", "age");
  ValueList big;
  for (int i = 0; i < 2000; ++i) big.push_back(i % 3 == 0 ? Value(i) : i % 3 == 1 ? Value(i * 0.5) : Value("s"));
  auto alice = g.create_vertex("Person", {{"name", "Alice"},
                                          {"email", "a@x"},
                                          {"age", 30},
                                          {"score", 1.5},
                                          {"ok", true},
                                          {"tags", Value::list({1, "two", 3.0, Value::list({})})}});
  auto bob = g.create_vertex("Person", {{"name", "Bøb ✓ 日本"}, {"email", "b@x"}, {"age", 25}, {"big", big}});
  auto gone = g.create_vertex("Person", {{"name", "Gone"}, {"email", "g@x"}});
  auto city = g.create_vertex("City", {{"name", "Zürich"}, {"nan", std::nan("")}, {"neg", -0.0}});
  g.create_edge(alice.id, bob.id, "KNOWS", {{"since", 2020}});
  g.create_edge(bob.id, bob.id, "SELF");
  g.create_edge(alice.id, gone.id, "KNOWS");
  g.create_edge(alice.id, city.id, "LIVES_IN", {{"weight", 0.25}});
  g.update_vertex("Person", alice.id, {{"age", 31}, {"ok", nullptr}});
  ASSERT_TRUE(g.delete_vertex("Person", gone.id));
  transact(g, [&](Transaction& tx) {
    auto carol = tx.create_vertex("Person", {{"name", "Carol"}, {"email", "c@x"}});
    tx.create_edge(carol.id, alice.id, "KNOWS");
  });
  auto tx = g.begin();
  tx->create_vertex("Person", {{"name", "Rolled back"}});
  tx->rollback();
}

TEST(Durability, ReopeningGivesBackTheSameGraphWithAndWithoutACheckpoint) {
  for (bool checkpoint : {false, true}) {
    TempDir dir;
    std::string before;
    ElementId last;
    {
      MemoryGraph g(durable(dir.path()));
      populate(g);
      if (checkpoint) {
        g.checkpoint();
        g.create_vertex("Person", {{"name", "After the checkpoint"}, {"email", "d@x"}});  // replayed from the log
      }
      before = describe(g);
      last = g.find_vertices_by_label("Person", {}, {}).back().id;
    }
    MemoryGraph g(durable(dir.path()));
    EXPECT_EQ(describe(g), before) << "checkpoint=" << checkpoint;
    // Unique indexes still hold, ids are never reused and the graph takes writes.
    EXPECT_THROW(g.create_vertex("Person", {{"email", "a@x"}}), AlreadyExists);
    auto next = g.create_vertex("Person", {{"name", "Next"}});
    EXPECT_LT(last, next.id);
    EXPECT_EQ(g.find_vertices_by_label("Person", {{"email", "b@x"}}).size(), 1u);
  }
}

TEST(Durability, IdsOfDeletedAndRolledBackElementsAreNeverIssuedAgain) {
  TempDir dir;
  std::set<ElementId> issued;
  for (int round = 0; round < 3; ++round) {
    MemoryGraph g(durable(dir.path()));
    for (int i = 0; i < 5; ++i) {
      auto v = g.create_vertex("Item", {{"i", i}});
      EXPECT_TRUE(issued.insert(v.id).second) << v.id.str();
      if (i % 2 == 0) g.delete_vertex("Item", v.id);
    }
    auto tx = g.begin();
    EXPECT_TRUE(issued.insert(tx->create_vertex("Item").id).second);
    tx->rollback();
    if (round == 1) g.checkpoint();
  }
}

TEST(Durability, ASecondOpenOfTheSameDirectoryIsRefused) {
  TempDir dir;
  MemoryGraph g(durable(dir.path()));
  try {
    MemoryGraph again(durable(dir.path()));
    FAIL() << "opened twice";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
  }
}

/// The newest log segment.
fs::path newest_log(const fs::path& dir) {
  fs::path newest;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("wal-") && entry.path() > newest) newest = entry.path();
  }
  return newest;
}

/// A copy of the data directory `dir` (without its lock file).
std::unique_ptr<TempDir> copy_of(const fs::path& dir) {
  auto copy = std::make_unique<TempDir>();
  fs::copy(dir, copy->path());
  fs::remove(copy->path() / "LOCK");
  return copy;
}

TEST(Durability, ATornLastRecordIsDroppedAtEveryByteOffset) {
  TempDir dir;
  std::string before_last;
  std::uintmax_t size_before_last = 0;
  std::unique_ptr<TempDir> crashed;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "kept"}});
    before_last = describe(g);
    size_before_last = fs::file_size(newest_log(dir.path()));
    g.create_vertex("Person", {{"name", "torn"}, {"note", std::string(40, 'x')}});
    // The files as a crash right now leaves them: a record whose append a crash cut short is
    // one the log never said was synced (closing says so for everything; see the tests of a
    // synced tail that is damaged below).
    crashed = copy_of(dir.path());
  }
  const fs::path log = newest_log(crashed->path());
  std::ifstream in(log, std::ios::binary);
  const std::string full((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(full.size(), size_before_last);
  for (std::size_t cut = size_before_last; cut < full.size(); ++cut) {
    auto copy = copy_of(crashed->path());
    std::ofstream(copy->path() / log.filename(), std::ios::binary | std::ios::trunc)
        .write(full.data(), static_cast<std::streamsize>(cut));
    MemoryGraph g(durable(copy->path()));
    ASSERT_EQ(describe(g), before_last) << "cut at " << cut;
  }
}

/// Flips one byte of `file` at `offset`.
void flip(const fs::path& file, std::uintmax_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5a));
}

TEST(Durability, DamageInAnEarlierLogRecordRefusesToOpenNamingFileAndOffset) {
  TempDir dir;
  std::uintmax_t first_end = 0;
  std::string before_damage;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    before_damage = describe(g);
    first_end = fs::file_size(newest_log(dir.path()));
    g.create_vertex("Person", {{"name", "b"}});
    g.create_vertex("Person", {{"name", "c"}});
  }
  const fs::path log = newest_log(dir.path());
  flip(log, first_end + 20);  // inside the record of "b", which "c" follows
  try {
    MemoryGraph g(durable(dir.path()));
    FAIL() << "opened a damaged log";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.file(), log.string());
    ASSERT_TRUE(e.offset());
    EXPECT_EQ(*e.offset(), first_end);
  }
  // The documented way to open anyway: everything before the damage.
  MemoryOptions options = durable(dir.path());
  options.recovery = RecoveryMode::truncate_at_damage;
  MemoryGraph g(options);
  EXPECT_EQ(describe(g), before_damage);
}

/// The data directory's snapshot file (empty when there is none).
fs::path the_snapshot(const fs::path& dir) {
  fs::path snapshot;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".snap") snapshot = entry.path();
  }
  return snapshot;
}

/// Opening a copy of `dir` with the byte at `offset` of its snapshot flipped fails with a
/// StorageError naming the snapshot and an offset at most `offset` and less than `within`
/// before it.
void expect_refused_naming_damage(const fs::path& dir, const fs::path& snapshot, std::uintmax_t offset,
                                  std::uintmax_t within) {
  TempDir copy;
  fs::copy(dir, copy.path());
  fs::remove(copy.path() / "LOCK");
  flip(copy.path() / snapshot.filename(), offset);
  try {
    MemoryGraph g(durable(copy.path()));
    FAIL() << "opened a damaged snapshot (byte " << offset << ")";
  } catch (const StorageError& e) {
    EXPECT_EQ(fs::path(e.file()).filename(), snapshot.filename());
    ASSERT_TRUE(e.offset());
    EXPECT_LE(*e.offset(), offset);
    EXPECT_GT(*e.offset() + within, offset) << e.what();
  }
}

TEST(Durability, DamageInTheSnapshotRefusesToOpenNamingFileAndOffset) {
  TempDir dir;
  {
    MemoryGraph g(durable(dir.path()));
    for (int i = 0; i < 100; ++i) g.create_vertex("Person", {{"i", i}});
    g.checkpoint();
  }
  const fs::path snapshot = the_snapshot(dir.path());
  ASSERT_FALSE(snapshot.empty());
  for (std::uintmax_t offset : {std::uintmax_t{10}, fs::file_size(snapshot) / 2, fs::file_size(snapshot) - 3}) {
    expect_refused_naming_damage(dir.path(), snapshot, offset, fs::file_size(snapshot));
  }
}

/// Many edges: several snapshot blocks (16384 records each), decoded in two halves at once.
/// Some live, some deleted, without properties, with small maps and with maps past 255 bytes
/// (these take more heap room than their share of the records' bytes, so some blocks are
/// decoded again once the room set aside for them is full).
std::vector<ElementId> add_many_edges(MemoryGraph& g, int count) {
  std::vector<ElementId> people;
  for (int i = 0; i < 300; ++i) people.push_back(g.create_vertex("Person", {{"i", i}}).id);
  std::vector<NewEdge> edges;
  for (int i = 0; i < count; ++i) {
    Properties props;
    if (i % 5 == 1) {
      props = {{"note", std::string(300 + i % 40, static_cast<char>('a' + i % 26))}, {"i", i}};
    } else if (i % 7 != 0) {
      props = {{"w", i}};
    }
    edges.push_back({people[static_cast<std::size_t>(i * 7919) % people.size()],
                     people[static_cast<std::size_t>(i) % people.size()], i % 3 == 0 ? "KNOWS" : "FOLLOWS",
                     std::move(props)});
  }
  auto ids = g.create_edges(edges);
  for (std::size_t i = 0; i < ids.size(); i += 11) EXPECT_TRUE(g.delete_edge(i % 3 == 0 ? "KNOWS" : "FOLLOWS", ids[i]));
  return ids;
}

TEST(Durability, ManyEdgeBlocksComeBackExactlyWithTheLogAfterTheSnapshot) {
  TempDir dir;
  std::string before;
  {
    MemoryGraph g(durable(dir.path(), SyncPolicy::none));
    const auto ids = add_many_edges(g, 60000);
    g.checkpoint();
    // Replayed onto the snapshot's edges: new maps, deletions, and edges past its slots.
    for (std::size_t i = 2; i < ids.size(); i += 997) {
      if (i % 11 == 0) continue;  // deleted before
      ASSERT_TRUE(g.update_edge(i % 3 == 0 ? "KNOWS" : "FOLLOWS", ids[i], {{"w", nullptr}, {"after", "snapshot"}}));
    }
    for (std::size_t i = 3; i < ids.size(); i += 1009) {
      if (i % 11 != 0) {
        ASSERT_TRUE(g.delete_edge(i % 3 == 0 ? "KNOWS" : "FOLLOWS", ids[i]));
      }
    }
    add_many_edges(g, 100);
    before = describe(g);
  }
  MemoryGraph g(durable(dir.path()));
  const std::string after = describe(g);
  EXPECT_EQ(after.size(), before.size());
  EXPECT_TRUE(after == before) << "the graph differs after reopening";
  // And once more from a snapshot of the recovered graph.
  g.checkpoint();
}

TEST(Durability, DamageInAnEdgeBlockRefusesToOpenNamingFileAndOffset) {
  TempDir dir;
  {
    MemoryGraph g(durable(dir.path(), SyncPolicy::none));
    add_many_edges(g, 60000);
    g.checkpoint();
  }
  const fs::path snapshot = the_snapshot(dir.path());
  ASSERT_FALSE(snapshot.empty());
  const auto size = fs::file_size(snapshot);
  // Edge blocks fill most of the file: damage in the first half of them, the second, the last;
  // the error names the damaged block (under 1 MiB each), not a later one.
  for (std::uintmax_t offset : {size / 3, size / 2, size * 2 / 3, size * 9 / 10}) {
    expect_refused_naming_damage(dir.path(), snapshot, offset, std::uintmax_t{1} << 20);
  }
}

/// Fails the chosen file operation with `err` while it lives (on the files `which` picks, or on
/// all).
class FailingDisk {
 public:
  FailingDisk(detail::durable::FileOp op, int err, std::function<bool(const fs::path&)> which = {}) {
    detail::durable::set_fault_injector([op, err, which](detail::durable::FileOp o, const fs::path& path) {
      return o == op && (!which || which(path)) ? err : 0;
    });
  }
  ~FailingDisk() { detail::durable::set_fault_injector({}); }
  FailingDisk(const FailingDisk&) = delete;
  FailingDisk& operator=(const FailingDisk&) = delete;
};

/// Whether `path` is a log segment (or a temporary one) / a snapshot (or a temporary one).
bool is_log(const fs::path& path) { return path.filename().string().starts_with("wal-"); }
bool is_snapshot(const fs::path& path) { return path.filename().string().starts_with("snapshot-"); }

TEST(Durability, AFullDiskFailsTheWriteAndChangesNothing) {
  TempDir dir;
  std::optional<MemoryGraph> graph;
  graph.emplace(durable(dir.path()));
  MemoryGraph& g = *graph;
  auto a = g.create_vertex("Person", {{"name", "a"}});
  const std::string before = describe(g);
  {
    FailingDisk full(detail::durable::FileOp::write, ENOSPC);
    EXPECT_THROW(g.create_vertex("Person", {{"name", "b"}}), StorageError);
    EXPECT_THROW(g.update_vertex("Person", a.id, {{"name", "c"}}), StorageError);
    auto tx = g.begin();
    tx->create_vertex("Person", {{"name", "d"}});
    EXPECT_THROW(tx->commit(), StorageError);
    EXPECT_EQ(describe(g), before);
  }
  // Space again: the graph takes writes, and reopening holds exactly what was acknowledged.
  g.create_vertex("Person", {{"name", "e"}});
  const std::string after = describe(g);
  graph.reset();
  graph.emplace(durable(dir.path()));
  EXPECT_EQ(describe(*graph), after);
}

TEST(Durability, AFailedSyncClosesTheGraphForWritesAndReadsAndReopeningRecovers) {
  TempDir dir;
  std::string durable_state;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    durable_state = describe(g);
    {
      FailingDisk broken(detail::durable::FileOp::sync, EIO);
      EXPECT_THROW(g.create_vertex("Person", {{"name", "b"}}), StorageError);
    }
    EXPECT_THROW(g.create_vertex("Person", {{"name", "c"}}), StorageError);  // closed for writes
    // "b" was applied before its sync failed: a read would show a write that may not be on disk.
    EXPECT_THROW(g.count_vertices(), StorageError);
    EXPECT_THROW(g.find_vertices_by_label("Person"), StorageError);
  }
  MemoryGraph g(durable(dir.path()));
  EXPECT_GE(g.count_vertices(), 1);
  EXPECT_EQ(g.find_vertices_by_label("Person", {{"name", "a"}}).size(), 1u);
  EXPECT_NO_THROW(g.create_vertex("Person", {{"name", "d"}}));
}

/// Holds every sync of durable graphs (the log's fdatasync) until release(), so that a test can
/// look at the graph while a write is applied but not yet synced.
class HeldSyncs {
 public:
  HeldSyncs() {
    detail::durable::set_fault_injector([this](detail::durable::FileOp op, const fs::path&) {
      if (op != detail::durable::FileOp::sync) return 0;
      std::unique_lock lock(mutex_);
      ++entered_;
      changed_.notify_all();
      changed_.wait_for(lock, 30s, [&] { return released_; });  // bounded: a broken test ends
      return 0;
    });
  }
  ~HeldSyncs() {
    release();
    detail::durable::set_fault_injector({});
  }
  HeldSyncs(const HeldSyncs&) = delete;
  HeldSyncs& operator=(const HeldSyncs&) = delete;

  /// Waits until a sync is being held.
  void wait_for_sync() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return entered_ > 0; });
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      released_ = true;
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int entered_ = 0;
  bool released_ = false;
};

/// Runs fn on a thread of its own; done() says whether it has returned (or thrown).
class Call {
 public:
  explicit Call(std::function<void()> fn)
      : thread_([this, fn = std::move(fn)] {
          try {
            fn();
          } catch (...) {
            error_ = std::current_exception();
          }
          done_ = true;
        }) {}
  ~Call() {
    if (thread_.joinable()) thread_.join();
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  [[nodiscard]] bool done() const { return done_.load(); }
  /// Joins; rethrows what fn threw.
  void join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> done_{false};
  std::exception_ptr error_;
  std::thread thread_;
};

TEST(Durability, EveryCommitShowsNobodyAWriteBeforeItIsSynced) {
  TempDir dir;
  MemoryGraph g(durable(dir.path()));
  g.create_index("Person", "email", {.unique = true});
  g.create_vertex("Person", {{"name", "a"}, {"email", "a@x"}});
  HeldSyncs held;
  Call writer([&] { g.create_vertex("Person", {{"name", "b"}, {"email", "b@x"}}); });
  held.wait_for_sync();  // "b" is logged (the only record to sync), maybe not yet applied
  std::int64_t counted = 0;
  Call reader([&] { counted = g.count_vertices(); });
  std::vector<Vertex> found;
  Call scanner([&] { found = g.find_vertices_by_label("Person", {{"email", "b@x"}}); });
  // A write that fails because of "b" reveals it as much as a read does.
  Call duplicate([&] { EXPECT_THROW(g.create_vertex("Person", {{"email", "b@x"}}), AlreadyExists); });
  // A write that logs nothing waits as well: its answer may rest on the writes before it.
  bool deleted = true;
  Call no_op([&] { deleted = g.delete_vertex("Person", ElementId("unknown")); });
  auto tx = g.begin();
  std::int64_t counted_in_tx = 0;
  Call tx_reader([&] { counted_in_tx = tx->count_vertices(); });
  // A writing transaction's calls answer at once (it holds the gate); its commit waits for
  // what it saw, though it logged nothing.
  auto writing = g.begin();
  Call tx_commit([&] {
    EXPECT_FALSE(writing->delete_vertex("Person", ElementId("unknown")));
    writing->commit();
  });
  // A read with a deadline gives up: Timeout, no answer.
  Call timed([&] {
    DeadlineScope scope(20ms);
    EXPECT_THROW(g.count_vertices(), Timeout);
  });
  timed.join();
  std::this_thread::sleep_for(50ms);  // time enough for a call that does not wait to return
  EXPECT_FALSE(writer.done());
  EXPECT_FALSE(reader.done());
  EXPECT_FALSE(scanner.done());
  EXPECT_FALSE(duplicate.done());
  EXPECT_FALSE(no_op.done());
  EXPECT_FALSE(tx_reader.done());
  EXPECT_FALSE(tx_commit.done());
  held.release();
  writer.join();
  reader.join();
  scanner.join();
  duplicate.join();
  no_op.join();
  tx_reader.join();
  tx_commit.join();
  // A read that took the lock just before "b" was applied saw the graph without it.
  EXPECT_GE(counted, 1);
  EXPECT_LE(found.size(), 1u);
  EXPECT_FALSE(deleted);
  EXPECT_GE(counted_in_tx, 1);
  EXPECT_EQ(g.count_vertices(), 2);
}

TEST(Durability, IntervalAndNoneShowWritesBeforeTheyAreSynced) {
  for (const auto policy : {SyncPolicy::interval, SyncPolicy::none}) {
    TempDir dir;
    MemoryGraph g(durable(dir.path(), policy));
    g.create_vertex("Person", {{"name", "a"}});
    HeldSyncs held;  // interval's periodic sync is held; none never syncs
    g.create_vertex("Person", {{"name", "b"}});  // returns at once: the policy does not wait
    EXPECT_EQ(g.count_vertices(), 2);
  }
}

// -- a failing disk: partial writes, failed syncs, failed checkpoints, lost log files -----------

using detail::durable::FileOp;

/// Opens `dir` strictly and expects `want`; then once more with truncate_at_damage.
void expect_reopens_as(const fs::path& dir, const std::string& want, const std::string& what) {
  for (auto mode : {RecoveryMode::strict, RecoveryMode::truncate_at_damage}) {
    auto copy = copy_of(dir);
    MemoryOptions options = durable(copy->path());
    options.recovery = mode;
    try {
      MemoryGraph g(options);
      EXPECT_EQ(describe(g), want) << what;
    } catch (const StorageError& e) {
      ADD_FAILURE() << what << ": " << e.what();
    }
  }
}

TEST(DurabilityFaults, ACheckpointFailingOnAFullDiskLeavesNothingAReopenTakesForDamage) {
  TempDir dir;
  std::string expected;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    {
      // Its new log segment cannot be written: the checkpoint fails before its snapshot.
      FailingDisk full(FileOp::write, ENOSPC, is_log);
      EXPECT_THROW(g.checkpoint(), StorageError);
    }
    g.create_vertex("Person", {{"name", "b"}});
    {
      // The next one starts its segment, then its snapshot does not fit.
      FailingDisk full(FileOp::write, ENOSPC, is_snapshot);
      EXPECT_THROW(g.checkpoint(), StorageError);
    }
    g.create_vertex("Person", {{"name", "c"}});
    expected = describe(g);
  }
  // No log segment without its header, no temporary file.
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    if (is_log(entry.path())) {
      EXPECT_GE(fs::file_size(entry.path()), 32u) << entry.path();
    }
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  }
  expect_reopens_as(dir.path(), expected, "after the failed checkpoints");
}

/// The log segments of `dir`, oldest first.
std::vector<fs::path> log_segments(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (is_log(entry.path()) && entry.path().extension() == ".log") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Rewrites a log segment of this build in format version 2, as builds before marks wrote it:
/// the 32-byte header without the marks, then the records.
void to_version_2(const fs::path& segment) {
  std::ifstream in(segment, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  ASSERT_GE(bytes.size(), 80u);
  ASSERT_EQ(bytes.substr(0, 8), "PGWAL001");
  std::string header = bytes.substr(0, 24);
  const std::uint32_t version = 2;
  std::memcpy(header.data() + 8, &version, sizeof version);
  const std::uint64_t sum = detail::durable::checksum(header.data(), header.size());
  header.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  std::ofstream(segment, std::ios::binary | std::ios::trunc) << header << bytes.substr(80);
}

TEST(DurabilityFaults, LogSegmentsOfTheFormatBeforeAndTheEmptySegmentsAFailedCheckpointLeftThereStillOpen) {
  TempDir dir;
  std::string expected;
  std::string before_torn;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    g.create_vertex("Person", {{"name", "b"}});
  }
  {
    MemoryGraph g(durable(dir.path()));  // starts a second segment
    g.create_vertex("Person", {{"name", "c"}});
    before_torn = describe(g);
    g.create_vertex("Person", {{"name", "torn"}});
    expected = describe(g);
  }
  const auto segments = log_segments(dir.path());
  ASSERT_EQ(segments.size(), 2u);
  for (const auto& segment : segments) to_version_2(segment);
  expect_reopens_as(dir.path(), expected, "version 2");
  // Its tail may be torn anywhere: nothing there says what was synced.
  {
    auto torn = copy_of(dir.path());
    fs::resize_file(torn->path() / segments[1].filename(), fs::file_size(segments[1]) - 5);
    expect_reopens_as(torn->path(), before_torn, "version 2, torn");
  }
  // Between the segments, an empty one: a checkpoint of such a build failed writing its header
  // and the records went on in the first segment.
  const auto lsn_of = [](const fs::path& p) { return std::stoull(p.stem().string().substr(4)); };
  const auto first = lsn_of(segments[0]);
  const auto second = lsn_of(segments[1]);
  ASSERT_GE(second - first, 2u);
  std::ofstream(dir.path() / fmt::format("wal-{:020}.log", first + 1), std::ios::binary);
  expect_reopens_as(dir.path(), expected, "an empty segment between");
}

/// Opening `dir` strictly fails with a StorageError naming the file `file_name` at `offset`;
/// with truncate_at_damage it opens with `what_is_left`.
void expect_damage(const fs::path& dir, const std::string& file_name, std::uintmax_t offset,
                   const std::string& what_is_left, const std::string& what) {
  {
    auto copy = copy_of(dir);
    try {
      MemoryGraph g(durable(copy->path()));
      ADD_FAILURE() << what << ": opened";
    } catch (const StorageError& e) {
      EXPECT_EQ(fs::path(e.file()).filename().string(), file_name) << what << ": " << e.what();
      EXPECT_EQ(e.offset(), std::optional<std::uint64_t>(offset)) << what << ": " << e.what();
    }
  }
  auto copy = copy_of(dir);
  MemoryOptions options = durable(copy->path());
  options.recovery = RecoveryMode::truncate_at_damage;
  MemoryGraph g(options);
  EXPECT_EQ(describe(g), what_is_left) << what;
}

TEST(DurabilityFaults, ASyncedLogTailThatIsZeroedOrCutIsDamageNotATornRecord) {
  TempDir dir;
  std::uintmax_t b_end = 0;
  std::string before_c;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    g.create_vertex("Person", {{"name", "b"}});
    before_c = describe(g);
    b_end = fs::file_size(newest_log(dir.path()));
    g.create_vertex("Person", {{"name", "c"}, {"note", std::string(40, 'x')}});
  }  // closed: every record synced, and the log says so
  const fs::path log = newest_log(dir.path());
  const auto size = fs::file_size(log);
  const auto zero = [](const fs::path& file, std::uintmax_t from, std::uintmax_t to) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(from));
    const std::string zeros(to - from, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  };
  struct Case {
    const char* what;
    std::function<void(const fs::path&)> damage;
  };
  const Case cases[] = {
      {"the last record zeroed", [&](const fs::path& f) { zero(f, b_end, size); }},
      {"the last 8 bytes zeroed", [&](const fs::path& f) { zero(f, size - 8, size); }},
      {"cut inside the last record", [&](const fs::path& f) { fs::resize_file(f, b_end + 10); }},
      {"cut before the last record", [&](const fs::path& f) { fs::resize_file(f, b_end); }},
  };
  for (const auto& c : cases) {
    auto damaged = copy_of(dir.path());
    c.damage(damaged->path() / log.filename());
    expect_damage(damaged->path(), log.filename().string(), b_end, before_c, c.what);
  }
}

TEST(DurabilityFaults, ADeletedLogSegmentIsDamageNotAShorterLog) {
  TempDir dir;
  std::string at_checkpoint;
  std::string after_b;
  fs::path snapshot_log;
  std::unique_ptr<TempDir> after_first;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    g.checkpoint();
    at_checkpoint = describe(g);
    g.create_vertex("Person", {{"name", "b"}});  // in wal-<the snapshot's lsn>.log
    after_b = describe(g);
    snapshot_log = newest_log(dir.path());
  }
  after_first = copy_of(dir.path());
  fs::path newest;
  {
    MemoryGraph g(durable(dir.path()));  // starts the next segment
    g.create_vertex("Person", {{"name", "c"}});
    newest = newest_log(dir.path());
  }
  ASSERT_NE(snapshot_log, newest);
  // The segment the snapshot's log goes on in, the only one.
  fs::remove(after_first->path() / snapshot_log.filename());
  expect_damage(after_first->path(), snapshot_log.filename().string(), 0, at_checkpoint, "the snapshot's segment");
  // The newest segment.
  auto without_newest = copy_of(dir.path());
  fs::remove(without_newest->path() / newest.filename());
  expect_damage(without_newest->path(), newest.filename().string(), 0, after_b, "the newest segment");
}

/// Injects `injector`'s faults while it lives.
class Faults {
 public:
  explicit Faults(detail::durable::FaultInjector injector) { detail::durable::set_disk_faults(std::move(injector)); }
  ~Faults() { detail::durable::set_disk_faults({}); }
  Faults(const Faults&) = delete;
  Faults& operator=(const Faults&) = delete;
};

using detail::durable::Fault;
using detail::durable::FaultInjector;

/// A disk that takes `budget` more bytes of writes to the files `which` picks, then fails them
/// with `err` (part-way through the write that crosses the budget: that many bytes reach the file).
FaultInjector fills_after(std::function<bool(const fs::path&)> which, std::size_t budget, int err = ENOSPC) {
  return [which, budget, err](FileOp op, const fs::path& path, std::size_t size) mutable {
    if (op != FileOp::write || !which(path)) return Fault{};
    if (size <= budget) {
      budget -= size;
      return Fault{};
    }
    const Fault fault{.error = err, .bytes = budget};
    budget = 0;
    return fault;
  };
}

/// Writes to the files `which` picks go through at most `chunk` bytes a call.
FaultInjector short_writes(std::function<bool(const fs::path&)> which, std::size_t chunk) {
  return [which, chunk](FileOp op, const fs::path& path, std::size_t size) {
    return op == FileOp::write && which(path) ? Fault{.bytes = std::min(size, chunk)} : Fault{};
  };
}

/// `op` on the files `which` picks fails with `err`.
FaultInjector fails(FileOp op, std::function<bool(const fs::path&)> which, int err) {
  return [op, which, err](FileOp o, const fs::path& path, std::size_t) {
    return o == op && which(path) ? Fault{.error = err} : Fault{};
  };
}

/// Fails when `dir` holds a temporary file or a log segment shorter than its header.
void expect_no_leftovers(const fs::path& dir, const std::string& what) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_NE(entry.path().extension(), ".tmp") << what << ": " << entry.path();
    if (is_log(entry.path())) {
      EXPECT_GE(fs::file_size(entry.path()), 80u) << what << ": " << entry.path();
    }
  }
}

TEST(DurabilityFaults, ALogWriteThatFailsPartWayIsCutBackAndTheNextWriteFollowsIt) {
  const std::string note(60, 'n');  // the record of "b" is about 100 bytes
  for (const int err : {ENOSPC, EIO}) {
    for (const std::size_t budget : {0, 1, 16, 17, 90}) {
      const std::string what = fmt::format("{} after {} bytes", std::strerror(err), budget);
      TempDir dir;
      std::string expected;
      {
        MemoryGraph g(durable(dir.path()));
        const auto a = g.create_vertex("Person", {{"name", "a"}});
        {
          Faults disk(fills_after(is_log, budget, err));
          EXPECT_THROW(g.create_vertex("Person", {{"name", "b"}, {"note", note}}), StorageError) << what;
          EXPECT_THROW(g.update_vertex("Person", a.id, {{"note", note}}), StorageError) << what;
        }
        // Space again: the next records go right after "a", no gap.
        g.create_vertex("Person", {{"name", "c"}, {"note", note}});
        g.update_vertex("Person", a.id, {{"note", "d"}});
        expected = describe(g);
      }
      expect_reopens_as(dir.path(), expected, what);
    }
  }
  // Writes that go through a few bytes at a time.
  TempDir dir;
  std::string expected;
  {
    MemoryGraph g(durable(dir.path()));
    Faults disk(short_writes(is_log, 7));
    for (int i = 0; i < 5; ++i) g.create_vertex("Person", {{"i", i}, {"note", note}});
    g.checkpoint();
    g.create_vertex("Person", {{"name", "after"}});
    expected = describe(g);
  }
  expect_reopens_as(dir.path(), expected, "short writes");
}

TEST(DurabilityFaults, ALogWriteThatCannotBeCutBackClosesTheLog) {
  TempDir dir;
  std::string expected;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "a"}});
    expected = describe(g);
    {
      auto full = fills_after(is_log, 20);
      Faults disk([full](FileOp op, const fs::path& path, std::size_t size) mutable {
        return op == FileOp::truncate ? Fault{.error = EIO} : full(op, path, size);
      });
      EXPECT_THROW(g.create_vertex("Person", {{"name", "b"}}), StorageError);
    }
    // Part of "b" is still at the end of the log: nothing may follow it.
    EXPECT_THROW(g.create_vertex("Person", {{"name", "c"}}), StorageError);
  }
  expect_reopens_as(dir.path(), expected, "after a write that could not be cut back");
}

TEST(DurabilityFaults, BufferedLogWritesThatFailPartWayCloseTheLogAndKeepAPrefix) {
  TempDir dir;
  std::string expected;
  {
    MemoryGraph g(durable(dir.path(), SyncPolicy::interval));
    g.create_vertex("Person", {{"name", "a"}});
    g.checkpoint();  // "a" is durable
    expected = describe(g);
    Faults disk(fills_after(is_log, 30));
    g.create_vertex("Person", {{"name", "b"}});  // acknowledged before it is written: the policy
    // The syncer's write fails within a few intervals; from then on the log is closed.
    bool closed = false;
    for (int i = 0; i < 500 && !closed; ++i) {
      std::this_thread::sleep_for(2ms);
      try {
        g.create_vertex("Person", {{"name", "probe"}});
      } catch (const StorageError&) {
        closed = true;
      }
    }
    EXPECT_TRUE(closed);
  }
  expect_reopens_as(dir.path(), expected, "interval");
}

TEST(DurabilityFaults, ASnapshotOrSegmentThatCannotBeWrittenOrSyncedFailsTheCheckpointAndLeavesNoTrace) {
  const auto is_dir = [](const fs::path& p) { return p.extension().empty(); };
  struct Case {
    std::string what;
    FaultInjector injector;
    bool fails = true;
  };
  const Case cases[] = {
      {"snapshot: full disk at once", fills_after(is_snapshot, 0)},
      {"snapshot: full disk after 100 bytes", fills_after(is_snapshot, 100)},
      {"snapshot: full disk after 5000 bytes", fills_after(is_snapshot, 5000)},
      {"snapshot: EIO after 3000 bytes", fills_after(is_snapshot, 3000, EIO)},
      {"snapshot: EIO on its sync", fails(FileOp::sync, is_snapshot, EIO)},
      {"snapshot: rename fails", fails(FileOp::rename, is_snapshot, EIO)},
      {"snapshot: cannot be created", fails(FileOp::create, is_snapshot, ENOSPC)},
      {"snapshot: short writes", short_writes(is_snapshot, 1000), false},
      {"new segment: full disk at once", fills_after(is_log, 0)},
      {"new segment: full disk after 10 bytes", fills_after(is_log, 10)},
      {"new segment: full disk after 79 bytes", fills_after(is_log, 79)},
      {"new segment: EIO on its sync",
       fails(
           FileOp::sync, [](const fs::path& p) { return p.extension() == ".tmp"; }, EIO)},
      {"new segment: rename fails", fails(FileOp::rename, is_log, EIO)},
      {"directory: EIO on its sync", fails(FileOp::sync, is_dir, EIO)},
  };
  for (const auto& c : cases) {
    TempDir dir;
    std::string expected;
    {
      MemoryGraph g(durable(dir.path()));
      transact(g, [](Transaction& tx) {
        for (int i = 0; i < 300; ++i) tx.create_vertex("Person", {{"i", i}, {"note", std::string(20, 'x')}});
      });
      g.checkpoint();  // an older snapshot to keep
      g.create_vertex("Person", {{"name", "after the first checkpoint"}});
      {
        Faults disk(c.injector);
        if (c.fails) {
          EXPECT_THROW(g.checkpoint(), StorageError) << c.what;
        } else {
          EXPECT_NO_THROW(g.checkpoint()) << c.what;
        }
      }
      // The log was not touched: the graph takes writes and checkpoints.
      g.create_vertex("Person", {{"name", "after the failed checkpoint"}});
      expected = describe(g);
      expect_no_leftovers(dir.path(), c.what);
    }
    expect_reopens_as(dir.path(), expected, c.what);
    MemoryGraph g(durable(dir.path()));
    EXPECT_NO_THROW(g.checkpoint()) << c.what;
  }
}

TEST(DurabilityFaults, AFailedSyncOfTheLogDuringACheckpointClosesTheLog) {
  TempDir dir;
  {
    MemoryGraph g(durable(dir.path(), SyncPolicy::interval));
    g.create_vertex("Person", {{"name", "a"}});
    g.checkpoint();
    g.create_vertex("Person", {{"name", "b"}});  // buffered: the checkpoint's sync takes it
    {
      Faults disk(fails(
          FileOp::sync, [](const fs::path& p) { return p.extension() == ".log"; }, EIO));
      EXPECT_THROW(g.checkpoint(), StorageError);
    }
    // Whether "b" reached the disk is unknown: no more writes until the graph is opened again.
    EXPECT_THROW(g.create_vertex("Person", {{"name", "c"}}), StorageError);
    EXPECT_THROW(g.checkpoint(), StorageError);
  }
  MemoryGraph g(durable(dir.path()));
  EXPECT_EQ(g.find_vertices_by_label("Person", {{"name", "a"}}).size(), 1u);
  EXPECT_TRUE(g.find_vertices_by_label("Person", {{"name", "c"}}).empty());
  EXPECT_NO_THROW(g.create_vertex("Person", {{"name", "d"}}));
}

/// A tmpfs of `size` mounted on a directory of its own while it lives: a small disk that fills
/// up. Needs root (CAP_SYS_ADMIN); mounted() says whether it worked, why() why not.
class SmallDisk {
 public:
  explicit SmallDisk(const std::string& size)
      : path_(fs::temp_directory_path() / fmt::format("propgraph-small-disk-{}", ::getpid())) {
    fs::create_directories(path_);
    if (::geteuid() != 0) {
      why_ = "not running as root";
    } else if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, ("size=" + size).c_str()) != 0) {
      why_ = fmt::format("mount -t tmpfs failed: {}", std::strerror(errno));
    } else {
      mounted_ = true;
    }
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  [[nodiscard]] bool mounted() const { return mounted_; }
  [[nodiscard]] const std::string& why() const { return why_; }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool mounted_ = false;
  std::string why_;
};

/// seq -> the length of its "pad" for every Item vertex of `g`.
std::map<std::int64_t, std::size_t> items(MemoryGraph& g) {
  std::map<std::int64_t, std::size_t> out;
  for (const auto& v : g.find_vertices_by_label("Item")) {
    out[v.properties["seq"].as_int()] = v.properties["pad"].as_string().size();
  }
  return out;
}

TEST(DurabilitySmallDisk, EveryAcknowledgedWriteSurvivesAFullDiskAndWritesResumeOnceSpaceReturns) {
  SmallDisk disk("8m");
  if (!disk.mounted()) GTEST_SKIP() << "skipped: a real full disk needs a small tmpfs: " << disk.why();
  const fs::path dir = disk.path() / "graph";
  // Removing the filler is "space again": more than the graph can take (8 MiB less the filler),
  // so that a background checkpoint's new snapshot fits beside the old one and the writes.
  const fs::path filler = disk.path() / "filler";
  {
    std::ofstream out(filler, std::ios::binary);
    const std::string block(64 << 10, 'f');
    for (int i = 0; i < 72; ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
    ASSERT_TRUE(out.good());
  }
  MemoryOptions options = durable(dir);
  options.checkpoint_log_bytes = 48 << 10;  // background checkpoints while the disk fills
  std::map<std::int64_t, std::size_t> acked;  // seq -> pad length
  std::mt19937 rng(7);
  std::int64_t seq = 0;
  // Writes of varied sizes (so that the disk runs out in the middle of records, and a small
  // record still fits where a large one did not) until the disk has been full for a while.
  auto write = [&](MemoryGraph& g) {
    const std::size_t pad = std::uniform_int_distribution<std::size_t>(1, 1500)(rng);
    const std::int64_t s = seq++;
    g.create_vertex("Item", {{"seq", s}, {"pad", std::string(pad, 'p')}});
    acked[s] = pad;
  };
  {
    MemoryGraph g(options);
    int failed_writes = 0;
    int failed_checkpoints = 0;
    while (failed_writes < 400 && seq < 200000) {
      try {
        write(g);
      } catch (const StorageError&) {
        ++failed_writes;
      }
      if (seq % 500 == 0) {
        try {
          g.checkpoint();
        } catch (const StorageError&) {
          ++failed_checkpoints;
        }
      }
    }
    EXPECT_EQ(failed_writes, 400) << "the disk never filled up";
    EXPECT_GT(failed_checkpoints, 0);
    EXPECT_EQ(items(g), acked);  // a failed write changed nothing
  }
  // Reopening on the full disk either works or fails to write (never finds damage).
  try {
    MemoryGraph g(options);
    EXPECT_EQ(items(g), acked);
  } catch (const StorageError& e) {
    EXPECT_EQ(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
  }
  // Space again: everything acknowledged is there and writes go through.
  fs::remove(filler);
  {
    MemoryGraph g(options);
    ASSERT_EQ(items(g), acked);
    for (int i = 0; i < 100; ++i) ASSERT_NO_THROW(write(g)) << "write " << i << " after space returned";
  }
  MemoryGraph g(options);
  EXPECT_EQ(items(g), acked);
}

// -- crash tests -------------------------------------------------------------------------------

struct Acked {
  std::map<int, std::set<std::int64_t>> singles;  // writer -> seqs
  std::map<int, std::set<std::int64_t>> transactions;
};

/// Runs the crash writer on `dir` for about `run`, SIGKILLs it, returns what it acknowledged.
Acked run_and_kill(const fs::path& dir, const std::string& policy, std::chrono::milliseconds run, int generation) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::string binary = PROPGRAPH_CRASH_WRITER;
  std::string dir_arg = dir.string();
  std::string threads = "4";
  std::string gen = std::to_string(generation);
  char* argv[] = {binary.data(),  dir_arg.data(), const_cast<char*>(policy.c_str()),
                  threads.data(), gen.data(),     nullptr};
  pid_t pid;
  EXPECT_EQ(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string output;
  std::thread reader([&] {
    char buf[65536];
    ssize_t n;
    while ((n = ::read(pipe_fds[0], buf, sizeof buf)) > 0) output.append(buf, static_cast<std::size_t>(n));
  });
  std::this_thread::sleep_for(run);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  reader.join();
  ::close(pipe_fds[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the writer ended on its own: " << output.substr(0, 500);
  Acked acked;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    char kind;
    int writer;
    long long seq;
    if (std::sscanf(line.c_str(), "%c %d %lld", &kind, &writer, &seq) != 3) continue;  // "ready", or a cut line
    (kind == 't' ? acked.transactions : acked.singles)[writer].insert(seq);
  }
  return acked;
}

/// What reopening found: whole writes per (generation, writer), and the elements per generation.
struct Found {
  std::map<std::pair<std::int64_t, int>, std::set<std::int64_t>> writes;
  std::map<std::int64_t, std::int64_t> elements;
};

/// Reopens `dir` after the writer of `generation` was killed and checks: no partial transaction,
/// each writer's writes a prefix of its sequence, nothing found in an earlier round lost, and
/// (every_commit) every acknowledged write there.
Found check_after_crash(const fs::path& dir, const Acked& acked, bool every_ack_survives, int generation,
                        const Found& before) {
  MemoryGraph g(durable(dir));
  Found found;
  for (const auto& v : g.find_vertices_by_label("Single")) {
    const auto gen = v.properties["gen"].as_int();
    found.writes[{gen, static_cast<int>(v.properties["writer"].as_int())}].insert(v.properties["seq"].as_int());
    ++found.elements[gen];
  }
  std::map<std::tuple<std::int64_t, int, std::int64_t>, int> parts;
  for (const auto& v : g.find_vertices_by_label("Part")) {
    const auto gen = v.properties["gen"].as_int();
    ++parts[{gen, static_cast<int>(v.properties["writer"].as_int()), v.properties["seq"].as_int()}];
    ++found.elements[gen];
  }
  for (const auto& e : g.find_edges_by_label("NEXT")) ++found.elements[e.properties["gen"].as_int()];
  for (const auto& [key, n] : parts) {
    const auto& [gen, writer, seq] = key;
    EXPECT_EQ(n, 3) << "generation " << gen << ": a partial transaction (writer " << writer << ", seq " << seq << ")";
    found.writes[{gen, writer}].insert(seq);
  }
  for (const auto& [key, seqs] : found.writes) {
    // The log keeps a prefix of each writer's writes: no holes.
    EXPECT_EQ(*seqs.rbegin() + 1, static_cast<std::int64_t>(seqs.size()))
        << "generation " << key.first << ", writer " << key.second << ": not a prefix";
  }
  for (const auto& [gen, n] : before.elements) {
    EXPECT_EQ(found.elements[gen], n) << "generation " << gen << " changed after a later crash";
  }
  if (every_ack_survives) {
    for (const auto* acks : {&acked.singles, &acked.transactions}) {
      for (const auto& [writer, seqs] : *acks) {
        for (auto seq : seqs) {
          EXPECT_TRUE((found.writes[{generation, writer}].contains(seq)))
              << "generation " << generation << ": acknowledged write lost (writer " << writer << ", seq " << seq
              << ")";
        }
      }
    }
  }
  return found;
}

TEST(DurabilityCrash, EveryAcknowledgedWriteSurvivesSigkillWithEveryCommit) {
  TempDir dir;
  std::mt19937 rng(1234);
  Found found;
  std::size_t acknowledged = 0;
  for (int round = 0; round < 30; ++round) {
    const auto run = std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 150)(rng));
    const Acked acked = run_and_kill(dir.path(), "every_commit", run, round);
    for (const auto& [w, s] : acked.singles) acknowledged += s.size();
    found = check_after_crash(dir.path(), acked, true, round, found);
    if (HasFailure()) return;
  }
  // The writers did get writes through (few under a sanitizer, whose child starts slowly).
  EXPECT_GT(acknowledged, 0u);
}

TEST(DurabilityCrash, APrefixSurvivesSigkillWithIntervalAndNone) {
  for (const char* policy : {"interval", "none"}) {
    TempDir dir;
    std::mt19937 rng(99);
    Found found;
    for (int round = 0; round < 10; ++round) {
      const auto run = std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 150)(rng));
      const Acked acked = run_and_kill(dir.path(), policy, run, round);
      found = check_after_crash(dir.path(), acked, false, round, found);
      if (HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace propgraph
