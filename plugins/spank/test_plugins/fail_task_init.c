/* Test plugin: fails slurm_spank_task_init with rc=-7 for a task whose environment has
 * CANOPY_FAIL_TASK_INIT set, and slurm_spank_user_init (remote) with rc=-8 for a job whose
 * environment has CANOPY_FAIL_USER_INIT set; passes everything else. */
#include <slurm/spank.h>

SPANK_PLUGIN(fail_task_init, 1);

static int fail_if_asked(spank_t sp, const char *variable, const char *hook, int rc) {
  char value[64];
  if (spank_getenv(sp, variable, value, sizeof value) == ESPANK_SUCCESS) {
    slurm_error("fail_task_init: failing %s as asked (%s)", hook, value);
    return rc;
  }
  return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  return fail_if_asked(sp, "CANOPY_FAIL_TASK_INIT", "task_init", -7);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  return fail_if_asked(sp, "CANOPY_FAIL_USER_INIT", "user_init", -8);
}
