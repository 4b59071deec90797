// propgraph-crash-writer DATA_DIR POLICY THREADS GENERATION: writes to a durable MemoryGraph
// until it is killed, printing one line per acknowledged write (after the call returned):
//   v <thread> <seq>   a single create_vertex of {gen, writer: thread, seq}
//   t <thread> <seq>   a transaction that created three vertices {gen, writer, seq, part: 0..2}
//                      joined by two edges {gen, seq}
// POLICY is every_commit, interval or none. The durability test SIGKILLs it at random moments
// and checks what reopening finds against these lines.
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "propgraph/memory/memory_graph.hpp"

int main(int argc, char** argv) {
  using namespace propgraph;
  if (argc != 5) {
    std::fprintf(stderr, "usage: propgraph-crash-writer DATA_DIR every_commit|interval|none THREADS GENERATION\n");
    return 2;
  }
  const int gen = std::atoi(argv[4]);
  const std::string policy = argv[2];
  MemoryOptions options{.data_dir = argv[1]};
  options.sync = policy == "none"       ? SyncPolicy::none
                 : policy == "interval" ? SyncPolicy::interval
                                        : SyncPolicy::every_commit;
  options.sync_interval = std::chrono::milliseconds(5);
  options.checkpoint_log_bytes = 64 << 10;  // checkpoints happen during the run too
  MemoryGraph graph(options);
  std::mutex out;
  auto ack = [&](char kind, int thread, std::int64_t seq) {
    std::lock_guard lock(out);
    std::printf("%c %d %lld\n", kind, thread, static_cast<long long>(seq));
    std::fflush(stdout);
  };
  std::printf("ready\n");
  std::fflush(stdout);
  std::vector<std::thread> threads;
  const int count = std::atoi(argv[3]);
  for (int t = 0; t < count; ++t) {
    threads.emplace_back([&, t] {
      for (std::int64_t seq = 0;; ++seq) {
        if (seq % 3 == 2) {
          transact(graph, [&](Transaction& tx) {
            ElementId previous;
            for (int part = 0; part < 3; ++part) {
              auto v = tx.create_vertex("Part", {{"gen", gen}, {"writer", t}, {"seq", seq}, {"part", part}});
              if (part > 0) tx.create_edge(previous, v.id, "NEXT", {{"gen", gen}, {"seq", seq}});
              previous = v.id;
            }
          });
          ack('t', t, seq);
        } else {
          graph.create_vertex("Single", {{"gen", gen}, {"writer", t}, {"seq", seq}});
          ack('v', t, seq);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
}
