// MemoryGraph's writes, once: each validates against a TxView (the committed graph with the
// pending writes) and records its change in the Overlay. A single call commits its own overlay
// at once; a transaction keeps adding to one until commit(). Every write checks everything
// before it changes the overlay, so a write that throws leaves it as it was.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "memory/overlay.hpp"

namespace propgraph::detail::writes {

/// The new vertex's slot. InvalidArgument on a bad label or key, AlreadyExists on a unique
/// index violation.
Slot create_vertex(Overlay& o, const TxView& g, std::string_view label, const Properties& properties);
/// All or nothing; unique indexes are checked against the graph and within the batch.
std::vector<Slot> create_vertices(Overlay& o, const TxView& g, std::span<const NewVertex> vertices);
/// The updated vertex's slot, or kNoSlot when there is no such vertex.
Slot update_vertex(Overlay& o, const TxView& g, std::string_view label, const ElementId& id,
                   const Properties& properties);
bool delete_vertex(Overlay& o, const TxView& g, std::string_view label, const ElementId& id);
/// The vertex's slot and whether it was created.
std::pair<Slot, bool> upsert_vertex(Overlay& o, const TxView& g, std::string_view label, const Properties& match,
                                    const Properties& properties);

Slot create_edge(Overlay& o, const TxView& g, const ElementId& from, const ElementId& to, std::string_view label,
                 const Properties& properties);
std::vector<Slot> create_edges(Overlay& o, const TxView& g, std::span<const NewEdge> edges);
Slot update_edge(Overlay& o, const TxView& g, std::string_view label, const ElementId& id,
                 const Properties& properties);
bool delete_edge(Overlay& o, const TxView& g, std::string_view label, const ElementId& id);

}  // namespace propgraph::detail::writes
