# shellcheck shell=bash
# The libFuzzer harnesses of tests/fuzz, shared by scripts/fuzz and scripts/test. Source it after
# common.sh; it defines functions and variables only.

# Fuzzer executables (build/fuzz/tests/fuzz/<name>); each has a seed corpus
# tests/fuzz/corpus/<corpus> (the name less _fuzzer, _import, _parser) and, for the importers, a
# dictionary tests/fuzz/dict/<corpus>.dict.
PROPGRAPH_FUZZERS=(csv_import_fuzzer ndjson_import_fuzzer graphml_import_fuzzer memory_graph_fuzzer cypher_parser_fuzzer graph_service_fuzzer)

# pg_fuzz_available: true when the fuzz preset's compiler is installed.
pg_fuzz_available() { command -v clang++-16 >/dev/null 2>&1; }

# pg_run_fuzzer NAME SECONDS: runs one fuzzer for SECONDS on a working corpus in
# build/fuzz/corpus/NAME (seeded from the tree; the tree's corpus is never written), saving a
# crashing input as build/fuzz/artifacts/NAME-crash-*. Prints the executions it ran; returns
# non-zero when the fuzzer found a crash, a leak, a timeout or a broken invariant.
pg_run_fuzzer() {
  local name=$1 seconds=$2 corpus dict=() log rc=0 execs
  corpus=${name%_fuzzer}
  corpus=${corpus%_import}
  corpus=${corpus%_parser}
  local work=$PROPGRAPH_ROOT/build/fuzz/corpus/$name
  local artifacts=$PROPGRAPH_ROOT/build/fuzz/artifacts
  log=$PROPGRAPH_ROOT/build/fuzz/logs/$name.log
  mkdir -p "$work" "$artifacts" "${log%/*}"
  [[ -f $PROPGRAPH_ROOT/tests/fuzz/dict/$corpus.dict ]] && dict=(-dict="$PROPGRAPH_ROOT/tests/fuzz/dict/$corpus.dict")
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$PROPGRAPH_ROOT/build/fuzz/tests/fuzz/$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
    -max_len=16384 -print_final_stats=1 "${dict[@]}" -artifact_prefix="$artifacts/$name-" \
    "$work" "$PROPGRAPH_ROOT/tests/fuzz/corpus/$corpus" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  pg_log "$name: ${execs:-?} executions in ${seconds}s, working corpus $(find "$work" -type f | wc -l) inputs (log: ${log#"$PROPGRAPH_ROOT"/})"
  if ((rc != 0)); then
    grep -E 'ERROR|invariant violated|differs from the model|SUMMARY|Test unit written' "$log" | head -n 20 >&2 || true
  fi
  return "$rc"
}
