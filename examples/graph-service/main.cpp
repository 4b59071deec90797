// graph-service: a Boost.Beast HTTP/1.1 JSON service over a propgraph graph. See README.md.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>
#include <propgraph/latency.hpp>
#include <propgraph/propgraph.hpp>
#if PROPGRAPH_SERVICE_WITH_POSTGRES
#include <propgraph/postgres/postgres_graph.hpp>
#endif

#include "server.hpp"

namespace {

constexpr std::string_view kUsage = R"(usage: graph-service [options]
  --address A          listen address (default 127.0.0.1)
  --port N             listen port; 0 picks a free one (default 8080)
  --data-dir DIR       durable MemoryGraph in DIR (default: in memory only)
  --postgres DSN       PostgreSQL backend (libpq connection string)
  --threads-per-connection
                       one OS thread per connection instead of coroutines + fibers
  --fiber-threads N    FiberPool threads running the handlers (default 2)
  --latency-ms N       wait N ms before every graph call (LatencyGraph: a remote backend)
  --seed N             create N persons with 8 random KNOWS edges each at start
  --idle-timeout-ms N  close a connection that sends no request for N ms (default 60000)
  --read-timeout-ms N  close a connection whose request takes over N ms to arrive, counted
                       from its first byte (default 30000)
  --write-timeout-ms N close a connection that takes over N ms to take its response (a client
                       that does not read; default 30000). 0 disables any of the three
Prints "listening on ADDRESS:PORT" once it accepts connections; SIGTERM or SIGINT stops it
gracefully (in-flight requests are answered) and it exits 0.
)";

struct Options {
  std::string address = "127.0.0.1";
  unsigned short port = 8080;
  std::optional<std::string> data_dir;
  std::optional<std::string> postgres;
  bool threads_per_connection = false;
  int fiber_threads = 2;
  int latency_ms = 0;
  int seed = 0;
  service::Timeouts timeouts;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    auto milliseconds = [&] {
      const int ms = std::stoi(value());
      if (ms < 0) throw std::invalid_argument(fmt::format("{} must not be negative", arg));
      return std::chrono::milliseconds(ms);
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage.data(), stdout);
      std::exit(0);
    }
    if (arg == "--address") o.address = value();
    else if (arg == "--port") o.port = static_cast<unsigned short>(std::stoi(value()));
    else if (arg == "--data-dir") o.data_dir = value();
    else if (arg == "--postgres") o.postgres = value();
    else if (arg == "--threads-per-connection") o.threads_per_connection = true;
    else if (arg == "--fiber-threads") o.fiber_threads = std::max(1, std::stoi(value()));
    else if (arg == "--latency-ms") o.latency_ms = std::stoi(value());
    else if (arg == "--seed") o.seed = std::stoi(value());
    else if (arg == "--idle-timeout-ms") o.timeouts.idle = milliseconds();
    else if (arg == "--read-timeout-ms") o.timeouts.read = milliseconds();
    else if (arg == "--write-timeout-ms") o.timeouts.write = milliseconds();
    else throw std::invalid_argument(fmt::format("unknown option {}", arg));
  }
  return o;
}

/// The backend the options ask for.
std::unique_ptr<propgraph::GraphOperations> open_backend(const Options& o) {
  if (o.postgres) {
#if PROPGRAPH_SERVICE_WITH_POSTGRES
    return std::make_unique<propgraph::PostgresGraph>(propgraph::PostgresOptions{.conninfo = *o.postgres});
#else
    throw std::invalid_argument("--postgres: this build has no PostgreSQL backend (libpq not found)");
#endif
  }
  propgraph::MemoryOptions memory;
  if (o.data_dir) memory.data_dir = *o.data_dir;
  return std::make_unique<propgraph::MemoryGraph>(memory);
}

/// `persons` persons, each KNOWS 8 others at random (a fixed seed: the same graph every time).
void seed(propgraph::GraphOperations& graph, int persons) {
  std::vector<propgraph::NewVertex> vertices;
  for (int i = 0; i < persons; ++i) {
    vertices.push_back({"Person", {{"name", fmt::format("person{}", i)}, {"age", 20 + i % 50}}});
  }
  const std::vector<propgraph::ElementId> ids = graph.create_vertices(vertices);
  std::mt19937 random(42);
  std::uniform_int_distribution<std::size_t> pick(0, ids.size() - 1);
  std::vector<propgraph::NewEdge> edges;
  for (const auto& id : ids) {
    for (int k = 0; k < 8; ++k) edges.push_back({id, ids[pick(random)], "KNOWS", {{"since", 2000 + k}}});
  }
  graph.create_edges(edges);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);
  auto backend = open_backend(options);
  std::unique_ptr<propgraph::GraphOperations> latency;
  if (options.latency_ms > 0) {
    latency = std::make_unique<propgraph::LatencyGraph>(
        *backend, propgraph::LatencyOptions::fixed(std::chrono::milliseconds(options.latency_ms)));
  }
  propgraph::InstrumentedGraph graph(latency ? *latency : *backend);
  graph.create_index("Person", "email", {.unique = true});  // false when it exists already
  if (options.seed > 0) seed(graph, options.seed);

  service::GraphService handlers(graph, options.threads_per_connection ? "threads" : "fibers");
  boost::asio::io_context io;
  const service::tcp::endpoint endpoint(boost::asio::ip::make_address(options.address), options.port);
  std::optional<propgraph::FiberPool> pool;
  std::optional<propgraph::FiberOperations> fibers;
  if (!options.threads_per_connection) {
    pool.emplace(static_cast<std::size_t>(options.fiber_threads));
    fibers = propgraph::as_fiber(graph, *pool);
  }
  service::Server server(io, endpoint, handlers, fibers, options.timeouts);
  server.start();

  boost::asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](boost::system::error_code, int signal) {
    std::printf("signal %d: stopping\n", signal);
    std::fflush(stdout);
    server.stop();
  });
  std::printf("listening on %s:%u\n", options.address.c_str(), server.port());
  std::fflush(stdout);

  io.run();  // returns once the listener is closed and every connection has ended
  server.wait();
  if (pool) pool->shutdown();  // every handler has finished: nothing is left to run
  std::printf("stopped\n");
  return 0;
} catch (const std::invalid_argument& e) {  // a bad command line (std::stoi's errors included)
  std::fprintf(stderr, "graph-service: %s\n%s", e.what(), kUsage.data());
  return 2;
} catch (const std::exception& e) {
  std::fprintf(stderr, "graph-service: %s\n", e.what());
  return 1;
}
