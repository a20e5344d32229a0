/* Test plugin: a private /tmp per job, the way site plugins such as hpc2n's private-tmpdir give
 * one (written for the tests; behaviour, not code, modelled on them):
 *   plugstack arguments: base=DIR (where the jobs' directories live), mount=PATH (default /tmp)
 *   slurm_spank_job_prolog   creates DIR/<job id>.<restart count> for the job's user
 *   slurm_spank_init_post_opt (remote) enters a mount namespace of its own and bind-mounts that
 *                            directory on PATH, so the task (forked later) sees it as its /tmp
 * The task helper must be the task's ancestor for this to work: a namespace entered in another
 * process would not be the task's. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <slurm/spank.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

SPANK_PLUGIN(private_tmp, 1);

static const char *base_dir = NULL;
static const char *mount_point = "/tmp";

static int parse_args(int ac, char **av) {
  for (int i = 0; i < ac; i++) {
    if (strncmp(av[i], "base=", 5) == 0) base_dir = av[i] + 5;
    else if (strncmp(av[i], "mount=", 6) == 0) mount_point = av[i] + 6;
  }
  if (base_dir == NULL) {
    slurm_error("private_tmp: no base=DIR argument");
    return -1;
  }
  return 0;
}

static int job_dir(spank_t sp, char *out, size_t size) {
  uint32_t job = 0, restarts = 0;
  if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) return -1;
  if (spank_get_item(sp, S_SLURM_RESTART_COUNT, &restarts) != ESPANK_SUCCESS) restarts = 0;
  snprintf(out, size, "%s/%u.%u", base_dir, job, restarts);
  return 0;
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av) {
  char dir[4096];
  uid_t uid = 0;
  gid_t gid = 0;
  if (parse_args(ac, av) != 0 || job_dir(sp, dir, sizeof dir) != 0) return -1;
  if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
      spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
    slurm_error("private_tmp: no job uid/gid");
    return -1;
  }
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    slurm_error("private_tmp: mkdir %s: %s", dir, strerror(errno));
    return -1;
  }
  if (chown(dir, uid, gid) != 0) {
    slurm_error("private_tmp: chown %s: %s", dir, strerror(errno));
    return -1;
  }
  return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av) {
  char dir[4096];
  if (!spank_remote(sp)) return 0;
  if (parse_args(ac, av) != 0 || job_dir(sp, dir, sizeof dir) != 0) return -1;
  if (unshare(CLONE_NEWNS) != 0) {
    slurm_error("private_tmp: unshare: %s", strerror(errno));
    return -1;
  }
  if (mount("", "/", NULL, MS_PRIVATE | MS_REC, NULL) != 0 ||
      mount(dir, mount_point, NULL, MS_BIND, NULL) != 0) {
    slurm_error("private_tmp: bind %s on %s: %s", dir, mount_point, strerror(errno));
    return -1;
  }
  return 0;
}
