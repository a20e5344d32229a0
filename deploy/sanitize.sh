#!/usr/bin/env bash
# The sanitizer and fuzzing checks (docs/reliability.md), run by .ci/run after ./deploy/test.sh:
#   asan  clang build with AddressSanitizer + UndefinedBehaviorSanitizer (and libFuzzer coverage)
#         in build-asan/; runs every unit and integration test there, and replays each fuzz
#         target's seeds and the regressions of every crash ever found (ctest label "fuzz").
#   fuzz  runs each fuzz target of build-asan/ for CANOPY_FUZZ_SECONDS (default 15) on a copy
#         of its seed corpus; a crash leaves its input in build-asan/fuzz-crashes/ and fails.
# There is no ThreadSanitizer step: Debian's Abseil is not built with it, so TSan cannot see
# absl::Mutex, which guards all of Canopy's shared state, and would report every guarded access
# (docs/reliability.md).
# Usage: ./deploy/sanitize.sh [asan|fuzz ...]   (no argument: both, in that order)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${CANOPY_JOBS:-$(nproc)}"
FUZZ_SECONDS="${CANOPY_FUZZ_SECONDS:-15}"
ASAN_DIR="$ROOT/build-asan"

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

configure() {  # DIR SANITIZERS EXTRA...
  local dir="$1" sanitizers="$2"
  shift 2
  if [ ! -f "$dir/build.ninja" ]; then
    # -O0: half the compile time of -O1 under the sanitizers (CI builds from scratch); line
    # tables are enough for readable stacks.
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
      -DCANOPY_SANITIZE="$sanitizers" -DCANOPY_BUILD_BENCHMARKS=OFF -DCANOPY_WERROR=ON "$@"
  fi
}

run_asan() {
  echo "== sanitize: ASan+UBSan build and tests ($ASAN_DIR)"
  configure "$ASAN_DIR" address,undefined -DCANOPY_FUZZ=ON
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

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(asan fuzz)
for step in "${steps[@]}"; do
  case "$step" in
    asan) run_asan ;;
    fuzz) run_fuzz ;;
    *) echo "sanitize: unknown step '$step' (expected asan or fuzz)" >&2; exit 2 ;;
  esac
done
echo "sanitize: all passed (${steps[*]})"
