#!/usr/bin/env python3
"""Issue #15: the Debian packages install into a clean root, and their units run a job.

Usage: package_test.py BUILD_DIR   (run by ctest as package.install_and_run; needs root)

1. `cpack -G DEB` in BUILD_DIR makes canopy-controller, canopy-agent and canopy-client.
2. `dpkg --root` installs them into an empty directory (dependencies forced: the root has no
   libraries; maintainer scripts run chrootless with DPKG_ROOT, as dpkg does for such roots).
3. The layout: programs, the Slurm command links, units, man pages, bash completion, the slurm
   user (systemd-sysusers) and state directories (systemd-tmpfiles) the postinst made.
4. The installed units are started as systemd would start them, read from the installed files:
   Environment=, EnvironmentFile= and ExecStart= (with $VAR expansion), Type=notify through a
   NOTIFY_SOCKET this script holds, READY=1 awaited. The programs are the installed ones,
   linked against this machine's libraries. User= is not switched to (this machine has no slurm
   user; the package made one in the test root only). Then the installed `sbatch` link submits
   a job, and the installed `sacct` shows it COMPLETED with its output written.
"""
import glob
import os
import pwd
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time

PACKAGES = ("canopy-controller", "canopy-agent", "canopy-client")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        fail(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def check_layout(root):
    expected = [
        "usr/sbin/canopyd", "usr/sbin/canopy-sim", "usr/sbin/canopy-agent",
        "usr/sbin/canopy-spank-task", "usr/sbin/canopy-gpu-probe", "usr/bin/canopyctl",
        "usr/lib/systemd/system/canopyd.service", "usr/lib/systemd/system/canopy-agent.service",
        "usr/lib/sysusers.d/canopy.conf", "usr/lib/tmpfiles.d/canopy-controller.conf",
        "usr/share/man/man8/canopyd.8", "usr/share/man/man8/canopy-agent.8",
        "usr/share/man/man1/canopyctl.1", "usr/share/man/man1/canopy-sim.1",
        "usr/share/bash-completion/completions/canopyctl",
        "etc/logrotate.d/canopy-controller", "etc/logrotate.d/canopy-agent",
    ]
    for path in expected:
        if not os.path.isfile(os.path.join(root, path)):
            fail(f"{path} is not installed")
    for command in ("sbatch", "srun", "salloc", "sattach", "squeue", "scancel", "sinfo",
                    "scontrol", "sacct", "sacctmgr", "sshare", "sprio"):
        link = os.path.join(root, "usr/bin", command)
        if os.readlink(link) != "canopyctl":
            fail(f"usr/bin/{command} links to {os.readlink(link)}, not canopyctl")
    status = run(["dpkg-query", f"--admindir={root}/var/lib/dpkg", "-W",
                  "-f=${Package} ${Status}\n"])
    for package in PACKAGES:
        if f"{package} install ok installed" not in status:
            fail(f"dpkg does not list {package} as installed:\n{status}")
    passwd = open(os.path.join(root, "etc/passwd")).read()
    match = re.search(r"^slurm:x:(\d+):(\d+):", passwd, re.M)
    if not match:
        fail(f"no slurm user in the root's /etc/passwd:\n{passwd}")
    for spool in ("var/spool/slurmctld", "var/spool/canopy"):
        st = os.stat(os.path.join(root, spool))
        if st.st_uid != int(match.group(1)) or (st.st_mode & 0o777) != 0o750:
            fail(f"{spool}: owner {st.st_uid} mode {oct(st.st_mode)}, want slurm and 0750")
    print("layout: programs, 12 Slurm command links, units, man pages, completion, slurm "
          "user and state directories")


def unit_command(root, unit, env):
    """The unit's ExecStart as argv with the unit's environment, $VARs expanded."""
    text = open(os.path.join(root, "usr/lib/systemd/system", unit)).read()
    exec_start = None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "Environment":
            for assignment in shlex.split(value):
                name, _, val = assignment.partition("=")
                env[name] = val
        elif key == "EnvironmentFile":
            path = os.path.join(root, value.lstrip("-").lstrip("/"))
            if os.path.exists(path):
                for entry in open(path).read().splitlines():
                    if entry.strip() and not entry.startswith("#"):
                        name, _, val = entry.partition("=")
                        env[name.strip()] = val.strip().strip('"')
            elif not value.startswith("-"):
                fail(f"{unit}: EnvironmentFile {value} is missing")
        elif key == "ExecStart":
            exec_start = value
        elif key == "Type" and value != "notify":
            fail(f"{unit}: Type={value}, expected notify")
    if exec_start is None:
        fail(f"{unit} has no ExecStart")
    argv = []
    for word in shlex.split(exec_start):
        # systemd: ${VAR} is replaced within a word, a lone $VAR splits into words.
        if re.fullmatch(r"\$[A-Za-z_]\w*", word):
            argv.extend(env.get(word[1:], "").split())
            continue
        argv.append(re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), word))
    argv[0] = os.path.join(root, argv[0].lstrip("/"))  # the installed program
    return argv


def start_unit(root, unit, work):
    env = {"PATH": os.environ["PATH"]}
    argv = unit_command(root, unit, env)
    notify_path = os.path.join(work, f"{unit}.notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(1)
    env["NOTIFY_SOCKET"] = notify_path
    log = open(os.path.join(work, f"{unit}.log"), "w")
    process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            message = notify.recv(4096).decode()
        except socket.timeout:
            if process.poll() is not None:
                break
            continue
        if "READY=1" in message.split("\n"):
            print(f"{unit}: READY=1 ({' '.join(os.path.basename(a) for a in argv[:1])} "
                  f"{' '.join(argv[1:])})")
            return process
    process.kill()
    fail(f"{unit} never said READY=1:\n{open(os.path.join(work, unit + '.log')).read()}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_a_job(root, work):
    host = socket.gethostname().split(".")[0]
    conf = os.path.join(work, "slurm.conf")
    with open(conf, "w") as f:
        f.write(f"ClusterName=pkgtest\nSlurmctldHost=localhost(127.0.0.1)\n"
                f"SlurmctldPort={free_port()}\nStateSaveLocation={work}/state\n"
                f"SlurmdSpoolDir={work}/spool\n"
                f"NodeName={host} CPUs=1 RealMemory=100 State=UNKNOWN\n"
                f"PartitionName=debug Nodes={host} Default=YES State=UP\n")
    os.makedirs(os.path.join(root, "etc/default"), exist_ok=True)
    with open(os.path.join(root, "etc/default/canopyd"), "w") as f:
        f.write(f"SLURM_CONF={conf}\n")
    with open(os.path.join(root, "etc/default/canopy-agent"), "w") as f:
        # The test submits as root, which an agent refuses unless told.
        f.write(f"SLURM_CONF={conf}\nCANOPY_AGENT_OPTS=\"--gpu-provider=fake --fake-gpus=0 "
                f"--allow-root-jobs --cpus=1 --memory-mib=100\"\n")
    processes = []
    try:
        processes.append(start_unit(root, "canopyd.service", work))
        processes.append(start_unit(root, "canopy-agent.service", work))
        env = dict(os.environ, SLURM_CONF=conf)
        sinfo = os.path.join(root, "usr/bin/sinfo")
        deadline = time.time() + 20
        while run([sinfo, "-h", "-o", "%T"], env=env).strip() != "idle":
            if time.time() > deadline:
                fail(f"the node never became idle:\n{run([sinfo], env=env)}")
            time.sleep(0.2)
        out = os.path.join(work, "job.out")
        job = run([os.path.join(root, "usr/bin/sbatch"), "--parsable", "-o", out,
                   "--wrap", "echo ran on $(hostname -s)"], env=env).strip()
        sacct = os.path.join(root, "usr/bin/sacct")
        deadline = time.time() + 30
        state = ""
        while state != "COMPLETED":
            state = run([sacct, "-X", "-n", "-j", job, "-o", "state"], env=env).strip()
            if time.time() > deadline:
                fail(f"job {job} is {state!r} after 30 s")
            time.sleep(0.2)
        text = open(out).read()
        if text.strip() != f"ran on {host}":
            fail(f"job output {text!r}")
        print(f"job {job}: COMPLETED through the installed sbatch and sacct; output {text!r}")
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def main():
    if len(sys.argv) != 2:
        fail("usage: package_test.py BUILD_DIR")
    if os.geteuid() != 0:
        fail("dpkg --root installs files owned by their package's users: run as root")
    build = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="canopy-pkg-") as work:
        run(["cpack", "-G", "DEB", "-B", os.path.join(work, "debs")], cwd=build)
        debs = sorted(glob.glob(os.path.join(work, "debs", "*.deb")))
        names = sorted(os.path.basename(d).split("_")[0] for d in debs)
        if names != sorted(PACKAGES):
            fail(f"cpack made {names}, expected {sorted(PACKAGES)}")
        root = os.path.join(work, "root")
        admin = os.path.join(root, "var/lib/dpkg")
        for d in (os.path.join(admin, "info"), os.path.join(admin, "updates"),
                  os.path.join(root, "etc")):
            os.makedirs(d)
        for f in ("status", "available"):
            open(os.path.join(admin, f), "w").close()
        run(["dpkg", f"--root={root}", "--log=/dev/null", "--force-depends",
             "--force-script-chrootless", "-i", *debs])
        check_layout(root)
        run_a_job(root, work)
    print("PASS")


if __name__ == "__main__":
    main()
