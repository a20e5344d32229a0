#!/usr/bin/env bash
# Builds Canopy and runs the whole test suite with ctest (benchmarks excluded: label "bench").
# Usage: ./deploy/test.sh [extra ctest args, e.g. -L unit or -R Hostlist]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CANOPY_BUILD_DIR:-$ROOT/build}"
JOBS="${CANOPY_JOBS:-$(nproc)}"

"$ROOT/deploy/build.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$JOBS" -LE bench --timeout 300 "$@"
