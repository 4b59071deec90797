# shellcheck shell=bash
# Shared code for scripts/test and scripts/bench: logging, step bookkeeping, package set-up and
# CMake preset builds. Source it; it defines functions and variables only.

PROPGRAPH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Parallel jobs for builds and ctest; override with PROPGRAPH_JOBS=N.
PROPGRAPH_JOBS=${PROPGRAPH_JOBS:-$(nproc 2>/dev/null || echo 2)}

# shellcheck source=scripts/lib/packages.sh
source "$PROPGRAPH_ROOT/scripts/lib/packages.sh"

pg_log() { printf '==> %s\n' "$*"; }
pg_err() { printf 'error: %s\n' "$*" >&2; }

# "3m07s" from a number of seconds.
pg_duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# -- steps: run a command, time it, remember the outcome for the summary ---------------------
PG_STEP_NAMES=()
PG_STEP_RESULTS=()
PG_STEP_SECONDS=()
PG_FAILED_STEPS=()
PG_FAILED_TESTS=() # "PRESET TEST NAME", filled by pg_ctest

# pg_step NAME COMMAND...: runs COMMAND; returns its exit status.
pg_step() {
  local name=$1 start rc=0
  shift
  pg_log "$name: $*"
  start=$SECONDS
  "$@" || rc=$?
  PG_STEP_NAMES+=("$name")
  PG_STEP_SECONDS+=($((SECONDS - start)))
  if ((rc == 0)); then
    PG_STEP_RESULTS+=(ok)
  else
    PG_STEP_RESULTS+=("FAILED (exit $rc)")
    PG_FAILED_STEPS+=("$name")
    pg_err "$name failed with exit status $rc"
  fi
  return "$rc"
}

# pg_skip NAME REASON: records a step that did not run.
pg_skip() {
  PG_STEP_NAMES+=("$1")
  PG_STEP_SECONDS+=(0)
  PG_STEP_RESULTS+=("skipped: $2")
  PG_FAILED_STEPS+=("$1")
}

# pg_summary SCRIPT_NAME: prints the last output of each failed test, the step table and one
# closing line (the failed tests named last, where a truncated log still shows them); returns 1
# on any failure.
pg_summary() {
  local i entry failed
  for entry in "${PG_FAILED_TESTS[@]}"; do
    printf '\nfailed test (%s): %s, its last output:\n' "${entry%% *}" "${entry#* }"
    pg_failed_test_output "${entry%% *}" "${entry#* }"
  done
  printf '\n%s summary\n' "$1"
  for i in "${!PG_STEP_NAMES[@]}"; do
    printf '  %-26s %8s  %s\n' "${PG_STEP_NAMES[$i]}" "$(pg_duration "${PG_STEP_SECONDS[$i]}")" \
      "${PG_STEP_RESULTS[$i]}"
  done
  for entry in "${PG_FAILED_TESTS[@]}"; do
    printf '  failed test (%s): %s\n' "${entry%% *}" "${entry#* }"
  done
  if ((${#PG_FAILED_STEPS[@]} == 0)); then
    printf '%s: OK, all %d steps succeeded in %s\n' "$1" "${#PG_STEP_NAMES[@]}" "$(pg_duration "$SECONDS")"
    return 0
  fi
  failed=$(printf '%s, ' "${PG_FAILED_STEPS[@]}")
  printf '%s: FAILED (%s) after %s\n' "$1" "${failed%, }" "$(pg_duration "$SECONDS")"
  return 1
}

# -- Debian packages -------------------------------------------------------------------------
# pg_ensure_packages GROUP: installs the missing packages of GROUP (see packages.sh) when run as
# root; otherwise prints the command to run and exits 1.
pg_ensure_packages() {
  local group=$1 package status missing=() wanted
  mapfile -t wanted < <(propgraph_packages_for "$group")
  if ! command -v dpkg-query >/dev/null 2>&1; then
    pg_log "packages: no dpkg-query (not Debian); make sure these are installed: ${wanted[*]}"
    return 0
  fi
  for package in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    [[ $status == installed ]] || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then
    pg_log "packages: all ${#wanted[@]} Debian packages present"
    return 0
  fi
  pg_log "packages: missing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    pg_err "missing Debian packages; install them with:"
    printf '  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends %s\n' \
      "${missing[*]}" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# -- CMake presets (CMakePresets.json: debug, release, asan; build dirs build/<preset>) -------
# With ccache installed (and PROPGRAPH_CCACHE not 0) compiles go through it, keyed on paths
# relative to the tree, so a fresh clone or a rebuilt preset compiles only what changed.
pg_configure() {
  local launcher=()
  if [[ ${PROPGRAPH_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PROPGRAPH_ROOT} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake --preset "$1" "${launcher[@]}"
}
# pg_build PRESET [BUILD ARGS...], e.g. pg_build release --target propgraph-io-bench
pg_build() {
  local preset=$1
  shift
  cmake --build --preset "$preset" --parallel "$PROPGRAPH_JOBS" "$@"
}
# pg_ctest PRESET [CTEST ARGS...]: on failure, remembers the failed tests for pg_summary.
pg_ctest() {
  local preset=$1 rc=0 failed_log line
  shift
  ctest --preset "$preset" --parallel "$PROPGRAPH_JOBS" "$@" || rc=$?
  failed_log="$PROPGRAPH_ROOT/build/$preset/Testing/Temporary/LastTestsFailed.log"
  if ((rc != 0)) && [[ -f $failed_log ]]; then
    while IFS= read -r line; do # "NUMBER:NAME"
      [[ -n $line ]] && PG_FAILED_TESTS+=("$preset ${line#*:}")
    done <"$failed_log"
  fi
  return "$rc"
}

# pg_failed_test_output PRESET NAME: the last lines a failed test printed (from ctest's log).
pg_failed_test_output() {
  local log="$PROPGRAPH_ROOT/build/$1/Testing/Temporary/LastTest.log"
  [[ -f $log ]] || return 0
  awk -v name="$2" '
    index($0, " Testing: " name) && substr($0, index($0, " Testing: ") + 10) == name { on = 1; n = 0; next }
    on && /^"?[^ ]* ?Testing: / { on = 0 }
    on && /^<end of output>/ { on = 0 }
    on { lines[n++ % 25] = $0 }
    END { start = n > 25 ? n - 25 : 0; for (i = start; i < n; i++) print "    " lines[i % 25] }
  ' "$log"
}
