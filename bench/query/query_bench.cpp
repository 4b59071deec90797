// propgraph-query-bench: what openCypher costs next to hand-written GraphOperations calls.
//
//   parse       Query::parse (parse and semantic analysis) of every distinct statement of the
//               openCypher TCK's feature files: the doc strings of the steps `executing query:`
//               and `having executed:`, read with the TCK runner's Gherkin reader (outlines
//               expanded). Statements the parser refuses are counted, not timed. Each accepted
//               statement is parsed --parse-reps times; its figure is the median of those, and
//               the table gives the median and p99 over the statements. Skipped with a message
//               when there is no TCK (--tck DIR, else $PROPGRAPH_TCK_DIR, else
//               <source>/../shared/opencypher-tck).
//   endpoints   the six endpoints of a "social recommendations" service on a MemoryGraph
//               generated with a fixed seed: --persons Person (name, age 18-80, one of 50
//               cities), as many Post (key, created), and 10 edges per person: KNOWS 3 (mostly
//               between people close in the generation order, so friends share friends), FOLLOWS
//               3 (skewed towards a few popular people), LIKES 3 (skewed towards a few posts),
//               POSTED 1 per post (skewed authors). Indexes on Person.name, Person.city and
//               Post.key. Each endpoint is written twice, as one Cypher statement with
//               parameters (parsed once, outside the timing) and by hand with GraphOperations
//               calls; at start-up both answer a few inputs and must agree (else the run stops
//               with both answers). Then both run in turns over varied inputs until --seconds
//               per endpoint have passed (at least --min-iterations, at most --max-iterations
//               each); the table gives the median wall-clock µs per call of each, their ratio,
//               and the p99s.
//
// Ties in a ranking are broken by element id as Cypher's id() returns it: a string, compared as
// strings (so "g1:v10" sorts before "g1:v9"); the hand-written code compares ElementId::str().
//
// Prints a table and writes every figure to <out_dir>/query.json (default <source>/build/bench).
//
//   propgraph-query-bench [--quick] [--persons=N] [--seconds=S] [--min-iterations=N]
//                         [--max-iterations=N] [--parse-reps=N] [--seed=N] [--tck=DIR]
//                         [--only=parse,endpoints] [--out_dir=DIR] [--json=FILE]
//
// --quick: 2,000 persons, 0.5 s per endpoint, 5 parse repetitions (a few seconds in all).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "args.hpp"
#include "gherkin.hpp"
#include "propgraph/errors.hpp"
#include "propgraph/fmt.hpp"
#include "propgraph/memory/memory_graph.hpp"
#include "propgraph/query.hpp"
#include "random.hpp"
#include "run_info.hpp"

namespace fs = std::filesystem;
using namespace propgraph;

namespace {

using Clock = std::chrono::steady_clock;
using Rows = std::vector<std::vector<QueryValue>>;

// -- settings ------------------------------------------------------------------------------------

struct Settings {
  bool quick = false;
  std::uint32_t persons = 50'000;
  double seconds = 30.0;  // per endpoint, both versions together
  std::size_t min_iterations = 10;
  std::size_t max_iterations = 50'000;
  int parse_reps = 50;
  std::uint64_t seed = 42;
  std::optional<fs::path> tck;
  bool run_parse = true;
  bool run_endpoints = true;
  fs::path out_dir = PROPGRAPH_BENCH_OUT_DIR;
  std::optional<fs::path> json;
};

constexpr std::string_view kUsage =
    "usage: propgraph-query-bench [--quick] [--persons=N] [--seconds=S] [--min-iterations=N]\n"
    "                             [--max-iterations=N] [--parse-reps=N] [--seed=N] [--tck=DIR]\n"
    "                             [--only=parse,endpoints] [--out_dir=DIR] [--json=FILE]\n";

[[noreturn]] void usage_error(std::string_view message) {
  fmt::print(stderr, "propgraph-query-bench: {}\n{}", message, kUsage);
  std::exit(2);
}

std::uint64_t parse_number(std::string_view text, std::string_view flag) {
  if (const auto value = bench::parse_number<std::uint64_t>(text)) return *value;
  usage_error(fmt::format("{} expects a number, got '{}'", flag, text));
}

Settings parse_settings(int argc, char** argv) {
  Settings s;
  // --quick first, so that flags after or before it override its defaults.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--quick") {
      s.quick = true;
      s.persons = 2'000;
      s.seconds = 0.5;
      s.max_iterations = 2'000;
      s.parse_reps = 5;
    }
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> std::optional<std::string_view> {
      if (arg.starts_with(flag) && arg.size() > flag.size() && arg[flag.size()] == '=') {
        return arg.substr(flag.size() + 1);
      }
      if (arg == flag && i + 1 < argc) return std::string_view(argv[++i]);  // `--flag value`
      return std::nullopt;
    };
    if (arg == "--quick") continue;
    if (arg == "--help" || arg == "-h") {
      fmt::print("{}(see the comment at the top of bench/query/query_bench.cpp)\n", kUsage);
      std::exit(0);
    }
    if (auto v = value("--persons")) {
      s.persons = static_cast<std::uint32_t>(parse_number(*v, "--persons"));
      if (s.persons < 10) usage_error("--persons must be at least 10");
    } else if (auto sec = value("--seconds")) {
      s.seconds = std::atof(std::string(*sec).c_str());
      if (!(s.seconds > 0)) usage_error("--seconds expects a positive number");
    } else if (auto mi = value("--min-iterations")) {
      s.min_iterations = std::max<std::size_t>(1, parse_number(*mi, "--min-iterations"));
    } else if (auto ma = value("--max-iterations")) {
      s.max_iterations = std::max<std::size_t>(1, parse_number(*ma, "--max-iterations"));
    } else if (auto r = value("--parse-reps")) {
      s.parse_reps = std::max(1, static_cast<int>(parse_number(*r, "--parse-reps")));
    } else if (auto seed = value("--seed")) {
      s.seed = parse_number(*seed, "--seed");
    } else if (auto t = value("--tck")) {
      s.tck = fs::path(std::string(*t));
    } else if (auto o = value("--only")) {
      s.run_parse = s.run_endpoints = false;
      std::string_view list = *o;
      while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view name = list.substr(0, comma);
        if (name == "parse") {
          s.run_parse = true;
        } else if (name == "endpoints") {
          s.run_endpoints = true;
        } else {
          usage_error(fmt::format("--only: unknown part '{}'", name));
        }
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      }
    } else if (auto out = value("--out_dir")) {
      s.out_dir = std::string(*out);
    } else if (auto out2 = value("--out-dir")) {
      s.out_dir = std::string(*out2);
    } else if (auto j = value("--json")) {
      s.json = fs::path(std::string(*j));
    } else {
      usage_error(fmt::format("unknown flag '{}'", arg));
    }
  }
  if (s.min_iterations > s.max_iterations) s.min_iterations = s.max_iterations;
  return s;
}

// -- statistics ----------------------------------------------------------------------------------

struct Summary {
  std::size_t count = 0;
  double median = 0;
  double p99 = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
};

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.count = v.size();
  const std::size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  // Nearest rank: the smallest sample with at least 99 % of the samples at or below it.
  s.p99 = v[static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1];
  s.min = v.front();
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(n);
  return s;
}

void write_summary(bench::Json& json, std::string_view key, const Summary& s) {
  json.begin_object(key)
      .field("samples", static_cast<std::uint64_t>(s.count))
      .field("median_us", s.median)
      .field("p99_us", s.p99)
      .field("min_us", s.min)
      .field("max_us", s.max)
      .field("mean_us", s.mean)
      .end_object();
}

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

/// The bench's generator, with a skewed draw for popular persons.
struct Random : bench::SplitMix64 {
  /// In [0, n), skewed towards 0: P(x < k) = (k / n)^(1 / power).
  std::uint32_t skewed(std::uint32_t n, int power) {
    return std::min(n - 1, static_cast<std::uint32_t>(static_cast<double>(n) * std::pow(unit(), power)));
  }
};

// -- part 1: parse time over the TCK -------------------------------------------------------------

struct ParseFigures {
  bool ran = false;
  std::string skipped;  // why not, when !ran
  fs::path dir;
  std::size_t files = 0;
  std::size_t blocks = 0;    // statement doc strings read
  std::size_t distinct = 0;  // distinct statement texts
  std::size_t parsed = 0;    // accepted by Query::parse, timed
  std::size_t rejected_errors = 0;
  std::size_t rejected_outside = 0;     // QueryError with an OutsideModel code
  std::size_t rejected_procedures = 0;  // CALL: propgraph has no procedures
  int reps = 0;
  Summary per_statement;  // over the statements: each one's median of reps
  std::string slowest;    // the statement of per_statement.max, its first line
  double seconds = 0;
};

fs::path find_tck(const Settings& s) {
  if (s.tck) return *s.tck;
  if (const char* env = std::getenv("PROPGRAPH_TCK_DIR"); env != nullptr && *env != '\0') return fs::path(env);
  return fs::path(PROPGRAPH_SOURCE_DIR) / ".." / "shared" / "opencypher-tck";
}

/// The statement of a step, or nothing when the step runs none: a doc string after
/// `executing query:` / `having executed:`, or the text after the colon on the step's line.
std::optional<std::string> statement_of(const tck::Step& step) {
  if (!step.text.starts_with("executing query:") && !step.text.starts_with("having executed:")) return std::nullopt;
  if (step.has_doc_string) return step.doc_string;
  const auto colon = step.text.find(':');
  const auto start = step.text.find_first_not_of(" \t", colon + 1);
  if (start == std::string::npos) return std::nullopt;
  return step.text.substr(start);
}

ParseFigures run_parse(const Settings& s) {
  ParseFigures f;
  f.reps = s.parse_reps;
  std::error_code ec;
  f.dir = fs::weakly_canonical(find_tck(s), ec);
  const fs::path features = f.dir / "features";
  if (ec || !fs::is_directory(features, ec)) {
    f.skipped = fmt::format("no openCypher TCK at {} (no features/ directory; give --tck DIR or PROPGRAPH_TCK_DIR)",
                            f.dir.string());
    return f;
  }
  const auto started = Clock::now();

  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(features)) {
    if (entry.is_regular_file() && entry.path().extension() == ".feature") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  f.files = files.size();

  std::vector<std::string> statements;  // distinct, in reading order
  std::unordered_set<std::string> seen;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    tck::Feature feature;
    try {
      feature = tck::parse_feature(text.str(), file.string());
    } catch (const tck::GherkinError& e) {
      fmt::print(stderr, "propgraph-query-bench: skipping {}: {}\n", file.string(), e.what());
      continue;
    }
    for (const tck::Scenario& scenario : feature.scenarios) {
      for (const tck::Step& step : scenario.steps) {
        std::optional<std::string> statement = statement_of(step);
        if (!statement) continue;
        ++f.blocks;
        if (seen.insert(*statement).second) statements.push_back(std::move(*statement));
      }
    }
  }
  f.distinct = statements.size();

  std::vector<double> per_statement;  // of the accepted statements, in order
  std::vector<const std::string*> accepted;
  std::vector<double> reps;
  for (const std::string& text : statements) {
    try {
      (void)Query::parse(text);  // once untimed: accepted or not, and warm
    } catch (const QueryError& e) {
      if (e.code().starts_with("OutsideModel")) {
        ++f.rejected_outside;
      } else if (e.code().starts_with("ProcedureError")) {
        ++f.rejected_procedures;
      } else {
        ++f.rejected_errors;
      }
      continue;
    } catch (const std::exception&) {
      ++f.rejected_errors;
      continue;
    }
    reps.clear();
    for (int r = 0; r < s.parse_reps; ++r) {
      const auto start = Clock::now();
      const Query q = Query::parse(text);
      reps.push_back(micros_since(start));
      if (q.text().size() != text.size()) std::abort();  // uses the result
    }
    per_statement.push_back(summarize(reps).median);
    accepted.push_back(&text);
  }
  f.parsed = per_statement.size();
  f.per_statement = summarize(per_statement);
  if (!accepted.empty()) {  // the slowest statement's first line, for the record
    const auto slowest = std::max_element(per_statement.begin(), per_statement.end()) - per_statement.begin();
    const std::string_view t = *accepted[static_cast<std::size_t>(slowest)];
    f.slowest = std::string(t.substr(0, std::min(t.find('\n'), std::size_t{100})));
  }
  f.ran = true;
  f.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return f;
}

void print_parse(const ParseFigures& f) {
  fmt::print("Query::parse (parse + semantic analysis) over the openCypher TCK\n");
  if (!f.ran) {
    fmt::print("  skipped: {}\n\n", f.skipped);
    return;
  }
  fmt::print("  TCK                    {} ({} feature files)\n", f.dir.string(), f.files);
  fmt::print("  statements read        {} ({} distinct)\n", f.blocks, f.distinct);
  fmt::print("  statements parsed      {} (timed, {} repetitions each)\n", f.parsed, f.reps);
  fmt::print("  statements rejected    {} ({} errors, {} outside the model, {} procedure calls; counted, not timed)\n",
             f.rejected_errors + f.rejected_outside + f.rejected_procedures, f.rejected_errors, f.rejected_outside,
             f.rejected_procedures);
  fmt::print("  µs per statement       median {:.1f}   p99 {:.1f}   max {:.1f}   mean {:.1f}\n", f.per_statement.median,
             f.per_statement.p99, f.per_statement.max, f.per_statement.mean);
  fmt::print("  slowest                {}\n\n", f.slowest);
}

// -- part 2: the social-recommendations graph ----------------------------------------------------

struct Dataset {
  std::vector<ElementId> persons;
  std::vector<std::string> names;
  std::vector<ElementId> posts;
  std::vector<std::string> post_keys;
  std::vector<std::string> cities;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> likes;  // (person, post) indexes
  std::int64_t knows = 0;
  std::int64_t follows = 0;
  std::int64_t posted = 0;
  double load_seconds = 0;
  double index_seconds = 0;
};

constexpr std::int64_t kBaseMillis = 1'700'000'000'000;  // created: epoch milliseconds

Dataset generate(MemoryGraph& g, const Settings& s) {
  static constexpr std::string_view kFirst[] = {"Ada",  "Ben",  "Cleo", "Dan",  "Eva",  "Finn", "Gus",
                                                "Hana", "Ivo",  "Jade", "Karl", "Lena", "Mia",  "Noah",
                                                "Olga", "Piet", "Rosa", "Sven", "Tess", "Uma"};
  static constexpr std::string_view kLast[] = {"Berg", "Costa", "Diaz", "Eriksen", "Fox",  "Gray", "Hill",
                                               "Ito",  "Jones", "Kim",  "Lund",    "Moss", "Nagy", "Ortiz"};
  Dataset d;
  Random random{s.seed};
  const std::uint32_t n = s.persons;
  const std::uint32_t n_posts = s.persons;
  const auto started = Clock::now();

  for (int c = 0; c < 50; ++c) d.cities.push_back(fmt::format("City {:02}", c));
  std::vector<NewVertex> vertices;
  vertices.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string name =
        fmt::format("{} {} {}", kFirst[random.below(std::size(kFirst))], kLast[random.below(std::size(kLast))], i);
    d.names.push_back(name);
    vertices.push_back({"Person",
                        {{"name", std::move(name)},
                         {"age", static_cast<std::int64_t>(18 + random.below(63))},
                         {"city", d.cities[random.below(50)]}}});
  }
  d.persons = g.create_vertices(vertices);

  // Distinct creation times in a random order: created = base + (a permutation of 0..n-1) s.
  std::vector<std::int64_t> order(n_posts);
  for (std::uint32_t j = 0; j < n_posts; ++j) order[j] = j;
  for (std::uint32_t j = n_posts; j > 1; --j) std::swap(order[j - 1], order[random.below(j)]);
  vertices.clear();
  for (std::uint32_t j = 0; j < n_posts; ++j) {
    d.post_keys.push_back(fmt::format("post-{}", j));
    vertices.push_back({"Post", {{"key", d.post_keys.back()}, {"created", kBaseMillis + order[j] * 1000}}});
  }
  d.posts = g.create_vertices(vertices);

  std::vector<NewEdge> edges;
  auto flush = [&](bool force) {
    if (edges.empty() || (!force && edges.size() < 20'000)) return;
    (void)g.create_edges(edges);
    edges.clear();
  };
  auto add = [&](const ElementId& from, const ElementId& to, std::string_view label) {
    edges.push_back({from, to, std::string(label), {}});
    flush(false);
  };
  // Each kind: up to 3 per person, no duplicate pair, no self-loop (bounded attempts, for tiny
  // graphs that cannot hold that many distinct pairs).
  const std::uint64_t target = 3ULL * n;
  std::unordered_set<std::uint64_t> pairs;
  auto key = [](std::uint64_t a, std::uint64_t b) { return (a << 32) | b; };
  const std::uint32_t window = std::min<std::uint32_t>(n - 1, 100);
  for (std::uint64_t tries = 0; static_cast<std::uint64_t>(d.knows) < target && tries < 20 * target; ++tries) {
    const std::uint32_t a = random.below(n);
    // Mostly someone near in the generation order (friends share friends), else anyone.
    const std::uint32_t b = random.below(10) < 8 ? (a + 1 + random.below(window)) % n : random.below(n);
    if (a == b || !pairs.insert(key(std::min(a, b), std::max(a, b))).second) continue;
    add(d.persons[a], d.persons[b], "KNOWS");
    ++d.knows;
  }
  pairs.clear();
  for (std::uint64_t tries = 0; static_cast<std::uint64_t>(d.follows) < target && tries < 20 * target; ++tries) {
    const std::uint32_t a = random.below(n);
    const std::uint32_t b = random.skewed(n, 3);  // a few are followed by many
    if (a == b || !pairs.insert(key(a, b)).second) continue;
    add(d.persons[a], d.persons[b], "FOLLOWS");
    ++d.follows;
  }
  pairs.clear();
  for (std::uint64_t tries = 0; d.likes.size() < target && tries < 20 * target; ++tries) {
    const std::uint32_t a = random.below(n);
    const std::uint32_t post = random.skewed(n_posts, 2);
    if (!pairs.insert(key(a, post)).second) continue;
    add(d.persons[a], d.posts[post], "LIKES");
    d.likes.emplace_back(a, post);
  }
  for (std::uint32_t j = 0; j < n_posts; ++j) {
    add(d.persons[random.skewed(n, 2)], d.posts[j], "POSTED");  // a few post a lot
    ++d.posted;
  }
  flush(true);
  d.load_seconds = std::chrono::duration<double>(Clock::now() - started).count();

  const auto indexing = Clock::now();
  g.create_index("Person", "name");
  g.create_index("Person", "city");
  g.create_index("Post", "key");
  d.index_seconds = std::chrono::duration<double>(Clock::now() - indexing).count();
  return d;
}

// -- the endpoints, by hand ----------------------------------------------------------------------

const ElementId& other_end(const Edge& e, const ElementId& from) { return e.from == from ? e.to : e.from; }

bool id_less(const ElementId& a, const ElementId& b) { return a.str() < b.str(); }  // as Cypher's id()

std::optional<Vertex> person_by_name(GraphOperations& g, const std::string& name) {
  std::vector<Vertex> found = g.find_vertices_by_label("Person", {{"name", name}});
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

// a. profile
std::optional<Vertex> profile_hand(GraphOperations& g, const std::string& name) { return person_by_name(g, name); }

// b. people-you-may-know
struct Suggestion {
  ElementId id;
  std::string name;
  std::int64_t mutual = 0;
};

std::vector<Suggestion> people_you_may_know_hand(GraphOperations& g, const std::string& name) {
  const std::optional<Vertex> me = person_by_name(g, name);
  if (!me) return {};
  const EdgeQuery knows{.direction = Direction::both, .edge_label = "KNOWS"};
  std::vector<ElementId> friends;
  for (const Edge& e : g.incident_edges(me->id, knows)) friends.push_back(other_end(e, me->id));
  std::sort(friends.begin(), friends.end());
  friends.erase(std::unique(friends.begin(), friends.end()), friends.end());

  std::map<ElementId, std::int64_t> mutual;  // friend of a friend -> distinct friends in common
  std::vector<ElementId> theirs;
  for (const ElementId& f : friends) {
    theirs.clear();
    for (const Edge& e : g.incident_edges(f, knows)) {
      const ElementId& x = other_end(e, f);
      if (x != me->id && !std::binary_search(friends.begin(), friends.end(), x)) theirs.push_back(x);
    }
    std::sort(theirs.begin(), theirs.end());
    theirs.erase(std::unique(theirs.begin(), theirs.end()), theirs.end());
    for (const ElementId& x : theirs) ++mutual[x];
  }
  std::vector<std::pair<std::int64_t, ElementId>> ranked;
  ranked.reserve(mutual.size());
  for (const auto& [id, count] : mutual) ranked.emplace_back(count, id);
  const auto top = std::min<std::size_t>(10, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top), ranked.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : id_less(a.second, b.second);
                    });
  std::vector<Suggestion> out;
  for (std::size_t i = 0; i < top; ++i) {
    const std::optional<Vertex> v = g.find_vertex(ranked[i].second);
    out.push_back({ranked[i].second, v ? v->properties["name"].as_string() : std::string(), ranked[i].first});
  }
  return out;
}

// c. feed
struct FeedItem {
  ElementId post;
  std::int64_t created = 0;
  std::string author;
};

std::vector<FeedItem> feed_hand(GraphOperations& g, const std::string& name, std::size_t skip, std::size_t limit) {
  const std::optional<Vertex> me = person_by_name(g, name);
  if (!me) return {};
  std::vector<FeedItem> items;
  for (const Edge& follows : g.incident_edges(me->id, {.direction = Direction::out, .edge_label = "FOLLOWS"})) {
    const std::optional<Vertex> author = g.find_vertex(follows.to);
    if (!author || author->label != "Person") continue;
    const std::string& author_name = author->properties["name"].as_string();
    for (const Edge& posted : g.incident_edges(author->id, {.direction = Direction::out, .edge_label = "POSTED"})) {
      const std::optional<Vertex> post = g.find_vertex(posted.to);
      if (!post || post->label != "Post") continue;
      items.push_back({post->id, post->properties["created"].as_int(), author_name});
    }
  }
  const auto newer = [](const FeedItem& a, const FeedItem& b) { return a.created > b.created; };
  const std::size_t end = std::min(items.size(), skip + limit);
  std::partial_sort(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(end), items.end(), newer);
  if (skip >= end) return {};
  return {std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(skip)),
          std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(end))};
}

// d. people aged min-max in a city, by name
struct Resident {
  std::string name;
  std::int64_t age = 0;
};

std::vector<Resident> residents_hand(GraphOperations& g, const std::string& city, std::int64_t min_age,
                                     std::int64_t max_age, std::size_t skip, std::size_t limit) {
  std::vector<Resident> found;
  for (const Vertex& v : g.find_vertices_by_label("Person", {{"city", city}})) {
    const Value& age = v.properties["age"];
    if (!age.is_int() || age.as_int() < min_age || age.as_int() > max_age) continue;
    found.push_back({v.properties["name"].as_string(), age.as_int()});
  }
  const std::size_t end = std::min(found.size(), skip + limit);
  std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(end), found.end(),
                    [](const Resident& a, const Resident& b) { return a.name < b.name; });
  if (skip >= end) return {};
  return {std::make_move_iterator(found.begin() + static_cast<std::ptrdiff_t>(skip)),
          std::make_move_iterator(found.begin() + static_cast<std::ptrdiff_t>(end))};
}

// e. most followed
struct Followed {
  ElementId id;
  std::string name;
  std::int64_t followers = 0;
};

std::vector<Followed> most_followed_hand(GraphOperations& g, std::size_t limit) {
  const std::vector<Edge> follows = g.find_edges_by_label("FOLLOWS");
  std::unordered_map<std::string_view, std::pair<const ElementId*, std::int64_t>> counts;  // views into `follows`
  for (const Edge& e : follows) {
    auto& entry = counts[e.to.str()];
    entry.first = &e.to;
    ++entry.second;
  }
  std::vector<std::pair<std::int64_t, const ElementId*>> ranked;
  ranked.reserve(counts.size());
  for (const auto& [id, entry] : counts) ranked.emplace_back(entry.second, entry.first);
  const std::size_t top = std::min(limit, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top), ranked.end(),
                    [](const auto& a, const auto& b) {
                      return a.first != b.first ? a.first > b.first : id_less(*a.second, *b.second);
                    });
  std::vector<Followed> out;
  for (std::size_t i = 0; i < top; ++i) {
    const std::optional<Vertex> v = g.find_vertex(*ranked[i].second);
    out.push_back({*ranked[i].second, v ? v->properties["name"].as_string() : std::string(), ranked[i].first});
  }
  return out;
}

// f. idempotent like: true when the edge was created
bool like_hand(GraphOperations& g, const std::string& name, const std::string& post_key) {
  const std::optional<Vertex> me = person_by_name(g, name);
  if (!me) return false;
  const std::vector<Vertex> post = g.find_vertices_by_label("Post", {{"key", post_key}});
  if (post.empty()) return false;
  for (const Edge& e : g.incident_edges(me->id, {.direction = Direction::out, .edge_label = "LIKES"})) {
    if (e.to == post.front().id) return false;
  }
  (void)g.create_edge(me->id, post.front().id, "LIKES");
  return true;
}

// -- the endpoints, in Cypher --------------------------------------------------------------------

constexpr std::string_view kProfile = "MATCH (p:Person {name: $name}) RETURN p";

constexpr std::string_view kPeopleYouMayKnow =
    "MATCH (me:Person {name: $name})-[:KNOWS]-(friend:Person)-[:KNOWS]-(fof:Person)\n"
    "WHERE fof <> me AND NOT (me)-[:KNOWS]-(fof)\n"
    "RETURN id(fof) AS id, fof.name AS name, count(DISTINCT friend) AS mutual\n"
    "ORDER BY mutual DESC, id\n"
    "LIMIT 10";

constexpr std::string_view kFeed =
    "MATCH (me:Person {name: $name})-[:FOLLOWS]->(author:Person)-[:POSTED]->(post:Post)\n"
    "RETURN id(post) AS id, post.created AS created, author.name AS author\n"
    "ORDER BY created DESC\n"
    "SKIP $skip LIMIT $limit";

constexpr std::string_view kResidents =
    "MATCH (p:Person {city: $city})\n"
    "WHERE p.age >= $min_age AND p.age <= $max_age\n"
    "RETURN p.name AS name, p.age AS age\n"
    "ORDER BY name\n"
    "SKIP $skip LIMIT $limit";

constexpr std::string_view kMostFollowed =
    "MATCH (follower:Person)-[:FOLLOWS]->(p:Person)\n"
    "RETURN id(p) AS id, p.name AS name, count(follower) AS followers\n"
    "ORDER BY followers DESC, id\n"
    "LIMIT 10";

constexpr std::string_view kLike =
    "MATCH (p:Person {name: $name}), (post:Post {key: $post})\n"
    "MERGE (p)-[:LIKES]->(post)";

constexpr std::size_t kPage = 20;
constexpr std::int64_t kMinAge = 25;
constexpr std::int64_t kMaxAge = 35;

// The hand-written answers as rows, for the comparison with the Cypher ones.
QueryValue id_value(const ElementId& id) { return QueryValue(std::string(id.str())); }

Rows rows_of(const std::optional<Vertex>& v) { return v ? Rows{{QueryValue(*v)}} : Rows{}; }
Rows rows_of(const std::vector<Suggestion>& s) {
  Rows rows;
  for (const auto& x : s) rows.push_back({id_value(x.id), x.name, x.mutual});
  return rows;
}
Rows rows_of(const std::vector<FeedItem>& items) {
  Rows rows;
  for (const auto& x : items) rows.push_back({id_value(x.post), x.created, x.author});
  return rows;
}
Rows rows_of(const std::vector<Resident>& people) {
  Rows rows;
  for (const auto& x : people) rows.push_back({x.name, x.age});
  return rows;
}
Rows rows_of(const std::vector<Followed>& people) {
  Rows rows;
  for (const auto& x : people) rows.push_back({id_value(x.id), x.name, x.followers});
  return rows;
}

std::string show(const Rows& rows) {
  if (rows.empty()) return "    (no rows)\n";
  std::string out;
  for (const auto& row : rows) {
    out += "    |";
    for (const auto& v : row) out += fmt::format(" {} |", v);
    out += '\n';
  }
  return out;
}

// -- one endpoint: its two versions, its inputs and its figures -----------------------------------

struct Endpoint {
  std::string name;
  std::string text;  // the Cypher statement
  std::optional<Query> query;
  double parse_us = 0;
  std::size_t inputs = 0;
  std::size_t rows_checked = 0;
  // Input i by hand / in Cypher; each returns how many rows it answered (like: edges created).
  std::function<std::size_t(std::size_t)> hand;
  std::function<std::size_t(std::size_t)> cypher;
  std::vector<double> hand_us;
  std::vector<double> cypher_us;
  std::size_t hand_rows = 0;  // summed over the timed calls: equal, as both answer the same inputs
  std::size_t cypher_rows = 0;
  Summary hand_summary;
  Summary cypher_summary;
  double seconds = 0;
};

[[noreturn]] void report_mismatch(std::string_view endpoint, std::string_view input, const Rows& hand,
                                  const Rows& cypher) {
  fmt::print(stderr,
             "propgraph-query-bench: the two versions of '{}' disagree for {}; nothing was timed.\n"
             "  by hand ({} rows):\n{}  Cypher ({} rows):\n{}",
             endpoint, input, hand.size(), show(hand), cypher.size(), show(cypher));
  std::exit(1);
}

void check_rows(Endpoint& ep, std::string_view input, const Rows& hand, const QueryResult& cypher) {
  if (hand != cypher.rows) report_mismatch(ep.name, input, hand, cypher.rows);
  ep.rows_checked += hand.size();
}

QueryResult run_query(GraphOperations& g, const Endpoint& ep, const Parameters& p) { return g.query(*ep.query, p); }

void time_endpoint(Endpoint& ep, const Settings& s) {
  // Warm-up, untimed.
  for (std::size_t i = 0; i < std::min<std::size_t>(ep.inputs, 3); ++i) {
    (void)ep.hand(i);
    (void)ep.cypher(i);
  }
  const auto started = Clock::now();
  const double budget_us = s.seconds * 1e6;
  for (std::size_t i = 0;; ++i) {
    const std::size_t input = i % ep.inputs;
    // Alternate which version goes first, so neither always follows the other's cache state.
    for (int k = 0; k < 2; ++k) {
      const bool hand = (k == 0) == (i % 2 == 0);
      const auto start = Clock::now();
      const std::size_t size = hand ? ep.hand(input) : ep.cypher(input);
      (hand ? ep.hand_us : ep.cypher_us).push_back(micros_since(start));
      (hand ? ep.hand_rows : ep.cypher_rows) += size;
    }
    const std::size_t done = i + 1;
    if (done >= s.max_iterations) break;
    if (done >= s.min_iterations && micros_since(started) >= budget_us) break;
  }
  ep.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (ep.hand_rows != ep.cypher_rows) {
    fmt::print(stderr, "propgraph-query-bench: '{}' returned {} rows by hand and {} in Cypher over the same calls\n",
               ep.name, ep.hand_rows, ep.cypher_rows);
    std::exit(1);
  }
  ep.hand_summary = summarize(ep.hand_us);
  ep.cypher_summary = summarize(ep.cypher_us);
}

struct EndpointRun {
  std::uint32_t persons = 0;
  std::uint32_t posts = 0;
  std::int64_t edges = 0;
  Dataset data;
  std::vector<Endpoint> endpoints;
};

Endpoint make_endpoint(std::string name, std::string_view text) {
  Endpoint ep;
  ep.name = std::move(name);
  ep.text = std::string(text);
  // Parsed once, as a service would; the median of a few parses is recorded.
  std::vector<double> us;
  for (int i = 0; i < 21; ++i) {
    const auto start = Clock::now();
    ep.query = Query::parse(text);
    us.push_back(micros_since(start));
  }
  ep.parse_us = summarize(us).median;
  return ep;
}

void run_endpoints(const Settings& s, EndpointRun& out) {
  MemoryGraph g;
  fmt::print("social recommendations on a MemoryGraph (seed {})\n", s.seed);
  std::fflush(stdout);
  out.data = generate(g, s);
  const Dataset& d = out.data;
  out.persons = static_cast<std::uint32_t>(d.persons.size());
  out.posts = static_cast<std::uint32_t>(d.posts.size());
  out.edges = g.count_edges();
  fmt::print(
      "  {} Person, {} Post, {} edges (KNOWS {}, FOLLOWS {}, LIKES {}, POSTED {}); generated in {:.2f} s,\n"
      "  indexes on Person.name, Person.city, Post.key built in {:.2f} s\n",
      out.persons, out.posts, out.edges, d.knows, d.follows, d.likes.size(), d.posted, d.load_seconds, d.index_seconds);
  std::fflush(stdout);

  // Varied inputs, from a generator of their own (the same for every --seconds).
  Random pick{s.seed ^ 0x5eed};
  constexpr std::size_t kInputs = 1000;
  auto some_name = [&] { return d.names[pick.below(out.persons)]; };

  auto& eps = out.endpoints;

  {  // a. profile
    Endpoint ep = make_endpoint("profile", kProfile);
    auto names = std::make_shared<std::vector<std::string>>();
    for (std::size_t i = 0; i < kInputs; ++i) names->push_back(some_name());
    ep.inputs = names->size();
    ep.hand = [&g, names](std::size_t i) { return profile_hand(g, (*names)[i]) ? std::size_t{1} : 0; };
    ep.cypher = [&g, names, q = *ep.query](std::size_t i) { return g.query(q, {{"name", (*names)[i]}}).rows.size(); };
    for (std::size_t i = 0; i < 5; ++i) {
      const std::string& name = i == 4 ? std::string("nobody") : (*names)[i];
      check_rows(ep, fmt::format("name '{}'", name), rows_of(profile_hand(g, name)),
                 run_query(g, ep, {{"name", name}}));
    }
    eps.push_back(std::move(ep));
  }
  {  // b. people-you-may-know
    Endpoint ep = make_endpoint("people-you-may-know", kPeopleYouMayKnow);
    auto names = std::make_shared<std::vector<std::string>>();
    for (std::size_t i = 0; i < kInputs; ++i) names->push_back(some_name());
    ep.inputs = names->size();
    ep.hand = [&g, names](std::size_t i) { return people_you_may_know_hand(g, (*names)[i]).size(); };
    ep.cypher = [&g, names, q = *ep.query](std::size_t i) { return g.query(q, {{"name", (*names)[i]}}).rows.size(); };
    for (std::size_t i = 0; i < 8; ++i) {
      const std::string& name = i == 7 ? d.names[0] : (*names)[i];
      check_rows(ep, fmt::format("name '{}'", name), rows_of(people_you_may_know_hand(g, name)),
                 run_query(g, ep, {{"name", name}}));
    }
    eps.push_back(std::move(ep));
  }
  {  // c. feed
    Endpoint ep = make_endpoint("feed", kFeed);
    struct Input {
      std::string name;
      std::size_t skip;
    };
    auto inputs = std::make_shared<std::vector<Input>>();
    for (std::size_t i = 0; i < kInputs; ++i) inputs->push_back({some_name(), pick.below(3) == 0 ? kPage : 0});
    ep.inputs = inputs->size();
    ep.hand = [&g, inputs](std::size_t i) { return feed_hand(g, (*inputs)[i].name, (*inputs)[i].skip, kPage).size(); };
    ep.cypher = [&g, inputs, q = *ep.query](std::size_t i) {
      const Input& in = (*inputs)[i];
      return g.query(q, {{"name", in.name}, {"skip", in.skip}, {"limit", kPage}}).rows.size();
    };
    for (std::size_t i = 0; i < 6; ++i) {
      for (std::size_t skip : {std::size_t{0}, kPage, 3 * kPage}) {
        const std::string& name = (*inputs)[i].name;
        check_rows(ep, fmt::format("name '{}', skip {}", name, skip), rows_of(feed_hand(g, name, skip, kPage)),
                   run_query(g, ep, {{"name", name}, {"skip", skip}, {"limit", kPage}}));
      }
    }
    eps.push_back(std::move(ep));
  }
  {  // d. people aged 25-35 in a city, by name
    Endpoint ep = make_endpoint("city-age", kResidents);
    struct Input {
      std::string city;
      std::size_t skip;
    };
    auto inputs = std::make_shared<std::vector<Input>>();
    for (std::size_t i = 0; i < kInputs; ++i) inputs->push_back({d.cities[pick.below(50)], kPage * pick.below(4)});
    ep.inputs = inputs->size();
    ep.hand = [&g, inputs](std::size_t i) {
      return residents_hand(g, (*inputs)[i].city, kMinAge, kMaxAge, (*inputs)[i].skip, kPage).size();
    };
    ep.cypher = [&g, inputs, q = *ep.query](std::size_t i) {
      const Input& in = (*inputs)[i];
      return g
          .query(q,
                 {{"city", in.city}, {"min_age", kMinAge}, {"max_age", kMaxAge}, {"skip", in.skip}, {"limit", kPage}})
          .rows.size();
    };
    for (std::size_t i = 0; i < 4; ++i) {
      for (std::size_t skip : {std::size_t{0}, kPage, 100 * kPage}) {
        const std::string& city = (*inputs)[i].city;
        check_rows(
            ep, fmt::format("city '{}', skip {}", city, skip),
            rows_of(residents_hand(g, city, kMinAge, kMaxAge, skip, kPage)),
            run_query(g, ep,
                      {{"city", city}, {"min_age", kMinAge}, {"max_age", kMaxAge}, {"skip", skip}, {"limit", kPage}}));
      }
    }
    eps.push_back(std::move(ep));
  }
  {  // e. top 10 most followed
    Endpoint ep = make_endpoint("most-followed", kMostFollowed);
    ep.inputs = 1;
    ep.hand = [&g](std::size_t) { return most_followed_hand(g, 10).size(); };
    ep.cypher = [&g, q = *ep.query](std::size_t) { return g.query(q).rows.size(); };
    check_rows(ep, "(no input)", rows_of(most_followed_hand(g, 10)), run_query(g, ep, {}));
    eps.push_back(std::move(ep));
  }
  {  // f. idempotent like, on pairs that exist
    Endpoint ep = make_endpoint("like (MERGE)", kLike);
    struct Input {
      std::string name;
      std::string post;
    };
    auto inputs = std::make_shared<std::vector<Input>>();
    for (std::size_t i = 0; i < kInputs; ++i) {
      const auto& [person, post] = d.likes[pick.below(static_cast<std::uint32_t>(d.likes.size()))];
      inputs->push_back({d.names[person], d.post_keys[post]});
    }
    ep.inputs = inputs->size();
    ep.hand = [&g, inputs](std::size_t i) {
      return like_hand(g, (*inputs)[i].name, (*inputs)[i].post) ? std::size_t{1} : 0;
    };
    ep.cypher = [&g, inputs, q = *ep.query](std::size_t i) {
      const auto stats = g.query(q, {{"name", (*inputs)[i].name}, {"post", (*inputs)[i].post}}).stats;
      return static_cast<std::size_t>(stats.edges_created);
    };
    const std::int64_t likes_before = g.count_edges("LIKES");
    auto check = [&](const Input& in, bool hand_first, bool fresh) {
      const std::string input = fmt::format("person '{}', post '{}'{}", in.name, in.post, fresh ? " (new pair)" : "");
      const Parameters p{{"name", in.name}, {"post", in.post}};
      // A new pair is created by whichever version comes first, and only once; an existing one
      // by neither.
      const Rows created{{QueryValue(std::int64_t{1})}};
      const Rows none{{QueryValue(std::int64_t{0})}};
      Rows hand_rows;
      Rows cypher_rows;
      if (hand_first) {
        hand_rows = {{QueryValue(std::int64_t{like_hand(g, in.name, in.post) ? 1 : 0})}};
        cypher_rows = {{QueryValue(run_query(g, ep, p).stats.edges_created)}};
        if (hand_rows != (fresh ? created : none) || cypher_rows != none)
          report_mismatch(ep.name, input, hand_rows, cypher_rows);
      } else {
        cypher_rows = {{QueryValue(run_query(g, ep, p).stats.edges_created)}};
        const Rows again{{QueryValue(run_query(g, ep, p).stats.edges_created)}};
        hand_rows = {{QueryValue(std::int64_t{like_hand(g, in.name, in.post) ? 1 : 0})}};
        if (cypher_rows != (fresh ? created : none) || again != none || hand_rows != none) {
          report_mismatch(ep.name, input + " (Cypher twice, then by hand)", hand_rows, cypher_rows);
        }
      }
      ep.rows_checked += 1;
    };
    for (std::size_t i = 0; i < 4; ++i) check((*inputs)[i], i % 2 == 0, false);
    // Two pairs that do not exist yet: one created by hand, one by MERGE.
    std::set<std::pair<std::uint32_t, std::uint32_t>> liked(d.likes.begin(), d.likes.end());
    int fresh = 0;
    for (std::uint32_t person = 0, post = out.posts - 1; fresh < 2; ++person, --post) {
      if (liked.contains({person, post})) continue;
      check({d.names[person], d.post_keys[post]}, fresh == 0, true);
      ++fresh;
    }
    if (g.count_edges("LIKES") != likes_before + 2) {
      fmt::print(stderr, "propgraph-query-bench: like (MERGE): {} LIKES edges after the check, expected {}\n",
                 g.count_edges("LIKES"), likes_before + 2);
      std::exit(1);
    }
    eps.push_back(std::move(ep));
  }

  std::size_t rows = 0;
  for (const Endpoint& ep : eps) rows += ep.rows_checked;
  fmt::print("  check: by hand and in Cypher agree ({} rows compared over the six endpoints)\n\n", rows);
  fmt::print("timing: each endpoint {:.1f} s (at least {}, at most {} calls of each version), wall-clock µs per call\n",
             s.seconds, s.min_iterations, s.max_iterations);
  std::fflush(stdout);

  for (Endpoint& ep : eps) {
    time_endpoint(ep, s);
    if (ep.name == "like (MERGE)" && g.count_edges("LIKES") != static_cast<std::int64_t>(d.likes.size()) + 2) {
      fmt::print(stderr, "propgraph-query-bench: like (MERGE) created edges for pairs that existed\n");
      std::exit(1);
    }
  }
}

void print_endpoints(const EndpointRun& r) {
  fmt::print("\n{:<20} {:>10} {:>11} {:>12} {:>10} {:>11} {:>7} {:>9} {:>9}\n", "endpoint", "hand µs", "cypher µs",
             "cypher/hand", "hand p99", "cypher p99", "calls", "rows/call", "parse µs");
  for (const Endpoint& ep : r.endpoints) {
    const double ratio = ep.hand_summary.median > 0 ? ep.cypher_summary.median / ep.hand_summary.median : 0;
    const double rows =
        static_cast<double>(ep.hand_rows) / static_cast<double>(std::max<std::size_t>(1, ep.hand_summary.count));
    fmt::print("{:<20} {:>10.1f} {:>11.1f} {:>12.2f} {:>10.1f} {:>11.1f} {:>7} {:>9.1f} {:>9.1f}\n", ep.name,
               ep.hand_summary.median, ep.cypher_summary.median, ratio, ep.hand_summary.p99, ep.cypher_summary.p99,
               ep.hand_summary.count, rows, ep.parse_us);
  }
  fmt::print(
      "(median and p99 of each version's calls; calls: of each version; rows/call: rows answered per call,\n"
      " the same for both; parse µs: Query::parse of the endpoint's statement, done once outside the timing)\n\n");
}

void write_json(bench::Json& json, const ParseFigures& f) {
  json.begin_object("parse").field("ran", f.ran);
  if (!f.ran) {
    json.field("skipped", f.skipped).end_object();
    return;
  }
  json.field("tck_dir", f.dir.string())
      .field("feature_files", static_cast<std::uint64_t>(f.files))
      .field("statements_read", static_cast<std::uint64_t>(f.blocks))
      .field("statements_distinct", static_cast<std::uint64_t>(f.distinct))
      .field("statements_parsed", static_cast<std::uint64_t>(f.parsed))
      .field("statements_rejected",
             static_cast<std::uint64_t>(f.rejected_errors + f.rejected_outside + f.rejected_procedures))
      .field("rejected_errors", static_cast<std::uint64_t>(f.rejected_errors))
      .field("rejected_outside_model", static_cast<std::uint64_t>(f.rejected_outside))
      .field("rejected_procedure_calls", static_cast<std::uint64_t>(f.rejected_procedures))
      .field("repetitions", f.reps)
      .field("slowest_statement", f.slowest)
      .field("seconds", f.seconds);
  write_summary(json, "per_statement", f.per_statement);
  json.end_object();
}

void write_json(bench::Json& json, const EndpointRun& r, const Settings& s) {
  json.begin_object("graph")
      .field("backend", "MemoryGraph")
      .field("persons", static_cast<std::uint64_t>(r.persons))
      .field("posts", static_cast<std::uint64_t>(r.posts))
      .field("edges", r.edges)
      .field("knows", r.data.knows)
      .field("follows", r.data.follows)
      .field("likes", static_cast<std::uint64_t>(r.data.likes.size()))
      .field("posted", r.data.posted)
      .field("cities", static_cast<std::uint64_t>(r.data.cities.size()))
      .field("indexes", "Person.name, Person.city, Post.key")
      .field("load_seconds", r.data.load_seconds)
      .field("index_seconds", r.data.index_seconds)
      .end_object();
  json.begin_object("timing")
      .field("seconds_per_endpoint", s.seconds)
      .field("min_iterations", static_cast<std::uint64_t>(s.min_iterations))
      .field("max_iterations", static_cast<std::uint64_t>(s.max_iterations))
      .end_object();
  json.begin_array("endpoints");
  for (const Endpoint& ep : r.endpoints) {
    json.begin_object()
        .field("name", ep.name)
        .field("cypher", ep.text)
        .field("parse_us", ep.parse_us)
        .field("inputs", static_cast<std::uint64_t>(ep.inputs))
        .field("rows_checked", static_cast<std::uint64_t>(ep.rows_checked))
        .field("seconds", ep.seconds)
        .field("rows_per_call", static_cast<double>(ep.hand_rows) /
                                    static_cast<double>(std::max<std::size_t>(1, ep.hand_summary.count)));
    write_summary(json, "hand", ep.hand_summary);
    write_summary(json, "cypher", ep.cypher_summary);
    json.field("ratio_median", ep.hand_summary.median > 0 ? ep.cypher_summary.median / ep.hand_summary.median : 0.0)
        .field("ratio_p99", ep.hand_summary.p99 > 0 ? ep.cypher_summary.p99 / ep.hand_summary.p99 : 0.0)
        .end_object();
  }
  json.end_array();
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse_settings(argc, argv);
  const bench::RunInfo run(argc, argv);
  const auto started = Clock::now();
  fmt::print("propgraph-query-bench{} (commit {}, {} cores, load {})\n\n", s.quick ? " --quick" : "", run.commit,
             run.cores, run.load_at_start);

  ParseFigures parse;
  if (s.run_parse) {
    parse = run_parse(s);
    print_parse(parse);
  }
  std::fflush(stdout);
  EndpointRun endpoints;
  if (s.run_endpoints) {
    run_endpoints(s, endpoints);
    print_endpoints(endpoints);
  }

  bench::Json json;
  json.begin_object();
  json.field("benchmark", "propgraph-query-bench");
  run.write_start(json);
  json.field("mode", s.quick ? "quick" : "default").field("seed", s.seed);
  if (s.run_parse) write_json(json, parse);
  if (s.run_endpoints) write_json(json, endpoints, s);
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  json.field("seconds", seconds);
  bench::RunInfo::write_end(json);
  json.end_object();

  std::error_code ec;
  fs::create_directories(s.out_dir, ec);
  const fs::path path = s.json.value_or(s.out_dir / "query.json");
  std::ofstream out(path);
  out << json.str() << '\n';
  if (!out) {
    fmt::print(stderr, "propgraph-query-bench: cannot write {}\n", path.string());
    return 1;
  }
  fmt::print("ran in {:.0f} s; load average at end {}\nresults: {}\n", seconds, bench::load_average(), path.string());
  return 0;
}
