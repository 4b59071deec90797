// Table 2 (event_table.hpp). The computation follows the reference script: for each order,
// processOrder() calls checkInventory(), which waits (10 ms) while fewer than k waits have
// happened, then prices the order with a quantity discount and keeps per-category totals and the
// top category; the event ends by formatting a summary line.
//
// - fibers: FiberPool::submit per event; checkInventory calls propgraph::wait_for, which
//   suspends only that fiber. Plain nested functions, as in the script.
// - fibers-spawn: the same events and pool, but started from inside it: one submitted task
//   per pool thread starts its share of the events with run_on_fiber (launch::dispatch, so an
//   event runs at once, up to its first wait). Separates the cost of fibers from the cost of
//   the pool's task intake.
// - asio: one boost::asio::io_context per loop thread (concurrency hint 1, the Vert.x shape),
//   events co_spawn'ed round robin. The script's nesting as C++20 coroutines: processOrder and
//   checkInventory are awaitables, because a function that may wait must be one.
// - asio-flat: the same loops, but one coroutine per event with the timer awaited inline (no
//   nested coroutine frames): what an event-loop port restructured for speed looks like.
// - threads: a pool of T threads (mutex + condition variable queue); checkInventory blocks the
//   thread in propgraph::wait_for.
// Each mode's clock runs from the first submission until every event has finished (pool
// shut down, loops run dry, threads joined); thread start-up is outside it.
#include "event_table.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>  // before Asio 1.74's awaitable.hpp, which uses std::exchange without it

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/fiber/policy.hpp>
#include <fmt/format.h>

#include "propgraph/fiber.hpp"
#include "propgraph/latency/wait.hpp"

namespace propgraph::bench {

namespace {

namespace asio = boost::asio;

std::atomic<std::size_t> result_sink{0};

struct Order {
  std::string_view category;
  double price;
  int quantity;
};

/// The orders every event processes (k <= 10 waits: at most one per order).
constexpr std::array<Order, 10> orders{{
    {"widgets", 2.50, 120},
    {"gadgets", 12.00, 15},
    {"gizmos", 7.25, 60},
    {"widgets", 2.40, 30},
    {"doohickeys", 30.00, 5},
    {"gadgets", 11.50, 55},
    {"gizmos", 7.00, 101},
    {"widgets", 2.60, 8},
    {"sprockets", 1.10, 250},
    {"gadgets", 12.50, 22},
}};

/// The script's variables: totals per category, item count, grand total, top category.
class OrderBook {
 public:
  void add(const Order& order) {
    double discount = 0.0;
    if (order.quantity >= 100) {
      discount = 0.20;
    } else if (order.quantity >= 50) {
      discount = 0.10;
    } else if (order.quantity >= 20) {
      discount = 0.05;
    }
    const double line_total = order.price * order.quantity * (1.0 - discount);
    auto it = totals_.find(order.category);
    if (it == totals_.end()) it = totals_.emplace(std::string(order.category), 0.0).first;
    it->second += line_total;
    grand_total_ += line_total;
    ++item_count_;
    if (it->second > top_amount_) {
      top_amount_ = it->second;
      top_category_ = it->first;
    }
  }
  [[nodiscard]] std::string summary() const {
    return fmt::format("Processed {} orders. Grand total: {:.2f}. Top category: {}", item_count_, grand_total_,
                       top_category_);
  }

 private:
  std::map<std::string, double, std::less<>> totals_;
  int item_count_ = 0;
  double grand_total_ = 0.0;
  std::string top_category_;
  double top_amount_ = -1.0;
};

// -- the script as plain functions (fibers, threads) --------------------------------------

struct Script {
  int waits;
  int slept = 0;
  OrderBook book;

  bool check_inventory(std::string_view /*category*/, int /*quantity*/) {
    if (slept++ < waits) propgraph::wait_for(event_wait);
    return true;
  }
  void process_order(const Order& order) {
    if (!check_inventory(order.category, order.quantity)) return;
    book.add(order);
  }
  std::size_t run() {
    for (const Order& order : orders) process_order(order);
    return book.summary().size();
  }
};

// -- the script as coroutines (asio) ----------------------------------------------------------

struct AsyncScript {
  int waits;
  int slept = 0;
  OrderBook book;
  std::optional<asio::steady_timer> timer;

  asio::awaitable<bool> check_inventory(std::string_view /*category*/, int /*quantity*/) {
    if (slept++ < waits) {
      if (!timer) timer.emplace(co_await asio::this_coro::executor);
      timer->expires_after(event_wait);
      co_await timer->async_wait(asio::use_awaitable);
    }
    co_return true;
  }
  asio::awaitable<void> process_order(const Order& order) {
    const bool in_stock = co_await check_inventory(order.category, order.quantity);
    if (in_stock) book.add(order);
  }
};

asio::awaitable<void> async_event(int waits) {
  AsyncScript script{.waits = waits};
  for (const Order& order : orders) co_await script.process_order(order);
  result_sink += script.book.summary().size();
}

asio::awaitable<void> flat_async_event(int waits) {
  OrderBook book;
  std::optional<asio::steady_timer> timer;
  int slept = 0;
  for (const Order& order : orders) {
    if (slept++ < waits) {
      if (!timer) timer.emplace(co_await asio::this_coro::executor);
      timer->expires_after(event_wait);
      co_await timer->async_wait(asio::use_awaitable);
    }
    book.add(order);
  }
  result_sink += book.summary().size();
}

// -- executors ----------------------------------------------------------------------------

/// A classic fixed-size thread pool: one locked FIFO of tasks.
class ThreadPool {
 public:
  explicit ThreadPool(std::size_t threads) {
    workers_.reserve(threads);
    for (std::size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() { finish(); }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void submit(std::function<void()> task) {
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }
  /// Runs every queued task, then joins the threads.
  void finish() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (auto& w : workers_) {
      if (w.joinable()) w.join();
    }
  }

 private:
  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return closing_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

double run_fibers(const EventConfig& config, int waits) {
  FiberPool pool(config.loop_threads, StackAllocator::pooled(config.fiber_stack));
  const auto start = Clock::now();
  for (std::size_t e = 0; e < config.events; ++e) {
    (void)pool.submit([waits] { result_sink += Script{.waits = waits}.run(); });
  }
  pool.shutdown();
  return seconds(Clock::now() - start);
}

double run_fibers_spawned(const EventConfig& config, int waits) {
  const StackAllocator stack = StackAllocator::pooled(config.fiber_stack);
  FiberPool pool(config.loop_threads, stack);
  const auto start = Clock::now();
  std::vector<Future<void>> spawners;
  for (std::size_t t = 0; t < config.loop_threads; ++t) {
    spawners.push_back(pool.submit([&config, &stack, waits, t] {
      const FiberOptions options{.launch = boost::fibers::launch::dispatch, .stack = stack};
      std::vector<Future<void>> events;
      events.reserve(config.events / config.loop_threads + 1);
      for (std::size_t e = t; e < config.events; e += config.loop_threads) {
        events.push_back(run_on_fiber([waits] { result_sink += Script{.waits = waits}.run(); }, options));
      }
      for (auto& event : events) event.get();
    }));
  }
  for (auto& spawner : spawners) spawner.get();
  pool.shutdown();
  return seconds(Clock::now() - start);
}

template <class Event>
double run_asio(const EventConfig& config, int waits, Event event) {
  std::vector<std::unique_ptr<asio::io_context>> loops;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < config.loop_threads; ++i) {
    loops.push_back(std::make_unique<asio::io_context>(1));
    guards.push_back(asio::make_work_guard(*loops.back()));
  }
  for (auto& loop : loops) threads.emplace_back([&ctx = *loop] { ctx.run(); });
  const auto start = Clock::now();
  for (std::size_t e = 0; e < config.events; ++e) {
    asio::co_spawn(*loops[e % loops.size()], event(waits), asio::detached);
  }
  guards.clear();
  for (auto& t : threads) t.join();
  return seconds(Clock::now() - start);
}

double run_threads(const EventConfig& config, int waits) {
  ThreadPool pool(config.pool_threads);
  const auto start = Clock::now();
  for (std::size_t e = 0; e < config.events; ++e) {
    pool.submit([waits] { result_sink += Script{.waits = waits}.run(); });
  }
  pool.finish();
  return seconds(Clock::now() - start);
}

double compute_ns_per_event(std::size_t events) {
  const auto start = Clock::now();
  for (std::size_t e = 0; e < events; ++e) result_sink += Script{.waits = 0}.run();
  return seconds(Clock::now() - start) * 1e9 / static_cast<double>(events);
}

constexpr std::array<std::string_view, 5> event_modes{"fibers", "fibers-spawn", "asio", "asio-flat", "threads"};

}  // namespace

const EventRun* EventTable::find(std::string_view mode, int waits) const {
  for (const auto& r : runs) {
    if (r.mode == mode && r.waits == waits) return &r;
  }
  return nullptr;
}

EventTable run_event_table(const EventConfig& config) {
  EventTable table{.config = config};
  table.compute_ns_per_event = compute_ns_per_event(std::min<std::size_t>(config.events, 20'000));
  for (const int waits : config.wait_counts) {
    for (std::string_view mode : event_modes) {
      if (std::find(config.modes.begin(), config.modes.end(), mode) == config.modes.end()) continue;
      EventRun run{.mode = std::string(mode), .waits = waits, .events = config.events};
      const int repeats = mode == "threads" ? 1 : std::max(1, config.repeats);
      for (int r = 0; r < repeats; ++r) {
        const std::int64_t rss_at_start = reset_peak_rss();
        const double cpu_at_start = process_cpu_seconds();
        double s = 0;
        if (mode == "fibers") {
          s = run_fibers(config, waits);
        } else if (mode == "fibers-spawn") {
          s = run_fibers_spawned(config, waits);
        } else if (mode == "asio") {
          s = run_asio(config, waits, async_event);
        } else if (mode == "asio-flat") {
          s = run_asio(config, waits, flat_async_event);
        } else {
          s = run_threads(config, waits);
        }
        run.seconds.push_back(s);
        run.cpu_seconds.push_back(process_cpu_seconds() - cpu_at_start);
        run.peak_rss_delta = std::max(run.peak_rss_delta, proc_status_bytes("VmHWM") - rss_at_start);
        std::fputc('.', stderr);
        std::fflush(stderr);
      }
      run.events_per_s = static_cast<double>(config.events) / median(run.seconds);
      run.cpu_us_per_event = median(run.cpu_seconds) * 1e6 / static_cast<double>(config.events);
      table.runs.push_back(std::move(run));
    }
  }
  std::fputc('\n', stderr);
  return table;
}

void print_event_table(const EventTable& table) {
  const auto& c = table.config;
  const std::string threads_label = fmt::format("threads-{}", c.pool_threads);
  const auto label = [&](std::string_view mode) { return mode == "threads" ? threads_label : std::string(mode); };
  const auto header = [&](std::string_view last) {
    fmt::print("{:>3}", "k");
    for (std::string_view mode : event_modes) fmt::print(" {:>12}", label(mode));
    if (!last.empty()) fmt::print(" {:>13}", last);
    fmt::print("\n{}\n", std::string(3 + 13 * event_modes.size() + (last.empty() ? 0 : 14), '-'));
  };
  const auto rows = [&](auto cell, auto last) {
    for (const int k : event_wait_counts) {
      bool any = false;
      for (std::string_view mode : event_modes) any = any || table.find(mode, k) != nullptr;
      if (!any) continue;
      fmt::print("{:>3}", k);
      for (std::string_view mode : event_modes) {
        const EventRun* r = table.find(mode, k);
        fmt::print(" {:>12}", r ? cell(*r) : std::string("-"));
      }
      fmt::print("{}\n", last(k));
    }
  };

  fmt::print(
      "\nevents: {} events, each processing {} orders and waiting k x {} ms (computation alone: {}/event "
      "on one thread)\n",
      c.events, orders.size(), event_wait.count(), format_ns(table.compute_ns_per_event));
  fmt::print(
      "fibers: FiberPool({} threads, pooled {} KiB stacks), submit() per event; fibers-spawn: same pool, "
      "events started inside it\nasio: {} io_contexts x 1 thread, C++20 coroutines (asio: nested as in the "
      "script, asio-flat: one coroutine per event); threads: pool of {}\n",
      c.loop_threads, c.fiber_stack / 1024, c.loop_threads, c.pool_threads);
  fmt::print("events/s (fibers and asio: median of {} runs); last column: fibers / best asio\n", c.repeats);
  header("fibers/asio");
  rows([](const EventRun& r) { return format_rate(r.events_per_s); },
       [&](int k) {
         const EventRun* fibers = table.find("fibers", k);
         const EventRun* nested = table.find("asio", k);
         const EventRun* flat = table.find("asio-flat", k);
         const double best = std::max(nested ? nested->events_per_s : 0.0, flat ? flat->events_per_s : 0.0);
         return fibers && best > 0 ? fmt::format(" {:>13.2f}", fibers->events_per_s / best) : std::string();
       });
  fmt::print("\nCPU time per event (all threads, user + system; median)\n");
  header("");
  rows([](const EventRun& r) { return format_ns(r.cpu_us_per_event * 1e3); }, [](int) { return std::string(); });
  fmt::print("\npeak RSS above the RSS at start of each run\n");
  header("");
  rows([](const EventRun& r) { return format_bytes(static_cast<double>(r.peak_rss_delta)); },
       [](int) { return std::string(); });
}

void write_event_json(Json& json, const EventTable& table) {
  json.begin_object("event_table");
  json.field("events", static_cast<std::uint64_t>(table.config.events));
  json.field("orders_per_event", static_cast<std::uint64_t>(orders.size()));
  json.field("wait_ms", static_cast<std::int64_t>(event_wait.count()));
  json.field("loop_threads", static_cast<std::uint64_t>(table.config.loop_threads));
  json.field("pool_threads", static_cast<std::uint64_t>(table.config.pool_threads));
  json.field("fiber_stack_bytes", static_cast<std::uint64_t>(table.config.fiber_stack));
  json.field("compute_ns_per_event", table.compute_ns_per_event);
  json.begin_array("runs");
  for (const auto& r : table.runs) {
    json.begin_object().field("mode", r.mode).field("k", r.waits).field("events", static_cast<std::uint64_t>(r.events));
    json.begin_array("seconds");
    for (double s : r.seconds) json.field("", s);
    json.end_array();
    json.begin_array("cpu_seconds");
    for (double s : r.cpu_seconds) json.field("", s);
    json.end_array();
    json.field("events_per_s", r.events_per_s)
        .field("cpu_us_per_event", r.cpu_us_per_event)
        .field("peak_rss_delta_bytes", r.peak_rss_delta)
        .end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace propgraph::bench
