#!/usr/bin/env bash
# Configures and builds Canopy into build/ (or $CANOPY_BUILD_DIR) with ccache and -j of the
# core count. Used by quickstart.sh and test.sh; safe to run again (incremental).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CANOPY_BUILD_DIR:-$ROOT/build}"
JOBS="${CANOPY_JOBS:-$(nproc)}"

"$ROOT/deploy/install-deps.sh"

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CANOPY_CMAKE_ARGS:-}
fi
cmake --build "$BUILD_DIR" -j "$JOBS"
