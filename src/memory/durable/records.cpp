#include "memory/durable/records.hpp"

#include <algorithm>
#include <vector>

namespace propgraph::detail::durable {

namespace {

template <typename Map>
std::vector<Slot> sorted_keys(const Map& map) {
  std::vector<Slot> keys;
  keys.reserve(map.size());
  for (const auto& entry : map) keys.push_back(entry.first);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<Slot> sorted(const std::unordered_set<Slot>& set) {
  std::vector<Slot> v(set.begin(), set.end());
  std::sort(v.begin(), v.end());
  return v;
}

Slot read_slot(ByteReader& in) { return static_cast<Slot>(in.varint(kMaxSlots - 1, "slot out of range")); }

LabelId read_label(ByteReader& in, const StoreRecords& store) {
  const std::size_t at = in.offset();
  const auto label = in.varint();
  if (label >= store.labels.size()) throw DecodeError{at, "label id out of range"};
  return static_cast<LabelId>(label);
}

/// Grows `records` so that `slot` exists; a slot more than one past the end is a gap.
template <typename Records>
void ensure_slot(Records& records, Slot slot, std::size_t at) {
  if (slot > records.size()) throw DecodeError{at, "slot past the end of the graph"};
  if (slot == records.size()) records.push_back({});
}

}  // namespace

std::span<const std::byte> read_property_bytes(ByteReader& in) {
  const std::size_t at = in.offset();
  const auto bytes = in.bytes();
  if (!PackedProperties::well_formed(bytes)) throw DecodeError{at, "malformed property map"};
  return bytes;
}

PackedProperties read_properties(ByteReader& in) {
  const std::size_t at = in.offset();
  auto props = PackedProperties::from_bytes(in.bytes());
  if (!props) throw DecodeError{at, "malformed property map"};
  return std::move(*props);
}

void encode_change(const Overlay& overlay, ByteWriter& out, bool burn) {
  const Store& store = overlay.store();
  const std::size_t labels_before = store.labels.size();
  const std::size_t labels_after = burn ? labels_before : overlay.labels().size();
  out.varint(labels_before);
  out.varint(labels_after - labels_before);
  for (std::size_t l = labels_before; l < labels_after; ++l) out.bytes(overlay.labels().name(static_cast<LabelId>(l)));
  if (burn) {
    for (int list = 0; list < 4; ++list) out.varint(0);  // no deletions, no updates
  } else {
    for (const auto* set : {&overlay.deleted_edges(), &overlay.deleted_vertices()}) {
      const auto slots = sorted(*set);
      out.varint(slots.size());
      for (Slot s : slots) out.varint(s);
    }
    for (const auto* updates : {&overlay.vertex_updates(), &overlay.edge_updates()}) {
      out.varint(updates->size());
      for (Slot s : sorted_keys(*updates)) {
        out.varint(s);
        out.bytes(updates->at(s).bytes());
      }
    }
  }
  out.varint(overlay.vertex_base());
  out.varint(overlay.new_vertices().size());
  for (const auto& rec : overlay.new_vertices()) {
    const bool alive = rec.alive && !burn;
    out.u8(alive ? 1 : 0);
    if (!alive) continue;
    out.varint(rec.label);
    out.bytes(rec.properties.bytes());
  }
  out.varint(overlay.edge_base());
  out.varint(overlay.new_edges().size());
  for (const auto& rec : overlay.new_edges()) {
    const bool alive = rec.alive && !burn;
    out.u8(alive ? 1 : 0);
    if (!alive) continue;
    out.varint(rec.label);
    out.varint(rec.from);
    out.varint(rec.to);
    out.bytes(rec.properties.bytes());
  }
}

void encode_create_index(ByteWriter& out, std::string_view label, std::string_view key, bool unique) {
  out.bytes(label);
  out.bytes(key);
  out.u8(unique ? 1 : 0);
}

void encode_drop_index(ByteWriter& out, std::string_view label, std::string_view key) {
  out.bytes(label);
  out.bytes(key);
}

void encode_clear_graph(ByteWriter& out, std::string_view new_prefix) { out.bytes(new_prefix); }

void encode_catalog(ByteWriter& out, bool add, std::string_view name) {
  out.u8(add ? 1 : 0);
  out.bytes(name);
}

namespace {

void replay_change(ByteReader& in, RecoveredGraph& g) {
  StoreRecords& s = g.records;
  const std::size_t at_labels = in.offset();
  const auto labels_before = in.varint();
  if (labels_before > s.labels.size()) throw DecodeError{at_labels, "labels missing before this record"};
  const auto new_labels = in.varint(1u << 24, "too many new labels");
  for (std::uint64_t i = 0; i < new_labels; ++i) {
    const std::size_t at = in.offset();
    const std::string_view name = in.text();
    const auto id = labels_before + i;
    if (id < s.labels.size()) {
      if (s.labels.name(static_cast<LabelId>(id)) != name) throw DecodeError{at, "label differs from the snapshot's"};
    } else if (!is_valid_label(name) || s.labels.intern(name) != id) {
      throw DecodeError{at, "invalid or repeated label"};
    }
  }
  for (int kind = 0; kind < 2; ++kind) {  // deleted edges, then deleted vertices
    for (auto n = in.varint(kNoSlot, "count out of range"); n > 0; --n) {
      const std::size_t at = in.offset();
      const Slot slot = read_slot(in);
      if (kind == 0) {
        if (slot >= s.edges.size()) throw DecodeError{at, "deleted edge slot past the end"};
        s.edge_properties.free(s.edges[slot].properties);
        s.edges[slot] = EdgeSlot{};
      } else {
        if (slot >= s.vertices.size()) throw DecodeError{at, "deleted vertex slot past the end"};
        s.vertices[slot] = VertexRecord{};
      }
    }
  }
  for (int kind = 0; kind < 2; ++kind) {  // vertex updates, then edge updates
    for (auto n = in.varint(kNoSlot, "count out of range"); n > 0; --n) {
      const std::size_t at = in.offset();
      const Slot slot = read_slot(in);
      if (kind == 0) {
        PackedProperties props = read_properties(in);
        if (slot >= s.vertices.size()) throw DecodeError{at, "updated vertex slot past the end"};
        if (s.vertices[slot].alive) s.vertices[slot].properties = std::move(props);
      } else {
        const auto bytes = read_property_bytes(in);
        if (slot >= s.edges.size()) throw DecodeError{at, "updated edge slot past the end"};
        EdgeSlot& rec = s.edges[slot];
        if (rec.label != 0) {
          s.edge_properties.free(rec.properties);
          rec.properties = s.edge_properties.store(bytes);
        }
      }
    }
  }
  const Slot vertex_base = read_slot(in);
  for (auto n = in.varint(kNoSlot, "count out of range"), i = decltype(n){0}; i < n; ++i) {
    const std::size_t at = in.offset();
    const Slot slot = vertex_base + static_cast<Slot>(i);
    ensure_slot(s.vertices, slot, at);
    VertexRecord rec;
    if (in.u8() != 0) {
      rec.alive = true;
      rec.label = read_label(in, s);
      rec.properties = read_properties(in);
    }
    s.vertices[slot] = std::move(rec);
  }
  const Slot edge_base = read_slot(in);
  for (auto n = in.varint(kNoSlot, "count out of range"), i = decltype(n){0}; i < n; ++i) {
    const std::size_t at = in.offset();
    const Slot slot = edge_base + static_cast<Slot>(i);
    ensure_slot(s.edges, slot, at);
    EdgeSlot rec;
    if (in.u8() != 0) {
      rec.label = read_label(in, s) + 1;
      rec.from = read_slot(in);
      rec.to = read_slot(in);
      if (rec.from >= s.vertices.size() || rec.to >= s.vertices.size())
        throw DecodeError{at, "edge endpoint past the end"};
      rec.properties = s.edge_properties.store(read_property_bytes(in));
    }
    s.edge_properties.free(s.edges[slot].properties);  // a replay over a slot the snapshot holds
    s.edges[slot] = rec;
  }
}

}  // namespace

void replay(RecordType type, ByteReader& in, RecoveredGraph& g) {
  switch (type) {
    case RecordType::change: replay_change(in, g); break;
    case RecordType::create_index:
    case RecordType::drop_index: {
      const std::size_t at = in.offset();
      const std::string_view label = in.text();
      const std::string_view key = in.text();
      if (!is_valid_label(label) || key.empty()) throw DecodeError{at, "invalid index label or key"};
      const bool unique = type == RecordType::create_index && in.u8() != 0;
      StoreRecords& s = g.records;
      const LabelId l = type == RecordType::create_index ? s.labels.intern(label) : s.labels.find(label);
      for (auto* table : {&s.vertex_indexes, &s.edge_indexes}) {
        if (l == kUnknownLabel) break;
        if (table->size() <= l) table->resize(l + 1);
        auto& list = (*table)[l];
        std::erase_if(list, [&](const PropertyIndex& i) { return i.key() == key; });
        if (type == RecordType::create_index) list.emplace_back(std::string(key), unique);
      }
      break;
    }
    case RecordType::clear_graph: {
      const std::string_view prefix = in.text();
      g.records = StoreRecords{};
      g.prefix = std::string(prefix);
      break;
    }
    case RecordType::catalog: {
      const bool add = in.u8() != 0;
      const std::string name(in.text());
      if (add) {
        g.catalog.insert(name);
      } else {
        g.catalog.erase(name);
      }
      break;
    }
    default: throw DecodeError{0, "unknown record type"};
  }
  if (!in.done()) throw DecodeError{in.offset(), "bytes left over after the record"};
}

}  // namespace propgraph::detail::durable
