#!/usr/bin/env bash
# Installs the Debian 12 packages Canopy builds and tests with. Quick when they are present:
# it asks dpkg first and only runs apt-get for what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev
  libabsl-dev libsqlite3-dev libyaml-cpp-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libslurm-dev  # <slurm/spank.h> only: SPANK plugins are built against it and so is the host
  prometheus-cpp-dev  # canopyd's /metrics endpoint (exposer and text format)
  libcivetweb-dev  # canopyd's web view (the HTTP server prometheus-cpp's exposer is built on)
  dpkg-dev  # cpack's Debian packages take their Depends from dpkg-shlibdeps (their test builds them)
  chromium  # the web view's test opens the page headless, checks what it drew, takes a screenshot
  curl  # the metrics tests and the quickstart read /metrics with it
  go-md2man  # the man pages (docs/man/*.md)
  libsystemd-dev  # sd_notify: canopyd and canopy-agent as Type=notify units with a watchdog
  python3-grpcio python3-protobuf  # the Python portal example (docs/examples/portal), run by a test
  libmunge-dev munge  # AuthType=auth/munge: libmunge for canopyd, agents and clients; munged for the multi-host test
  libjemalloc-dev  # canopyd's allocator: its heap in huge pages (scheduler/server/malloc_conf.cc)
  libnghttp2-dev  # HTTP/2 for canopyctl's direct calls over canopyd's unix socket (linked statically)
  libssl-dev openssl  # SHA-256 of each signed request (libcrypto); the site CA script (deploy/make-site-certs.sh)
  iproute2  # the multi-host test's network namespaces
  procps
)
# Optional extras: the real Slurm client commands (to compare outputs) and gnuplot (simulator charts).
OPTIONAL=(slurm-client gnuplot-nox)
# The sanitizer and fuzzing builds (deploy/sanitize.sh): clang with its sanitizer and libFuzzer
# runtimes, llvm-symbolizer for readable reports, dpkg-source to unpack Debian's Abseil source
# (built with TSan) and python3 for the TSan report classifier.
SANITIZERS=(clang libclang-rt-14-dev llvm-14 dpkg-dev python3)

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

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

# The TSan build compiles Debian's own Abseil source package: apt needs deb-src entries, made
# here from the machine's Debian entries (Debian 12 keeps them in debian.sources or sources.list).
DEB_SRC=/etc/apt/sources.list.d/canopy-deb-src
if [ "${CANOPY_WITH_SANITIZERS:-0}" = 1 ] && ! apt-get source --print-uris abseil >/dev/null 2>&1 &&
   [ ! -e "$DEB_SRC.sources" ] && [ ! -e "$DEB_SRC.list" ]; then
  echo "install-deps: adding deb-src entries for Debian's Abseil source (the TSan build)"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -E 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      $SUDO tee "$DEB_SRC.sources" >/dev/null
  fi
  if [ -f /etc/apt/sources.list ]; then
    sed -nE 's/^deb (.*)/deb-src \1/p' /etc/apt/sources.list | $SUDO tee "$DEB_SRC.list" >/dev/null
  fi
  $SUDO apt-get update -qq
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
