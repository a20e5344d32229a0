#!/usr/bin/env bash
# Installs the Debian 12 packages Canopy builds and tests with. Quick when they are present:
# it asks dpkg first and only runs apt-get for what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev
  libabsl-dev libsqlite3-dev libyaml-cpp-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  procps
)
# Optional extras: the real Slurm client commands (to compare outputs) and gnuplot (simulator charts).
OPTIONAL=(slurm-client gnuplot-nox)
# The sanitizer and fuzzing builds (deploy/sanitize.sh): clang with its sanitizer and libFuzzer
# runtimes, and llvm-symbolizer for readable reports.
SANITIZERS=(clang libclang-rt-14-dev llvm-14)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${CANOPY_WITH_SANITIZERS:-0}" = 1 ]; then
  for p in "${SANITIZERS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ "${CANOPY_WITH_OPTIONAL:-0}" = 1 ]; then
  for p in "${OPTIONAL[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
