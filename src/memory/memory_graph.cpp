#include "propgraph/memory/memory_graph.hpp"

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/pending/disjoint_sets.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <type_traits>

#include <fmt/format.h>

#include "memory/boost_view.hpp"
#include "memory/store.hpp"

namespace propgraph {

using detail::AdjEntry;
using detail::EdgeFilter;
using detail::kAnyLabel;
using detail::kUnknownLabel;
using detail::LabelId;
using detail::Slot;

namespace {

constexpr Slot kNoSlot = std::numeric_limits<Slot>::max();

std::atomic<std::uint64_t> next_graph_tag{1};

/// Per-thread visit marks with O(1) reset (epoch stamping), plus per-vertex scratch that is
/// meaningful only for marked vertices. MemoryGraph calls never suspend, so a fiber cannot
/// interleave two users of one thread's scratch.
struct Marks {
  detail::LargeVector<std::uint32_t> stamp;
  detail::LargeVector<Slot> parent;       // parent vertex
  detail::LargeVector<Slot> parent_edge;  // edge used to reach the vertex
  std::vector<Slot> queue;         // traversal order, reused across calls
  std::vector<Slot> queue_parent;  // breadth_first: parent of queue[i], read in order
  std::vector<int> queue_depth;    // breadth_first: depth of queue[i]
  std::uint32_t epoch = 0;

  void reset(std::size_t n) {
    if (stamp.size() < n) {
      stamp.resize(n, 0);
      parent.resize(n);
      parent_edge.resize(n);
    }
    if (++epoch == 0) {
      std::fill(stamp.begin(), stamp.end(), 0);
      epoch = 1;
    }
  }
  bool mark(Slot v) {
    if (stamp[v] == epoch) return false;
    stamp[v] = epoch;
    return true;
  }
  void unmark(Slot v) { stamp[v] = 0; }
  [[nodiscard]] bool marked(Slot v) const { return stamp[v] == epoch; }
};

Marks& scratch() {
  thread_local Marks marks;
  return marks;
}
Marks& scratch2() {
  thread_local Marks marks;
  return marks;
}

void check_depth(int depth, std::string_view field) {
  if (depth < 0) throw InvalidArgument(fmt::format("{} must be >= 0, got {}", field, depth));
}

Properties without_nulls(const Properties& props) {
  bool any_null = std::any_of(props.begin(), props.end(), [](const auto& e) { return e.second.is_null(); });
  if (!any_null) return props;  // shares the caller's map: O(1)
  Properties result;
  for (const auto& [key, value] : props) {
    if (!value.is_null()) result.set(key, value);
  }
  return result;
}

}  // namespace

struct MemoryGraph::Impl {
  std::string graph_name;
  std::set<std::string, std::less<>> catalog;
  std::string prefix;  // "g<tag>:"
  mutable std::shared_mutex mutex;
  detail::Store store;

  explicit Impl(std::string name) : graph_name(std::move(name)) {
    validate_label(graph_name, "graph name");
    catalog.insert(graph_name);
    renew_prefix();
  }

  void renew_prefix() { prefix = fmt::format("g{}:", next_graph_tag.fetch_add(1)); }

  // -- ids ---------------------------------------------------------------------------------

  [[nodiscard]] ElementId make_id(char kind, Slot slot) const {
    // One string construction from a stack buffer; ids fit the short-string buffer, so this
    // does not allocate.
    char buf[48];
    const std::size_t n = prefix.size();
    std::memcpy(buf, prefix.data(), n);
    buf[n] = kind;
    char* end = std::to_chars(buf + n + 1, buf + sizeof buf, slot).ptr;
    return ElementId(buf, static_cast<std::size_t>(end - buf));
  }

  /// The slot an id of this graph names, or kNoSlot. Accepts only the canonical form.
  [[nodiscard]] Slot parse_id(const ElementId& id, char kind, std::size_t limit) const {
    std::string_view s = id.str();
    if (s.size() < prefix.size() + 2 || s.compare(0, prefix.size(), prefix) != 0) return kNoSlot;
    if (s[prefix.size()] != kind) return kNoSlot;
    std::string_view digits = s.substr(prefix.size() + 1);
    if (digits.size() > 1 && digits[0] == '0') return kNoSlot;
    Slot slot = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), slot);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || slot >= limit) return kNoSlot;
    return slot;
  }

  [[nodiscard]] Slot vertex_slot(const ElementId& id) const {
    Slot v = parse_id(id, 'v', store.vertices.size());
    return v != kNoSlot && store.vertices[v].alive ? v : kNoSlot;
  }
  [[nodiscard]] Slot edge_slot(const ElementId& id) const {
    Slot e = parse_id(id, 'e', store.edges.size());
    return e != kNoSlot && store.edges[e].alive ? e : kNoSlot;
  }
  /// Live vertex with that label, else kNoSlot.
  [[nodiscard]] Slot vertex_slot(std::string_view label, const ElementId& id) const {
    Slot v = vertex_slot(id);
    return v != kNoSlot && store.labels.name(store.vertices[v].label) == label ? v : kNoSlot;
  }
  [[nodiscard]] Slot edge_slot(std::string_view label, const ElementId& id) const {
    Slot e = edge_slot(id);
    return e != kNoSlot && store.labels.name(store.edges[e].label) == label ? e : kNoSlot;
  }

  // -- result building ---------------------------------------------------------------------

  [[nodiscard]] Vertex make_vertex(Slot v) const {
    const auto& rec = store.vertices[v];
    return Vertex{make_id('v', v), store.labels.name(rec.label), rec.properties.unpack()};
  }
  /// Appends a Visit built in place: results are mostly short strings, so avoiding moves of
  /// whole records is most of the cost of building them.
  void emplace_visit(std::vector<Visit>& out, Slot v, int depth, Slot parent) const {
    Visit& visit = out.emplace_back();
    const auto& rec = store.vertices[v];
    visit.vertex.id = make_id('v', v);
    visit.vertex.label = store.labels.name(rec.label);
    visit.vertex.properties = rec.properties.unpack();
    visit.depth = depth;
    if (parent != kNoSlot) visit.parent.emplace(make_id('v', parent));
  }
  /// Appends the vertex constructed in place (saves a move per result element).
  void emplace_vertex(std::vector<Vertex>& out, Slot v) const {
    const auto& rec = store.vertices[v];
    out.emplace_back(make_id('v', v), store.labels.name(rec.label), rec.properties.unpack());
  }
  [[nodiscard]] Edge make_edge(Slot e) const {
    const auto& rec = store.edges[e];
    return Edge{make_id('e', e), store.labels.name(rec.label), make_id('v', rec.from),
                make_id('v', rec.to), rec.properties.unpack()};
  }
  [[nodiscard]] std::vector<Vertex> make_vertices(const std::vector<Slot>& slots) const {
    std::vector<Vertex> result;
    result.reserve(slots.size());
    for_each_prefetched(slots.data(), slots.size(), [&](Slot v) { emplace_vertex(result, v); });
    return result;
  }

  // -- prefetching ---------------------------------------------------------------------------
  // Results and traversals visit records in an order unrelated to memory (BFS order, component
  // members); each record and its property bytes would be a cache miss in turn. Fetching them
  // a few steps ahead overlaps those misses.

  static constexpr std::size_t kRecordAhead = 12;
  static constexpr std::size_t kPayloadAhead = 6;

  void prefetch_record(Slot v) const noexcept { __builtin_prefetch(&store.vertices[v]); }
  /// Heap-held property bytes; the record must have been fetched a few steps before.
  void prefetch_payload(Slot v) const noexcept { store.vertices[v].properties.prefetch(); }
  void prefetch_ahead(const Slot* slots, std::size_t i, std::size_t n) const noexcept {
    if (i + kRecordAhead < n) prefetch_record(slots[i + kRecordAhead]);
    if (i + kPayloadAhead < n) prefetch_payload(slots[i + kPayloadAhead]);
  }
  /// fn(slot) for each slot, prefetching ahead.
  template <typename Fn>
  void for_each_prefetched(const Slot* slots, std::size_t n, Fn&& fn) const {
    for (std::size_t i = 0; i < n; ++i) {
      prefetch_ahead(slots, i, n);
      fn(slots[i]);
    }
  }

  // -- label membership --------------------------------------------------------------------

  static detail::LabelMembers& members(std::vector<detail::LabelMembers>& table, LabelId label) {
    if (table.size() <= label) table.resize(label + 1);
    return table[label];
  }

  template <typename Records>
  static void forget_member(std::vector<detail::LabelMembers>& table, LabelId label,
                            const Records& records) {
    auto& m = table[label];
    --m.live;
    // Compact once dead slots outnumber live ones: amortised O(1) per delete.
    if (++m.dead > m.live && m.dead > 16) {
      std::erase_if(m.slots, [&](Slot s) { return !records[s].alive; });
      m.dead = 0;
    }
  }

  template <typename Records, typename Fn>
  void for_each_member(const std::vector<detail::LabelMembers>& table, std::string_view label,
                       const Records& records, Fn&& fn) const {
    LabelId id = store.labels.find(label);
    if (id == kUnknownLabel || id >= table.size()) return;
    for (Slot s : table[id].slots) {
      if (records[s].alive) fn(s);
    }
  }

  // -- writes (caller holds the unique lock) -------------------------------------------------

  template <typename Records>
  static void reserve_slots(Records& records, std::size_t more, std::string_view kind) {
    if (records.size() + more >= kNoSlot - 1) {
      throw InvalidArgument(fmt::format("MemoryGraph is full: {} slots are limited to 2^32 - 2", kind));
    }
  }

  // -- property indexes (caller holds the unique lock) -----------------------------------------

  static std::vector<detail::PropertyIndex>* indexes_of(detail::IndexTable& table, LabelId label) {
    return label < table.size() && !table[label].empty() ? &table[label] : nullptr;
  }
  static void index_element(detail::IndexTable& table, LabelId label, const detail::PackedProperties& props,
                            Slot slot) {
    if (auto* list = indexes_of(table, label)) {
      for (auto& index : *list) index.add(props.index_key(index.key()), slot);
    }
  }
  static void unindex_element(detail::IndexTable& table, LabelId label, const detail::PackedProperties& props,
                              Slot slot) {
    if (auto* list = indexes_of(table, label)) {
      for (auto& index : *list) index.remove(props.index_key(index.key()), slot);
    }
  }
  /// Replaces an element's properties by `merged`, moving it between index buckets.
  static void repack(detail::IndexTable& table, LabelId label, detail::PackedProperties& props,
                     const Properties& merged, Slot slot) {
    detail::PackedProperties next(merged);
    if (auto* list = indexes_of(table, label)) {
      for (auto& index : *list) {
        auto before = props.index_key(index.key());
        auto after = next.index_key(index.key());
        if (before == after) continue;
        index.remove(before, slot);
        index.add(after, slot);
      }
    }
    props = std::move(next);
  }

  /// Ascending slots of label's elements that may match filter, from the most selective usable
  /// index (a non-null filter value on an indexed key); nullptr when no index applies.
  [[nodiscard]] static const std::vector<Slot>* indexed_candidates(const detail::IndexTable& table, LabelId label,
                                                                   const Properties& filter) {
    static const std::vector<Slot> none;
    if (filter.empty() || label >= table.size() || table[label].empty()) return nullptr;
    const std::vector<Slot>* best = nullptr;
    for (const auto& index : table[label]) {
      const Value* want = filter.find(index.key());
      if (!want || want->is_null()) continue;
      const auto* bucket = index.find(detail::PackedProperties::value_key(*want));
      if (!bucket) return &none;  // no element holds that value
      if (!best || bucket->size() < best->size()) best = bucket;
    }
    return best;
  }

  Slot insert_vertex(std::string_view label, const Properties& properties) {
    const auto slot = static_cast<Slot>(store.vertices.size());
    const LabelId l = store.labels.intern(label);
    store.vertices.push_back(detail::VertexRecord{l, true, detail::PackedProperties(properties), {}, {}});
    index_element(store.vertex_indexes, l, store.vertices.back().properties, slot);
    adjacency_changed();
    auto& m = members(store.vertices_by_label, l);
    m.slots.push_back(slot);
    ++m.live;
    ++store.live_vertices;
    return slot;
  }

  /// Both endpoint slots; NotFound names the missing one.
  std::pair<Slot, Slot> endpoints(const ElementId& from, const ElementId& to) const {
    Slot f = vertex_slot(from);
    if (f == kNoSlot) throw NotFound(fmt::format("create_edge: source vertex '{}' not found", from.str()));
    Slot t = vertex_slot(to);
    if (t == kNoSlot) throw NotFound(fmt::format("create_edge: target vertex '{}' not found", to.str()));
    return {f, t};
  }

  Slot insert_edge(Slot f, Slot t, std::string_view label, const Properties& properties) {
    const auto slot = static_cast<Slot>(store.edges.size());
    const LabelId l = store.labels.intern(label);
    store.edges.push_back(detail::EdgeRecord{l, true, f, t, detail::PackedProperties(properties)});
    index_element(store.edge_indexes, l, store.edges.back().properties, slot);
    adjacency_changed();
    store.vertices[f].out.push_back(AdjEntry{slot, t, l});
    store.vertices[t].in.push_back(AdjEntry{slot, f, l});
    auto& m = members(store.edges_by_label, l);
    m.slots.push_back(slot);
    ++m.live;
    ++store.live_edges;
    return slot;
  }

  void unlink(std::vector<AdjEntry>& list, Slot edge) {
    auto it = std::lower_bound(list.begin(), list.end(), edge,
                               [](const AdjEntry& a, Slot e) { return a.edge < e; });
    if (it != list.end() && it->edge == edge) list.erase(it);
  }

  void remove_edge(Slot e) {
    auto& rec = store.edges[e];
    unlink(store.vertices[rec.from].out, e);
    unlink(store.vertices[rec.to].in, e);
    unindex_element(store.edge_indexes, rec.label, rec.properties, e);
    adjacency_changed();
    rec.alive = false;
    rec.properties = {};
    --store.live_edges;
    forget_member(store.edges_by_label, rec.label, store.edges);
  }

  void remove_vertex(Slot v) {
    auto& rec = store.vertices[v];
    // Collect first: remove_edge edits these lists.
    std::vector<Slot> incident;
    incident.reserve(rec.out.size() + rec.in.size());
    for (const auto& a : rec.out) incident.push_back(a.edge);
    for (const auto& a : rec.in) {
      if (a.other != v) incident.push_back(a.edge);  // a self-loop is already listed
    }
    for (Slot e : incident) remove_edge(e);
    unindex_element(store.vertex_indexes, rec.label, rec.properties, v);
    adjacency_changed();
    rec.alive = false;
    rec.properties = {};
    rec.out = {};
    rec.in = {};
    --store.live_vertices;
    forget_member(store.vertices_by_label, rec.label, store.vertices);
  }

  // -- traversal helpers (caller holds a lock) ------------------------------------------------

  [[nodiscard]] EdgeFilter filter(Direction d, const std::optional<std::string>& edge_label,
                                  const std::optional<std::string>& vertex_label = std::nullopt) const {
    return EdgeFilter{d, store.labels.filter(edge_label), store.labels.filter(vertex_label)};
  }

  /// Breadth-first search from start up to max_depth hops. scratch() marks hold parent and
  /// parent_edge; scratch().queue holds the vertices in visit (level) order, queue_parent and
  /// queue_depth their parents and depths. Calls
  /// on_visit(slot, depth) per visit and stops when it returns false. Returns the number of
  /// vertices visited, a prefix of the queue.
  template <typename Adjacency, typename OnVisit>
  std::size_t breadth_first(const Adjacency& adj, Slot start, const EdgeFilter& f, int max_depth,
                            OnVisit&& on_visit) const {
    Marks& m = scratch();
    m.reset(store.vertices.size());
    m.mark(start);
    m.parent[start] = kNoSlot;
    auto& queue = m.queue;
    // Parent and depth also go along the queue: reading them back in queue order is sequential.
    queue.assign(1, start);
    m.queue_parent.assign(1, kNoSlot);
    m.queue_depth.assign(1, 0);
    std::uint64_t scanned = 0;
    std::size_t head = 0;
    for (; head < queue.size(); ++head) {
      prefetch_lists(adj, queue.data(), head, queue.size());
      const Slot v = queue[head];
      const int depth = m.queue_depth[head];
      if (!on_visit(v, depth)) break;
      if (depth >= max_depth) continue;
      store.for_each_adjacent(adj, v, f, [&](const AdjEntry& a) {
        ++scanned;
        if (!m.mark(a.other)) return;
        m.parent[a.other] = v;
        m.parent_edge[a.other] = a.edge;
        queue.push_back(a.other);
        m.queue_parent.push_back(v);
        m.queue_depth.push_back(depth + 1);
      });
    }
    note_work(adj, scanned);
    return head == queue.size() ? head : head + 1;
  }

  /// Path from the traversal root to `to`, following scratch() parent links.
  [[nodiscard]] Path path_to(Slot to) const {
    const Marks& m = scratch();
    std::vector<Slot> vs;
    std::vector<Slot> es;
    for (Slot v = to; v != kNoSlot; v = m.parent[v]) {
      vs.push_back(v);
      if (m.parent[v] != kNoSlot) es.push_back(m.parent_edge[v]);
    }
    return make_path(vs.rbegin(), vs.rend(), es.rbegin(), es.rend());
  }

  template <typename VIt, typename EIt>
  [[nodiscard]] Path make_path(VIt vb, VIt ve, EIt eb, EIt ee) const {
    Path p;
    p.vertices.reserve(static_cast<std::size_t>(std::distance(vb, ve)));
    p.edges.reserve(static_cast<std::size_t>(std::distance(eb, ee)));
    for (; vb != ve; ++vb) p.vertices.push_back(make_vertex(*vb));
    for (; eb != ee; ++eb) p.edges.push_back(make_edge(*eb));
    return p;
  }

  [[nodiscard]] std::optional<Path> dijkstra(Slot from, Slot to, const EdgeFilter& f,
                                             const std::string& weight_key) const;
  template <typename Adjacency>
  [[nodiscard]] std::vector<Path> all_paths(const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                                            int max_depth, std::size_t max_paths) const;
  template <typename Adjacency>
  [[nodiscard]] std::vector<Visit> depth_first(const Adjacency& adj, Slot start, const EdgeFilter& f,
                                               int max_depth, std::size_t max_vertices) const;
  template <typename Adjacency>
  [[nodiscard]] std::vector<Cycle> cycles(const Adjacency& adj, const CycleOptions& options) const;
  template <typename Adjacency>
  [[nodiscard]] std::vector<PageRankScore> page_rank(const Adjacency& adj, const PageRankOptions& options) const;
  template <typename Adjacency>
  [[nodiscard]] std::vector<Component> components(const Adjacency& adj, const ComponentOptions& options) const;

  // -- adjacency snapshot ------------------------------------------------------------------------
  // Traversals run on the live per-vertex lists until the work they did since the last change
  // of the adjacency reaches the cost of a CsrAdjacency snapshot (about one pass over all
  // lists); then the snapshot is built and every traversal uses it until the next change. So
  // building is paid for by work already done (at most doubling it), write-heavy workloads
  // never build, and read-heavy ones traverse contiguous memory.

  mutable std::mutex snapshot_mutex;                     // guards snapshot while building
  mutable std::shared_ptr<const detail::CsrAdjacency> snapshot;
  mutable std::atomic<bool> snapshot_ready{false};
  mutable std::atomic<std::uint64_t> live_work{0};       // adjacency entries scanned live since the change

  static constexpr std::uint64_t kSmallGraph = 1u << 14;  // live lists of small graphs stay in cache

  [[nodiscard]] std::uint64_t snapshot_cost() const noexcept {
    return 2 * static_cast<std::uint64_t>(store.live_edges) + store.vertices.size();
  }
  /// The snapshot if it exists or the work done live since the last change pays for building
  /// it; nullptr otherwise.
  std::shared_ptr<const detail::CsrAdjacency> current_snapshot() const {
    const std::uint64_t cost = snapshot_cost();
    if (cost < kSmallGraph) return nullptr;
    if (!snapshot_ready.load(std::memory_order_acquire) && live_work.load(std::memory_order_relaxed) < cost) {
      return nullptr;
    }
    std::lock_guard guard(snapshot_mutex);
    if (!snapshot) {
      snapshot = std::make_shared<const detail::CsrAdjacency>(store);
      snapshot_ready.store(true, std::memory_order_release);
    }
    return snapshot;
  }
  /// Runs fn(adjacency) on the snapshot when current_snapshot() gives one, else on the live
  /// lists (and the call adds what it scanned there with note_work).
  template <typename Fn>
  decltype(auto) with_adjacency(Fn&& fn) const {
    if (auto csr = current_snapshot()) return fn(*csr);
    return fn(detail::LiveAdjacency{&store});
  }
  template <typename Adjacency>
  void note_work(const Adjacency&, std::uint64_t scanned) const noexcept {
    if constexpr (std::is_same_v<Adjacency, detail::LiveAdjacency>) {
      live_work.fetch_add(scanned, std::memory_order_relaxed);
    }
  }
  /// Every change of the adjacency (caller holds the unique lock) makes the snapshot stale.
  void adjacency_changed() noexcept {
    if (snapshot_ready.load(std::memory_order_relaxed)) {
      snapshot.reset();
      snapshot_ready.store(false, std::memory_order_relaxed);
    }
    live_work.store(0, std::memory_order_relaxed);
  }

  /// Prefetching for a traversal queue: live lists need the record, then its list pointer.
  template <typename Adjacency>
  void prefetch_lists(const Adjacency& adj, const Slot* slots, std::size_t i, std::size_t n) const noexcept {
    if constexpr (std::is_same_v<Adjacency, detail::LiveAdjacency>) {
      if (i + kRecordAhead < n) prefetch_record(slots[i + kRecordAhead]);
    }
    if (i + kPayloadAhead < n) adj.prefetch(slots[i + kPayloadAhead]);
  }
};

// -- Dijkstra ---------------------------------------------------------------------------------

namespace {

/// Edge weights read from the live edge properties: missing means 1, negative or non-numeric
/// is the caller's error.
struct WeightMap {
  using key_type = detail::ViewEdge;
  using value_type = double;
  using reference = double;
  using category = boost::readable_property_map_tag;
  const detail::Store* store;
  const std::string* key;
  const std::string* prefix;
};

double get(const WeightMap& m, const detail::ViewEdge& e) {
  const Value v = m.store->edges[e.edge].properties.get(*m.key);
  if (v.is_null()) return 1.0;
  if (!v.is_number()) {
    throw InvalidArgument(fmt::format("edge {}e{}: weight property '{}' is {}, not a number",
                                      *m.prefix, e.edge, *m.key, to_string(v.type())));
  }
  double w = v.as_number();
  if (w < 0 || std::isnan(w)) {
    throw InvalidArgument(fmt::format("edge {}e{}: weight property '{}' is negative ({})",
                                      *m.prefix, e.edge, *m.key, w));
  }
  return w;
}

struct TargetReached {};

struct DijkstraRecorder : boost::default_dijkstra_visitor {
  Slot target;
  std::vector<Slot>* pred_edge;
  void edge_relaxed(const detail::ViewEdge& e, const detail::StoreView&) const {
    (*pred_edge)[e.target] = e.edge;
  }
  void examine_vertex(Slot v, const detail::StoreView&) const {
    if (v == target) throw TargetReached{};
  }
};

}  // namespace

std::optional<Path> MemoryGraph::Impl::dijkstra(Slot from, Slot to, const EdgeFilter& f,
                                                const std::string& weight_key) const {
  detail::StoreView view{&store, f};
  const std::size_t n = store.vertices.size();
  std::vector<Slot> pred(n);
  std::vector<double> dist(n);
  std::vector<Slot> pred_edge(n, kNoSlot);
  boost::typed_identity_property_map<Slot> index;
  try {
    boost::dijkstra_shortest_paths(
        view, from,
        boost::predecessor_map(boost::make_iterator_property_map(pred.begin(), index))
            .distance_map(boost::make_iterator_property_map(dist.begin(), index))
            .weight_map(WeightMap{&store, &weight_key, &prefix})
            .vertex_index_map(index)
            .visitor(DijkstraRecorder{{}, to, &pred_edge}));
  } catch (const TargetReached&) {
    // Early exit: `to` was settled, its distance and predecessor are final.
  }
  if (from != to && pred_edge[to] == kNoSlot) return std::nullopt;
  std::vector<Slot> vs{to};
  std::vector<Slot> es;
  for (Slot v = to; v != from; v = pred[v]) {
    es.push_back(pred_edge[v]);
    vs.push_back(pred[v]);
  }
  return make_path(vs.rbegin(), vs.rend(), es.rbegin(), es.rend());
}

// -- all simple paths -------------------------------------------------------------------------

// Boost has no bounded simple-path enumeration. Iterative deepening: one depth-first pass per
// length L = 0..max_depth emits the paths of exactly L edges, so results come shortest first
// and enumeration stops as soon as max_paths are found.
template <typename Adjacency>
std::vector<Path> MemoryGraph::Impl::all_paths(const Adjacency& adj, Slot from, Slot to, const EdgeFilter& f,
                                               int max_depth, std::size_t max_paths) const {
  std::vector<Path> result;
  if (max_paths == 0) return result;
  if (from == to) {
    result.push_back(make_path(&from, &from + 1, &from, &from));
    return result;  // the only simple path from a vertex to itself
  }
  Marks& on_path = scratch2();
  std::vector<Slot> vs{from};
  std::vector<Slot> es;
  for (int length = 1; length <= max_depth && result.size() < max_paths; ++length) {
    on_path.reset(store.vertices.size());
    on_path.mark(from);
    // Recursive lambda: depth is bounded by max_depth.
    auto extend = [&](auto& self, Slot v) -> void {
      store.for_each_adjacent(adj, v, f, [&](const AdjEntry& a) {
        if (result.size() >= max_paths || on_path.marked(a.other)) return;
        const bool last = static_cast<int>(es.size()) + 1 == length;
        if (last ? a.other != to : a.other == to) return;  // `to` ends the path, exactly at length
        vs.push_back(a.other);
        es.push_back(a.edge);
        if (last) {
          result.push_back(make_path(vs.begin(), vs.end(), es.begin(), es.end()));
        } else {
          on_path.mark(a.other);
          self(self, a.other);
          on_path.unmark(a.other);
        }
        vs.pop_back();
        es.pop_back();
      });
    };
    extend(extend, from);
  }
  return result;
}

// -- depth-first traversal --------------------------------------------------------------------

// Hand-written rather than boost::depth_first_visit: max_depth and max_vertices need pruning
// that Boost's visitors can only express by throwing. Pre-order matches the recursive
// definition: a vertex is visited when first reached along edge-id order.
template <typename Adjacency>
std::vector<Visit> MemoryGraph::Impl::depth_first(const Adjacency& adj, Slot start, const EdgeFilter& f,
                                                  int max_depth, std::size_t max_vertices) const {
  std::vector<Visit> result;
  if (max_vertices == 0) return result;
  result.reserve(std::min(max_vertices, static_cast<std::size_t>(store.live_vertices)));
  Marks& m = scratch();
  m.reset(store.vertices.size());
  auto visit = [&](Slot v, int depth, Slot parent) {
    m.mark(v);
    emplace_visit(result, v, depth, parent);
  };
  std::uint64_t scanned = 0;
  auto walk = [&](auto& self, Slot v, int depth) -> void {
    if (depth >= max_depth) return;
    store.for_each_adjacent(adj, v, f, [&](const AdjEntry& a) {
      ++scanned;
      if (result.size() >= max_vertices || m.marked(a.other)) return;
      visit(a.other, depth + 1, v);
      self(self, a.other, depth + 1);
    });
  };
  visit(start, 0, kNoSlot);
  walk(walk, start, 0);
  note_work(adj, scanned);
  return result;
}

// -- cycles -----------------------------------------------------------------------------------

// Boost 1.74's hawick_circuits has no length bound and cannot stop at a count, so on a large
// graph it would enumerate exponentially many circuits. This bounded search roots each cycle at
// its smallest slot (so rotations are found once) and follows only larger slots.
template <typename Adjacency>
std::vector<Cycle> MemoryGraph::Impl::cycles(const Adjacency& adj, const CycleOptions& options) const {
  check_depth(options.max_depth, "max_depth");
  std::vector<Cycle> result;
  if (options.max_cycles == 0 || options.max_depth == 0) return result;
  const EdgeFilter f = filter(Direction::out, options.edge_label, options.vertex_label);
  if (f.edge_label == kUnknownLabel || f.vertex_label == kUnknownLabel) return result;
  Marks& on_path = scratch2();
  std::vector<Slot> vs;
  std::vector<Slot> es;
  for (Slot root = 0; root < store.vertices.size() && result.size() < options.max_cycles; ++root) {
    if (!store.vertices[root].alive || !store.vertex_in(root, f.vertex_label)) continue;
    on_path.reset(store.vertices.size());
    on_path.mark(root);
    vs.assign(1, root);
    es.clear();
    auto extend = [&](auto& self, Slot v) -> void {
      const auto out = adj.out(v);
      for (std::size_t i = 0; i < out.size() && result.size() < options.max_cycles; ++i) {
        const AdjEntry& a = out[i];
        if (a.other < root) continue;
        if (f.edge_label != kAnyLabel && a.label != f.edge_label) continue;
        if (!store.vertex_in(a.other, f.vertex_label)) continue;
        // Parallel edges to the same vertex: only the first (lowest id) one counts.
        bool seen = std::any_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), [&](const AdjEntry& b) {
          return b.other == a.other && (f.edge_label == kAnyLabel || b.label == f.edge_label);
        });
        if (seen) continue;
        if (a.other == root) {
          vs.push_back(root);
          es.push_back(a.edge);
          result.push_back(Cycle{make_path(vs.begin(), vs.end(), es.begin(), es.end())});
          vs.pop_back();
          es.pop_back();
        } else if (static_cast<int>(es.size()) + 1 < options.max_depth && !on_path.marked(a.other)) {
          on_path.mark(a.other);
          vs.push_back(a.other);
          es.push_back(a.edge);
          self(self, a.other);
          vs.pop_back();
          es.pop_back();
          on_path.unmark(a.other);
        }
      }
    };
    extend(extend, root);
  }
  return result;
}

namespace {
struct PageRankScratch {
  std::vector<Slot> members;
  std::vector<std::uint32_t> dense;
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint32_t> targets;
  std::vector<double> rank;
  std::vector<double> next;
  std::vector<std::uint32_t> order;
};
}  // namespace

// -- page rank --------------------------------------------------------------------------------

// Written out rather than boost::page_rank: Boost's version drops the rank of dangling vertices
// (scores then no longer sum to 1) and has no L1 tolerance stop.
template <typename Adjacency>
std::vector<PageRankScore> MemoryGraph::Impl::page_rank(const Adjacency& adj, const PageRankOptions& options) const {
  if (options.iterations < 1) throw InvalidArgument("page_rank iterations must be >= 1");
  if (!(options.damping >= 0.0 && options.damping <= 1.0)) {
    throw InvalidArgument(fmt::format("page_rank damping must be in [0, 1], got {}", options.damping));
  }
  const EdgeFilter f = filter(Direction::out, options.edge_label, options.vertex_label);
  // Dense numbering of the participating vertices, in slot (= id) order. Buffers are reused
  // per thread: repeated calls on small graphs then allocate nothing but the result.
  thread_local PageRankScratch scratch_buffers;
  auto& [members, dense, offsets, targets, rank, next, order] = scratch_buffers;
  members.clear();
  targets.clear();
  if (f.vertex_label == kUnknownLabel) return {};
  for (Slot v = 0; v < store.vertices.size(); ++v) {
    if (store.vertices[v].alive && store.vertex_in(v, f.vertex_label)) members.push_back(v);
  }
  const std::size_t n = members.size();
  if (n == 0) return {};
  dense.resize(store.vertices.size());
  for (std::uint32_t i = 0; i < n; ++i) dense[members[i]] = i;
  // Compact out-adjacency in dense numbering (CSR), built once per call.
  offsets.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i + kPayloadAhead < n) adj.prefetch(members[i + kPayloadAhead]);
    store.for_each_adjacent(adj, members[i], f, [&](const AdjEntry& a) { targets.push_back(dense[a.other]); });
    offsets[i + 1] = static_cast<std::uint32_t>(targets.size());
  }
  note_work(adj, snapshot_cost());  // one pass over every list
  const double d = options.damping;
  const double inv_n = 1.0 / static_cast<double>(n);
  rank.assign(n, inv_n);
  next.resize(n);
  for (int iter = 0; iter < options.iterations; ++iter) {
    double dangling = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (offsets[i] == offsets[i + 1]) dangling += rank[i];
    }
    std::fill(next.begin(), next.end(), (1.0 - d) * inv_n + d * dangling * inv_n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t deg = offsets[i + 1] - offsets[i];
      if (deg == 0) continue;
      const double share = d * rank[i] / deg;
      for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) next[targets[k]] += share;
    }
    double change = 0.0;
    for (std::size_t i = 0; i < n; ++i) change += std::abs(next[i] - rank[i]);
    rank.swap(next);
    if (change < options.tolerance) break;
  }
  order.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  // Dense order is id order, so ties broken by dense index are ties broken by id.
  std::sort(order.begin(), order.end(),
            [&](auto a, auto b) { return rank[a] != rank[b] ? rank[a] > rank[b] : a < b; });
  const std::size_t k = std::min(options.top_k, n);
  std::vector<PageRankScore> result;
  result.reserve(k);
  for (std::size_t i = 0; i < k; ++i) result.push_back({make_vertex(members[order[i]]), rank[order[i]]});
  return result;
}

// -- components -------------------------------------------------------------------------------

template <typename Adjacency>
std::vector<Component> MemoryGraph::Impl::components(const Adjacency& adj, const ComponentOptions& options) const {
  const EdgeFilter f = filter(Direction::out, options.edge_label, options.vertex_label);
  if (f.vertex_label == kUnknownLabel) return {};
  const std::size_t n = store.vertices.size();
  auto participates = [&](Slot v) { return store.vertices[v].alive && store.vertex_in(v, f.vertex_label); };
  std::vector<Slot> component_of(n);
  if (options.weakly) {
    // Weak components: union-find over the edges (Boost's connected_components needs an
    // undirected graph; disjoint_sets gives the same result on the directed adjacency).
    std::vector<Slot> rank(n, 0);
    boost::typed_identity_property_map<Slot> index;
    auto rank_map = boost::make_iterator_property_map(rank.begin(), index);
    auto parent_map = boost::make_iterator_property_map(component_of.begin(), index);
    boost::disjoint_sets<decltype(rank_map), decltype(parent_map)> sets(rank_map, parent_map);
    for (Slot v = 0; v < n; ++v) sets.make_set(v);
    for (Slot v = 0; v < n; ++v) {
      if (v + kPayloadAhead < n && store.vertices[v + kPayloadAhead].alive) adj.prefetch(v + kPayloadAhead);
      if (!participates(v)) continue;
      store.for_each_adjacent(adj, v, f, [&](const AdjEntry& a) { sets.union_set(v, a.other); });
    }
    note_work(adj, snapshot_cost());  // one pass over every list
    for (Slot v = 0; v < n; ++v) component_of[v] = sets.find_set(v);
  } else {
    detail::StoreView view{&store, f};
    boost::typed_identity_property_map<Slot> index;
    boost::strong_components(view, boost::make_iterator_property_map(component_of.begin(), index),
                             boost::vertex_index_map(index));
  }
  // Group by component, ordered by each component's smallest slot (slots are visited in order).
  std::vector<Slot> position(n, kNoSlot);  // component representative -> group
  std::vector<std::vector<Slot>> groups;
  for (Slot v = 0; v < n; ++v) {
    if (!participates(v)) continue;
    Slot& group = position[component_of[v]];
    if (group == kNoSlot) {
      group = static_cast<Slot>(groups.size());
      groups.emplace_back();
    }
    groups[group].push_back(v);
  }
  std::vector<Component> result;
  for (auto& g : groups) {
    if (g.size() < options.min_size) continue;
    result.push_back(Component{static_cast<std::int64_t>(result.size()), make_vertices(g)});
  }
  return result;
}

// -- MemoryGraph --------------------------------------------------------------------------------

MemoryGraph::MemoryGraph(std::string graph_name) : impl_(std::make_unique<Impl>(std::move(graph_name))) {}
MemoryGraph::~MemoryGraph() = default;

const std::string& MemoryGraph::graph_name() const noexcept { return impl_->graph_name; }

bool MemoryGraph::create_graph(std::string_view name) {
  validate_label(name, "graph name");
  std::unique_lock lock(impl_->mutex);
  return impl_->catalog.emplace(name).second;
}

bool MemoryGraph::drop_graph(std::string_view name) {
  std::unique_lock lock(impl_->mutex);
  if (name == impl_->graph_name) {
    impl_->store = detail::Store{};
    impl_->adjacency_changed();
    impl_->renew_prefix();  // ids issued before the drop must stay unknown
    return true;
  }
  auto it = impl_->catalog.find(name);
  if (it == impl_->catalog.end()) return false;
  impl_->catalog.erase(it);
  return true;
}

bool MemoryGraph::graph_exists(std::string_view name) {
  std::shared_lock lock(impl_->mutex);
  return impl_->catalog.contains(name);
}

namespace {
std::vector<std::string> live_labels(const detail::Store& s, const std::vector<detail::LabelMembers>& table) {
  std::vector<std::string> result;
  for (LabelId l = 0; l < table.size(); ++l) {
    if (table[l].live > 0) result.push_back(s.labels.name(l));
  }
  std::sort(result.begin(), result.end());
  return result;
}
}  // namespace

std::vector<std::string> MemoryGraph::vertex_labels() {
  std::shared_lock lock(impl_->mutex);
  return live_labels(impl_->store, impl_->store.vertices_by_label);
}

std::vector<std::string> MemoryGraph::edge_labels() {
  std::shared_lock lock(impl_->mutex);
  return live_labels(impl_->store, impl_->store.edges_by_label);
}

bool MemoryGraph::create_index(std::string_view label, std::string_view key) {
  validate_label(label);
  if (key.empty()) throw InvalidArgument("create_index: the property key is empty");
  std::unique_lock lock(impl_->mutex);
  auto& s = impl_->store;
  const LabelId l = s.labels.intern(label);
  auto build = [&](detail::IndexTable& table, const auto& records, const std::vector<detail::LabelMembers>& members) {
    if (table.size() <= l) table.resize(l + 1);
    detail::PropertyIndex index{std::string(key)};
    if (l < members.size()) {
      for (Slot slot : members[l].slots) {
        if (records[slot].alive) index.add(records[slot].properties.index_key(key), slot);
      }
    }
    table[l].push_back(std::move(index));
  };
  if (l < s.vertex_indexes.size() &&
      std::any_of(s.vertex_indexes[l].begin(), s.vertex_indexes[l].end(), [&](const auto& i) { return i.key() == key; })) {
    return false;
  }
  build(s.vertex_indexes, s.vertices, s.vertices_by_label);
  build(s.edge_indexes, s.edges, s.edges_by_label);
  return true;
}

bool MemoryGraph::drop_index(std::string_view label, std::string_view key) {
  std::unique_lock lock(impl_->mutex);
  auto& s = impl_->store;
  const LabelId l = s.labels.find(label);
  if (l >= s.vertex_indexes.size()) return false;
  auto drop = [&](detail::IndexTable& table) {
    return l < table.size() && std::erase_if(table[l], [&](const auto& i) { return i.key() == key; }) > 0;
  };
  const bool had = drop(s.vertex_indexes);
  drop(s.edge_indexes);
  return had;
}

std::vector<std::pair<std::string, std::string>> MemoryGraph::indexes() const {
  std::shared_lock lock(impl_->mutex);
  std::vector<std::pair<std::string, std::string>> result;
  const auto& s = impl_->store;
  for (LabelId l = 0; l < s.vertex_indexes.size(); ++l) {
    for (const auto& index : s.vertex_indexes[l]) result.emplace_back(s.labels.name(l), index.key());
  }
  std::sort(result.begin(), result.end());
  return result;
}

Vertex MemoryGraph::create_vertex(std::string_view label, const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  Properties stored = without_nulls(properties);
  std::unique_lock lock(impl_->mutex);
  impl_->reserve_slots(impl_->store.vertices, 1, "vertex");
  return impl_->make_vertex(impl_->insert_vertex(label, stored));
}

std::vector<ElementId> MemoryGraph::create_vertices(std::span<const NewVertex> vertices) {
  for (const auto& v : vertices) {
    validate_label(v.label);
    validate_properties(v.properties);
  }
  std::vector<ElementId> ids;
  ids.reserve(vertices.size());
  std::unique_lock lock(impl_->mutex);
  impl_->reserve_slots(impl_->store.vertices, vertices.size(), "vertex");
  for (const auto& v : vertices) ids.push_back(impl_->make_id('v', impl_->insert_vertex(v.label, without_nulls(v.properties))));
  return ids;
}

std::optional<Vertex> MemoryGraph::find_vertex_by_id(std::string_view label, const ElementId& id) {
  std::shared_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(label, id);
  if (v == kNoSlot) return std::nullopt;
  return Vertex{id, std::string(label), impl_->store.vertices[v].properties.unpack()};
}

std::vector<Vertex> MemoryGraph::find_vertices_by_label(std::string_view label, const Properties& filter) {
  std::shared_lock lock(impl_->mutex);
  std::vector<Vertex> result;
  const auto& s = impl_->store;
  const LabelId l = s.labels.find(label);
  if (const auto* candidates = Impl::indexed_candidates(s.vertex_indexes, l, filter)) {
    for (Slot v : *candidates) {
      if (s.vertices[v].properties.matches(filter)) impl_->emplace_vertex(result, v);
    }
    return result;
  }
  if (l < s.vertices_by_label.size()) result.reserve(static_cast<std::size_t>(s.vertices_by_label[l].live));
  impl_->for_each_member(s.vertices_by_label, label, s.vertices, [&](Slot v) {
    if (s.vertices[v].properties.matches(filter)) impl_->emplace_vertex(result, v);
  });
  return result;
}

std::optional<Vertex> MemoryGraph::update_vertex(std::string_view label, const ElementId& id,
                                                 const Properties& properties) {
  validate_properties(properties);
  std::unique_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(label, id);
  if (v == kNoSlot) return std::nullopt;
  auto& rec = impl_->store.vertices[v];
  Properties merged = rec.properties.unpack();
  merged.merge(properties);
  Impl::repack(impl_->store.vertex_indexes, rec.label, rec.properties, merged, v);
  return impl_->make_vertex(v);
}

bool MemoryGraph::delete_vertex(std::string_view label, const ElementId& id) {
  std::unique_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(label, id);
  if (v == kNoSlot) return false;
  impl_->remove_vertex(v);
  return true;
}

std::int64_t MemoryGraph::count_vertices(std::string_view label) {
  std::shared_lock lock(impl_->mutex);
  const auto& s = impl_->store;
  LabelId l = s.labels.find(label);
  return l < s.vertices_by_label.size() ? s.vertices_by_label[l].live : 0;
}

Edge MemoryGraph::create_edge(const ElementId& from, const ElementId& to, std::string_view label,
                              const Properties& properties) {
  validate_label(label);
  validate_properties(properties);
  Properties stored = without_nulls(properties);
  std::unique_lock lock(impl_->mutex);
  auto [f, t] = impl_->endpoints(from, to);
  impl_->reserve_slots(impl_->store.edges, 1, "edge");
  return impl_->make_edge(impl_->insert_edge(f, t, label, stored));
}

std::vector<ElementId> MemoryGraph::create_edges(std::span<const NewEdge> edges) {
  for (const auto& e : edges) {
    validate_label(e.label);
    validate_properties(e.properties);
  }
  std::vector<ElementId> ids;
  ids.reserve(edges.size());
  std::unique_lock lock(impl_->mutex);
  // Resolve every endpoint before the first insert: a missing one then changes nothing.
  std::vector<std::pair<Slot, Slot>> ends;
  ends.reserve(edges.size());
  for (const auto& e : edges) ends.push_back(impl_->endpoints(e.from, e.to));
  impl_->reserve_slots(impl_->store.edges, edges.size(), "edge");
  for (std::size_t i = 0; i < edges.size(); ++i) {
    ids.push_back(impl_->make_id(
        'e', impl_->insert_edge(ends[i].first, ends[i].second, edges[i].label, without_nulls(edges[i].properties))));
  }
  return ids;
}

std::optional<Edge> MemoryGraph::find_edge_by_id(std::string_view label, const ElementId& id) {
  std::shared_lock lock(impl_->mutex);
  Slot e = impl_->edge_slot(label, id);
  if (e == kNoSlot) return std::nullopt;
  return impl_->make_edge(e);
}

std::vector<Edge> MemoryGraph::find_edges_by_label(std::string_view label, const Properties& filter) {
  std::shared_lock lock(impl_->mutex);
  std::vector<Edge> result;
  const auto& s = impl_->store;
  if (const auto* candidates = Impl::indexed_candidates(s.edge_indexes, s.labels.find(label), filter)) {
    for (Slot e : *candidates) {
      if (s.edges[e].properties.matches(filter)) result.push_back(impl_->make_edge(e));
    }
    return result;
  }
  impl_->for_each_member(s.edges_by_label, label, s.edges, [&](Slot e) {
    if (s.edges[e].properties.matches(filter)) result.push_back(impl_->make_edge(e));
  });
  return result;
}

std::optional<Edge> MemoryGraph::update_edge(std::string_view label, const ElementId& id,
                                             const Properties& properties) {
  validate_properties(properties);
  std::unique_lock lock(impl_->mutex);
  Slot e = impl_->edge_slot(label, id);
  if (e == kNoSlot) return std::nullopt;
  auto& rec = impl_->store.edges[e];
  Properties merged = rec.properties.unpack();
  merged.merge(properties);
  Impl::repack(impl_->store.edge_indexes, rec.label, rec.properties, merged, e);
  return impl_->make_edge(e);
}

bool MemoryGraph::delete_edge(std::string_view label, const ElementId& id) {
  std::unique_lock lock(impl_->mutex);
  Slot e = impl_->edge_slot(label, id);
  if (e == kNoSlot) return false;
  impl_->remove_edge(e);
  return true;
}

std::int64_t MemoryGraph::count_edges(std::string_view label) {
  std::shared_lock lock(impl_->mutex);
  const auto& s = impl_->store;
  LabelId l = s.labels.find(label);
  return l < s.edges_by_label.size() ? s.edges_by_label[l].live : 0;
}

std::vector<Vertex> MemoryGraph::neighbors(const ElementId& start, const NeighborOptions& options) {
  if (options.max_depth < 1) throw InvalidArgument("neighbors max_depth must be >= 1");
  std::shared_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(start);
  if (v == kNoSlot) return {};
  impl_->with_adjacency([&](const auto& adj) {
    return impl_->breadth_first(adj, v, impl_->filter(options.direction, options.edge_label), options.max_depth,
                                [](Slot, int) { return true; });
  });
  // Every queued vertex is within max_depth; drop the start, order by id.
  auto& found = scratch().queue;
  found.erase(found.begin());
  std::sort(found.begin(), found.end());
  return impl_->make_vertices(found);
}

std::optional<Path> MemoryGraph::shortest_path(const ElementId& from, const ElementId& to,
                                               const PathOptions& options) {
  check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  Slot f = impl_->vertex_slot(from);
  Slot t = impl_->vertex_slot(to);
  if (f == kNoSlot || t == kNoSlot) return std::nullopt;
  const EdgeFilter filter = impl_->filter(options.direction, options.edge_label);
  if (options.weight_property) return impl_->dijkstra(f, t, filter, *options.weight_property);
  bool reached = false;
  impl_->with_adjacency([&](const auto& adj) {
    return impl_->breadth_first(adj, f, filter, options.max_depth, [&](Slot u, int) { return !(reached = u == t); });
  });
  if (!reached) return std::nullopt;
  return impl_->path_to(t);
}

std::vector<Path> MemoryGraph::all_paths(const ElementId& from, const ElementId& to,
                                         const PathOptions& options) {
  check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  Slot f = impl_->vertex_slot(from);
  Slot t = impl_->vertex_slot(to);
  if (f == kNoSlot || t == kNoSlot) return {};
  return impl_->with_adjacency([&](const auto& adj) {
    return impl_->all_paths(adj, f, t, impl_->filter(options.direction, options.edge_label), options.max_depth,
                            options.max_paths);
  });
}

std::vector<PageRankScore> MemoryGraph::page_rank(const PageRankOptions& options) {
  std::shared_lock lock(impl_->mutex);
  // One pass over the lists builds page_rank's own dense arrays; it counts towards the snapshot.
  return impl_->with_adjacency([&](const auto& adj) { return impl_->page_rank(adj, options); });
}

std::optional<Degree> MemoryGraph::degree_centrality(const ElementId& id, const DegreeOptions& options) {
  std::shared_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(id);
  if (v == kNoSlot) return std::nullopt;
  const LabelId l = impl_->store.labels.filter(options.edge_label);
  auto count = [&](const std::vector<AdjEntry>& list) {
    return static_cast<std::int64_t>(
        std::count_if(list.begin(), list.end(), [&](const AdjEntry& a) { return l == kAnyLabel || a.label == l; }));
  };
  const auto& rec = impl_->store.vertices[v];
  Degree d{id, 0, 0};
  if (options.direction != Direction::out) d.in = count(rec.in);
  if (options.direction != Direction::in) d.out = count(rec.out);
  return d;
}

std::vector<Component> MemoryGraph::connected_components(const ComponentOptions& options) {
  std::shared_lock lock(impl_->mutex);
  return impl_->with_adjacency([&](const auto& adj) { return impl_->components(adj, options); });
}

std::vector<Visit> MemoryGraph::bfs(const ElementId& start, const TraversalOptions& options) {
  check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(start);
  if (v == kNoSlot || options.max_vertices == 0) return {};
  // Hand-written like depth_first(): Boost's BFS visitors cannot prune by depth or count.
  const std::size_t visited = impl_->with_adjacency([&](const auto& adj) {
    return impl_->breadth_first(adj, v, impl_->filter(options.direction, options.edge_label), options.max_depth,
                                [&, count = std::size_t{0}](Slot, int) mutable { return ++count < options.max_vertices; });
  });
  const Marks& m = scratch();
  std::vector<Visit> result;
  result.reserve(visited);
  detail::advise_huge_pages(result.data(), visited * sizeof(Visit));
  for (std::size_t i = 0; i < visited; ++i) {
    impl_->prefetch_ahead(m.queue.data(), i, visited);
    impl_->emplace_visit(result, m.queue[i], m.queue_depth[i], m.queue_parent[i]);
  }
  return result;
}

std::vector<Visit> MemoryGraph::dfs(const ElementId& start, const TraversalOptions& options) {
  check_depth(options.max_depth, "max_depth");
  std::shared_lock lock(impl_->mutex);
  Slot v = impl_->vertex_slot(start);
  if (v == kNoSlot) return {};
  return impl_->with_adjacency([&](const auto& adj) {
    return impl_->depth_first(adj, v, impl_->filter(options.direction, options.edge_label), options.max_depth,
                              options.max_vertices);
  });
}

std::vector<Cycle> MemoryGraph::detect_cycles(const CycleOptions& options) {
  std::shared_lock lock(impl_->mutex);
  return impl_->with_adjacency([&](const auto& adj) { return impl_->cycles(adj, options); });
}

}  // namespace propgraph
