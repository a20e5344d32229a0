/* Test plugin: sets each task's nice value to the `prio=N` plugstack argument in
 * slurm_spank_task_init_privileged (root may lower it too), as LLNL's renice plugin does. */
#include <slurm/spank.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

SPANK_PLUGIN(renice, 1);

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av) {
  (void)sp;
  for (int i = 0; i < ac; i++) {
    if (strncmp(av[i], "prio=", 5) == 0) {
      if (setpriority(PRIO_PROCESS, 0, atoi(av[i] + 5)) != 0) {
        slurm_error("renice: setpriority: failed");
        return -1;
      }
    }
  }
  return 0;
}
