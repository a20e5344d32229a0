/* Test plugin: in slurm_spank_task_init, prepends "/usr/bin/env CANOPY_PREPENDED=yes" to the
 * task's command line, as container plugins wrap the command they were given. */
#include <slurm/spank.h>

SPANK_PLUGIN(prepend_argv, 1);

/* Exported by the host; declared by spank.h only in later releases. */
extern spank_err_t spank_prepend_task_argv(spank_t spank, int argc, const char *argv[]);

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  const char *prefix[] = {"/usr/bin/env", "CANOPY_PREPENDED=yes"};
  return spank_prepend_task_argv(sp, 2, prefix) == ESPANK_SUCCESS ? 0 : -1;
}
