// The embedded in-memory backend.
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "propgraph/operation_list.hpp"
#include "propgraph/operations.hpp"

namespace propgraph {

/// How a durable MemoryGraph syncs its write-ahead log (see docs/durability.md).
enum class SyncPolicy : std::uint8_t {
  /// Every write returns once its log record is synced to disk; concurrent writes share one
  /// sync (group commit). Survives a crash of the process or of the machine. No caller learns
  /// of a write before it is synced: every call returns (or throws) only once the writes it
  /// could have seen are synced, so a read during writes may wait for a sync. Exception: the
  /// calls inside a transaction that has written answer at once; its commit() waits for them.
  /// After a failed sync every call throws StorageError until the graph is opened again.
  every_commit,
  /// Log records are written and synced at least every sync_interval. A crash loses at most
  /// the writes of the last interval, never a part of one, and keeps a prefix of the rest.
  /// Readers see writes before they are synced.
  interval,
  /// Log records are handed to the OS at least every sync_interval and never synced by
  /// propgraph. A crash of the process loses at most the last interval's writes; a crash of the
  /// machine what the OS had not yet written. Always a prefix, never a part of a write.
  /// Readers see writes at once.
  none,
};

/// What opening a durable graph does when a file is damaged.
enum class RecoveryMode : std::uint8_t {
  /// Refuse with StorageError naming the file and offset (a torn last log record past what the
  /// log says was synced, as a crash mid-append leaves it, is dropped; docs/durability.md).
  strict,
  /// Open with everything before the first damaged log record and delete the log from there
  /// on. A damaged snapshot still refuses to open.
  truncate_at_damage,
};

/// Options of a MemoryGraph. Without data_dir the graph lives in memory only.
struct MemoryOptions {
  /// The bound graph (a valid label); it exists from construction.
  std::string graph_name = "g1";
  /// With a directory the graph is durable: opening recovers the last snapshot plus the log
  /// after it, each committed write reaches the log before it returns, ids survive restarts.
  /// The directory is created when missing; one process at a time may open it.
  std::optional<std::filesystem::path> data_dir;
  /// How writes reach the disk, and when readers see them (see SyncPolicy).
  SyncPolicy sync = SyncPolicy::every_commit;
  /// The period of SyncPolicy::interval and none.
  std::chrono::nanoseconds sync_interval = std::chrono::milliseconds(10);
  /// A checkpoint is taken in the background once the log has grown by this many bytes since
  /// the last one; 0: only when checkpoint() is called.
  std::uint64_t checkpoint_log_bytes = std::uint64_t{256} << 20;
  RecoveryMode recovery = RecoveryMode::strict;
};

/// In-memory property graph on Boost.Graph algorithms.
///
/// - Ids look like "g3:v17" / "g3:e5": the graph instance tag, the kind and a slot number that is
///   never reused, so ids from another MemoryGraph or deleted elements are simply not found.
/// - Thread safety: any number of concurrent readers and one writer at a time. A read holds a
///   shared lock for its whole call. A write (a single call, or a transaction from its first
///   write until it ends) is admitted by a writer gate, prepares its change without blocking
///   anyone, then applies it under the exclusive lock: readers wait only for that apply (a few
///   hundred nanoseconds per element changed), writers wait for the writer before them. Waiting
///   for the gate is fiber-aware (only the fiber waits); waiting for the lock blocks the thread,
///   briefly. A durable graph with SyncPolicy::every_commit also makes each call wait, after
///   it has released lock and gate, until what it saw is synced (fiber-aware as well).
/// - Transactions (begin()): serializable. Until its first write a transaction reads the
///   committed graph; if another write commits in between, its next read (or its first write)
///   throws TransactionConflict, so every read of a transaction sees one state of the graph.
///   Its first write enters the writer gate: from then on no other write can commit until it
///   ends, its writes are kept aside (other callers see none of them) and its reads see the
///   graph with them; commit() applies them all at once. So an open writing transaction delays
///   every other writer (not readers) until it commits or rolls back: keep them short, or use
///   transact(). Read-only transactions never delay anyone. A write outside a transaction that
///   the same thread makes while its own transaction holds the gate waits for itself: do not
///   mix them (a DeadlineScope turns such a wait into Timeout).
/// - Complexity: id lookups O(1); label scans O(elements with that label), a page of them
///   O(log n + page size) without a filter; incident_edges O(degree); create O(1) amortised;
///   delete_edge O(degree of its endpoints); delete_vertex O(sum of neighbour degrees);
///   traversals O(visited edges); page_rank O(iterations * E); components O(V + E).
/// - Memory: a vertex takes 48 bytes (its properties inside when their packed form fits 27
///   bytes, about two small entries), an edge 36 (its slot and one entry in each endpoint's
///   list) plus its packed properties; label membership costs nothing for elements created
///   one after another with one label. Slots are never reused, but each run of 256 slots whose
///   elements are all deleted gives its memory back, so under churn the memory follows the live
///   elements (and the span of slots they are spread over), not every id ever issued.
/// - Bulk writes: a commit of more than a few thousand edges only records them; the first
///   call that follows adjacency afterwards (a traversal, an algorithm, incident_edges,
///   delete_vertex) puts them into the lists, all at once in O(V + E) when they are many, which
///   lays the lists out side by side in vertex order. Loading edges in batches therefore costs
///   one such pass, paid by the first read.
/// - Indexes cover the vertices and the edges of a label (MemoryGraph's labels are one
///   namespace). Building one is O(elements with the label); afterwards a create costs O(1) more
///   per index of its label, an update or delete O(bucket) for an index whose value it changes.
///   Filters, page lookups and upsert matches take the smallest bucket among the filter's
///   indexed keys (O(bucket)) and re-check the whole filter, so results equal an unindexed scan.
///   drop_graph() of the bound graph removes its indexes.
/// - create_vertices / create_edges: one lock for the whole batch; validated completely (labels,
///   endpoints, unique indexes, also among the batch's own elements) before the first insert.
/// - detect_cycles never enters a vertex that cannot get back to the cycle's first vertex
///   within max_depth along a way off the open path (Johnson's blocking, with the length
///   bound), so that a search spends little time where no cycle is left: one long ring costs
///   O(V + E).
/// - Only the bound graph holds elements; create_graph/drop_graph on other names manage empty
///   catalog entries, for parity with server backends.
class MemoryGraph final : public GraphOperations {
 public:
  /// An in-memory graph bound to a graph named "g1".
  MemoryGraph();
  /// Opens the graph `options` describes; for a durable one, recovers its files first.
  /// Throws InvalidArgument for bad options and StorageError when the data directory is in use
  /// by another process, cannot be read or written, or holds damaged files (naming the file
  /// and offset; see RecoveryMode).
  explicit MemoryGraph(MemoryOptions options);
  /// An in-memory graph bound to `graph_name` (a valid label). (A template, so that a braced
  /// `MemoryGraph({.data_dir = ...})` means MemoryOptions.)
  template <class Name>
    requires std::convertible_to<const Name&, std::string_view>
  explicit MemoryGraph(const Name& graph_name)
      : MemoryGraph(MemoryOptions{.graph_name = std::string(std::string_view(graph_name))}) {}
  ~MemoryGraph() override;
  MemoryGraph(const MemoryGraph&) = delete;
  MemoryGraph& operator=(const MemoryGraph&) = delete;

  [[nodiscard]] const std::string& graph_name() const noexcept;

  /// Durable graphs: writes a snapshot of the graph to a new file, syncs it, renames it into
  /// place and deletes the log before it, so that opening replays less. Readers are not held
  /// up; writers wait only while a block of records is copied. O(V + E). Does nothing for an
  /// in-memory graph. StorageError when the disk fails (the graph stays usable, the old
  /// snapshot and log stay in place, no new file is left; a failed sync of the log closes it).
  void checkpoint();

  /// A transaction over this graph (see "Transactions" above). The graph must outlive it.
  std::unique_ptr<Transaction> begin() override;

  /// Every other GraphOperations call; operations.hpp has their contracts.
  PROPGRAPH_DECLARE_GRAPH_OPERATIONS()

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace propgraph
