#include "propgraph/operations.hpp"

#include <fmt/format.h>

namespace propgraph {

std::vector<ElementId> GraphOperations::create_vertices(std::span<const NewVertex> vertices) {
  std::vector<ElementId> created;
  created.reserve(vertices.size());
  try {
    for (const auto& v : vertices) created.push_back(create_vertex(v.label, v.properties).id);
  } catch (...) {
    for (std::size_t i = created.size(); i-- > 0;) delete_vertex(vertices[i].label, created[i]);
    throw;
  }
  return created;
}

std::vector<ElementId> GraphOperations::create_edges(std::span<const NewEdge> edges) {
  std::vector<ElementId> created;
  created.reserve(edges.size());
  try {
    for (const auto& e : edges) created.push_back(create_edge(e.from, e.to, e.label, e.properties).id);
  } catch (...) {
    for (std::size_t i = created.size(); i-- > 0;) delete_edge(edges[i].label, created[i]);
    throw;
  }
  return created;
}

std::unique_ptr<Transaction> Transaction::begin() {
  throw InvalidArgument("begin() inside a transaction: transactions do not nest");
}

}  // namespace propgraph
