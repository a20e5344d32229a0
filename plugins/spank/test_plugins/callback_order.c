/* Test plugin: appends one line per callback to the file named by its `log=PATH` argument:
 *   <callback> <context> remote=<0|1> uid=<uid> euid=<euid> task=<local id or -> pid=<pid>
 *   ppid=<parent pid>
 * so a test can compare the order and the context of every call with Slurm's documentation. */
#include <slurm/spank.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

SPANK_PLUGIN(callback_order, 1);

static const char *context_name(void) {
  switch (spank_context()) {
    case S_CTX_LOCAL: return "local";
    case S_CTX_REMOTE: return "remote";
    case S_CTX_ALLOCATOR: return "allocator";
    case S_CTX_SLURMD: return "slurmd";
    case S_CTX_JOB_SCRIPT: return "job_script";
    default: return "error";
  }
}

static int record(spank_t sp, int ac, char **av, const char *callback) {
  const char *path = NULL;
  for (int i = 0; i < ac; i++) {
    if (strncmp(av[i], "log=", 4) == 0) path = av[i] + 4;
  }
  if (path == NULL) {
    slurm_error("callback_order: no log=PATH argument");
    return -1;
  }
  FILE *f = fopen(path, "a");
  if (f == NULL) {
    slurm_error("callback_order: cannot open %s", path);
    return -1;
  }
  int task = -1;
  char task_text[16] = "-";
  if (spank_get_item(sp, S_TASK_ID, &task) == ESPANK_SUCCESS) snprintf(task_text, sizeof task_text, "%d", task);
  fprintf(f, "%s %s remote=%d uid=%u euid=%u task=%s pid=%d ppid=%d\n", callback, context_name(),
          spank_remote(sp), (unsigned)getuid(), (unsigned)geteuid(), task_text, (int)getpid(),
          (int)getppid());
  fclose(f);
  return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av) { return record(sp, ac, av, "init"); }
int slurm_spank_job_prolog(spank_t sp, int ac, char **av) { return record(sp, ac, av, "job_prolog"); }
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) { return record(sp, ac, av, "init_post_opt"); }
int slurm_spank_local_user_init(spank_t sp, int ac, char **av) { return record(sp, ac, av, "local_user_init"); }
int slurm_spank_user_init(spank_t sp, int ac, char **av) { return record(sp, ac, av, "user_init"); }
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av) { return record(sp, ac, av, "task_init_privileged"); }
int slurm_spank_task_init(spank_t sp, int ac, char **av) { return record(sp, ac, av, "task_init"); }
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av) { return record(sp, ac, av, "task_post_fork"); }
int slurm_spank_task_exit(spank_t sp, int ac, char **av) { return record(sp, ac, av, "task_exit"); }
int slurm_spank_job_epilog(spank_t sp, int ac, char **av) { return record(sp, ac, av, "job_epilog"); }
int slurm_spank_slurmd_exit(spank_t sp, int ac, char **av) { return record(sp, ac, av, "slurmd_exit"); }
int slurm_spank_exit(spank_t sp, int ac, char **av) { return record(sp, ac, av, "exit"); }
