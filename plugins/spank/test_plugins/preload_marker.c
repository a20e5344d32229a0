/* Test library, not a plugin: preloaded (LD_PRELOAD) into any process, it appends
 * "euid=<n> <program>" to the file named by CANOPY_PRELOAD_MARKER. A job that asks for it must
 * only ever see its own processes, never the root task helper, in that file. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void mark(void) {
  const char *path = getenv("CANOPY_PRELOAD_MARKER");
  if (path == NULL) return;
  FILE *f = fopen(path, "a");
  if (f == NULL) return;
  char exe[256] = "";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) exe[n] = '\0';
  fprintf(f, "euid=%u %s\n", (unsigned)geteuid(), exe);
  fclose(f);
}
