#include "memory/durable/durability.hpp"

#include <random>
#include <shared_mutex>

#include <fmt/format.h>

#include "memory/durable/snapshot_file.hpp"
#include "memory/graph_state.hpp"

namespace propgraph::detail::durable {

namespace {
/// Records copied per hold of the shared lock while a snapshot is written: writers wait at
/// most this long (about a millisecond).
constexpr std::size_t kChunk = 16384;
}  // namespace

std::string Durability::new_prefix() {
  std::random_device device;
  const std::uint32_t tag = device();
  return fmt::format("g{:08x}:", tag);
}

Durability::Durability(GraphState& state, const MemoryOptions& options) : state_(state), dir_(*options.data_dir) {
  // A checkpoint cut short leaves a temporary snapshot or log segment: never renamed into place.
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    if (entry.path().extension() == ".tmp") fs::remove(entry.path());
  }
  RecoveredGraph recovered;
  std::uint64_t from_lsn = 1;
  const auto snapshots = dir_.snapshots();
  if (!snapshots.empty()) from_lsn = read_snapshot(snapshots.back().second, recovered);
  const WalScan scan = scan_wal(
      dir_, from_lsn, !snapshots.empty(), options.recovery,
      [&](RecordType type, ByteReader& payload, const fs::path&, std::uint64_t) { replay(type, payload, recovered); });
  const bool fresh = recovered.prefix.empty();
  try {
    state_.store.assign(std::move(recovered.records));
  } catch (const StorageError& e) {
    throw StorageError(fmt::format("data directory {}: {}", dir_.path().string(), e.what()), dir_.path().string());
  }
  for (std::size_t i = 0; i + 1 < snapshots.size(); ++i) fs::remove(snapshots[i].second);  // superseded

  state_.catalog = std::move(recovered.catalog);
  state_.prefix = fresh ? new_prefix() : std::move(recovered.prefix);
  wal_.emplace(dir_, scan.next_lsn, options.sync, options.sync_interval, scan.newest);
  // A new graph's prefix and catalog entry reach the log before any id is handed out.
  std::string payload;
  if (fresh) {
    ByteWriter w(payload);
    encode_clear_graph(w, state_.prefix);
    wal_->append(RecordType::clear_graph, payload);
  }
  if (!state_.catalog.contains(state_.graph_name)) {
    payload.clear();
    ByteWriter w(payload);
    encode_catalog(w, true, state_.graph_name);
    wal_->append(RecordType::catalog, payload);
    state_.catalog.insert(state_.graph_name);
  }
  wal_->flush();
  if (options.checkpoint_log_bytes != 0) {
    wal_->set_rotation_hint(options.checkpoint_log_bytes, [this] {
      {
        std::lock_guard lock(wake_mutex_);
        wanted_ = true;
      }
      wake_.notify_one();
    });
    checkpointer_ = std::thread([this] { checkpointer(); });
  }
}

Durability::~Durability() {
  if (checkpointer_.joinable()) {
    {
      std::lock_guard lock(wake_mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    checkpointer_.join();
  }
}

void Durability::checkpointer() {
  for (;;) {
    {
      std::unique_lock lock(wake_mutex_);
      wake_.wait(lock, [&] { return wanted_ || stop_; });
      if (stop_) return;
      wanted_ = false;
    }
    try {
      checkpoint();
    } catch (const Error&) {
      // The log keeps everything; the next checkpoint (or opening) tries again.
    }
  }
}

void Durability::checkpoint() {
  std::lock_guard schema(schema_mutex);
  std::uint64_t start_lsn;
  std::size_t vertex_slots;
  std::size_t edge_slots;
  {
    // Everything before start_lsn is applied (writers apply before they leave the gate); the
    // records from start_lsn on go to the new segment and are replayed over this snapshot.
    state_.enter_gate("checkpoint");
    GateGuard guard(state_.gate);
    start_lsn = wal_->rotate();
    vertex_slots = state_.store.vertex_slots();
    edge_slots = state_.store.edge_slots();
  }
  const fs::path final_path = dir_.snapshot_path(start_lsn);
  fs::path temp_path = final_path;
  temp_path += ".tmp";
  try {
    SnapshotWriter out(temp_path, start_lsn, vertex_slots, edge_slots);
    {
      std::shared_lock lock(state_.mutex);
      ByteWriter w = out.begin(BlockKind::meta);
      w.bytes(state_.prefix);
      w.varint(state_.catalog.size());
      for (const auto& name : state_.catalog) w.bytes(name);
      out.end();
    }
    // Records in runs, each under the shared lock: readers never wait, writers at most one run.
    // A run may hold changes made after start_lsn; replaying the log from there sets every record
    // it touches to its final value again.
    for (std::size_t first = 0; first < vertex_slots; first += kChunk) {
      const std::size_t n = std::min(kChunk, vertex_slots - first);
      std::shared_lock lock(state_.mutex);
      ByteWriter w = out.begin(BlockKind::vertices);
      w.varint(first);
      w.varint(n);
      for (std::size_t i = 0; i < n; ++i) write_vertex(w, state_.store, static_cast<Slot>(first + i));
      out.end();
    }
    for (std::size_t first = 0; first < edge_slots; first += kChunk) {
      const std::size_t n = std::min(kChunk, edge_slots - first);
      std::shared_lock lock(state_.mutex);
      ByteWriter w = out.begin(BlockKind::edges);
      w.varint(first);
      w.varint(n);
      for (std::size_t i = 0; i < n; ++i) write_edge(w, state_.store, static_cast<Slot>(first + i));
      out.end();
    }
    {
      // Last, so that it names every label a record above may use. Labels only grow while
      // schema_mutex is held (drop_graph, which empties them, waits for it).
      std::shared_lock lock(state_.mutex);
      const Store& s = state_.store;
      ByteWriter w = out.begin(BlockKind::schema);
      w.varint(s.labels.size());
      for (LabelId l = 0; l < s.labels.size(); ++l) w.bytes(s.labels.name(l));
      for (const auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
        std::size_t count = 0;
        for (const auto& list : *table) count += list.size();
        w.varint(count);
        for (LabelId l = 0; l < table->size(); ++l) {
          for (const auto& index : (*table)[l]) {
            w.varint(l);
            w.bytes(index.key());
            w.u8(index.unique() ? 1 : 0);
          }
        }
      }
      out.end();
    }
    out.finish();
    rename_durably(temp_path, final_path);
  } catch (...) {
    std::error_code ec;
    fs::remove(temp_path, ec);
    throw;
  }
  for (const auto& [lsn, path] : dir_.snapshots()) {
    if (lsn < start_lsn) fs::remove(path);
  }
  wal_->trim(start_lsn);
}

}  // namespace propgraph::detail::durable
