#!/usr/bin/env python3
"""A portal's use of Canopy's gRPC API: submit a job safely, then follow it without polling.

What it shows, in order:
  1. WhoAmI: who canopyd takes the caller for (over the unix socket: the process's user).
  2. WatchJobs: the jobs the caller may see (EXISTING events), SYNCED, then CHANGED events.
  3. SubmitJob with an idempotency key, sent twice as a retry after a lost answer would be: the
     second call returns the first job's id, so a retried submit never queues two jobs.
  4. The job's states as they change, until it ends; the exit status is 0 if it COMPLETED.
  5. WatchNodes: the nodes, each once, then SYNCED.
  6. SubmitJobs: three jobs in one call and one commit, one of them refused on its own.
Every call has a deadline (the watches excepted: they last as long as the portal wants them).

Run (the modules of the API are generated from proto/ by make_stubs.sh):
  docs/examples/portal/make_stubs.sh /tmp/canopy_stubs
  PYTHONPATH=/tmp/canopy_stubs python3 docs/examples/portal/portal.py \
      --controller unix:/run/canopy/canopyd.sock --nodes 1 --command 'hostname'
"""
import argparse
import sys
import threading
import uuid

import grpc

from canopy.v1 import controller_pb2 as api
from canopy.v1 import controller_pb2_grpc as api_grpc
from canopy.v1 import types_pb2 as types

DEADLINE_S = 10
TERMINAL = {"JOB_STATE_COMPLETED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
            "JOB_STATE_TIMEOUT", "JOB_STATE_NODE_FAIL", "JOB_STATE_OUT_OF_MEMORY",
            "JOB_STATE_PREEMPTED"}
KIND = api.WatchEventKind.Name


def state_name(job):
    return types.JobState.Name(job.state)


class JobFollower:
    """Keeps the latest record of every job from a WatchJobs stream, on its own thread."""

    def __init__(self, stub):
        self._stream = stub.WatchJobs(api.WatchJobsRequest())
        self._cond = threading.Condition()
        self._jobs = {}
        self._synced = False
        self._error = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        try:
            for event in self._stream:
                with self._cond:
                    kind = KIND(event.kind)
                    if kind == "WATCH_EVENT_KIND_SYNCED":
                        self._synced = True
                        print(f"watch: synced, {len(self._jobs)} job(s) known")
                    elif kind == "WATCH_EVENT_KIND_REMOVED":
                        self._jobs.pop(event.job.job_id, None)
                    else:
                        old = self._jobs.get(event.job.job_id)
                        if old is None or old.state != event.job.state:
                            was = state_name(old) if old is not None else "(new)"
                            print(f"watch: job {event.job.job_id} {was} -> "
                                  f"{state_name(event.job)}"
                                  + (f" on {','.join(event.job.nodes)}" if event.job.nodes else ""))
                        self._jobs[event.job.job_id] = event.job
                    self._cond.notify_all()
        except grpc.RpcError as e:
            with self._cond:
                if e.code() != grpc.StatusCode.CANCELLED:
                    self._error = e
                self._cond.notify_all()

    def wait(self, predicate, timeout):
        with self._cond:
            ok = self._cond.wait_for(lambda: self._error is not None or predicate(), timeout)
            if self._error is not None:
                raise self._error
            return ok

    def synced(self):
        return self._synced

    def job(self, job_id):
        return self._jobs.get(job_id)

    def close(self):
        self._stream.cancel()
        self._thread.join(timeout=5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--controller", required=True,
                        help="canopyd's address: unix:/path/to/socket or HOST:PORT")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--command", default="hostname")
    parser.add_argument("--timeout", type=float, default=60, help="seconds to wait for the end")
    args = parser.parse_args()

    with grpc.insecure_channel(args.controller) as channel:
        stub = api_grpc.ControllerStub(channel)
        me = stub.WhoAmI(api.WhoAmIRequest(), timeout=DEADLINE_S)
        print(f"whoami: {me.user_name} (uid {me.user_id}), operator: {me.operator}")

        follower = JobFollower(stub)
        try:
            if not follower.wait(follower.synced, DEADLINE_S):
                print("watch: no SYNCED event in time", file=sys.stderr)
                return 1

            request = api.SubmitJobRequest(
                spec=types.JobSpec(name="portal-example", min_nodes=args.nodes,
                                   script=f"#!/bin/sh\n{args.command}\n", work_dir="/tmp"),
                idempotency_key=f"portal-example-{uuid.uuid4()}")
            first = stub.SubmitJob(request, timeout=DEADLINE_S)
            retry = stub.SubmitJob(request, timeout=DEADLINE_S)
            print(f"submit: job {first.job_id}; the retry with the same key got job "
                  f"{retry.job_id}")
            if retry.job_id != first.job_id:
                print("submit: a retried submit made a second job", file=sys.stderr)
                return 1

            def ended():
                job = follower.job(first.job_id)
                return job is not None and state_name(job) in TERMINAL

            if not follower.wait(ended, args.timeout):
                print(f"job {first.job_id} did not end within {args.timeout} s", file=sys.stderr)
                return 1
            final = state_name(follower.job(first.job_id))
        finally:
            follower.close()

        nodes = stub.WatchNodes(api.WatchNodesRequest())
        count = 0
        for event in nodes:
            if KIND(event.kind) == "WATCH_EVENT_KIND_SYNCED":
                break
            count += 1
        nodes.cancel()
        print(f"watch nodes: {count} node(s)")

        # Many jobs in one call and one commit, each accepted or refused on its own.
        batch = api.SubmitJobsRequest(jobs=[
            api.SubmitJobRequest(
                spec=types.JobSpec(name=f"portal-batch-{i}", min_nodes=1, partition=partition,
                                   script="#!/bin/sh\ntrue\n", work_dir="/tmp"),
                idempotency_key=f"portal-batch-{i}-{uuid.uuid4()}")
            for i, partition in enumerate(["", "", "no-such-partition"])])
        results = stub.SubmitJobs(batch, timeout=DEADLINE_S).results
        for job, result in zip(batch.jobs, results):
            if result.code == 0:
                print(f"batch: {job.spec.name} is job {result.job_id}")
            else:
                print(f"batch: {job.spec.name} refused (code {result.code}): "
                      f"{result.error_message}")
        print(f"job {first.job_id} ended {final}")
        return 0 if final == "JOB_STATE_COMPLETED" else 1


if __name__ == "__main__":
    sys.exit(main())
