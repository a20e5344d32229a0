#!/usr/bin/env bash
# Packs what tests/device/gpu_node_check.sh needs on a GPU machine without Canopy's build
# dependencies: canopyd, canopy-agent, canopyctl and canopy-gpu-probe (stripped) and the shared
# libraries they load beyond glibc and libstdc++ (gRPC, protobuf, Abseil, ...), into BUNDLE.
# Usage: tests/device/make_bundle.sh BUILD_DIR BUNDLE   (BUNDLE: a directory git ignores)
set -euo pipefail
BUILD="$1" BUNDLE="$2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$BUNDLE/bin" "$BUNDLE/lib" && mkdir -p "$BUNDLE/bin" "$BUNDLE/lib"
for b in scheduler/server/canopyd agent/server/canopy-agent ctl/canopyctl \
         agent/gpu/canopy-gpu-probe; do
  strip -o "$BUNDLE/bin/$(basename "$b")" "$BUILD/$b"
done
for b in "$BUNDLE"/bin/*; do ldd "$b" | awk '/=>/ {print $3}'; done | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" "$BUNDLE/lib/"; done
cp "$HERE/gpu_node_check.sh" "$HERE/gpu_node.yaml" "$BUNDLE/"
du -sh "$BUNDLE"
