// propgraph-fiber-cost: a loop of one fiber operation, for instruction counts under callgrind.
//
//   propgraph-fiber-cost MODE N
//     sync    N find_vertex_by_id calls on a MemoryGraph (the baseline of `facade`)
//     facade  N as_fiber(graph).find_vertex_by_id_async(...).get(): immediately joined calls
//     call    N run_on_fiber([]{...}).get(): the facade's mechanism without a graph
//     wait    1000 fibers on a 1-thread FiberPool, each calling propgraph::wait_for(1 ns) N
//             times (1000 N waits; a wait's timer is due by the time the others had their turn,
//             so the thread never sleeps)
//     pool    N FiberPool::submit(...).get() from this thread (spins as well as works: counts
//             depend on timing, unlike the others)
//
// Instructions per iteration, setup excluded: run it twice and take the difference,
//   valgrind --tool=callgrind --callgrind-out-file=a propgraph-fiber-cost call 20000
//   valgrind --tool=callgrind --callgrind-out-file=b propgraph-fiber-cost call 40000
//   (Ir(b) - Ir(a)) / 20000       (for wait: / (1000 * N))
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "propgraph/fiber.hpp"
#include "propgraph/latency/wait.hpp"
#include "propgraph/memory/memory_graph.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: propgraph-fiber-cost sync|facade|call|wait|pool N\n");
    return 2;
  }
  const std::string_view mode = argv[1];
  const long n = std::atol(argv[2]);
  long sink = 0;
  propgraph::MemoryGraph graph;
  const auto vertex = graph.create_vertex("Person", {{"name", "A"}});
  propgraph::GraphOperations& ops = graph;
  if (mode == "sync") {
    for (long i = 0; i < n; ++i) sink += ops.find_vertex_by_id("Person", vertex.id).has_value();
  } else if (mode == "facade") {
    const auto fibers = propgraph::as_fiber(graph);
    for (long i = 0; i < n; ++i) sink += fibers.find_vertex_by_id_async("Person", vertex.id).get().has_value();
  } else if (mode == "call") {
    for (long i = 0; i < n; ++i) sink += propgraph::run_on_fiber([i] { return i; }).get();
  } else if (mode == "wait") {
    propgraph::FiberPool pool(1);
    std::vector<propgraph::Future<long>> fibers;
    for (int f = 0; f < 1000; ++f) {
      fibers.push_back(pool.submit([n] {
        for (long i = 0; i < n; ++i) propgraph::wait_for(std::chrono::nanoseconds(1));
        return 1L;
      }));
    }
    for (auto& f : fibers) sink += f.get();
  } else if (mode == "pool") {
    propgraph::FiberPool pool(1);
    for (long i = 0; i < n; ++i) sink += pool.submit([i] { return i; }).get();
  } else {
    std::fprintf(stderr, "propgraph-fiber-cost: unknown mode '%s'\n", argv[1]);
    return 2;
  }
  std::printf("%ld\n", sink);
  return 0;
}
