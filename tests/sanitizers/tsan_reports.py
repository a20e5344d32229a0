#!/usr/bin/env python3
"""Sorts ThreadSanitizer reports into Canopy's and gRPC's own, and fails on Canopy's.

Usage: tsan_reports.py SOURCE_ROOT LOG_DIR

The TSan build (deploy/sanitize.sh tsan) runs against Debian's gRPC and protobuf, which are not
instrumented: TSan cannot see the atomics gRPC orders its own threads with, so gRPC's inline
header code (grpcpp/*.h, compiled into our binaries) shows races between its threads that are
ordered in fact. Abseil is instrumented (sanitize.sh builds Debian's own source with TSan), so
absl::Mutex, which guards all of Canopy's shared state, is seen.

Each memory access of a report belongs to whoever's code made it: the first frame of its stack
after frames of the C++ standard library, Abseil, protobuf (its headers and the generated
*.pb.h/*.pb.cc, which run for whoever calls them) and TSan's interceptors (memcpy, operator
delete, ...). The access is Canopy's when that frame lies in a file under SOURCE_ROOT.

A data race is Canopy's when both of its accesses are: then TSan saw all the synchronization
there was. When one side is gRPC's (its inline grpcpp/*.h code, or libgrpc calling protobuf to
fill a message Canopy handed it), the order between the two sides was kept, if at all, by gRPC's
invisible atomics; such reports are counted, not failed. Reports that are not data races (use
after free, lock-order inversion, a thread leak, ...) are Canopy's when any of their stacks is.

Exits 1 and prints every Canopy report in full when there is one, else 0.
"""
import os
import re
import sys

FRAME = re.compile(r"^\s*#\d+ (?P<func>.*?) (?P<file>\S+?)(?::\d+)?(?::\d+)? \((?P<module>[^)]*)\)")
ACCESS = re.compile(r"^\s*(Previous )?(atomic )?(Read|Write|read|write|Atomic read|Atomic write)"
                    r" of size")
TRANSPARENT_FILES = ("/include/c++/", "/absl/", "/google/protobuf/", ".pb.h", ".pb.cc")
INTERCEPTORS = re.compile(r"^(mem(cpy|move|set|cmp)|bcmp|str\w+|malloc|calloc|realloc|free|"
                          r"operator new|operator delete|__tsan_|__interceptor_|pthread_)")


def frames_of(lines):
    """Yields (function, file) for each frame line."""
    for line in lines:
        m = FRAME.match(line)
        if m:
            yield m.group("func"), m.group("file")


def owner_is_canopy(frames, root):
    """True when the first frame that is not a library or interceptor frame is Canopy's."""
    for func, path in frames:
        if INTERCEPTORS.match(func) or any(t in path for t in TRANSPARENT_FILES):
            continue
        return path.startswith(root)
    return False


def split_stacks(report_lines):
    """Returns [(is_access, [frame lines])] for each stack of a report."""
    stacks, current = [], None
    for line in report_lines:
        if FRAME.match(line):
            if current is not None:
                current[1].append(line)
            continue
        current = None
        if line.strip() and not line.startswith(" " * 4):
            current = (bool(ACCESS.match(line)), [])
            stacks.append(current)
    return stacks


def classify(report_lines, root):
    header = next((l for l in report_lines if "WARNING: ThreadSanitizer:" in l), "")
    stacks = split_stacks(report_lines)
    if "data race" in header:
        accesses = [frames for is_access, frames in stacks if is_access]
        return bool(accesses) and all(owner_is_canopy(list(frames_of(f)), root)
                                      for f in accesses)
    return any(owner_is_canopy(list(frames_of(f)), root) for _, f in stacks)


def reports_in(path):
    """Yields each report of a TSan log as its lines (reports sit between lines of '=')."""
    with open(path, errors="replace") as f:
        chunks = re.split(r"^=+$", f.read(), flags=re.M)
    for chunk in chunks:
        if "WARNING: ThreadSanitizer:" in chunk:
            yield chunk.strip("\n").splitlines()


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = os.path.realpath(sys.argv[1]) + "/"
    log_dir = sys.argv[2]
    ours, theirs = [], 0
    for name in sorted(os.listdir(log_dir)):
        for report in reports_in(os.path.join(log_dir, name)):
            if classify(report, root):
                ours.append((name, report))
            else:
                theirs += 1
    print(f"tsan: {len(ours)} report(s) in Canopy's code, {theirs} inside gRPC's own calls "
          f"(not instrumented; see tests/sanitizers/tsan_reports.py)")
    for name, report in ours:
        print(f"---- {name}")
        print("\n".join(report))
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
