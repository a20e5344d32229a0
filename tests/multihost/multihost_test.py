#!/usr/bin/python3
"""Canopy across hosts, for real (#12, docs/security.md).

Four network namespaces made by this test stand for four hosts on one network (198.18.0.0/24,
the range reserved for network tests, used only inside them): `head` runs canopyd, `gpu1` and
`gpu2` run an agent each, `login` runs the users' commands and an attacker. munged is the test's
own, on a key it makes; certificates come from deploy/make-site-certs.sh. AuthType=auth/munge,
TLS on, agent certificates required, PrivateData=jobs.

It shows that jobs and steps run across hosts (srun inside a job on an agent host creates its
step), that a portal's service user submits for a named user with an audit record, and that each
attack is refused and logged: registering a node without a credential, with a user's credential,
or from another host; reporting a job's exit without registering; reading or cancelling another
user's job; replaying a credential or using it for another request. Then it cuts gpu2's link:
after SlurmdTimeout its gang is requeued once, and when the link returns the stale copy is
killed and the job runs once more, not twice.

usage: multihost_test.py BUILD_DIR SOURCE_DIR   (root; exit 77 = skipped)
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
PORT = 6817
HEAD, GPU1, GPU2, LOGIN = "198.18.0.1", "198.18.0.2", "198.18.0.3", "198.18.0.4"
NOBODY, DAEMON, WWW = 65534, 1, 33  # the job owner, another user, the portal's service user


def digest(message):
    """The payload a Canopy credential carries (common/auth/request_digest.h)."""
    body = message.SerializeToString(deterministic=True)
    return "canopy-rpc-1 %s %s" % (message.DESCRIPTOR.full_name, hashlib.sha256(body).hexdigest())


def mint(socket, payload, uid=None):
    """A MUNGE credential for `payload`, made by uid `uid` (root when None)."""
    prefix = [] if uid is None else ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid,
                                     "--clear-groups"]
    return subprocess.run(prefix + ["munge", "-S", socket, "-s", payload], check=True,
                          capture_output=True, text=True).stdout.strip()


# --- the attacker: runs inside the login namespace, prints one JSON line per attempt ---------

def rogue(stubs, socket, ca, certs, action, *args):
    sys.path.insert(0, stubs)
    import grpc
    from canopy.v1 import agent_pb2, agent_pb2_grpc, controller_pb2, controller_pb2_grpc

    def channel(cert=None):
        key = chain = None
        if cert:
            key = open(os.path.join(certs, cert + ".key"), "rb").read()
            chain = open(os.path.join(certs, cert + ".crt"), "rb").read()
        creds = grpc.ssl_channel_credentials(open(ca, "rb").read(), key, chain)
        return grpc.secure_channel("%s:%d" % (HEAD, PORT), creds)

    def answer(call):
        try:
            result = call()
            return {"code": "OK", "result": result}
        except grpc.RpcError as e:
            return {"code": e.code().name, "details": e.details()}

    if action == "register":  # node, credential uid ("none", "root" or a number), certificate
        node, who, cert = args
        hello = agent_pb2.AgentMessage()
        hello.register.node_name = node
        hello.register.hostname = "evil"
        hello.register.cpus = 8
        hello.register.agent_version = "rogue"
        metadata = []
        if who != "none":
            metadata = [("canopy-munge", mint(socket, digest(hello),
                                              None if who == "root" else int(who)))]

        def messages():
            yield hello
            time.sleep(3)

        stub = agent_pb2_grpc.AgentServiceStub(channel(cert if cert != "none" else None))
        print(json.dumps(answer(lambda: str(next(stub.Connect(messages(), metadata=metadata))))))
    elif action == "report_exit":  # a job's exit on a stream that never registered
        (job_id,) = args
        report = agent_pb2.AgentMessage()
        report.job_status.job_id = int(job_id)
        report.job_status.phase = agent_pb2.JobStatus.PHASE_EXITED

        def messages():
            yield report
            time.sleep(2)

        stub = agent_pb2_grpc.AgentServiceStub(channel())
        print(json.dumps(answer(lambda: [str(m) for m in stub.Connect(messages(), timeout=3)])))
    elif action == "list_jobs":  # credential uid or "none"
        (who,) = args
        request = controller_pb2.ListJobsRequest()
        metadata = [] if who == "none" else [
            ("canopy-munge", mint(socket, digest(request), int(who)))]
        stub = controller_pb2_grpc.ControllerStub(channel())
        print(json.dumps(answer(lambda: [j.job_id for j in
                                         stub.ListJobs(request, metadata=metadata).jobs])))
    elif action == "submit_for":  # a portal: credential of uid `who`, job for uid `owner`
        who, owner = args
        from canopy.v1 import types_pb2
        request = controller_pb2.SubmitJobRequest(spec=types_pb2.JobSpec(
            name="from-portal", min_nodes=1, script="#!/bin/sh\ntrue\n", work_dir="/tmp",
            stdout_path="/dev/null", run_as_uid=int(owner)))
        metadata = [("canopy-munge", mint(socket, digest(request), int(who)))]
        stub = controller_pb2_grpc.ControllerStub(channel())
        print(json.dumps(answer(lambda: stub.SubmitJob(request, metadata=metadata).job_id)))
    elif action == "reflect":  # grpcurl's `list` over TLS, with certificate `cert` or "none"
        (cert,) = args
        call = channel(cert if cert != "none" else None).stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo")
        # ServerReflectionRequest{list_services: ""}: field 7, length 0.
        print(json.dumps(answer(lambda: [m.decode("latin-1")
                                         for m in call(iter([b"\x3a\x00"]), timeout=5)])))
    elif action == "replay":  # the job owner's credential, captured and sent again
        (job_id,) = args
        stub = controller_pb2_grpc.ControllerStub(channel())
        listing = controller_pb2.ListJobsRequest()
        captured = [("canopy-munge", mint(socket, digest(listing), NOBODY))]
        print(json.dumps(answer(lambda: len(stub.ListJobs(listing, metadata=captured).jobs))))
        print(json.dumps(answer(lambda: len(stub.ListJobs(listing, metadata=captured).jobs))))
        # A fresh credential of the owner, made for a listing, used to cancel the job.
        other = [("canopy-munge", mint(socket, digest(listing), NOBODY))]
        cancel = controller_pb2.CancelJobRequest(job_ids=[int(job_id)])
        print(json.dumps(answer(lambda: str(stub.CancelJob(cancel, metadata=other)))))


# --- the test ---------------------------------------------------------------------------------

class Cluster:
    def __init__(self, build, source):
        self.build, self.source = build, source
        self.dir = tempfile.mkdtemp(prefix="canopy-multihost-")
        os.chmod(self.dir, 0o755)
        self.tag = "cm%d" % (os.getpid() % 100000)
        self.namespaces = []
        self.processes = []
        self.failures = []

    # namespaces and links
    def ns(self, name):
        return "%s-%s" % (self.tag, name)

    def ip(self, *args):
        subprocess.run(["ip"] + list(args), check=True)

    def make_network(self):
        self.ip("netns", "add", self.ns("head"))
        self.namespaces.append(self.ns("head"))
        self.ip("-n", self.ns("head"), "link", "set", "lo", "up")
        self.ip("-n", self.ns("head"), "link", "add", "br0", "type", "bridge")
        self.ip("-n", self.ns("head"), "addr", "add", HEAD + "/24", "dev", "br0")
        self.ip("-n", self.ns("head"), "link", "set", "br0", "up")
        for i, (name, addr) in enumerate([("gpu1", GPU1), ("gpu2", GPU2), ("login", LOGIN)]):
            ns = self.ns(name)
            self.ip("netns", "add", ns)
            self.namespaces.append(ns)
            inner, outer = "%s%da" % (self.tag, i), "%s%db" % (self.tag, i)
            self.ip("link", "add", inner, "type", "veth", "peer", "name", outer)
            self.ip("link", "set", inner, "netns", ns)
            self.ip("link", "set", outer, "netns", self.ns("head"))
            self.ip("-n", self.ns("head"), "link", "set", outer, "master", "br0", "up")
            self.ip("-n", ns, "addr", "add", addr + "/24", "dev", inner)
            self.ip("-n", ns, "link", "set", inner, "up")
            self.ip("-n", ns, "link", "set", "lo", "up")
        self.gpu2_link = "%s1b" % self.tag  # gpu2's cable, at the head's end

    def cut_gpu2(self, up):
        self.ip("-n", self.ns("head"), "link", "set", self.gpu2_link, "up" if up else "down")

    # processes
    def start(self, ns, argv, log, env=None):
        full_env = dict(os.environ, **(env or {}))
        out = open(os.path.join(self.dir, log), "ab")
        p = subprocess.Popen(["ip", "netns", "exec", self.ns(ns)] + argv, stdout=out,
                             stderr=subprocess.STDOUT, env=full_env, start_new_session=True)
        self.processes.append(p)
        return p

    def run(self, ns, argv, uid=None, env=None, check=False):
        prefix = ["ip", "netns", "exec", self.ns(ns)]
        if uid is not None:
            prefix += ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups"]
        r = subprocess.run(prefix + argv, capture_output=True, text=True, cwd=self.work,
                           env=dict(self.client_env, **(env or {})), timeout=60)
        if check and r.returncode != 0:
            raise RuntimeError("%s: %s%s" % (" ".join(argv), r.stdout, r.stderr))
        return r

    def cleanup(self):
        # SIGTERM first: agents stop their jobs on the way out. Then whatever is left in the
        # namespaces (jobs of an agent that did not stop in time) and the groups started here.
        for p in self.processes:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.time() + 15
        for p in self.processes:
            try:
                p.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                pass
        for ns in self.namespaces:
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
            for pid in pids.stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for p in self.processes:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], check=False)
        if os.environ.get("CANOPY_KEEP_TEST_DIR") != "1":
            shutil.rmtree(self.dir, ignore_errors=True)

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            self.failures.append(what)

    # set-up
    def configure(self):
        d = self.dir
        self.munge_dir = os.path.join(d, "munge")
        os.makedirs(self.munge_dir, mode=0o755)
        subprocess.run(["mungekey", "--create", "--keyfile=" + self.munge_dir + "/munge.key"],
                       check=True)
        self.socket = os.path.join(self.munge_dir, "munge.socket")
        # munged answers on a unix socket: reachable from every namespace of this machine, as
        # each real host reaches its own munged with the same site key.
        self.processes.append(subprocess.Popen(
            ["/usr/sbin/munged", "--foreground", "--force", "--socket=" + self.socket,
             "--key-file=" + self.munge_dir + "/munge.key",
             "--pid-file=" + self.munge_dir + "/munged.pid",
             "--seed-file=" + self.munge_dir + "/munged.seed",
             "--log-file=" + self.munge_dir + "/munged.log"], start_new_session=True))
        self.certs = os.path.join(d, "tls")
        subprocess.run([os.path.join(self.source, "deploy/make-site-certs.sh"), "--out", self.certs,
                        "--controller", "head," + HEAD, "--host", "gpu1," + GPU1,
                        "--host", "gpu2," + GPU2], check=True, capture_output=True)
        os.chmod(self.certs, 0o755)
        self.work = os.path.join(d, "work")
        os.makedirs(self.work)
        os.chmod(self.work, 0o1777)
        with open(os.path.join(d, "slurm.conf"), "w") as f:
            f.write(f"""ClusterName=multihost
SlurmctldHost=head({HEAD})
SlurmctldPort={PORT}
StateSaveLocation={d}/state
AuthType=auth/munge
AuthInfo=socket={self.socket}
SlurmdTimeout=6
PrivateData=jobs
NodeName=gpu1 NodeAddr={GPU1} CPUs=4 RealMemory=4096 Gres=gpu:2
NodeName=gpu2 NodeAddr={GPU2} CPUs=4 RealMemory=4096 Gres=gpu:2
PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP
""")
        with open(os.path.join(d, "canopy.conf"), "w") as f:
            f.write(f"""tls_cert: {self.certs}/canopyd.crt
tls_key: {self.certs}/canopyd.key
tls_ca: {self.certs}/ca.crt
require_agent_certs: true
submit_for_others: www-data
grpc_reflection: authenticated
""")
        self.conf = os.path.join(d, "slurm.conf")
        links = os.path.join(d, "bin")
        os.makedirs(links)
        for name in ["sbatch", "squeue", "scancel", "scontrol", "srun", "sinfo", "sacct"]:
            os.symlink(os.path.join(self.build, "ctl", "canopyctl"), os.path.join(links, name))
        # Clients reach canopyd over the network, as on a login node: never its unix socket.
        self.client_env = dict(os.environ, SLURM_CONF=self.conf,
                               CANOPY_CONTROLLER="%s:%d" % (HEAD, PORT),
                               PATH=links + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
        self.client_env.pop("CANOPY_CONFIG", None)
        self.stubs = os.path.join(d, "stubs")
        subprocess.run([os.path.join(self.source, "docs/examples/portal/make_stubs.sh"),
                        self.stubs], check=True)

    def start_cluster(self):
        env = {"SLURM_CONF": self.conf}
        self.start("head", [os.path.join(self.build, "scheduler/server/canopyd"),
                            "--config", self.conf, "--listen", "%s:%d" % (HEAD, PORT)],
                   "canopyd.log", env)
        for node in ["gpu1", "gpu2"]:
            self.start(node, [os.path.join(self.build, "agent/server/canopy-agent"),
                              "--virtual_nodes", node, "--allow_root_jobs", "--log_level", "debug",
                              "--spool_dir", os.path.join(self.dir, "spool-" + node),
                              "--tls_cert", "%s/%s.crt" % (self.certs, node),
                              "--tls_key", "%s/%s.key" % (self.certs, node)],
                       "agent-%s.log" % node, env)
        self.wait_for(lambda: self.node_states() == {"gpu1": "idle", "gpu2": "idle"},
                      "both agents registered over TLS with MUNGE", 60)

    def node_states(self):
        r = self.run("login", ["sinfo", "-N", "-h", "-o", "%N %t"])
        return dict(line.split() for line in r.stdout.splitlines() if line.strip())

    def wait_for(self, predicate, what, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if predicate():
                self.check(True, what)
                return True
            time.sleep(0.5)
        self.check(False, what + " (timed out after %d s)" % seconds)
        return False

    def log(self, name):
        with open(os.path.join(self.dir, name), errors="replace") as f:
            return f.read()

    def attack(self, *args):
        try:
            r = self.run("login", ["/usr/bin/python3", os.path.abspath(__file__), "--rogue",
                                   self.stubs, self.socket, self.certs + "/ca.crt", self.certs]
                         + list(args))
        except subprocess.TimeoutExpired as e:
            # What it printed before it hung tells a hung call from a hung exit.
            raise RuntimeError("rogue %s did not end in %ds; it printed: %r; stderr: %r" %
                               (args, e.timeout, e.stdout, e.stderr)) from None
        answers = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        if not answers:
            raise RuntimeError("rogue %s printed nothing: %s" % (args, r.stderr))
        return answers

    def running(self, ns, command):
        """How many processes in namespace `ns` run `command` (argv joined by spaces)."""
        pids = subprocess.run(["ip", "netns", "pids", self.ns(ns)], capture_output=True,
                              text=True).stdout.split()
        count = 0
        for pid in pids:
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    argv = f.read().rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            # Tasks are exec'd by path (/usr/bin/sleep): compare the program's base name.
            argv[0] = os.path.basename(argv[0])
            line = b" ".join(argv).decode(errors="replace")
            count += line == command
            if os.environ.get("CANOPY_DEBUG_PROCS") and "sleep" in line:
                print("  %s %s: %r" % (ns, pid, line))
        return count

    def job_state(self, job_id):
        r = self.run("head", ["squeue", "-h", "-j", str(job_id), "-o", "%T"])
        return r.stdout.strip()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--rogue":
        rogue(*sys.argv[2:])
        # Not through the interpreter's shutdown: gRPC's Python runtime can wait there for its
        # own threads long after the answer is printed.
        sys.stdout.flush()
        os._exit(0)
    if os.geteuid() != 0:
        print("multihost test: needs root (network namespaces, munged, jobs as other users)")
        return SKIP
    for tool in ["ip", "munged", "mungekey", "munge", "openssl", "setpriv", "protoc"]:
        if shutil.which(tool) is None and not os.path.exists("/usr/sbin/" + tool):
            print("multihost test: %s is missing (deploy/install-deps.sh installs it)" % tool)
            return 1
    probe = "canopy-probe-%d" % os.getpid()
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        # A container without CAP_SYS_ADMIN/CAP_NET_ADMIN: nothing here can make the hosts.
        print("multihost test: cannot create network namespaces here (%s)" % made.stderr.strip())
        return SKIP
    subprocess.run(["ip", "netns", "del", probe], check=False)
    c = Cluster(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    try:
        c.configure()
        c.make_network()
        c.start_cluster()
        scenario(c)
    finally:
        c.cleanup()
    if c.failures:
        print("\n%d check(s) failed:\n  %s" % (len(c.failures), "\n  ".join(c.failures)))
        return 1
    print("\nall checks passed")
    return 0


def scenario(c):
    # A user's batch job on gpu1 whose srun, on that agent host, creates a step.
    r = c.run("login", ["sbatch", "--parsable", "-N1", "-w", "gpu1", "-o", "step.out", "--wrap",
                        "srun printenv SLURMD_NODENAME; srun --overlap sleep 300"], uid=NOBODY)
    c.check(r.returncode == 0, "a user submits over TLS with MUNGE: " + r.stdout + r.stderr)
    job = int(r.stdout.strip().split(";")[0])
    c.wait_for(lambda: os.path.exists(os.path.join(c.work, "step.out")) and
               "gpu1" in open(os.path.join(c.work, "step.out")).read(),
               "srun inside the job on gpu1 created a step that ran there", 60)
    c.check("TLS, pinned to the certificate srun sent" in c.log("agent-gpu1.log"),
            "the step's I/O went over TLS pinned to srun's throwaway certificate")
    steps = c.run("login", ["squeue", "-s", "-h", "-j", str(job), "-o", "%i"], uid=NOBODY)
    c.check("%d.0" % job in steps.stdout or "%d.1" % job in steps.stdout,
            "squeue -s lists the job's steps: " + steps.stdout.strip())

    # Registering gpu1 from the login host: without a credential, with a user's, as root
    # without a certificate, and with gpu2's certificate.
    a = c.attack("register", "gpu1", "none", "none")[0]
    c.check(a["code"] == "UNAUTHENTICATED", "no credential cannot register a node: %s" % a)
    a = c.attack("register", "gpu1", str(NOBODY), "none")[0]
    c.check(a["code"] == "PERMISSION_DENIED" and "uid 65534" in a.get("details", ""),
            "a user's credential cannot register a node: %s" % a)
    a = c.attack("register", "gpu1", "root", "none")[0]
    c.check(a["code"] == "PERMISSION_DENIED" and "no certificate" in a.get("details", ""),
            "root elsewhere without the node's certificate cannot register it: %s" % a)
    a = c.attack("register", "gpu1", "root", "gpu2")[0]
    c.check(a["code"] == "PERMISSION_DENIED" and "not node gpu1" in a.get("details", ""),
            "gpu2's certificate cannot register gpu1: %s" % a)
    log = c.log("canopyd.log")
    c.check(log.count("refused the registration of node gpu1") >= 4,
            "canopyd logged each refused registration")
    c.check(c.node_states().get("gpu1") in ("mix", "alloc"), "the real gpu1 kept its node")

    # Reporting the job's exit without registering changes nothing.
    c.attack("report_exit", str(job))
    time.sleep(1)
    c.check(c.job_state(job) == "RUNNING", "a report on an unregistered stream is ignored")

    # Server reflection (grpc_reflection: authenticated) describes the API only to callers
    # canopyd knows: here, one with a certificate of the site CA.
    a = c.attack("reflect", "none")[0]
    c.check(a["code"] == "PERMISSION_DENIED" and
            "authenticated callers only" in a.get("details", ""),
            "reflection refuses an anonymous TLS caller: %s" % a)
    a = c.attack("reflect", "gpu1")[0]
    c.check(a["code"] == "OK" and "canopy.v1.Controller" in "".join(a["result"]),
            "reflection lists the services to a caller with a site certificate: %s" % a)

    # Reading and cancelling another user's job.
    a = c.attack("list_jobs", "none")[0]
    c.check(a["code"] == "PERMISSION_DENIED", "anonymous cannot list jobs (PrivateData): %s" % a)
    a = c.attack("list_jobs", str(DAEMON))[0]
    c.check(a["code"] == "OK" and job not in a["result"],
            "another user's listing leaves the job out: %s" % a)
    a = c.attack("list_jobs", str(NOBODY))[0]
    c.check(a["code"] == "OK" and job in a["result"], "its owner sees it: %s" % a)
    r = c.run("login", ["scancel", str(job)], uid=DAEMON)
    c.check(r.returncode != 0 and "ermission denied" in r.stderr,
            "another user cannot cancel the job: " + r.stderr.strip())
    c.check(c.job_state(job) == "RUNNING", "the job still runs")
    c.check("denied CancelJob" in c.log("canopyd.log") and "daemon (uid 1, munge)" in
            c.log("canopyd.log"), "canopyd logged the denied cancel with the caller")

    # A captured credential, replayed; a credential used for another request.
    first, again, other = c.attack("replay", str(job))
    c.check(first["code"] == "OK", "the owner's credential works once: %s" % first)
    c.check(again["code"] == "UNAUTHENTICATED" and "Replayed" in again.get("details", ""),
            "the same credential again is refused as replayed: %s" % again)
    c.check(other["code"] == "UNAUTHENTICATED" and "another request" in other.get("details", ""),
            "a credential made for a listing cannot cancel: %s" % other)
    c.check(c.job_state(job) == "RUNNING", "the job survived every attack")
    c.run("login", ["scancel", str(job)], uid=NOBODY, check=True)

    # A portal's service user submits for the job's owner; the audit log has it.
    a = c.attack("submit_for", str(WWW), str(NOBODY))[0]
    c.check(a["code"] == "OK", "the portal (www-data) submits for nobody: %s" % a)
    if a["code"] == "OK":
        audit = [json.loads(line) for line in open(os.path.join(c.dir, "state", "audit.log"))]
        c.check(any(r["job_id"] == a["result"] and r["by"] == "www-data" and r["for"] == "nobody"
                    and r["via"] == "munge" for r in audit),
                "audit.log records who submitted which job for whom: %s" % audit)
    a = c.attack("submit_for", str(DAEMON), str(NOBODY))[0]
    c.check(a["code"] == "PERMISSION_DENIED", "an ordinary user cannot submit for others: %s" % a)
    a = c.attack("submit_for", str(WWW), "0")[0]
    c.check(a["code"] == "PERMISSION_DENIED", "the portal cannot submit as root: %s" % a)

    # gpu2's link goes down: its gang is requeued after SlurmdTimeout, once; when the link
    # returns the stale copy is killed and the job runs again, not twice.
    marker = os.path.join(c.work, "starts")
    r = c.run("login", ["sbatch", "--parsable", "-N2", "-o", "gang.out", "--wrap",
                        "echo start ${SLURM_RESTART_COUNT:-0} >> %s; srun -N2 sleep "
                        "$((1000 + ${SLURM_RESTART_COUNT:-0}))" % marker],
              uid=NOBODY)
    gang = int(r.stdout.strip().split(";")[0])
    c.wait_for(lambda: c.job_state(gang) == "RUNNING" and c.running("gpu1", "sleep 1000") == 1
               and c.running("gpu2", "sleep 1000") == 1,
               "the gang runs its step on both hosts (srun's I/O reached from gpu2)", 60)
    c.cut_gpu2(False)
    c.wait_for(lambda: c.node_states().get("gpu2", "").startswith("down"),
               "gpu2 is DOWN once its link is gone for SlurmdTimeout", 40)
    c.wait_for(lambda: c.job_state(gang) in ("PENDING", "CONFIGURING", "REQUEUED"),
               "its gang went back to the queue", 30)
    c.cut_gpu2(True)
    c.wait_for(lambda: c.job_state(gang) == "RUNNING" and
               open(marker).read().split("\n").count("start 1") == 1,
               "the link returned: the job runs again as its first restart", 90)
    c.wait_for(lambda: c.running("gpu2", "sleep 1000") == 0 and
               c.running("gpu1", "sleep 1001") == 1 and c.running("gpu2", "sleep 1001") == 1,
               "the stale copy on gpu2 is gone and the restart runs on both hosts", 30)
    c.check("fenced 1 job(s)" in c.log("agent-gpu2.log"),
            "gpu2's agent fenced its part of the gang while cut off")
    time.sleep(3)
    starts = open(marker).read().split()
    c.check(starts == ["start", "0", "start", "1"], "the job started exactly twice: %s" % starts)
    c.run("head", ["scancel", str(gang)])


if __name__ == "__main__":
    sys.exit(main())
