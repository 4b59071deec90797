// libFuzzer harness: MemoryGraph against a reference model. The input decodes into a sequence
// of create/update/delete/find/count/neighbors/index calls; each runs on MemoryGraph and on a
// model kept in plain ordered maps here, and every result must agree. Ids come from MemoryGraph
// (the model only checks they are fresh and ascending); indexes must never change a result.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"

namespace {

using namespace propgraph;

[[noreturn]] void mismatch(std::size_t step, const std::string& what) {
  std::fprintf(stderr, "\nMemoryGraph differs from the model at call %zu: %s\n", step, what.c_str());
  std::abort();
}

/// Bytes as a stream of small choices; 0 once the input is used up.
class Choices {
 public:
  Choices(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] bool more() const { return pos_ < size_; }
  unsigned next(unsigned n) { return pos_ < size_ ? data_[pos_++] % n : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

struct ModelVertex {
  std::string label;
  Properties properties;
};
struct ModelEdge {
  std::string label;
  ElementId from, to;
  Properties properties;
};

/// The reference: ordered maps and linear scans, nothing clever.
struct Model {
  std::map<ElementId, ModelVertex> vertices;
  std::map<ElementId, ModelEdge> edges;
  std::set<std::pair<std::string, std::string>> indexes;

  static bool matches(const Properties& have, const Properties& filter) {
    for (const auto& [key, wanted] : filter) {
      const Value* value = have.find(key);
      if (wanted.is_null() ? value != nullptr : (value == nullptr || !(*value == wanted))) return false;
    }
    return true;
  }
  /// What a write stores: the patch merged in, nulls removing keys.
  static Properties merged(Properties base, const Properties& patch) {
    for (const auto& [key, value] : patch) {
      if (value.is_null()) {
        base.erase(key);
      } else {
        base.set(key, value);
      }
    }
    return base;
  }
  void delete_vertex(const ElementId& id) {
    vertices.erase(id);
    std::erase_if(edges, [&](const auto& e) { return e.second.from == id || e.second.to == id; });
  }
  [[nodiscard]] std::vector<ElementId> neighbors(const ElementId& start, const NeighborOptions& o) const {
    if (!vertices.contains(start)) return {};
    std::map<ElementId, int> depth{{start, 0}};
    std::deque<ElementId> queue{start};
    while (!queue.empty()) {
      const ElementId at = queue.front();
      queue.pop_front();
      if (depth[at] == o.max_depth) continue;
      for (const auto& [id, e] : edges) {
        if (o.edge_label && e.label != *o.edge_label) continue;
        std::optional<ElementId> next;
        if (o.direction != Direction::in && e.from == at) next = e.to;
        if (o.direction != Direction::out && e.to == at) {
          if (next && !depth.contains(*next)) {
            depth[*next] = depth[at] + 1;
            queue.push_back(*next);
          }
          next = e.from;
        }
        if (next && !depth.contains(*next)) {
          depth[*next] = depth[at] + 1;
          queue.push_back(*next);
        }
      }
    }
    std::vector<ElementId> out;
    for (const auto& [id, d] : depth) {
      if (d > 0) out.push_back(id);
    }
    return out;  // std::map keeps ascending id
  }
};

const std::string kLabels[] = {"A", "A", "B", "E", "F", "", "1bad"};
const std::string kKeys[] = {"k", "m", "n"};

std::string pick_label(Choices& in) { return kLabels[in.next(std::size(kLabels))]; }

Value pick_value(Choices& in) {
  switch (in.next(9)) {
    case 0: return Value(std::int64_t{0});
    case 1: return Value(std::int64_t{1});
    case 2: return Value(1.0);
    case 3: return Value("a");
    case 4: return Value("b");
    case 5: return Value(true);
    case 6: return Value(nullptr);
    case 7: return Value::list({Value(std::int64_t{1}), Value("a")});
    default: return Value(std::string(in.next(40), 'x'));  // packed and spilled property maps
  }
}

Properties pick_properties(Choices& in) {
  std::vector<Properties::Entry> entries;
  for (unsigned n = in.next(4); n > 0; --n) entries.emplace_back(kKeys[in.next(std::size(kKeys))], pick_value(in));
  return Properties(std::move(entries));
}

class Run {
 public:
  void step(Choices& in) {
    ++step_;
    switch (in.next(16)) {
      case 0:
      case 1: create_vertex(in); break;
      case 2:
      case 3: create_edge(in); break;
      case 4: update_vertex(in); break;
      case 5: update_edge(in); break;
      case 6: delete_vertex(in); break;
      case 7: delete_edge(in); break;
      case 8: find_vertex(in); break;
      case 9: find_edge(in); break;
      case 10: find_vertices(pick_label(in), pick_properties(in)); break;
      case 11: find_edges(pick_label(in), pick_properties(in)); break;
      case 12: neighbors(in); break;
      case 13: index(in); break;
      case 14: create_vertices(in); break;
      default: check_all(); break;
    }
  }

  void check_all() {
    for (const auto& label : kLabels) {
      find_vertices(label, {});
      find_edges(label, {});
    }
    std::set<std::string> vertex_labels, edge_labels;
    for (const auto& [id, v] : model_.vertices) vertex_labels.insert(v.label);
    for (const auto& [id, e] : model_.edges) edge_labels.insert(e.label);
    expect(graph_.vertex_labels() == std::vector<std::string>(vertex_labels.begin(), vertex_labels.end()),
           "vertex_labels");
    expect(graph_.edge_labels() == std::vector<std::string>(edge_labels.begin(), edge_labels.end()), "edge_labels");
  }

 private:
  void expect(bool ok, const std::string& what) {
    if (!ok) mismatch(step_, what);
  }

  ElementId pick_id(Choices& in) {
    const unsigned i = in.next(static_cast<unsigned>(issued_.size()) + 2);
    if (i == issued_.size()) return ElementId("nope");
    if (i > issued_.size()) return ElementId();
    return issued_[i];
  }

  void issued(const ElementId& id, std::optional<ElementId>& last, const char* kind) {
    expect(issued_set_.insert(id).second, fmt::format("{} id {} reused", kind, id));
    expect(!last || *last < id, fmt::format("{} id {} does not sort after {}", kind, id, last ? *last : ElementId()));
    last = id;
    issued_.push_back(id);
  }

  void same_vertex(const Vertex& got, const ElementId& id, const char* call) {
    const auto it = model_.vertices.find(id);
    expect(it != model_.vertices.end() && got.id == id && got.label == it->second.label &&
               got.properties == it->second.properties,
           fmt::format("{}: got {} {} {}", call, got.id, got.label, got.properties));
  }
  void same_edge(const Edge& got, const ElementId& id, const char* call) {
    const auto it = model_.edges.find(id);
    expect(it != model_.edges.end() && got.id == id && got.label == it->second.label && got.from == it->second.from &&
               got.to == it->second.to && got.properties == it->second.properties,
           fmt::format("{}: got {} {} {}->{} {}", call, got.id, got.label, got.from, got.to, got.properties));
  }

  void create_vertex(Choices& in) {
    const std::string label = pick_label(in);
    const Properties properties = pick_properties(in);
    if (!is_valid_label(label)) {
      try {
        (void)graph_.create_vertex(label, properties);
        mismatch(step_, fmt::format("create_vertex accepted label '{}'", label));
      } catch (const InvalidArgument&) {
      }
      return;
    }
    const Vertex v = graph_.create_vertex(label, properties);
    issued(v.id, last_vertex_, "vertex");
    model_.vertices[v.id] = {label, Model::merged({}, properties)};
    same_vertex(v, v.id, "create_vertex");
  }

  void create_vertices(Choices& in) {
    std::vector<NewVertex> batch;
    bool valid = true;
    for (unsigned n = 1 + in.next(3); n > 0; --n) {
      batch.push_back({pick_label(in), pick_properties(in)});
      valid = valid && is_valid_label(batch.back().label);
    }
    if (!valid) {
      try {
        (void)graph_.create_vertices(batch);
        mismatch(step_, "create_vertices accepted a malformed label");
      } catch (const InvalidArgument&) {
      }
      return;
    }
    const auto ids = graph_.create_vertices(batch);
    expect(ids.size() == batch.size(), "create_vertices returned a different number of ids");
    for (std::size_t i = 0; i < ids.size(); ++i) {
      issued(ids[i], last_vertex_, "vertex");
      model_.vertices[ids[i]] = {batch[i].label, Model::merged({}, batch[i].properties)};
    }
  }

  void create_edge(Choices& in) {
    const ElementId from = pick_id(in), to = pick_id(in);
    const std::string label = pick_label(in);
    const Properties properties = pick_properties(in);
    const bool label_ok = is_valid_label(label);
    const bool ends_ok = model_.vertices.contains(from) && model_.vertices.contains(to);
    if (!label_ok || !ends_ok) {
      try {
        (void)graph_.create_edge(from, to, label, properties);
        mismatch(step_, fmt::format("create_edge {} -{}-> {} succeeded", from, label, to));
      } catch (const InvalidArgument&) {
        expect(!label_ok, "create_edge: InvalidArgument for a valid label");
      } catch (const NotFound&) {
        expect(!ends_ok, "create_edge: NotFound with both endpoints present");
      }
      return;
    }
    const Edge e = graph_.create_edge(from, to, label, properties);
    issued(e.id, last_edge_, "edge");
    model_.edges[e.id] = {label, from, to, Model::merged({}, properties)};
    same_edge(e, e.id, "create_edge");
  }

  /// A lookup-first call (update_*, find_*_by_id): nullopt unless the model has `id` with
  /// `label`; otherwise the model's element after `apply`.
  template <class Element, class Map, class Apply>
  void expect_found(const std::optional<Element>& got, Map& map, const std::string& label, const ElementId& id,
                    const char* call, Apply&& apply) {
    const auto it = map.find(id);
    if (it == map.end() || it->second.label != label) {
      expect(!got, fmt::format("{}({}, {}) found something", call, label, id));
      return;
    }
    apply(it->second);
    expect(got.has_value(), fmt::format("{}({}, {}) found nothing", call, label, id));
    if constexpr (std::is_same_v<Element, Vertex>) {
      same_vertex(*got, id, call);
    } else {
      same_edge(*got, id, call);
    }
  }

  void update_vertex(Choices& in) {
    const std::string label = pick_label(in);
    const ElementId id = pick_id(in);
    const Properties patch = pick_properties(in);
    expect_found(graph_.update_vertex(label, id, patch), model_.vertices, label, id, "update_vertex",
                 [&](ModelVertex& v) { v.properties = Model::merged(v.properties, patch); });
  }

  void update_edge(Choices& in) {
    const std::string label = pick_label(in);
    const ElementId id = pick_id(in);
    const Properties patch = pick_properties(in);
    expect_found(graph_.update_edge(label, id, patch), model_.edges, label, id, "update_edge",
                 [&](ModelEdge& e) { e.properties = Model::merged(e.properties, patch); });
  }

  void delete_vertex(Choices& in) {
    const std::string label = pick_label(in);
    const ElementId id = pick_id(in);
    const auto it = model_.vertices.find(id);
    const bool expected = it != model_.vertices.end() && it->second.label == label;
    expect(graph_.delete_vertex(label, id) == expected, fmt::format("delete_vertex({}, {})", label, id));
    if (expected) model_.delete_vertex(id);
  }

  void delete_edge(Choices& in) {
    const std::string label = pick_label(in);
    const ElementId id = pick_id(in);
    const auto it = model_.edges.find(id);
    const bool expected = it != model_.edges.end() && it->second.label == label;
    expect(graph_.delete_edge(label, id) == expected, fmt::format("delete_edge({}, {})", label, id));
    if (expected) model_.edges.erase(id);
  }

  void find_vertex(Choices& in) {
    const std::string label = pick_label(in);
    const ElementId id = pick_id(in);
    expect_found(graph_.find_vertex_by_id(label, id), model_.vertices, label, id, "find_vertex_by_id",
                 [](const ModelVertex&) {});
  }

  void find_edge(Choices& in) {
    const std::string label = pick_label(in);
    const ElementId id = pick_id(in);
    expect_found(graph_.find_edge_by_id(label, id), model_.edges, label, id, "find_edge_by_id",
                 [](const ModelEdge&) {});
  }

  void find_vertices(const std::string& label, const Properties& filter) {
    std::vector<ElementId> expected;
    for (const auto& [id, v] : model_.vertices) {
      if (v.label == label && Model::matches(v.properties, filter)) expected.push_back(id);
    }
    const auto got = graph_.find_vertices_by_label(label, filter);
    expect(got.size() == expected.size(), fmt::format("find_vertices_by_label({}, {}): {} vertices, expected {}", label,
                                                      filter, got.size(), expected.size()));
    for (std::size_t i = 0; i < got.size(); ++i) same_vertex(got[i], expected[i], "find_vertices_by_label");
    expect(graph_.count_vertices(label) == std::count_if(model_.vertices.begin(), model_.vertices.end(),
                                                         [&](const auto& v) { return v.second.label == label; }),
           fmt::format("count_vertices({})", label));
  }

  void find_edges(const std::string& label, const Properties& filter) {
    std::vector<ElementId> expected;
    for (const auto& [id, e] : model_.edges) {
      if (e.label == label && Model::matches(e.properties, filter)) expected.push_back(id);
    }
    const auto got = graph_.find_edges_by_label(label, filter);
    expect(got.size() == expected.size(), fmt::format("find_edges_by_label({}, {}): {} edges, expected {}", label,
                                                      filter, got.size(), expected.size()));
    for (std::size_t i = 0; i < got.size(); ++i) same_edge(got[i], expected[i], "find_edges_by_label");
    expect(graph_.count_edges(label) == std::count_if(model_.edges.begin(), model_.edges.end(),
                                                      [&](const auto& e) { return e.second.label == label; }),
           fmt::format("count_edges({})", label));
  }

  void neighbors(Choices& in) {
    const ElementId start = pick_id(in);
    NeighborOptions options;
    options.direction = static_cast<Direction>(in.next(3));
    options.max_depth = 1 + static_cast<int>(in.next(3));
    if (const unsigned label = in.next(3); label > 0) options.edge_label = label == 1 ? "E" : "F";
    const auto expected = model_.neighbors(start, options);
    const auto got = graph_.neighbors(start, options);
    expect(got.size() == expected.size(), fmt::format("neighbors({}, depth {}): {} vertices, expected {}", start,
                                                      options.max_depth, got.size(), expected.size()));
    for (std::size_t i = 0; i < got.size(); ++i) same_vertex(got[i], expected[i], "neighbors");
  }

  void index(Choices& in) {
    const std::string label = kLabels[in.next(5)];  // valid labels only
    const std::string key = kKeys[in.next(std::size(kKeys))];
    const bool exists = model_.indexes.contains({label, key});
    if (in.next(2) == 0) {
      expect(graph_.create_index(label, key) == !exists, fmt::format("create_index({}, {})", label, key));
      model_.indexes.insert({label, key});
    } else {
      expect(graph_.drop_index(label, key) == exists, fmt::format("drop_index({}, {})", label, key));
      model_.indexes.erase({label, key});
    }
    std::vector<std::pair<std::string, std::string>> listed;  // the fuzzer creates non-unique ones only
    for (const auto& index : graph_.indexes()) {
      expect(!index.unique, "indexes(): unique");
      listed.emplace_back(index.label, index.key);
    }
    expect(std::vector<std::pair<std::string, std::string>>(model_.indexes.begin(), model_.indexes.end()) == listed,
           "indexes()");
  }

  MemoryGraph graph_;
  Model model_;
  std::vector<ElementId> issued_;  // every vertex and edge id, deleted ones included
  std::set<ElementId> issued_set_;
  std::optional<ElementId> last_vertex_, last_edge_;
  std::size_t step_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Short sequences keep each run fast; the comparisons cost O(graph) per call.
  constexpr int kMaxCalls = 400;
  Choices in(data, size);
  Run run;
  for (int call = 0; call < kMaxCalls && in.more(); ++call) run.step(in);
  run.check_all();
  return 0;
}
