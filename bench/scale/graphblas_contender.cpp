// SuiteSparse:GraphBLAS 7 as a contender, on one thread, with LAGraph's algorithms written out
// on GrB calls (LAGraph itself is not packaged for Debian). GraphBLAS.h's type-generic macros
// (GrB_assign, GrB_free, ...) are C11-only, so C++ calls the typed names.
//
// The graph is what LAGraph caches for these algorithms: A (FP64, the number of parallel edges
// u->v as the value of A(u,v)), its transpose AT and the out-degree vector; load() builds all
// three and library_bytes() is GraphBLAS's own accounting of them.
// GraphBLAS.h 7.4 declares its functions without extern "C".
extern "C" {
#include <GraphBLAS.h>
}

#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "contender.hpp"

namespace propgraph::scale {

namespace {

void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    throw std::runtime_error(fmt::format("GraphBLAS: {} failed ({})", what, static_cast<int>(info)));
}

/// GrB_init once per process, on one thread.
void init_once() {
  static const bool done = [] {
    check(GrB_init(GrB_NONBLOCKING), "GrB_init");
    check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, 1), "GxB_Global_Option_set(GxB_NTHREADS)");
    return true;
  }();
  (void)done;
}

// GrB_free is a C11 generic macro: C++ calls the typed functions.
inline void free_handle(GrB_Vector* v) { GrB_Vector_free(v); }
inline void free_handle(GrB_Matrix* m) { GrB_Matrix_free(m); }

/// A GrB_Vector or GrB_Matrix handle that frees itself.
template <typename Handle>
struct Owned {
  Handle h = nullptr;
  Owned() = default;
  ~Owned() { reset(); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  void reset() {
    if (h != nullptr) free_handle(&h);
  }
};

using Vector = Owned<GrB_Vector>;
using Matrix = Owned<GrB_Matrix>;

void new_vector(Vector& v, GrB_Type type, GrB_Index n) {
  v.reset();
  check(GrB_Vector_new(&v.h, type, n), "GrB_Vector_new");
}

GrB_Index nvals(GrB_Vector v) {
  GrB_Index count = 0;
  check(GrB_Vector_nvals(&count, v), "GrB_Vector_nvals");
  return count;
}

class GraphBlas final : public Contender {
 public:
  GraphBlas() { init_once(); }
  [[nodiscard]] std::string_view name() const override { return "GraphBLAS"; }
  [[nodiscard]] std::string version() const override {
    return fmt::format("{}.{}.{}", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB);
  }
  [[nodiscard]] bool runs(Operation op) const override { return op == Operation::bfs || op == Operation::page_rank; }
  [[nodiscard]] std::string note(Operation op) const override {
    if (op == Operation::bfs)
      return "LAGraph's push/pull BFS (LG_BreadthFirstSearch_SSGrB): masked vxm on A, mxv on AT";
    if (op == Operation::page_rank)
      return "LAGraph's LAGr_PageRank (sinks spread evenly) in FP64, parallel edges counted";
    return {};
  }

  void load(const generate::EdgeList& list) override {
    clear();
    n_ = list.vertex_count;
    const std::size_t m = list.edges.size();
    std::vector<GrB_Index> rows(m);
    std::vector<GrB_Index> cols(m);
    for (std::size_t i = 0; i < m; ++i) {
      rows[i] = list.edges[i].first;
      cols[i] = list.edges[i].second;
    }
    const std::vector<double> ones(m, 1.0);
    check(GrB_Matrix_new(&a_.h, GrB_FP64, n_, n_), "GrB_Matrix_new");
    // Parallel edges add up: A(u,v) is their number.
    check(GrB_Matrix_build_FP64(a_.h, rows.data(), cols.data(), ones.data(), m, GrB_PLUS_FP64), "GrB_Matrix_build");
    check(GrB_Matrix_wait(a_.h, GrB_MATERIALIZE), "GrB_Matrix_wait");
    check(GrB_Matrix_new(&at_.h, GrB_FP64, n_, n_), "GrB_Matrix_new");
    check(GrB_transpose(at_.h, nullptr, nullptr, a_.h, nullptr), "GrB_transpose");
    check(GrB_Matrix_wait(at_.h, GrB_MATERIALIZE), "GrB_Matrix_wait");
    // Out-degree, parallel edges counted; no entry for a vertex without out-edges.
    new_vector(out_degree_, GrB_FP64, n_);
    check(GrB_Matrix_reduce_Monoid(out_degree_.h, nullptr, nullptr, GrB_PLUS_MONOID_FP64, a_.h, nullptr),
          "GrB_Matrix_reduce");
    check(GrB_Vector_wait(out_degree_.h, GrB_MATERIALIZE), "GrB_Vector_wait");
  }

  void clear() override {
    a_.reset();
    at_.reset();
    out_degree_.reset();
    parent_.reset();
    level_.reset();
    rank_.reset();
  }

  [[nodiscard]] std::optional<double> library_bytes() const override {
    if (a_.h == nullptr) return std::nullopt;
    std::size_t a = 0;
    std::size_t at = 0;
    std::size_t d = 0;
    check(GxB_Matrix_memoryUsage(&a, a_.h), "GxB_Matrix_memoryUsage");
    check(GxB_Matrix_memoryUsage(&at, at_.h), "GxB_Matrix_memoryUsage");
    check(GxB_Vector_memoryUsage(&d, out_degree_.h), "GxB_Vector_memoryUsage");
    return static_cast<double>(a + at + d);
  }

  void run(Operation op, const PathQuery& query) override {
    if (op == Operation::bfs) bfs(query.source);
    if (op == Operation::page_rank) page_rank();
  }

  [[nodiscard]] std::string result(Operation op) const override {
    if (op == Operation::bfs) return result_bfs(nvals(parent_.h), depth_);
    if (op == Operation::page_rank) {
      std::vector<double> scores(n_, 0.0);
      std::vector<GrB_Index> index(n_);
      std::vector<double> value(n_);
      GrB_Index count = n_;
      check(GrB_Vector_extractTuples_FP64(index.data(), value.data(), &count, rank_.h), "GrB_Vector_extractTuples");
      for (GrB_Index i = 0; i < count; ++i) scores[index[i]] = value[i];
      return result_page_rank(top_five(scores.data(), scores.size()));
    }
    return "n/a";
  }

 private:
  /// LG_BreadthFirstSearch_SSGrB with parents and levels: the frontier q expands by a masked
  /// vxm with A (push) or, once the frontier's edges outweigh the unexplored ones, by a masked
  /// mxv with AT (pull: Beamer's bottom-up step); ANY_SECONDI gives each new vertex a parent.
  /// Same switch thresholds as LAGraph (alpha 8, beta1 8, beta2 512).
  void bfs(std::uint32_t source) {
    const GrB_Index n = n_;
    const auto src = static_cast<GrB_Index>(source);
    Vector q;
    Vector w;
    new_vector(q, GrB_INT64, n);
    new_vector(w, GrB_FP64, n);
    new_vector(parent_, GrB_INT64, n);
    new_vector(level_, GrB_INT32, n);
    check(GxB_Vector_Option_set(parent_.h, GxB_SPARSITY_CONTROL, GxB_BITMAP + GxB_FULL), "GxB_Vector_Option_set");
    check(GxB_Vector_Option_set(level_.h, GxB_SPARSITY_CONTROL, GxB_BITMAP + GxB_FULL), "GxB_Vector_Option_set");
    check(GrB_Vector_setElement_INT64(q.h, static_cast<std::int64_t>(src), src), "GrB_Vector_setElement");
    check(GrB_Vector_setElement_INT64(parent_.h, static_cast<std::int64_t>(src), src), "GrB_Vector_setElement");
    check(GrB_Vector_setElement_INT32(level_.h, 0, src), "GrB_Vector_setElement");
    GrB_Index edges = 0;
    check(GrB_Matrix_nvals(&edges, a_.h), "GrB_Matrix_nvals");
    constexpr double alpha = 8.0;
    constexpr double beta1 = 8.0;
    constexpr double beta2 = 512.0;
    const auto n_over_beta1 = static_cast<GrB_Index>(static_cast<double>(n) / beta1);
    const auto n_over_beta2 = static_cast<GrB_Index>(static_cast<double>(n) / beta2);
    double edges_unexplored = static_cast<double>(edges);
    bool do_push = true;
    bool any_pull = false;
    bool can_do_pull = true;
    GrB_Index nq = 1;
    GrB_Index last_nq = 0;
    depth_ = 0;
    for (GrB_Index visited = 1, k = 1; visited < n; visited += nq, ++k) {
      if (do_push && can_do_pull) {
        const bool growing = nq > last_nq;
        bool switch_to_pull = false;
        if (edges_unexplored < static_cast<double>(n)) {
          can_do_pull = false;  // little of the graph is left
        } else if (any_pull) {
          switch_to_pull = growing && nq > n_over_beta1;
        } else {
          // w<q> = out_degree: the edges leaving the frontier
          check(GrB_Vector_assign(w.h, q.h, nullptr, out_degree_.h, GrB_ALL, n, GrB_DESC_RS), "GrB_Vector_assign");
          double frontier_edges = 0;
          check(GrB_Vector_reduce_FP64(&frontier_edges, nullptr, GrB_PLUS_MONOID_FP64, w.h, nullptr),
                "GrB_Vector_reduce");
          edges_unexplored -= frontier_edges;
          switch_to_pull = growing && frontier_edges > edges_unexplored / alpha;
        }
        if (switch_to_pull) {
          do_push = false;
          any_pull = true;
        }
      } else if (!do_push) {
        if (nq < last_nq && nq <= n_over_beta2) do_push = true;  // shrinking and small again
      }
      last_nq = nq;
      check(GxB_Vector_Option_set(q.h, GxB_SPARSITY_CONTROL, do_push ? GxB_SPARSE : GxB_BITMAP),
            "GxB_Vector_Option_set");
      if (do_push) {
        // q'<!parent> = q'*A
        check(GrB_vxm(q.h, parent_.h, nullptr, GxB_ANY_SECONDI_INT64, q.h, a_.h, GrB_DESC_RSC), "GrB_vxm");
      } else {
        // q<!parent> = AT*q
        check(GrB_mxv(q.h, parent_.h, nullptr, GxB_ANY_SECONDI_INT64, at_.h, q.h, GrB_DESC_RSC), "GrB_mxv");
      }
      nq = nvals(q.h);
      if (nq == 0) break;
      check(GrB_Vector_assign(parent_.h, q.h, nullptr, q.h, GrB_ALL, n, GrB_DESC_S), "GrB_Vector_assign");
      check(GrB_Vector_assign_INT32(level_.h, q.h, nullptr, static_cast<std::int32_t>(k), GrB_ALL, n, GrB_DESC_S),
            "GrB_Vector_assign");
      depth_ = k;
    }
  }

  /// LAGr_PageRank: r = 1/n; each iteration spreads the rank of sinks (no out-edges) evenly,
  /// w = r ./ (out_degree / damping), r = teleport + AT*w, and sums |r - r_old| (computed, as
  /// propgraph does, but no early stop: 20 iterations). FP64 where LAGraph uses FP32, and
  /// PLUS_TIMES over the edge counts where LAGraph's PLUS_SECOND counts parallel edges once.
  void page_rank() {
    const GrB_Index n = n_;
    const double damping = kPageRankDamping;
    const double scaled_teleport = (1.0 - damping) / static_cast<double>(n);
    Vector t;
    Vector w;
    Vector d;
    Vector sink;
    Vector rsink;
    new_vector(rank_, GrB_FP64, n);
    new_vector(t, GrB_FP64, n);
    new_vector(w, GrB_FP64, n);
    check(GrB_Vector_assign_FP64(rank_.h, nullptr, nullptr, 1.0 / static_cast<double>(n), GrB_ALL, n, nullptr),
          "GrB_Vector_assign");
    const GrB_Index sinks = n - nvals(out_degree_.h);
    if (sinks > 0) {
      // sink<!struct(out_degree)> = true
      new_vector(sink, GrB_BOOL, n);
      new_vector(rsink, GrB_FP64, n);
      check(GrB_Vector_assign_BOOL(sink.h, out_degree_.h, nullptr, true, GrB_ALL, n, GrB_DESC_SC), "GrB_Vector_assign");
    }
    // d = out_degree / damping, so that w = r ./ d is damping * r / out_degree
    new_vector(d, GrB_FP64, n);
    check(GrB_Vector_apply_BinaryOp2nd_FP64(d.h, nullptr, nullptr, GrB_DIV_FP64, out_degree_.h, damping, nullptr),
          "GrB_apply");
    for (int iteration = 0; iteration < kPageRankIterations; ++iteration) {
      double teleport = scaled_teleport;
      if (sinks > 0) {
        // rsink<sink> = r; teleport += damping * sum(rsink) / n
        check(GrB_Vector_assign(rsink.h, sink.h, nullptr, rank_.h, GrB_ALL, n, GrB_DESC_RS), "GrB_Vector_assign");
        double sink_rank = 0;
        check(GrB_Vector_reduce_FP64(&sink_rank, nullptr, GrB_PLUS_MONOID_FP64, rsink.h, nullptr), "GrB_Vector_reduce");
        teleport += damping * sink_rank / static_cast<double>(n);
      }
      std::swap(t.h, rank_.h);  // t: the old rank
      check(GrB_Vector_eWiseMult_BinaryOp(w.h, nullptr, nullptr, GrB_DIV_FP64, t.h, d.h, nullptr), "GrB_eWiseMult");
      check(GrB_Vector_assign_FP64(rank_.h, nullptr, nullptr, teleport, GrB_ALL, n, nullptr), "GrB_Vector_assign");
      check(GrB_mxv(rank_.h, nullptr, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, at_.h, w.h, nullptr), "GrB_mxv");
      // t = |t - r|, change = sum(t)
      check(GrB_Vector_assign(t.h, nullptr, GrB_MINUS_FP64, rank_.h, GrB_ALL, n, nullptr), "GrB_Vector_assign");
      check(GrB_Vector_apply(t.h, nullptr, nullptr, GrB_ABS_FP64, t.h, nullptr), "GrB_apply");
      check(GrB_Vector_reduce_FP64(&change_, nullptr, GrB_PLUS_MONOID_FP64, t.h, nullptr), "GrB_Vector_reduce");
    }
  }

  GrB_Index n_ = 0;
  Matrix a_;
  Matrix at_;
  Vector out_degree_;
  Vector parent_;
  Vector level_;
  GrB_Index depth_ = 0;
  Vector rank_;
  double change_ = 0;
};

}  // namespace

std::unique_ptr<Contender> make_graphblas() { return std::make_unique<GraphBlas>(); }

}  // namespace propgraph::scale
