#!/usr/bin/env bash
# The sanitizer and fuzzing checks (docs/reliability.md), run by .ci/run after ./deploy/test.sh:
#   asan  clang build with AddressSanitizer + UndefinedBehaviorSanitizer (and libFuzzer coverage)
#         in build-asan/; runs every unit and integration test there, and replays each fuzz
#         target's seeds and the regressions of every crash ever found (ctest label "fuzz").
#   fuzz  runs each fuzz target of build-asan/ for CANOPY_FUZZ_SECONDS (default 15) on a copy
#         of its seed corpus; a crash leaves its input in build-asan/fuzz-crashes/ and fails.
#   tsan  clang build with ThreadSanitizer in build-tsan/ of the daemons, the CLI and the
#         concurrency tests (TSAN_TESTS: the controller's owner thread and RPC handlers, the
#         agent runtime's threads, and the integration tests that run real canopyd and agents
#         through restarts, node faults and kill -9). Debian's Abseil is not built with TSan, so
#         TSan could not see absl::Mutex: this step builds Debian's own Abseil source package
#         (same version, same patches, same ABI) with TSan and puts it first on the library
#         path. gRPC stays uninstrumented; tests/sanitizers/tsan_reports.py fails on every
#         report in Canopy's code and counts those inside gRPC's own calls (docs/reliability.md).
# Usage: ./deploy/sanitize.sh [asan|fuzz|tsan ...]   (no argument: all three, in that order)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${CANOPY_JOBS:-$(nproc)}"
FUZZ_SECONDS="${CANOPY_FUZZ_SECONDS:-15}"
ASAN_DIR="$ROOT/build-asan"
TSAN_DIR="$ROOT/build-tsan"

CANOPY_WITH_SANITIZERS=1 "$ROOT/deploy/install-deps.sh"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# gRPC and Abseil keep process-wide singletons alive until exit on purpose; leak reports come
# from the suppressions file, not from turning detection off.
export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0"
# llvm-14 installs the symbolizer under its versioned name only.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer-14 >/dev/null; then
  export ASAN_SYMBOLIZER_PATH="$(command -v llvm-symbolizer-14)"
fi

configure() {  # DIR SANITIZERS OPT EXTRA...
  local dir="$1" sanitizers="$2" opt="$3"
  shift 3
  if [ ! -f "$dir/build.ninja" ]; then
    # Line tables are enough for readable stacks.
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt -gline-tables-only" \
      -DCANOPY_SANITIZE="$sanitizers" -DCANOPY_BUILD_BENCHMARKS=OFF -DCANOPY_WERROR=ON "$@"
  fi
}

run_asan() {
  echo "== sanitize: ASan+UBSan build and tests ($ASAN_DIR)"
  # -O0: half the compile time of -O1 under ASan (CI builds from scratch).
  configure "$ASAN_DIR" address,undefined -O0 -DCANOPY_FUZZ=ON
  cmake --build "$ASAN_DIR" -j "$JOBS"
  # The scenario tests replay whole simulated weeks (minutes under ASan); their code runs in the
  # unit tests here, and they run in ./deploy/test.sh.
  (cd "$ASAN_DIR" && ctest --output-on-failure -j "$JOBS" -LE "bench|scenario" --timeout 600)
}

run_fuzz() {
  echo "== sanitize: each fuzz target for ${FUZZ_SECONDS}s"
  local crashes="$ASAN_DIR/fuzz-crashes" failed=0
  rm -rf "$crashes" && mkdir -p "$crashes"
  for seeds in "$ROOT"/tests/fuzz/corpus/*/; do
    local name
    name="$(basename "$seeds")"
    local work="$ASAN_DIR/fuzz-corpus/$name"
    mkdir -p "$work"
    local log="$crashes/${name}.log"
    echo "-- ${name}_fuzz"
    # The first directory collects new inputs; the seeds and past crashes are read only. Slow
    # or large inputs are findings too, but the limits leave room for the -O0 build.
    if "$ASAN_DIR/tests/fuzz/${name}_fuzz" -max_total_time="$FUZZ_SECONDS" -timeout=60 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$crashes/${name}-" \
        "$work" "$seeds" "$ROOT/tests/fuzz/regressions/$name" >"$log" 2>&1; then
      grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units" "$log" | tail -n 2 || true
      rm -f "$log"
    else
      cat "$log"  # the whole report: the sanitizer's stack comes before libFuzzer's footer
      failed=1
    fi
  done
  # crash-, leak-, timeout- and oom- inputs fail the run; slow-unit- ones are only reported.
  if [ "$failed" -ne 0 ] || ls "$crashes" | grep -qE '^[a-z_]+-(crash|leak|timeout|oom)-'; then
    echo "sanitize: a fuzz target failed; inputs in $crashes (add each to" \
      "tests/fuzz/regressions/<target>/ with the fix)" >&2
    ls -l "$crashes" >&2
    return 1
  fi
}

# The concurrency tests the TSan step builds and runs (test executables).
TSAN_TESTS=(canopy_server_test canopy_agent_runtime_test canopy_agent_server_test
  canopy_integration_test canopy_jobs_integration_test canopy_node_faults_integration_test
  canopy_crash_loop_integration_test)

# Debian's Abseil source package, of the installed version, built with TSan into
# build-tsan/abseil/lib: the same sonames, so the loader takes it for Debian's own.
build_tsan_abseil() {
  local version prefix="$TSAN_DIR/abseil"
  version="$(dpkg-query -W -f='${Version}' libabsl-dev)"
  if [ -f "$prefix/built-$version" ]; then
    return
  fi
  echo "-- Abseil $version from Debian's source, with TSan ($prefix)"
  rm -rf "$prefix" && mkdir -p "$prefix/src"
  if ! (cd "$prefix/src" && apt-get source -qq --download-only "abseil=$version" >/dev/null &&
        dpkg-source -x ./*.dsc tree >/dev/null); then
    echo "sanitize: could not fetch Debian's source of abseil $version (install-deps.sh" \
      "adds deb-src entries; is the archive reachable?)" >&2
    return 1
  fi
  cmake -S "$prefix/src/tree" -B "$prefix/build" -G Ninja -DCMAKE_CXX_STANDARD=17 \
    -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
  cmake --build "$prefix/build" -j "$JOBS" >/dev/null
  cmake --install "$prefix/build" >/dev/null
  touch "$prefix/built-$version"
}

run_tsan() {
  echo "== sanitize: TSan build and concurrency tests ($TSAN_DIR)"
  build_tsan_abseil
  configure "$TSAN_DIR" thread -O1
  cmake --build "$TSAN_DIR" -j "$JOBS" --target canopyd canopy-agent canopyctl "${TSAN_TESTS[@]}"
  local lib="$TSAN_DIR/abseil/lib"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # ldd's whole output first: `ldd | grep -q` under pipefail fails when grep quits early and
  # ldd, with more to write, dies of SIGPIPE.
  local libs
  libs="$(ldd "$TSAN_DIR/scheduler/server/canopyd")"
  if ! grep -q "$lib/libabsl_synchronization" <<<"$libs"; then
    echo "sanitize: canopyd does not load the TSan Abseil from $lib" >&2
    return 1
  fi
  local logs="$TSAN_DIR/tsan-logs" regex
  rm -rf "$logs" && mkdir -p "$logs"
  # Every process (tests, canopyd, agents, the CLI) writes its reports under $logs; the
  # classifier, not the exit status, decides.
  export TSAN_OPTIONS="log_path=$logs/tsan exitcode=0 second_deadlock_stack=1"
  TSAN_OPTIONS+=" suppressions=$ROOT/tests/sanitizers/tsan.supp"
  regex="$(cd "$TSAN_DIR" && ctest -N --show-only=json-v1 | python3 -c '
import json, os, re, sys
wanted = set(sys.argv[1:])
names = [t["name"] for t in json.load(sys.stdin)["tests"]
         if os.path.basename((t.get("command") or [""])[0]) in wanted]
print("^(" + "|".join(re.escape(n) for n in names) + ")$")' "${TSAN_TESTS[@]}")"
  local tests=0
  (cd "$TSAN_DIR" && ctest --output-on-failure -j "$JOBS" -R "$regex" --timeout 600) || tests=$?
  python3 "$ROOT/tests/sanitizers/tsan_reports.py" "$ROOT" "$logs"
  return "$tests"
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(asan fuzz tsan)
for step in "${steps[@]}"; do
  case "$step" in
    asan) run_asan ;;
    fuzz) run_fuzz ;;
    tsan) run_tsan ;;
    *) echo "sanitize: unknown step '$step' (expected asan, fuzz or tsan)" >&2; exit 2 ;;
  esac
done
echo "sanitize: all passed (${steps[*]})"
