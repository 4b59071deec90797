// The records of a durable MemoryGraph's write-ahead log, and how recovery replays them.
//
// Every record states the final value of what it touches (a record, a slot, an index), never a
// difference: replaying it again, or onto a snapshot that already holds some of it, gives the
// same result. That lets a snapshot be taken while writers go on (see checkpoint.cpp).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "memory/durable/codec.hpp"
#include "memory/overlay.hpp"

namespace propgraph::detail::durable {

enum class RecordType : std::uint8_t {
  change = 1,        ///< a committed transaction (or single write), or the slots a rollback burned
  create_index = 2,  ///< label, key, unique
  drop_index = 3,    ///< label, key
  clear_graph = 4,   ///< drop_graph of the bound graph: everything goes, ids get a new prefix
  catalog = 5,       ///< create_graph / drop_graph of another name
};

/// The change an overlay holds, as apply() will make it. With `burn`, only the slots it handed
/// out, all dead (a rollback).
void encode_change(const Overlay& overlay, ByteWriter& out, bool burn);
void encode_create_index(ByteWriter& out, std::string_view label, std::string_view key, bool unique);
void encode_drop_index(ByteWriter& out, std::string_view label, std::string_view key);
void encode_clear_graph(ByteWriter& out, std::string_view new_prefix);
void encode_catalog(ByteWriter& out, bool add, std::string_view name);

/// What recovery rebuilds: the graph's records (the store is built from them, Store::assign),
/// the id prefix and the catalog of graph names.
struct RecoveredGraph {
  StoreRecords records;
  std::string prefix;
  std::set<std::string, std::less<>> catalog;
};

/// Applies one record to `graph`. Throws DecodeError (offsets relative to the payload) when the
/// payload is malformed or contradicts the graph (a label id out of range, a slot past the
/// end, a label name that differs).
void replay(RecordType type, ByteReader& payload, RecoveredGraph& graph);

/// Reads a packed property map written with ByteWriter::bytes (checked, see from_bytes).
PackedProperties read_properties(ByteReader& in);
/// Reads one the same way, without copying it.
std::span<const std::byte> read_property_bytes(ByteReader& in);

}  // namespace propgraph::detail::durable
