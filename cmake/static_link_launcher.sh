#!/bin/sh
# Link launcher (CMake's RULE_LAUNCH_LINK) for canopyctl: runs the link command CMake made with
# every shared library that has a static archive beside it (gRPC, protobuf, Abseil, OpenSSL,
# c-ares, re2, yaml-cpp, munge, ...) swapped for that archive. A CLI call is a short process:
# loading 58 shared libraries and relocating them was most of its start-up (docs/performance.md).
# libc, libm and libraries without an archive (systemd) stay shared. spdlog and fmt have no
# archive in Debian: when the command links canopy_ctl_static_runtime (ctl/static_runtime, both
# compiled from their headers), their shared libraries are dropped and that archive joins the
# group. When it links canopy_proto_lazy (proto/CMakeLists.txt: descriptors registered on first
# use), that archive takes canopy_proto's place. Only canopyctl is linked this way: tests and the
# daemons keep shared libraries.
set -eu
runtime_archive=""
lazy_proto_archive=""
for arg in "$@"; do
  case "$arg" in
    */libcanopy_ctl_static_runtime.a) runtime_archive="$arg" ;;
    */libcanopy_proto_lazy.a) lazy_proto_archive="$arg" ;;
  esac
done
keep_shared() {
  case "$1" in
    */libstdc++*|*/libgcc*|*/libc.so*|*/libm.so*|*/libspdlog*|*/libfmt*|*/libsystemd*) return 0 ;;
  esac
  return 1
}
archives=""
first=1
for arg in "$@"; do
  if [ "$first" = 1 ]; then
    set --
    first=0
  fi
  case "$arg" in
    */libcanopy_ctl_static_runtime.a|*/libcanopy_proto_lazy.a) continue ;;
    */libcanopy_proto.a)
      [ -n "$lazy_proto_archive" ] && continue
      ;;
    */libspdlog.so*|*/libfmt.so*|-lspdlog|-lfmt)
      [ -n "$runtime_archive" ] && continue
      ;;
  esac
  case "$arg" in
    /*.so|/*.so.[0-9]*)
      archive="${arg%%.so*}.a"
      if ! keep_shared "$arg" && [ -f "$archive" ]; then
        archives="$archives $archive"
        continue
      fi
      ;;
    -l*)
      name="${arg#-l}"
      case "$name" in
        c|m|dl|rt|pthread|atomic|stdc++|gcc_s) ;;
        *)
          for dir in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib; do
            if [ -f "$dir/lib$name.a" ]; then
              archives="$archives $dir/lib$name.a"
              continue 2
            fi
          done
          ;;
      esac
      ;;
  esac
  set -- "$@" "$arg"
done
# One group: archives refer to each other in every direction (gRPC <-> Abseil <-> upb).
# shellcheck disable=SC2086
exec "$@" -Wl,--start-group $lazy_proto_archive $archives $runtime_archive -Wl,--end-group \
  -lpthread -ldl
