/* Test plugin: offers --canopy-greeting=NAME (registered from slurm_spank_init, so sbatch,
 * salloc and srun all take it) and --canopy-shout (static spank_options table: srun only).
 * In the task it sets CANOPY_GREETING to "hello NAME" (upper case with --canopy-shout) and
 * CANOPY_SPANK_ITEMS to what spank_get_item answers. The option callback refuses "nobody".
 * In srun, sbatch and salloc it records the name for the job's prolog and epilog
 * (spank_job_control_setenv: they see SPANK_GREETING). */
#include <ctype.h>
#include <stdint.h>
#include <sys/types.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <string.h>

SPANK_PLUGIN(greeting, 1);

static char greeting_name[128];  /* what the option callback was given */

static int check_greeting(int val, const char *optarg, int remote) {
  (void)val;
  (void)remote;
  if (optarg == NULL || *optarg == '\0' || strcmp(optarg, "nobody") == 0) return -1;
  snprintf(greeting_name, sizeof greeting_name, "%s", optarg);
  return 0;
}

static int note_shout(int val, const char *optarg, int remote) {
  (void)val;
  (void)optarg;
  (void)remote;
  return 0;
}

static struct spank_option greeting_option = {
    "canopy-greeting", "NAME", "Greet NAME in the task's environment (test plugin)", 1, 0,
    check_greeting};

struct spank_option spank_options[] = {
    {"canopy-shout", NULL, "Greet in capitals (test plugin)", 0, 0, note_shout},
    SPANK_OPTIONS_TABLE_END};

int slurm_spank_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  return spank_option_register(sp, &greeting_option) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  if (greeting_name[0] == '\0') return 0;
  if (spank_context() != S_CTX_LOCAL && spank_context() != S_CTX_ALLOCATOR) return 0;
  return spank_job_control_setenv(sp, "GREETING", greeting_name, 1) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  char *name = NULL;
  if (spank_option_getopt(sp, &greeting_option, &name) == ESPANK_SUCCESS && name != NULL) {
    char text[256];
    snprintf(text, sizeof text, "hello %s", name);
    if (spank_option_getopt(sp, &spank_options[0], NULL) == ESPANK_SUCCESS) {
      for (char *c = text; *c; c++) *c = (char)toupper((unsigned char)*c);
    }
    if (spank_setenv(sp, "CANOPY_GREETING", text, 1) != ESPANK_SUCCESS) return -1;
  }
  uint32_t job = 0, step = 0, nnodes = 0, nodeid = 0, local = 0, total = 0, global = 0;
  int task = -1;
  uid_t uid = 0;
  spank_get_item(sp, S_JOB_ID, &job);
  spank_get_item(sp, S_JOB_STEPID, &step);
  spank_get_item(sp, S_JOB_NNODES, &nnodes);
  spank_get_item(sp, S_JOB_NODEID, &nodeid);
  spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local);
  spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &total);
  spank_get_item(sp, S_TASK_ID, &task);
  spank_get_item(sp, S_TASK_GLOBAL_ID, &global);
  spank_get_item(sp, S_JOB_UID, &uid);
  char items[256];
  snprintf(items, sizeof items, "job=%u step=%u nnodes=%u nodeid=%u local=%u total=%u task=%d global=%u uid=%u",
           job, step, nnodes, nodeid, local, total, task, global, (unsigned)uid);
  return spank_setenv(sp, "CANOPY_SPANK_ITEMS", items, 1) == ESPANK_SUCCESS ? 0 : -1;
}
