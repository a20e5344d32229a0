/* Test plugin: fails slurm_spank_task_init with rc=-7 for a task whose environment has
 * CANOPY_FAIL_TASK_INIT set, and passes every other task. */
#include <slurm/spank.h>

SPANK_PLUGIN(fail_task_init, 1);

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  char value[64];
  if (spank_getenv(sp, "CANOPY_FAIL_TASK_INIT", value, sizeof value) == ESPANK_SUCCESS) {
    slurm_error("fail_task_init: failing as asked (%s)", value);
    return -7;
  }
  return 0;
}
