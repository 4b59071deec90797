// The staging area every import goes through, whatever its format: parsers hand it records;
// it checks them, resolves file ids, and then writes everything or nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/id_index.hpp"
#include "io/source.hpp"
#include "propgraph/io/options.hpp"
#include "propgraph/io/report.hpp"
#include "propgraph/model.hpp"
#include "propgraph/operations.hpp"

namespace propgraph::io::detail {

/// A position in one of a session's sources.
struct Location {
  std::uint32_t source = 0;
  std::uint64_t offset = 0;
};

/// Storage for strings that must outlive a parser's scratch buffers. Views it returns stay
/// valid for the arena's life.
class Arena {
 public:
  std::string_view store(std::string_view text);

 private:
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* cursor_ = nullptr;
  std::size_t left_ = 0;
};

enum class ElementKind { vertex, edge };

/// `vertex "alice"`, `edge "a" -> "b"`: how problems name records.
[[nodiscard]] std::string describe_vertex(std::string_view id);
[[nodiscard]] std::string describe_edge(std::string_view from, std::string_view to);

/// One import: sources, staged records, problems, then commit() or fail().
///
/// Staging keeps the records (their properties are then shared with the graph, not copied);
/// commit() costs one hash lookup per id mention. Nothing touches the graph before commit().
class ImportSession {
 public:
  using LabelRef = std::uint32_t;

  ImportSession(std::string format, const ImportOptions& options);
  ImportSession(const ImportSession&) = delete;
  ImportSession& operator=(const ImportSession&) = delete;

  [[nodiscard]] const ImportOptions& options() const noexcept { return options_; }

  // -- sources -----------------------------------------------------------------------------
  /// Reads a file or stream whole and adds it as a source. nullopt, after reporting why, when
  /// it cannot be parsed: unreadable, or not valid UTF-8.
  std::optional<std::uint32_t> open(const std::filesystem::path& path);
  std::optional<std::uint32_t> open(std::istream& in, std::string_view name);
  [[nodiscard]] SourceText& source(std::uint32_t id) { return *sources_[id]; }
  /// Views into the arena live as long as the session.
  [[nodiscard]] Arena& arena() noexcept { return arena_; }

  // -- problems ----------------------------------------------------------------------------
  void error(Location at, std::string element, std::string field, std::string message);
  void warning(Location at, std::string element, std::string field, std::string message);
  /// A problem about a whole source (it cannot be read): no line or column.
  void source_error(std::uint32_t source, std::string message);
  /// Marks a source as read only in part (a problem left its rest unreadable). Edge endpoints
  /// are then not checked, since vertices in the unread part would show up as missing.
  void abandon_source() noexcept { incomplete_ = true; }
  /// True once parsers should end: max_problems errors were found.
  [[nodiscard]] bool stopped() const noexcept { return errors_ >= options_.max_problems; }
  [[nodiscard]] std::size_t errors() const noexcept { return errors_; }

  // -- records -----------------------------------------------------------------------------
  // Ids are kept as text and resolved in commit(), in bulk: an edge may name a vertex that comes
  // later, and a batch of lookups can hide memory latency that one-at-a-time lookups cannot.

  /// Makes room for this many more staged records (an estimate: it only saves regrowth).
  void reserve(std::size_t vertices, std::size_t edges) {
    vertices_.reserve(vertices_.size() + vertices);
    edges_.reserve(edges_.size() + edges);
  }

  /// The label a record names; nullopt `text` means "none given" and takes the default.
  /// nullopt when the label is missing without default, empty or malformed; `why` says which.
  std::optional<LabelRef> label(std::optional<std::string_view> text, ElementKind kind, std::string& why);

  /// Stages a vertex. `stable`: the id text lives as long as the session (it points into a
  /// source or the arena); otherwise it is copied. A repeated id is handled in commit().
  void add_vertex(Location at, std::string_view id, bool stable, LabelRef label, Properties properties);
  /// A vertex record that had errors: it is counted, and its id (when known) counts as
  /// defined so edges to it report nothing more.
  void add_broken_vertex(std::optional<std::string_view> id);
  /// Stages an edge `from -> to`; endpoints may be defined later. `external_id` (copied when
  /// kept) feeds keep_external_id_as. A from_at/to_at of kFindByName stands for "the record's
  /// line, where the quoted field name appears": found only if a problem needs it.
  void add_edge(Location at, Location from_at, Location to_at, std::string_view from, std::string_view to, bool stable,
                LabelRef label, Properties properties, std::string_view external_id = {});
  static constexpr Location kFindByName{0xFFFFFFFF, 0};
  /// Counts a record that had errors and defines nothing (an edge, or an unknown kind).
  void add_broken_record() { ++records_read_; }

  // -- end ---------------------------------------------------------------------------------
  /// Resolves endpoints, then writes every staged record, or nothing when any error was found
  /// (throws ImportFailed). A failing backend write is undone by deleting the vertices created
  /// so far (their edges go with them) before ImportFailed is thrown.
  ImportReport commit(GraphOperations& graph);

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;    // no vertex: missing, or skipped
  static constexpr std::uint32_t kBroken = 0xFFFFFFFE;  // a vertex record with errors
  static constexpr std::uint32_t kFindDelta = 0xFFFFFFFF;

  struct StagedVertex {
    std::string_view id;
    std::uint64_t hash;
    std::uint64_t offset;
    std::uint32_t source;
    LabelRef label;
    bool skip = false;
    Properties properties;
    [[nodiscard]] Location at() const { return {source, offset}; }
  };
  struct StagedEdge {
    std::string_view from;
    std::string_view to;
    std::uint64_t from_hash;
    std::uint64_t to_hash;
    std::uint64_t offset;
    std::uint32_t source;
    LabelRef label;
    std::uint32_t from_delta;  // field offsets relative to the record, or kFindDelta
    std::uint32_t to_delta;
    std::uint32_t from_vertex = kNone;  // staged vertex indexes, set by resolve_endpoints()
    std::uint32_t to_vertex = kNone;
    Properties properties;
    [[nodiscard]] Location at() const { return {source, offset}; }
  };
  struct PendingProblem {
    Problem problem;
    std::optional<Location> at;
  };
  struct TransparentHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  bool add_problem(Severity severity, std::optional<Location> at, std::string element, std::string field,
                   std::string message);
  std::optional<std::uint32_t> add_source(std::optional<SourceText> text, std::string name, const std::string& error);
  void index_vertices();
  void resolve_endpoints();
  void write(GraphOperations& graph);
  /// `message` with each id this import gave a vertex (created[i] of a record i in `order`, or
  /// an (id, i) of `retried`) replaced by that record's input id and place (file:line:column).
  [[nodiscard]] std::string name_created_vertices(std::string_view message, const std::vector<ElementId>& created,
                                                  const std::vector<std::uint32_t>& order,
                                                  const std::vector<std::pair<ElementId, std::uint32_t>>& retried);
  /// Records a failed write (locating the rejected record when `own` is the import's open
  /// transaction), rolls back or undoes what was written, and fails the import.
  [[noreturn]] void report_write_failure(GraphOperations& graph, Transaction* own, const std::exception& failure,
                                         bool in_edges, const std::vector<ElementId>& created,
                                         const std::vector<std::uint32_t>& order,
                                         const std::vector<std::uint32_t>& batch_index);
  [[nodiscard]] std::string where(Location at);
  [[nodiscard]] ImportReport finish();
  [[noreturn]] void fail();

  std::string format_;
  ImportOptions options_;
  std::chrono::steady_clock::time_point started_;
  std::vector<std::unique_ptr<SourceText>> sources_;
  Arena arena_;

  IdIndex id_index_;               // vertex id text -> staged vertex index or kBroken
  std::vector<std::string_view> broken_ids_;
  std::vector<std::string> labels_;
  std::unordered_map<std::string, LabelRef, TransparentHash, std::equal_to<>> label_index_;
  LabelRef cached_label_[2] = {kNone, kNone};  // last label seen per element kind
  std::vector<StagedVertex> vertices_;
  std::vector<bool> vertex_label_used_;  // by the vertices created
  std::vector<bool> edge_label_used_;
  std::vector<StagedEdge> edges_;

  std::vector<PendingProblem> problems_;
  std::uint64_t problems_omitted_ = 0;
  std::size_t errors_ = 0;
  bool incomplete_ = false;
  std::uint64_t records_read_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t vertices_created_ = 0;
  std::uint64_t edges_created_ = 0;
};

}  // namespace propgraph::io::detail
