// canopyd's allocator settings, read by jemalloc at its first allocation (the `malloc_conf`
// global is jemalloc's documented way for a program to set its own defaults; MALLOC_CONF in the
// environment still overrides them).
//
// Why jemalloc, and why huge pages: every submitted job adds records that live as long as the
// job (the lifecycle's and the published copy, docs/architecture.md), so under a stream of
// submissions canopyd's heap grows page by page. With glibc's allocator each new 4 KiB page costs
// a page fault and, in a thread's own arena, an mprotect call; on virtual machines a fault costs
// 10-20 us, and perf showed the owner thread spending three quarters of a SubmitJobs batch there
// (docs/performance.md, "End to end over gRPC"). glibc can put its heap in transparent huge pages
// only through GLIBC_TUNABLES in the environment, and only for its main arena; jemalloc takes
// the setting from the binary and applies it to all its arenas, so one fault maps 2 MiB.
//
// thp:always       madvise(MADV_HUGEPAGE) on jemalloc's memory (with the kernel's THP mode
//                  "madvise", Debian's default, nothing else in the process gets huge pages).
// metadata_thp:auto the same for jemalloc's own metadata once it is large enough to fill them.
extern "C" {
// NOLINTNEXTLINE: the name and linkage are jemalloc's.
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
