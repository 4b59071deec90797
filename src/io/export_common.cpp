#include "io/export_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>

#include <fmt/format.h>

#include "io/source.hpp"
#include "propgraph/errors.hpp"

namespace propgraph::io::detail {

namespace {

std::vector<std::string> selected_labels(GraphOperations& graph, const std::vector<std::string>& wanted,
                                         bool vertices) {
  std::vector<std::string> labels = !wanted.empty() ? wanted : vertices ? graph.vertex_labels() : graph.edge_labels();
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

/// Applies the graph's text rule (model.hpp) to what an export is about to write: a graph
/// filled through another path (an older version, another client of the same database) may
/// hold text that no importer would read back.
template <typename Element>
void require_valid(const Element& e) {
  try {
    validate_label(e.label);
    validate_properties(e.properties);
  } catch (const InvalidArgument& error) {
    throw InvalidArgument(fmt::format("export: {}: {}", describe(e), error.what()));
  }
}

template <typename Element, typename Find>
std::vector<Element> collect(const std::vector<std::string>& labels, Find&& find) {
  std::vector<Element> all;
  for (const auto& label : labels) {
    auto some = find(label);  // ascending id within a label
    for (const auto& e : some) require_valid(e);
    if (all.empty()) {
      all = std::move(some);
      continue;
    }
    auto middle = static_cast<std::ptrdiff_t>(all.size());
    all.insert(all.end(), std::make_move_iterator(some.begin()), std::make_move_iterator(some.end()));
    std::inplace_merge(all.begin(), all.begin() + middle, all.end(),
                       [](const Element& a, const Element& b) { return a.id < b.id; });
  }
  return all;
}

}  // namespace

std::vector<Vertex> collect_vertices(GraphOperations& graph, const ExportOptions& options) {
  return collect<Vertex>(selected_labels(graph, options.vertex_labels, true),
                         [&](const std::string& label) { return graph.find_vertices_by_label(label); });
}

std::vector<Edge> collect_edges(GraphOperations& graph, const ExportOptions& options) {
  return collect<Edge>(selected_labels(graph, options.edge_labels, false),
                       [&](const std::string& label) { return graph.find_edges_by_label(label); });
}

namespace {

std::optional<ValueKind> scalar_kind(const Value& v) {
  switch (v.type()) {
    case ValueType::boolean: return ValueKind::boolean;
    case ValueType::integer: return ValueKind::integer;
    case ValueType::real: return ValueKind::real;
    case ValueType::string: return ValueKind::string;
    default: return std::nullopt;
  }
}

ValueKind kind_for(const Value& v, TypedFormat format) {
  if (auto scalar = scalar_kind(v)) {
    if (format == TypedFormat::graphml && *scalar == ValueKind::string && has_non_xml_chars(v.as_string())) {
      return ValueKind::json;
    }
    return *scalar;
  }
  if (!v.is_list() || format == TypedFormat::graphml) return ValueKind::json;
  // A CSV array cell holds elements of one type joined by ';'. Anything that would not read
  // back the same (an empty list, an empty or ';'-holding string element) is written as JSON.
  const auto& list = v.as_list();
  if (list.empty()) return ValueKind::json;
  auto first = scalar_kind(list.front());
  if (!first) return ValueKind::json;
  for (const auto& item : list) {
    if (scalar_kind(item) != first) return ValueKind::json;
    if (item.is_string() && (item.as_string().empty() || item.as_string().find(';') != std::string::npos)) {
      return ValueKind::json;
    }
  }
  return list_kind(*first);
}

}  // namespace

std::vector<Column> infer_columns(const std::vector<const Properties*>& properties, TypedFormat format) {
  std::map<std::string_view, ValueKind> kinds;
  for (const Properties* props : properties) {
    for (const auto& [key, value] : *props) {
      ValueKind kind = kind_for(value, format);
      auto [it, inserted] = kinds.try_emplace(key, kind);
      if (!inserted && it->second != kind) it->second = ValueKind::json;
    }
  }
  std::vector<Column> columns;
  columns.reserve(kinds.size());
  for (const auto& [name, kind] : kinds) columns.push_back(Column{std::string(name), kind});
  return columns;
}

void Output::flush() {
  if (buffer_.empty()) return;
  out_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  if (!*out_) throw Error("export: writing the output failed");
  written_ += buffer_.size();
  buffer_.clear();
}

namespace {
std::atomic<unsigned> temporary_counter{0};
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  temporary_ = target_;
  temporary_ += fmt::format(".partial-{}-{}", ::getpid(), temporary_counter.fetch_add(1));
  stream_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!stream_) throw Error(fmt::format("export: cannot write {}", temporary_.string()));
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  stream_.close();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicFile::commit() {
  stream_.close();
  if (!stream_) throw Error(fmt::format("export: writing {} failed", temporary_.string()));
  std::error_code ec;
  std::filesystem::rename(temporary_, target_, ec);
  if (ec)
    throw Error(fmt::format("export: cannot rename {} to {}: {}", temporary_.string(), target_.string(), ec.message()));
  committed_ = true;
}

std::string describe(const Vertex& v) { return fmt::format("vertex {}", v.id.str()); }
std::string describe(const Edge& e) { return fmt::format("edge {}", e.id.str()); }

}  // namespace propgraph::io::detail
