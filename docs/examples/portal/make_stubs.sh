#!/usr/bin/env bash
# Generates the Python modules of Canopy's API from proto/ into OUT_DIR (default ./canopy_stubs),
# with Debian's protoc and grpc_python_plugin (packages protobuf-compiler, protobuf-compiler-grpc)
# so that they match Debian's python3-protobuf and python3-grpcio.
#   docs/examples/portal/make_stubs.sh /tmp/stubs && PYTHONPATH=/tmp/stubs python3 portal.py ...
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${1:-canopy_stubs}"
mkdir -p "$OUT"
protoc -I "$ROOT/proto" --python_out="$OUT" --grpc_out="$OUT" \
  --plugin=protoc-gen-grpc="$(command -v grpc_python_plugin)" "$ROOT"/proto/canopy/v1/*.proto
touch "$OUT/canopy/__init__.py" "$OUT/canopy/v1/__init__.py"
