#include "io/session.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "propgraph/errors.hpp"

namespace propgraph::io {

// -- ImportOptions ------------------------------------------------------------------------------

void ImportOptions::validate() const {
  if (max_problems == 0) {
    throw InvalidArgument("ImportOptions: max_problems must be at least 1 (1 fails at the first error)");
  }
  if (default_vertex_label) validate_label(*default_vertex_label, "ImportOptions: default_vertex_label");
  if (default_edge_label) validate_label(*default_edge_label, "ImportOptions: default_edge_label");
  if (keep_external_id_as) {
    if (auto fault = property_key_fault(*keep_external_id_as); !fault.empty()) {
      throw InvalidArgument(fmt::format("ImportOptions: keep_external_id_as is not a valid property key: {}", fault));
    }
  }
}

}  // namespace propgraph::io

namespace propgraph::io::detail {

// -- Arena ------------------------------------------------------------------------------------

std::string_view Arena::store(std::string_view text) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  if (text.size() > left_) {
    std::size_t size = std::max(kChunk, text.size());
    chunks_.push_back(std::make_unique<char[]>(size));
    cursor_ = chunks_.back().get();
    left_ = size;
  }
  if (!text.empty()) std::memcpy(cursor_, text.data(), text.size());
  std::string_view stored(cursor_, text.size());
  cursor_ += text.size();
  left_ -= text.size();
  return stored;
}

// -- descriptions -------------------------------------------------------------------------------

namespace {

/// A file id as problems show it: quoted, controls escaped, long ones shortened.
std::string quoted(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMax) out += "...";
  out += '"';
  return out;
}

}  // namespace

std::string describe_vertex(std::string_view id) { return "vertex " + quoted(id); }
std::string describe_edge(std::string_view from, std::string_view to) {
  return "edge " + quoted(from) + " -> " + quoted(to);
}

// -- ImportSession ------------------------------------------------------------------------------

ImportSession::ImportSession(std::string format, const ImportOptions& options)
    : format_(std::move(format)), options_(options), started_(std::chrono::steady_clock::now()) {
  options_.validate();
}

std::optional<std::uint32_t> ImportSession::add_source(std::optional<SourceText> text, std::string name,
                                                       const std::string& error) {
  auto id = static_cast<std::uint32_t>(sources_.size());
  if (!text) {
    sources_.push_back(std::make_unique<SourceText>(SourceText::empty(std::move(name))));
    source_error(id, fmt::format("cannot read: {}", error));
    abandon_source();
    return std::nullopt;
  }
  sources_.push_back(std::make_unique<SourceText>(std::move(*text)));
  if (auto bad = find_invalid_utf8(sources_.back()->text())) {
    this->error({id, *bad}, "", "", "invalid UTF-8: the input must be UTF-8 text");
    abandon_source();
    return std::nullopt;
  }
  return id;
}

std::optional<std::uint32_t> ImportSession::open(const std::filesystem::path& path) {
  std::string error;
  auto text = SourceText::load(path, error);
  return add_source(std::move(text), path.string(), error);
}

std::optional<std::uint32_t> ImportSession::open(std::istream& in, std::string_view name) {
  std::string error;
  auto text = SourceText::read(in, std::string(name), error);
  return add_source(std::move(text), std::string(name), error);
}

bool ImportSession::add_problem(Severity severity, std::optional<Location> at, std::string element, std::string field,
                                std::string message) {
  if (severity == Severity::error) ++errors_;
  if (problems_.size() >= options_.max_problems) {
    ++problems_omitted_;
    // A failed import always reports its first error: it takes the place of the last warning.
    if (severity != Severity::error || errors_ != 1) return false;
    auto last_warning = std::find_if(problems_.rbegin(), problems_.rend(), [](const PendingProblem& kept) {
      return kept.problem.severity == Severity::warning;
    });
    if (last_warning == problems_.rend()) return false;
    problems_.erase(std::next(last_warning).base());
  }
  Problem p;
  p.severity = severity;
  p.element = std::move(element);
  p.field = std::move(field);
  p.message = std::move(message);
  problems_.push_back(PendingProblem{std::move(p), at});
  return true;
}

void ImportSession::error(Location at, std::string element, std::string field, std::string message) {
  add_problem(Severity::error, at, std::move(element), std::move(field), std::move(message));
}

void ImportSession::warning(Location at, std::string element, std::string field, std::string message) {
  add_problem(Severity::warning, at, std::move(element), std::move(field), std::move(message));
}

void ImportSession::source_error(std::uint32_t source, std::string message) {
  if (add_problem(Severity::error, std::nullopt, "", "", std::move(message))) {
    problems_.back().problem.file = sources_[source]->name();
  }
}

std::optional<ImportSession::LabelRef> ImportSession::label(std::optional<std::string_view> given, ElementKind kind,
                                                            std::string& why) {
  const auto k = static_cast<std::size_t>(kind);
  std::string_view text;
  if (given) {
    text = *given;
    if (text.empty()) {
      why = "label must not be blank (leave it out to take the default label)";
      return std::nullopt;
    }
  } else {
    const auto& fallback = kind == ElementKind::vertex ? options_.default_vertex_label : options_.default_edge_label;
    if (!fallback) {
      why = "no label, and no default label is set";
      return std::nullopt;
    }
    text = *fallback;
  }
  // Records of one label usually come in runs: remember the last one.
  if (cached_label_[k] != kNone && labels_[cached_label_[k]] == text) return cached_label_[k];
  if (auto it = label_index_.find(text); it != label_index_.end()) {
    cached_label_[k] = it->second;
    return it->second;
  }
  if (!is_valid_label(text)) {
    why = fmt::format(
        "label {} is malformed: expected 1-63 characters of [A-Za-z0-9_], not "
        "starting with a digit",
        quoted(text));
    return std::nullopt;
  }
  auto ref = static_cast<LabelRef>(labels_.size());
  labels_.emplace_back(text);
  label_index_.emplace(labels_.back(), ref);
  cached_label_[k] = ref;
  return ref;
}

std::string ImportSession::where(Location at) {
  if (at.source >= sources_.size()) return "?";
  auto pos = sources_[at.source]->position(at.offset);
  return fmt::format("{}:{}:{}", sources_[at.source]->name(), pos.line, pos.column);
}

void ImportSession::add_vertex(Location at, std::string_view id, bool stable, LabelRef label, Properties properties) {
  ++records_read_;
  if (!stable) id = arena_.store(id);
  if (options_.keep_external_id_as) properties.set(*options_.keep_external_id_as, Value(id));
  vertices_.push_back(StagedVertex{id, hash_text(id), at.offset, at.source, label, false, std::move(properties)});
}

void ImportSession::add_broken_vertex(std::optional<std::string_view> id) {
  ++records_read_;
  if (id) broken_ids_.push_back(arena_.store(*id));
}

void ImportSession::add_edge(Location at, Location from_at, Location to_at, std::string_view from, std::string_view to,
                             bool stable, LabelRef label, Properties properties, std::string_view external_id) {
  ++records_read_;
  if (!stable) {
    from = arena_.store(from);
    to = arena_.store(to);
  }
  if (options_.keep_external_id_as && !external_id.empty()) {
    properties.set(*options_.keep_external_id_as, Value(external_id));
  }
  auto delta = [&](Location field) {
    if (field.source == kFindByName.source) return kFindDelta;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(field.offset - at.offset, kFindDelta - 1));
  };
  edges_.push_back(StagedEdge{from, to, hash_text(from), hash_text(to), at.offset, at.source, label, delta(from_at),
                              delta(to_at), kNone, kNone, std::move(properties)});
}

// Lookups run a fixed distance behind prefetches of the hash slots they will read, so the
// cache misses of many lookups overlap instead of following one another.
constexpr std::size_t kPrefetchDistance = 16;

void ImportSession::index_vertices() {
  id_index_.reserve(vertices_.size() + broken_ids_.size());
  const bool skip = options_.on_duplicate_vertex == DuplicatePolicy::skip;
  for (std::size_t i = 0; i < vertices_.size(); ++i) {
    if (i + kPrefetchDistance < vertices_.size()) id_index_.prefetch(vertices_[i + kPrefetchDistance].hash);
    StagedVertex& v = vertices_[i];
    const std::uint32_t first = id_index_.find(v.id, v.hash);
    if (first == IdIndex::kMissing) {
      id_index_.insert(v.id, v.hash, static_cast<std::uint32_t>(i));
      continue;
    }
    std::string message =
        fmt::format("duplicate vertex id {} (first defined at {})", quoted(v.id), where(vertices_[first].at()));
    if (skip) {
      v.skip = true;
      ++skipped_;
      warning(v.at(), describe_vertex(v.id), "id", message + "; skipped");
    } else {
      error(v.at(), describe_vertex(v.id), "id", std::move(message));
    }
  }
  for (std::string_view id : broken_ids_) {
    const std::uint64_t hash = hash_text(id);
    if (id_index_.find(id, hash) == IdIndex::kMissing) id_index_.insert(id, hash, kBroken);
  }
}

void ImportSession::resolve_endpoints() {
  const bool skip = options_.on_missing_endpoint == MissingEndpointPolicy::skip_edge;
  for (std::size_t i = 0; i < edges_.size(); ++i) {
    if (i + kPrefetchDistance < edges_.size()) {
      id_index_.prefetch(edges_[i + kPrefetchDistance].from_hash);
      id_index_.prefetch(edges_[i + kPrefetchDistance].to_hash);
    }
    StagedEdge& e = edges_[i];
    e.from_vertex = id_index_.find(e.from, e.from_hash);
    e.to_vertex = id_index_.find(e.to, e.to_hash);
    for (int end = 0; end < 2; ++end) {
      const std::uint32_t vertex = end == 0 ? e.from_vertex : e.to_vertex;
      if (vertex != IdIndex::kMissing) continue;
      const std::string_view id = end == 0 ? e.from : e.to;
      const char* field = end == 0 ? "from" : "to";
      std::uint32_t delta = end == 0 ? e.from_delta : e.to_delta;
      if (delta == kFindDelta) {
        const std::string_view rest = sources_[e.source]->text().substr(e.offset);
        const std::string_view line = rest.substr(0, rest.find('\n'));
        const std::size_t found = line.find(fmt::format("\"{}\"", field));
        delta = found == std::string_view::npos ? 0 : static_cast<std::uint32_t>(found);
      }
      const Location at{e.source, e.offset + delta};
      std::string message = fmt::format("no vertex has id {}", quoted(id));
      if (skip) {
        e.from_vertex = kNone;
        ++skipped_;
        warning(at, describe_edge(e.from, e.to), field, message + "; edge skipped");
        break;
      }
      error(at, describe_edge(e.from, e.to), field, std::move(message));
    }
  }
}

ImportReport ImportSession::commit(GraphOperations& graph) {
  index_vertices();
  if (!incomplete_ && !stopped()) resolve_endpoints();
  if (errors_ > 0) fail();
  write(graph);
  return finish();
}

void ImportSession::write(GraphOperations& graph) {
  vertex_label_used_.assign(labels_.size(), false);
  edge_label_used_.assign(labels_.size(), false);
  // The records go to the backend in bulk batches inside one transaction, so other callers see
  // the import whole or not at all, and a failure rolls everything back. Into a transaction the
  // caller holds (transactions do not nest), a failed batch is undone by deleting the vertices
  // created before it, which takes every edge created here along.
  std::unique_ptr<Transaction> own;
  const bool in_callers_transaction = dynamic_cast<Transaction*>(&graph) != nullptr;
  constexpr std::size_t kBatch = std::size_t{1} << 14;
  std::vector<ElementId> created(vertices_.size());
  std::vector<std::uint32_t> order;  // staged indexes of the vertices created, in creation order
  order.reserve(vertices_.size());
  std::vector<NewVertex> vertex_batch;
  std::vector<NewEdge> edge_batch;
  std::vector<std::uint32_t> batch_index;  // staged indexes of the records in the open batch
  vertex_batch.reserve(std::min(kBatch, vertices_.size()));
  bool in_edges = false;
  auto flush_vertices = [&](GraphOperations& target) {
    if (vertex_batch.empty()) return;
    auto ids = target.create_vertices(vertex_batch);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      created[batch_index[k]] = std::move(ids[k]);
      order.push_back(batch_index[k]);
      vertex_label_used_[vertices_[batch_index[k]].label] = true;
    }
    vertex_batch.clear();
    batch_index.clear();
  };
  auto flush_edges = [&](GraphOperations& target) {
    if (edge_batch.empty()) return;
    target.create_edges(edge_batch);
    edges_created_ += edge_batch.size();
    for (auto i : batch_index) edge_label_used_[edges_[i].label] = true;
    edge_batch.clear();
    batch_index.clear();
  };
  try {
    if (!in_callers_transaction) own = graph.begin();
    GraphOperations& target = own ? static_cast<GraphOperations&>(*own) : graph;
    for (std::uint32_t i = 0; i < vertices_.size(); ++i) {
      if (vertices_[i].skip) continue;
      vertex_batch.push_back(NewVertex{labels_[vertices_[i].label], vertices_[i].properties});
      batch_index.push_back(i);
      if (vertex_batch.size() == kBatch) flush_vertices(target);
    }
    flush_vertices(target);
    in_edges = true;
    edge_batch.reserve(std::min(kBatch, edges_.size()));
    for (std::uint32_t i = 0; i < edges_.size(); ++i) {
      const auto& e = edges_[i];
      if (e.from_vertex == kNone) continue;  // skipped under skip_edge
      edge_batch.push_back(NewEdge{created[e.from_vertex], created[e.to_vertex], labels_[e.label], e.properties});
      batch_index.push_back(i);
      if (edge_batch.size() == kBatch) flush_edges(target);
    }
    flush_edges(target);
    if (own) own->commit();
  } catch (const std::exception& failure) {
    report_write_failure(graph, own.get(), failure, in_edges, created, order, batch_index);
  }
  vertices_created_ = order.size();
}

std::string ImportSession::name_created_vertices(std::string_view message, const std::vector<ElementId>& created,
                                                 const std::vector<std::uint32_t>& order,
                                                 const std::vector<std::pair<ElementId, std::uint32_t>>& retried) {
  // The graph names elements by the ids it gave them; those of this import vanish with its
  // rollback, so a vertex it created is named by its record instead (input id, file, line).
  std::unordered_map<std::string_view, std::uint32_t> record_of;
  for (std::uint32_t i : order) {
    if (i < created.size() && !created[i].str().empty()) record_of.emplace(created[i].str(), i);
  }
  for (const auto& [id, i] : retried) record_of.emplace(id.str(), i);
  std::string out;
  std::size_t start = 0;
  auto is_id_char = [](char c) { return c != ' ' && c != ',' && c != ';' && c != '(' && c != ')' && c != '"'; };
  while (start < message.size()) {
    std::size_t end = start;
    while (end < message.size() && is_id_char(message[end])) ++end;
    if (end == start) {
      out += message[start++];
      continue;
    }
    const std::string_view token = message.substr(start, end - start);
    if (auto it = record_of.find(token); it != record_of.end()) {
      const StagedVertex& v = vertices_[it->second];
      out += fmt::format("{} (the record at {}, created by this import)", quoted(v.id), where(v.at()));
    } else {
      out += token;
    }
    start = end;
  }
  return out;
}

void ImportSession::report_write_failure(GraphOperations& graph, Transaction* own, const std::exception& failure,
                                         bool in_edges, const std::vector<ElementId>& created,
                                         const std::vector<std::uint32_t>& order,
                                         const std::vector<std::uint32_t>& batch_index) {
  std::string message;
  Location at;
  std::string element;
  auto point_at = [&](std::uint32_t i) {
    if (in_edges) {
      at = edges_[i].at();
      element = describe_edge(edges_[i].from, edges_[i].to);
    } else {
      at = vertices_[i].at();
      element = describe_vertex(vertices_[i].id);
    }
  };
  // Only errors about the records themselves are worth locating; a timeout or a lost connection
  // would fail every single write as well.
  auto about_records = [](const std::exception& e) {
    return dynamic_cast<const AlreadyExists*>(&e) != nullptr || dynamic_cast<const InvalidArgument*>(&e) != nullptr ||
           dynamic_cast<const NotFound*>(&e) != nullptr || dynamic_cast<const QueryError*>(&e) != nullptr;
  };
  bool located = false;
  std::vector<std::pair<ElementId, std::uint32_t>> retried;  // vertices written one by one below
  if (own != nullptr && own->is_open() && !batch_index.empty() && about_records(failure)) {
    // A batch fails as a whole; inside the transaction its records can be written one by one to
    // find the one the graph rejects (its error then reads as for a single write).
    try {
      for (auto i : batch_index) {
        try {
          if (in_edges) {
            const auto& e = edges_[i];
            (void)own->create_edge(created[e.from_vertex], created[e.to_vertex], labels_[e.label], e.properties);
          } else {
            retried.emplace_back(own->create_vertex(labels_[vertices_[i].label], vertices_[i].properties).id, i);
          }
        } catch (const Error& single) {
          if (!about_records(single)) throw;
          point_at(i);
          message = fmt::format("the graph rejected this {}: {}", in_edges ? "edge" : "vertex",
                                name_created_vertices(single.what(), created, order, retried));
          located = true;
          break;
        }
      }
    } catch (const std::exception&) {
      // The transaction itself failed (connection lost, timeout): report the batch.
    }
  }
  if (!located) {
    if (!batch_index.empty()) point_at(batch_index.front());
    const std::string what = name_created_vertices(failure.what(), created, order, retried);
    message = batch_index.empty() ? fmt::format("the graph failed the import: {}", what)
                                  : fmt::format("the graph rejected the batch of {} records starting here: {}",
                                                batch_index.size(), what);
  }
  if (own != nullptr) {
    try {
      if (own->is_open()) own->rollback();
      message += "; nothing was written";
    } catch (const std::exception& e) {
      message += fmt::format("; rolling back failed ({}): the graph may hold part of the import", e.what());
    }
  } else {
    std::size_t undone = 0;
    std::string rollback_error;
    for (std::size_t k = order.size(); k-- > 0;) {
      try {
        if (graph.delete_vertex(labels_[vertices_[order[k]].label], created[order[k]])) ++undone;
      } catch (const std::exception& e) {
        if (rollback_error.empty()) rollback_error = e.what();
      }
    }
    message += rollback_error.empty()
                   ? fmt::format("; the {} vertices created so far were deleted again", undone)
                   : fmt::format("; rolling back failed ({}): the graph may hold part of the import", rollback_error);
  }
  edges_created_ = 0;
  error(at, std::move(element), "", std::move(message));
  fail();
}

ImportReport ImportSession::finish() {
  ImportReport report;
  report.format = format_;
  report.records_read = records_read_;
  report.vertices_created = vertices_created_;
  report.edges_created = edges_created_;
  report.skipped = skipped_;
  report.problems_omitted = problems_omitted_;
  // Problems in input order: by source, then position; problems without a place first.
  std::stable_sort(problems_.begin(), problems_.end(), [](const PendingProblem& a, const PendingProblem& b) {
    auto key = [](const PendingProblem& p) {
      return p.at ? std::pair{std::uint64_t{p.at->source} + 1, p.at->offset}
                  : std::pair{std::uint64_t{0}, std::uint64_t{0}};
    };
    return key(a) < key(b);
  });
  report.problems.reserve(problems_.size());
  for (auto& pending : problems_) {
    if (pending.at) {
      auto& src = *sources_[pending.at->source];
      auto pos = src.position(pending.at->offset);
      pending.problem.file = src.name();
      pending.problem.line = pos.line;
      pending.problem.column = pos.column;
    }
    report.problems.push_back(std::move(pending.problem));
  }
  problems_.clear();
  if (vertices_created_ > 0 || edges_created_ > 0) {
    for (LabelRef l = 0; l < labels_.size(); ++l) {
      if (vertex_label_used_[l]) report.vertex_labels.push_back(labels_[l]);
      if (edge_label_used_[l]) report.edge_labels.push_back(labels_[l]);
    }
    std::sort(report.vertex_labels.begin(), report.vertex_labels.end());
    std::sort(report.edge_labels.begin(), report.edge_labels.end());
  }
  report.elapsed = std::chrono::steady_clock::now() - started_;
  return report;
}

void ImportSession::fail() {
  vertices_created_ = 0;
  edges_created_ = 0;
  throw ImportFailed(finish());
}

}  // namespace propgraph::io::detail
