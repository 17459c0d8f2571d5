"""A kernel forked from the runner instead of started as a new interpreter.

Inside a template sandbox (graders.sandbox.template) the runner has inherited torch, numpy,
matplotlib and ipykernel already imported; a kernel forked from it starts in milliseconds
instead of paying an interpreter's start and those imports again (about 2 s per
submission on notebook 01). jupyter_client still does everything else — ports, the
connection file, the client, shutdown — through its provisioner, which only needs the
``Popen`` calls ``ForkedProcess`` answers.

The child keeps nothing of its parent but memory: descriptors (the result stream, the
spec's pipe) are closed before any student code exists, and the runner forks it before it
has read the notebook, so the canaries' nonce is not in the kernel's memory.
"""

from __future__ import annotations

import asyncio
import gc
import os
import resource
import signal
import subprocess
import sys
import time

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Type

from . import namespaces
from .prompt_client import PromptKernelClient


class ForkedProcess:
    """What jupyter_client's LocalProvisioner asks of a ``Popen``, for a forked child."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: it is gone, how is not known
                self.returncode = -signal.SIGKILL
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None) -> int:
        """As ``Popen.wait``: TimeoutExpired after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            time.sleep(0.002)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class ForkingKernelManager(AsyncKernelManager):
    """Launches the kernel by forking this process; limits as LimitedKernelManager's."""

    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)
    memory_bytes = 0
    max_processes = 0

    async def _async_launch_kernel(self, kernel_cmd, **kw) -> None:
        args = kernel_cmd[kernel_cmd.index("ipykernel_launcher") + 1:]
        stderr = kw.get("stderr")
        process = fork_kernel(args, dict(kw.get("env") or os.environ), str(kw.get("cwd") or os.getcwd()),
                              self.memory_bytes, self.max_processes,
                              stderr.fileno() if hasattr(stderr, "fileno") else None)
        provisioner = self.provisioner
        provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, process.pid
        provisioner.cwd = kw.get("cwd")
        self._reconcile_connection_info(provisioner.connection_info)


def fork_kernel(args: list[str], env: dict, cwd: str, memory_bytes: int, max_processes: int,
                stderr: int | None = None) -> ForkedProcess:
    """The kernel, forked; ``stderr``: a descriptor for its standard error (else /dev/null),
    where native code that dies says why (the runner reads its end)."""
    pid = os.fork()
    if pid == 0:
        _become_kernel(args, env, cwd, memory_bytes, max_processes, stderr)  # never returns
    return ForkedProcess(pid)


def _become_kernel(args, env, cwd, memory_bytes, max_processes, stderr=None) -> None:
    code = 1
    try:
        # What the runner left in memory is never collected here: its finalizers would close
        # descriptors that, after closerange, belong to the kernel's own sockets.
        gc.freeze()
        os.setsid()  # the kernel leads its session: the runner ends it with killpg
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(stderr if fd == 2 and stderr is not None else devnull, fd)
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        namespaces.set_dumpable(True)  # the runner is not; the kernel may read its own /proc
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.path[0] = cwd  # as `python -m ipykernel_launcher` started there: its files import
        sys.argv = ["ipykernel_launcher", *args]
        if memory_bytes > 0:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        if max_processes > 0:
            resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
        # the runner's loop (running, and its policy's current one) is not this process's
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop_policy(None)
        asyncio.set_event_loop(asyncio.new_event_loop())
        from ipykernel import kernelapp
        kernelapp.launch_new_instance(argv=args)
        code = 0
    except SystemExit as leaving:
        code = leaving.code if isinstance(leaving.code, int) else 0
    except BaseException:  # noqa: BLE001 - nothing may unwind into the runner's frames
        code = 1
    finally:
        os._exit(code)
