// Durable MemoryGraph: round trips through checkpoint, restart and log replay; torn and damaged
// files; a failing disk; real processes killed with SIGKILL while they write.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

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

TEST(Durability, ATornLastRecordIsDroppedAtEveryByteOffset) {
  TempDir dir;
  std::string before_last;
  std::uintmax_t size_before_last = 0;
  {
    MemoryGraph g(durable(dir.path()));
    g.create_vertex("Person", {{"name", "kept"}});
    before_last = describe(g);
    size_before_last = fs::file_size(newest_log(dir.path()));
    g.create_vertex("Person", {{"name", "torn"}, {"note", std::string(40, 'x')}});
  }
  const fs::path log = newest_log(dir.path());
  std::ifstream in(log, std::ios::binary);
  const std::string full((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(full.size(), size_before_last);
  for (std::size_t cut = size_before_last; cut < full.size(); ++cut) {
    TempDir copy;
    fs::copy(dir.path(), copy.path());
    fs::remove(copy.path() / "LOCK");
    std::ofstream(copy.path() / log.filename(), std::ios::binary | std::ios::trunc)
        .write(full.data(), static_cast<std::streamsize>(cut));
    MemoryGraph g(durable(copy.path()));
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

/// Fails the chosen file operation with `err` while it lives.
class FailingDisk {
 public:
  FailingDisk(detail::durable::FileOp op, int err) {
    detail::durable::set_fault_injector(
        [op, err](detail::durable::FileOp o, const fs::path&) { return o == op ? err : 0; });
  }
  ~FailingDisk() { detail::durable::set_fault_injector({}); }
};

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
