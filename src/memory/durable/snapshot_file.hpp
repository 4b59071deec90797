// Snapshot files of a durable MemoryGraph (format in docs/durability.md):
//   header  "PGSNAP01" u32 version=1 u32 0 u64 start_lsn u64 vertex_slots u64 edge_slots
//           u64 xxh3(first 40 bytes)
//   blocks  u32 payload_size u8 kind u8[3] 0 payload u64 xxh3(block header and payload)
// Block kinds: meta (id prefix, catalog), vertices and edges (a run of slots each), schema
// (labels and indexes, written last), end (the slot counts again, and the block count).
#pragma once

#include <cstdint>
#include <string>

#include "memory/durable/files.hpp"
#include "memory/durable/records.hpp"

namespace propgraph::detail::durable {

enum class BlockKind : std::uint8_t { meta = 1, vertices = 2, edges = 3, schema = 4, end = 5 };

/// Writes a snapshot to `path` block by block: begin(kind), fill the writer, end(). Blocks are
/// buffered and written in large pieces.
class SnapshotWriter {
 public:
  SnapshotWriter(fs::path path, std::uint64_t start_lsn, std::uint64_t vertex_slots, std::uint64_t edge_slots);
  [[nodiscard]] ByteWriter begin(BlockKind kind);
  void end();
  /// Writes the end block and syncs the file.
  void finish();
  [[nodiscard]] std::uint64_t bytes() const noexcept { return file_.size() + pending_.size(); }

 private:
  void flush_if_large();
  File file_;
  std::string pending_;
  std::size_t block_start_ = 0;
  std::uint64_t vertex_slots_;
  std::uint64_t edge_slots_;
  std::uint64_t blocks_ = 0;
};

/// Appends a vertex or edge record as snapshots (and the log) store it.
void write_vertex(ByteWriter& out, const Store& store, Slot v);
void write_edge(ByteWriter& out, const Store& store, Slot e);

/// Loads a snapshot into `graph` (records, labels, index definitions, prefix, catalog; derived
/// structures are left to Store::rebuild). Returns its start lsn: the first log record to
/// replay. StorageError naming the file and offset when it is damaged.
std::uint64_t read_snapshot(const fs::path& path, RecoveredGraph& graph);

}  // namespace propgraph::detail::durable
