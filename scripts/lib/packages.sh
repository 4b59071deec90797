# shellcheck shell=bash
# The Debian 12 packages propgraph needs: the one list that scripts/test and scripts/bench read.
#
# One package per line, "<group> <package>":
#   all    needed by every script (toolchain, libraries the build links)
#   test   needed only by scripts/test (for example a database server the tests start)
#   bench  needed only by scripts/bench (plotting, the peers propgraph-scale compares with)
# A new module adds its packages by adding one line each, e.g. "all libfoo-dev  # propgraph::foo".
PROPGRAPH_DEBIAN_PACKAGES=(
  "all build-essential"
  "all cmake"
  "all ninja-build"
  "all pkg-config"
  "all libboost-graph-dev"
  "all libboost-fiber-dev"
  "all libfmt-dev"
  "all googletest"
  "all libgtest-dev"
  "all libbenchmark-dev"
  "all libsimdjson-dev"   # propgraph::io (NDJSON)
  "all libpugixml-dev"    # propgraph::io (GraphML)
  "all libpq-dev"         # propgraph::postgres
  "all libxxhash-dev"     # durable MemoryGraph: log and snapshot checksums (header only)
  "all nlohmann-json3-dev"  # propgraph::json
  "all tao-pegtl-dev"     # the openCypher parser (header only, compiled into propgraph::propgraph)
  "all ccache"            # compiler cache (scripts/lib/common.sh): a rebuild compiles only what changed
  "all python3"           # scripts/lib/bench_docs.py: the docs' generated tables (ctest, scripts/bench)
  "test postgresql"       # tests/postgres starts a throw-away server (initdb + pg_ctl)
  "test clang-16"         # the fuzz preset (tests/fuzz, libFuzzer): scripts/test and scripts/fuzz
  "test libclang-rt-16-dev"  # libFuzzer and the sanitizer runtimes of clang-16
  "bench gnuplot-nox"
  "bench libigraph-dev"     # propgraph-scale's igraph column (optional: n/a without it)
  "bench libgraphblas-dev"  # propgraph-scale's GraphBLAS column (optional: n/a without it)
  "bench python3-networkx"  # bench/scale/networkx_paths.py: NetworkX's bidirectional shortest path beside propgraph's
  "test curl"             # the graph-service end-to-end test drives it over HTTP
  "bench wrk"             # scripts/bench --service: HTTP load on the graph-service example
  "bench curl"            # scripts/bench --service: reads person ids from the service
  "bench valgrind"        # scripts/bench --service --callgrind: instructions per request
)

# propgraph_packages_for GROUP: prints the packages of "all" plus GROUP, one per line.
propgraph_packages_for() {
  local entry group package
  for entry in "${PROPGRAPH_DEBIAN_PACKAGES[@]}"; do
    read -r group package <<<"$entry"
    if [[ $group == all || $group == "$1" ]]; then
      printf '%s\n' "$package"
    fi
  done
}
