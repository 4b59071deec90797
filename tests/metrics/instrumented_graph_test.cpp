// InstrumentedGraph: counters after known sequences of calls (errors and transactions
// included), the latency buckets, and the Prometheus text format.
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "propgraph/errors.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/metrics.hpp"

namespace {

using namespace std::chrono_literals;
using propgraph::ErrorKind;
using propgraph::InstrumentedGraph;
using propgraph::MemoryGraph;
using propgraph::Operation;

/// A decorator that throws a chosen exception from the next call, without calling the graph.
class FailNext final : public propgraph::GraphDecorator {
 public:
  using GraphDecorator::GraphDecorator;
  std::function<void()> fail;

 protected:
  void around(Operation, propgraph::CallRef call) override {
    if (fail) {
      auto thrower = std::move(fail);
      fail = nullptr;
      thrower();
    }
    call();
  }
};

TEST(LatencyBuckets, PowersOfTwoMicroseconds) {
  using propgraph::latency_bucket;
  EXPECT_EQ(latency_bucket(0ns), 0u);
  EXPECT_EQ(latency_bucket(1000ns), 0u);
  EXPECT_EQ(latency_bucket(1001ns), 1u);
  EXPECT_EQ(latency_bucket(2us), 1u);
  EXPECT_EQ(latency_bucket(2001ns), 2u);
  EXPECT_EQ(latency_bucket(4us), 2u);
  EXPECT_EQ(latency_bucket(1024us), 10u);
  EXPECT_EQ(latency_bucket(1025us), 11u);
  EXPECT_EQ(latency_bucket(16777216us), propgraph::latency_bucket_count - 2);
  EXPECT_EQ(latency_bucket(16777217us), propgraph::latency_bucket_count - 1);
  EXPECT_EQ(latency_bucket(100h), propgraph::latency_bucket_count - 1);
  EXPECT_EQ(propgraph::latency_bucket_bound(10), 1024us);
  // Every bound lands in its own bucket; a nanosecond more, in the next.
  for (std::size_t i = 0; i + 1 < propgraph::latency_bucket_count; ++i) {
    EXPECT_EQ(latency_bucket(propgraph::latency_bucket_bound(i)), i);
    EXPECT_EQ(latency_bucket(propgraph::latency_bucket_bound(i) + 1ns), i + 1);
  }
}

TEST(InstrumentedGraph, CountsAKnownSequence) {
  MemoryGraph memory;
  FailNext failing(memory);
  InstrumentedGraph graph(failing);

  const auto a = graph.create_vertex("Person", {{"name", "Alice"}});
  const auto b = graph.create_vertex("Person", {{"name", "Bob"}});
  graph.create_edge(a.id, b.id, "KNOWS");
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(graph.find_vertex(a.id));
  EXPECT_FALSE(graph.find_vertex(propgraph::ElementId("nope")));  // not found is not an error
  EXPECT_THROW(graph.create_edge(a.id, propgraph::ElementId("nope"), "KNOWS"), propgraph::NotFound);
  EXPECT_THROW(graph.create_vertex("bad label"), propgraph::InvalidArgument);
  failing.fail = [] { throw propgraph::Timeout("find_vertex: deadline exceeded"); };
  EXPECT_THROW(static_cast<void>(graph.find_vertex(a.id)), propgraph::Timeout);
  failing.fail = [] { throw propgraph::ConnectionError("down"); };
  EXPECT_THROW(static_cast<void>(graph.neighbors(a.id)), propgraph::ConnectionError);
  failing.fail = [] { throw std::runtime_error("not ours"); };
  EXPECT_THROW(static_cast<void>(graph.page_rank()), std::runtime_error);
  failing.fail = [] { throw propgraph::AlreadyExists("dup"); };
  EXPECT_THROW(graph.create_vertex("Person"), propgraph::AlreadyExists);
  EXPECT_EQ(graph.neighbors(a.id).size(), 1u);

  // Transactions: begin, the calls inside, commit and rollback are counted too.
  {
    auto tx = graph.begin();
    tx->create_vertex("Person", {{"name", "Carol"}});
    EXPECT_EQ(tx->count_vertices(), 3);
    tx->commit();
  }
  {
    auto tx = graph.begin();
    tx->create_vertex("Person", {{"name", "Dave"}});
    tx->rollback();
    tx->rollback();  // already closed: not a call
  }
  propgraph::transact(graph, [&](propgraph::Transaction& tx) { return tx.create_vertex("Person"); });

  const propgraph::MetricsSnapshot s = graph.snapshot();
  auto calls = [&](Operation op) { return s[op].calls(); };
  EXPECT_EQ(calls(Operation::create_vertex), 7u);  // 2 + bad label + AlreadyExists + 2 in tx + transact
  EXPECT_EQ(calls(Operation::create_edge), 2u);
  EXPECT_EQ(calls(Operation::find_vertex), 5u);
  EXPECT_EQ(calls(Operation::neighbors), 2u);
  EXPECT_EQ(calls(Operation::page_rank), 1u);
  EXPECT_EQ(calls(Operation::count_vertices), 1u);
  EXPECT_EQ(calls(Operation::begin), 3u);
  EXPECT_EQ(calls(Operation::commit), 2u);
  EXPECT_EQ(calls(Operation::rollback), 1u);
  EXPECT_EQ(calls(Operation::shortest_path), 0u);
  EXPECT_EQ(s.total_calls(), 7u + 2 + 5 + 2 + 1 + 1 + 3 + 2 + 1);

  EXPECT_EQ(s[Operation::create_edge].error_count(ErrorKind::not_found), 1u);
  EXPECT_EQ(s[Operation::create_vertex].error_count(ErrorKind::invalid_argument), 1u);
  EXPECT_EQ(s[Operation::create_vertex].error_count(ErrorKind::already_exists), 1u);
  EXPECT_EQ(s[Operation::create_vertex].error_count(), 2u);
  EXPECT_EQ(s[Operation::find_vertex].error_count(ErrorKind::timeout), 1u);
  EXPECT_EQ(s[Operation::find_vertex].error_count(), 1u);
  EXPECT_EQ(s[Operation::neighbors].error_count(ErrorKind::connection), 1u);
  EXPECT_EQ(s[Operation::page_rank].error_count(ErrorKind::other), 1u);
  EXPECT_EQ(s[Operation::commit].error_count(), 0u);
  EXPECT_GT(s[Operation::find_vertex].total_latency, 0ns);
  EXPECT_EQ(s[Operation::shortest_path].total_latency, 0ns);
  // The graph itself saw the writes: Alice, Bob, Carol and the transact() vertex.
  EXPECT_EQ(memory.count_vertices(), 4);
}

TEST(InstrumentedGraph, ClassifiesEveryErrorFamily) {
  auto kind = [](auto error) { return propgraph::classify(std::make_exception_ptr(error)); };
  EXPECT_EQ(kind(propgraph::InvalidArgument("x")), ErrorKind::invalid_argument);
  EXPECT_EQ(kind(propgraph::NotFound("x")), ErrorKind::not_found);
  EXPECT_EQ(kind(propgraph::AlreadyExists("x")), ErrorKind::already_exists);
  EXPECT_EQ(kind(propgraph::QueryError("x")), ErrorKind::query);
  EXPECT_EQ(kind(propgraph::ConnectionError("x")), ErrorKind::connection);
  EXPECT_EQ(kind(propgraph::ImportError("x")), ErrorKind::import);
  EXPECT_EQ(kind(propgraph::TransactionConflict("x")), ErrorKind::transaction_conflict);
  EXPECT_EQ(kind(propgraph::Timeout("x")), ErrorKind::timeout);
  EXPECT_EQ(kind(propgraph::StorageError("x")), ErrorKind::storage);
  EXPECT_EQ(kind(propgraph::Error("x")), ErrorKind::other);
  EXPECT_EQ(kind(std::bad_alloc()), ErrorKind::other);
  EXPECT_EQ(kind(42), ErrorKind::other);
  EXPECT_EQ(propgraph::to_string(ErrorKind::transaction_conflict), "transaction_conflict");
}

TEST(InstrumentedGraph, ConcurrentCallsAreAllCounted) {
  MemoryGraph memory;
  InstrumentedGraph graph(memory);
  const auto a = graph.create_vertex("Person");
  constexpr int kThreads = 4;
  constexpr int kCalls = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) static_cast<void>(graph.find_vertex(a.id));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(graph.snapshot()[Operation::find_vertex].calls(), std::uint64_t{kThreads} * kCalls);
}

// -- the text format --------------------------------------------------------------------------

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

/// A strict reader of the Prometheus text format (0.0.4) for what to_prometheus writes: every
/// line is a # HELP, a # TYPE or a sample; each sample belongs to a family declared before it.
/// Fails the test on anything else; returns the samples.
std::vector<Sample> parse_prometheus(const std::string& text) {
  static const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*)");
  static const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped))");
  static const std::regex sample(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+))");
  static const std::regex label(R"(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)\"(,|$))");
  std::map<std::string, std::string> types;
  std::set<std::string> helped;
  std::vector<Sample> samples;
  EXPECT_TRUE(!text.empty() && text.back() == '\n');
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      EXPECT_TRUE(helped.insert(m[1]).second) << "second HELP, line " << line_no;
      continue;
    }
    if (std::regex_match(line, m, type)) {
      EXPECT_TRUE(helped.contains(m[1])) << "TYPE before HELP, line " << line_no;
      EXPECT_TRUE(types.emplace(m[1], m[2]).second) << "second TYPE, line " << line_no;
      continue;
    }
    if (!std::regex_match(line, m, sample)) {
      ADD_FAILURE() << "line " << line_no << " is not a sample: " << line;
      continue;
    }
    Sample s{m[1], {}, 0};
    std::string labels = m[3];
    for (std::smatch l; !labels.empty(); labels = l.suffix()) {
      if (!std::regex_search(labels, l, label) || l.position(0) != 0) {
        ADD_FAILURE() << "bad labels on line " << line_no << ": " << labels;
        break;
      }
      s.labels[l[1]] = l[2];
    }
    const std::string value = m[4];
    if (value == "+Inf") {
      s.value = INFINITY;
    } else {
      std::size_t used = 0;
      s.value = std::stod(value, &used);
      EXPECT_EQ(used, value.size()) << "line " << line_no;
    }
    // The family: the name itself, or a histogram's name without _bucket/_sum/_count.
    std::string family = s.name;
    for (std::string suffix : {"_bucket", "_sum", "_count"}) {
      if (!types.contains(family) && family.ends_with(suffix)) family.resize(family.size() - suffix.size());
    }
    EXPECT_TRUE(types.contains(family)) << "sample before its TYPE, line " << line_no;
    samples.push_back(std::move(s));
  }
  return samples;
}

TEST(Prometheus, TextFormatParsesAndAddsUp) {
  MemoryGraph memory;
  InstrumentedGraph graph(memory);
  const auto a = graph.create_vertex("Person");
  const auto b = graph.create_vertex("Person");
  graph.create_edge(a.id, b.id, "KNOWS");
  for (int i = 0; i < 5; ++i) static_cast<void>(graph.find_vertex(a.id));
  EXPECT_THROW(graph.create_vertex(""), propgraph::InvalidArgument);

  const std::string text = propgraph::to_prometheus(graph.snapshot());
  const std::vector<Sample> samples = parse_prometheus(text);
  ASSERT_FALSE(testing::Test::HasFailure()) << text;

  auto value = [&](const std::string& name, std::map<std::string, std::string> labels) -> std::optional<double> {
    for (const auto& s : samples) {
      if (s.name == name && s.labels == labels) return s.value;
    }
    return std::nullopt;
  };
  EXPECT_EQ(value("propgraph_calls_total", {{"operation", "find_vertex"}}), 5.0);
  EXPECT_EQ(value("propgraph_calls_total", {{"operation", "create_vertex"}}), 3.0);
  EXPECT_EQ(value("propgraph_calls_total", {{"operation", "create_edge"}}), 1.0);
  EXPECT_EQ(value("propgraph_calls_total", {{"operation", "page_rank"}}), std::nullopt);  // never called
  EXPECT_EQ(value("propgraph_errors_total", {{"operation", "create_vertex"}, {"error", "invalid_argument"}}), 1.0);
  EXPECT_EQ(value("propgraph_errors_total", {{"operation", "find_vertex"}, {"error", "invalid_argument"}}),
            std::nullopt);
  EXPECT_EQ(value("propgraph_call_duration_seconds_count", {{"operation", "find_vertex"}}), 5.0);
  EXPECT_EQ(value("propgraph_call_duration_seconds_bucket", {{"operation", "find_vertex"}, {"le", "+Inf"}}), 5.0);
  EXPECT_EQ(
      value("propgraph_call_duration_seconds_bucket", {{"operation", "find_vertex"}, {"le", "1e-06"}}).has_value(),
      true);
  EXPECT_GT(*value("propgraph_call_duration_seconds_sum", {{"operation", "find_vertex"}}), 0.0);

  // Each histogram: bounds increase, counts are cumulative, +Inf equals _count.
  for (const char* op : {"find_vertex", "create_vertex", "create_edge"}) {
    double last_bound = 0;
    double last_count = 0;
    int buckets = 0;
    for (const auto& s : samples) {
      if (s.name != "propgraph_call_duration_seconds_bucket" || s.labels.at("operation") != op) continue;
      const double bound = s.labels.at("le") == "+Inf" ? INFINITY : std::stod(s.labels.at("le"));
      EXPECT_GT(bound, last_bound) << op;
      EXPECT_GE(s.value, last_count) << op;
      last_bound = bound;
      last_count = s.value;
      ++buckets;
    }
    EXPECT_EQ(buckets, static_cast<int>(propgraph::latency_bucket_count)) << op;
    EXPECT_EQ(last_bound, INFINITY) << op;
    EXPECT_EQ(value("propgraph_call_duration_seconds_count", {{"operation", op}}), last_count) << op;
  }
}

TEST(Prometheus, EmptySnapshotIsStillValid) {
  const std::string text = propgraph::to_prometheus(propgraph::MetricsSnapshot{});
  EXPECT_TRUE(parse_prometheus(text).empty());
  EXPECT_NE(text.find("# TYPE propgraph_call_duration_seconds histogram\n"), std::string::npos);
}

}  // namespace
