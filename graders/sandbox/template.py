"""The template: ``python -m graders.sandbox.template``, one per grading process (shared by
its grading threads), inside its own bubblewrap sandbox (graders.sandbox.bwrap.wrap_template).

It imports, once, what every kernel would import again (torch, numpy, matplotlib, ipykernel,
the runner's client), then waits. Per submission it forks; the fork enters fresh
namespaces (graders.sandbox.namespaces.isolate: its folder bound at /grading/work, a new
/tmp, /dev/shm, network, IPC, and a pid namespace with its own /proc), becomes the
submission's uid, and runs the runner there, whose kernel is forked again
(graders.sandbox.forked_kernel). The template never runs student code and never reads a
notebook, so each fork starts from the same clean state. Forks run side by side: each
submission talks to the grader over a channel of its own.

Protocol:
- the template writes ``{"ready": ...}`` on stdout (a frame: 8-byte length, then JSON) once
  its imports are done;
- its stdin is a unix SOCK_SEQPACKET socket: per submission the grader sends one message,
  the header (``work``: the submission's folder in the inbox, ``limits``, ``uid``) as JSON,
  with two descriptors attached: the submission's channel (a stream socket) and the write end
  of a pipe for its stderr;
- on the channel the grader writes the body (notebook, prologue), which only the
  submission's runner reads; the runner writes its result, and the fork then writes
  ``{"end": exit code}`` and closes it. A grader that shuts its side of the channel (a
  submission over its time) makes the fork kill the submission's pid namespace.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import resource
import select
import signal
import socket
import sys
import time
import traceback

from graders.sandbox.environment import child_env
from graders.sandbox.streams import read_frame, write_frame

INBOX = "/grading/inbox"
WORK = "/grading/work"
STAGING = "/grading/tmp"  # where each submission's /tmp is assembled


def main(argv=None) -> int:
    from pathlib import Path

    preload = (argv if argv is not None else sys.argv[1:])
    os.environ.update(child_env(Path(WORK), "/tmp"))  # OMP_NUM_THREADS and MPLBACKEND before torch, matplotlib
    failed = {}
    for name in preload:
        try:
            importlib.import_module(name)
        except Exception as error:  # a kernel that needs it will import it, and fail, itself
            failed[name] = f"{type(error).__name__}: {error}"
    import graders.sandbox.runner  # noqa: F401 - the client every submission's runner uses
    gc.collect()
    gc.freeze()  # forks share these pages instead of copying them at their first collection
    own = resource.getrusage(resource.RUSAGE_SELF)
    write_frame(1, {"ready": True, "failed": failed, "cpu": own.ru_utime + own.ru_stime})
    control = socket.socket(fileno=0)
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1 << 16, 2)
        if not message:
            break  # the grader has gone: finish what runs, then end
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            continue  # not a submission: nothing to fork for
        pid = os.fork()
        if pid == 0:
            control.close()
            _submission(json.loads(message), *fds)  # never returns
        for fd in fds:
            os.close(fd)
        _reap(block=False)
    _reap(block=True)
    return 0


def _reap(block: bool) -> None:
    """Collect the forks that have ended (each has told its grader how)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _submission(header: dict, channel: int, stderr: int) -> None:
    """The fork: fresh namespaces, then the pid namespace's first process runs the runner
    on ``channel``; this process waits for it, or kills it when the grader hangs up."""
    code = 70
    try:
        os.dup2(stderr, 2)
        os.close(stderr)
        from graders.sandbox import namespaces
        from graders.sandbox.bwrap import SHM_BYTES, TMP_BYTES, bound_paths
        keep = [str(p) for p in bound_paths() if str(p).startswith("/tmp/")]
        namespaces.isolate(f"{INBOX}/{header['work']}", WORK, INBOX, TMP_BYTES, SHM_BYTES, STAGING, keep)
        pid = os.fork()
        if pid == 0:
            os.dup2(channel, 0)
            os.dup2(channel, 1)
            os.close(channel)
            _runner(header)  # never returns
        code = _wait_or_hang_up(pid, channel)
        write_frame(channel, {"end": code})
    except BaseException:  # noqa: BLE001 - the template's frames must not unwind here
        traceback.print_exc()
    finally:
        os._exit(code if code >= 0 else 128 - code)


def _wait_or_hang_up(pid: int, channel: int) -> int:
    """The runner's exit code; when the grader shuts its side of the channel first, the
    runner (its pid namespace's first process: everything in it dies too) is killed."""
    ended = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(ended, select.POLLIN)
    poller.register(channel, select.POLLRDHUP)
    while True:
        events = dict(poller.poll())
        if ended in events:
            break
        if events.get(channel, 0) & (select.POLLRDHUP | select.POLLHUP | select.POLLERR):
            os.kill(pid, signal.SIGKILL)
            break
    _, status = os.waitpid(pid, 0)
    os.close(ended)
    return os.waitstatus_to_exitcode(status)


def _runner(header: dict) -> None:
    code = 70
    try:
        import asyncio
        from pathlib import Path

        from graders.sandbox import namespaces, runner
        namespaces.mount_proc()
        os.environ.clear()
        os.environ.update(child_env(Path(WORK), "/tmp"))
        os.chdir(WORK)
        if header.get("uid") is not None:
            os.setgroups([])
            os.setgid(header["uid"])
            os.setuid(header["uid"])  # every capability goes with root
        namespaces.set_dumpable(False)  # the kernel, same uid, cannot open our descriptors
        started = {"at": time.time(), "cpu": time.process_time()}

        def receive():
            body = read_frame(0)
            os.close(0)
            return body

        spec = {"cwd": WORK, "limits": header["limits"]}
        result = asyncio.run(runner.run(spec, receive, fork=True))
        result["started"] = started
        write_frame(1, {"result": result})
        code = 0
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    finally:
        os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
