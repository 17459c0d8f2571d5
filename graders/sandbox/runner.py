"""The child process that executes one notebook: ``python -m graders.sandbox.runner --result-fd N``.

It runs where the student's code runs (inside the sandbox when there is one), so that the
kernel *and* the client talking to it are contained together; the parent only ever sees
one JSON document written to an inherited pipe (``--result-fd``), never files the
student's code could have rewritten.

Input (stdin, JSON): notebook, limits (cell/notebook seconds, output chars, memory
bytes, processes), prologue (code run silently before any student code), cwd.
Output (result fd, JSON): notebook (executed, possibly partial), status, cell, detail.

Execution follows nbgrader's Execute preprocessor (nbgrader.preprocessors.execute): allow_errors,
an in-memory history, and ``show_undisplayed_error``, a copy of ``Execute.on_cell_executed``
(this process must not import nbgrader; tests/test_sandbox.py pins the copy to the original). Unlike it, a
cell that times out ends the run (a kernel that ignores SIGINT would otherwise hang the
grader); the parent reports which cell and which limit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import sys
import tempfile
import time

import nbformat
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from traitlets import Type

from graders.sandbox import CANARY_KEY
from graders.sandbox.forked_kernel import ForkingKernelManager
from graders.sandbox.prompt_client import PromptKernelClient

# Run by the kernel's launcher before ipykernel: limits apply to the kernel and to every
# process it starts, not to this client (whose memory is bounded by the output cap).
_LIMITED_EXEC = (
    "import os, resource, sys\n"
    "mem, nproc = int(sys.argv[1]), int(sys.argv[2])\n"
    "if mem > 0: resource.setrlimit(resource.RLIMIT_AS, (mem, mem))\n"
    "if nproc > 0: resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


class Phases:
    """Wall and CPU seconds per phase (this client plus the kernel, read from /proc), for
    benchmarks/grading.py: where a submission's seconds go."""

    def __init__(self):
        self.kernel_pid = None
        self.kernel_cpu = 0.0  # last seen: a kernel that has exited keeps what it used
        self.totals: dict[str, list[float]] = {}
        self._mark = self._now()

    def _now(self) -> tuple[float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        self.kernel_cpu = max(self.kernel_cpu, _process_cpu(self.kernel_pid))
        return time.monotonic(), own.ru_utime + own.ru_stime + self.kernel_cpu

    def lap(self, name: str) -> None:
        now = self._now()
        total = self.totals.setdefault(name, [0.0, 0.0])
        total[0] += now[0] - self._mark[0]
        total[1] += now[1] - self._mark[1]
        self._mark = now


def _process_cpu(pid) -> float:
    if not pid:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _is_import_cell(source: str) -> bool:
    """Only imports (the notebook's set-up cell): counted as imports, not as the student's work."""
    import ast
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return False
    return bool(body) and all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in body)


class LimitedKernelManager(AsyncKernelManager):
    """Starts ipykernel through a tiny exec wrapper that sets RLIMIT_AS and RLIMIT_NPROC."""

    client_factory = Type(PromptKernelClient, klass=AsyncKernelClient)

    memory_bytes = 0
    max_processes = 0

    def format_kernel_cmd(self, extra_arguments=None):
        cmd = super().format_kernel_cmd(extra_arguments)
        return [sys.executable, "-I", "-S", "-c", _LIMITED_EXEC,
                str(self.memory_bytes), str(self.max_processes), *cmd]


class CappedClient(NotebookClient):
    """nbclient, keeping at most ``max_output_chars`` of output per cell as it streams."""

    max_output_chars = 100_000
    # a hidden test's probe cell (graders.autograde.judging) reports its observations as
    # outputs: they are the verdict's data, kept up to this much
    probe_output_chars = 16 * 2**20
    CUT_NOTE = "\n[output cut by the grader: more than {} characters; the rest was discarded]\n"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._kept: dict[int, int] = {}
        self._cut: set[int] = set()

    @staticmethod
    def _size(msg) -> int:
        content = msg.get("content", {})
        if msg["msg_type"] == "stream":
            return len(content.get("text", ""))
        if msg["msg_type"] == "error":
            return sum(len(line) for line in content.get("traceback", [])) + len(str(content.get("evalue", "")))
        return sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in content.get("data", {}).values())

    def output(self, outs, msg, display_id, cell_index):
        size = self._size(msg)
        kept = self._kept.get(cell_index, 0)
        cap = self._cap(cell_index)
        if kept + size <= cap:
            self._kept[cell_index] = kept + size
            return super().output(outs, msg, display_id, cell_index)
        if cell_index in self._cut:
            return None  # already cut: drop without holding on to it
        self._cut.add(cell_index)
        self._kept[cell_index] = cap
        if msg["msg_type"] == "stream":
            # keep the head that still fits, so the student sees where it started
            msg = {**msg, "content": {**msg["content"], "text": msg["content"]["text"][:cap - kept]}}
            super().output(outs, msg, display_id, cell_index)
        note = nbformat.v4.new_output("stream", name="stdout", text=self.CUT_NOTE.format(cap))
        outs.append(note)
        return note

    def _cap(self, cell_index) -> int:
        cells = self.nb.cells
        probing = cell_index < len(cells) and cells[cell_index].metadata.get(CANARY_KEY) == "probe"
        return self.probe_output_chars if probing else self.max_output_chars

    def clear_output(self, outs, msg, cell_index):
        super().clear_output(outs, msg, cell_index)
        if not outs:  # what is shown is what counts: a cleared cell starts a fresh budget
            self._kept[cell_index] = 0
            self._cut.discard(cell_index)

    def process_message(self, msg, cell, cell_index):
        # an update replaces an earlier output in place: refuse oversized replacements
        if msg["msg_type"] == "update_display_data" and self._size(msg) > self._cap(cell_index):
            return None
        return super().process_message(msg, cell, cell_index)

    @staticmethod
    def show_undisplayed_error(cell, cell_index, execute_reply, **_):
        """A copy of nbgrader's ``Execute.on_cell_executed`` (nbgrader 0.9): an error reply
        that nobody displayed (showtraceback disabled) still becomes an error output."""
        reply = execute_reply
        if reply is None or reply["content"]["status"] != "error":
            return
        ename = reply["content"].get("ename")
        if any(o.output_type == "error" and o.get("ename") == ename for o in cell.outputs):
            return
        out = NotebookNode(output_type="error", ename=ename, evalue=reply["content"].get("evalue", ""),
                           traceback=reply["content"].get("traceback") or
                           ["ERROR: An error occurred while showtraceback was disabled"])
        cell.outputs.append(out)


async def run(spec: dict, receive=None, fork: bool = False) -> dict:
    """Execute ``spec``'s notebook. ``receive``, when given, returns the notebook and the
    prologue once the kernel is up (the template's runner forks the kernel before it reads
    them: see graders.sandbox.forked_kernel); ``spec`` then holds only cwd and limits."""
    limits = spec["limits"]
    manager = ForkingKernelManager if fork else LimitedKernelManager
    manager.memory_bytes = int(limits.get("memory_bytes", 0))
    manager.max_processes = int(limits.get("max_processes", 0))
    CappedClient.max_output_chars = int(limits["max_output_chars"])
    nb = nbformat.from_dict(spec["notebook"]) if receive is None else nbformat.v4.new_notebook()
    client = CappedClient(
        nb, kernel_name="python3", allow_errors=True, interrupt_on_timeout=False,
        raise_on_iopub_timeout=True, record_timing=False,
        # nothing of the kernel is kept: a graceful shutdown only costs the worker ~0.5 s
        shutdown_kernel="immediate",
        extra_arguments=["--HistoryManager.hist_file=:memory:"],
        kernel_manager_class=manager,
        resources={"metadata": {"path": spec["cwd"]}},
        on_cell_executed=CappedClient.show_undisplayed_error,
    )
    deadline = time.monotonic() + float(limits["notebook_timeout_s"])
    result = {"status": "ok", "cell": None, "detail": ""}
    phases = Phases()
    result["phases"] = phases.totals
    client.reset_execution_trackers()
    # the kernel's own standard error: what native code says before it kills the kernel
    # (libgomp: "Thread creation failed"), which ipykernel's capture passes on as it dies
    kernel_stderr, tap = tempfile.TemporaryFile(), None
    try:
        async with client.async_setup_kernel(cwd=spec["cwd"], stdout=open(os.devnull, "wb"),
                                             stderr=kernel_stderr):
            kernel_pid = getattr(client.km.provisioner, "pid", None)
            result["kernel_pid"] = phases.kernel_pid = kernel_pid
            if receive is not None:
                spec = receive()
                client.nb = nb = nbformat.from_dict(spec["notebook"])
            phases.lap("kernel start")
            peak = {"vm": 0}
            sampler = asyncio.ensure_future(_sample_memory(kernel_pid, peak))
            if spec.get("prologue"):
                msg_id = client.kc.execute(spec["prologue"], silent=True, store_history=False)
                reply = await asyncio.wait_for(client.async_wait_for_reply(msg_id), 60)
                if reply and reply["content"]["status"] != "ok":
                    result["prologue_error"] = f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}"
                phases.lap("imports")  # the guard imports torch, numpy, helpers.checks to watch them
            if limits.get("max_processes"):
                await _silently(client, THREADS_SETUP.format(int(limits["max_processes"])))
            tap = StderrTap(kernel_pid)
            await _silently(client, tap.redirect())
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                remaining = deadline - time.monotonic()
                limit = "cell" if remaining > float(limits["cell_timeout_s"]) else "notebook"
                client.timeout = max(1, int(min(float(limits["cell_timeout_s"]), remaining)))
                canary = CANARY_KEY in cell.metadata  # see graders.autograde.integrity
                if cell.metadata.get(CANARY_KEY) == "integrity":
                    # not code: a request the kernel guard answers (graders.sandbox.guard)
                    verdict = await _verify(client, spec.get("verify_key", ""))
                    if verdict is not None:
                        cell.metadata["graders_verdict"] = verdict
                    cell.metadata["graders_ran"] = True
                    phases.lap("integrity checks")
                    continue
                try:
                    await client.async_execute_cell(cell, index, store_history=not canary,
                                                    execution_count=client.code_cells_executed + 1)
                    if canary:
                        cell.metadata["graders_ran"] = True  # reached: its verdict must be there
                except CellTimeoutError:
                    # as nbgrader's error_on_timeout: the cell shows an error, so it scores 0
                    cell.outputs.append(NotebookNode(
                        output_type="error", ename="CellTimeoutError", evalue="",
                        traceback=[f"CellTimeoutError: the {limit} time limit was reached"]))
                    result.update(status="timeout", cell=index, detail=limit)
                    break
                except DeadKernelError:
                    result.update(status="crashed", cell=index, detail=_exit_description(client))
                    memory = manager.memory_bytes
                    result["near_memory_limit"] = bool(memory) and peak["vm"] > 0.9 * memory
                    result["kernel_stderr"] = tap.tail() + _tail(kernel_stderr)
                    break
                finally:
                    phases.lap("integrity checks" if canary else
                               "imports" if _is_import_cell(cell.source) else "student's cells")
            sampler.cancel()
            _end_kernel(client)  # before nbclient's shutdown, which would poll it every 0.1 s
    finally:
        if tap is not None:
            tap.close()
        if result.get("kernel_pid"):
            _kill_group(result["kernel_pid"])
        phases.lap("teardown, result")
    result["notebook"] = nb
    return result


# Run silently after the prologue: torch's thread requests clamped to what the sandbox's
# process and thread limit leaves room for (graders.sandbox.threads)
THREADS_SETUP = "import graders.sandbox.threads as _graders_threads\n_graders_threads.clamp({})\ndel _graders_threads\n"


async def _verify(client, key: str, seconds: float = 30) -> list[str] | None:
    """The kernel guard's verdict: its reply to a ``graders_verify_request`` (a list of what
    changed), signed with this run's ``key`` over a fresh challenge; None when no well-formed,
    rightly signed reply came (the guard was removed or replaced, the kernel died or hung):
    graders.autograde.integrity reports that as a finding."""
    import hmac
    import secrets

    from graders.sandbox.guard import MESSAGE, REPLY, signature
    challenge = secrets.token_hex(16)
    msg = client.kc.session.msg(MESSAGE, {"challenge": challenge})
    client.kc.shell_channel.send(msg)
    try:
        reply = await asyncio.wait_for(client.async_wait_for_reply(msg["header"]["msg_id"]), seconds)
    except Exception:  # noqa: BLE001 - a timeout, a dead kernel: no verdict
        return None
    content = (reply or {}).get("content", {})
    verdict = content.get("verdict")
    if (reply or {}).get("msg_type") != REPLY or not isinstance(verdict, list) \
            or not all(isinstance(v, str) for v in verdict):
        return None
    if not hmac.compare_digest(str(content.get("mac", "")), signature(key, challenge, verdict)):
        return None
    return [v[:500] for v in verdict[:200]]


async def _silently(client, code: str) -> None:
    msg_id = client.kc.execute(code, silent=True, store_history=False)
    await asyncio.wait_for(client.async_wait_for_reply(msg_id), 60)


class StderrTap:
    """The kernel's standard error, passed through this process on its way to the notebook.

    Native code that cannot go on (libgomp: "Thread creation failed") writes why to file
    descriptor 2 and ends the process. ipykernel reads that descriptor with a thread of the
    dying kernel, which often dies before it has passed the words on. So the kernel's fd 2
    becomes a FIFO read here instead (``redirect``, run silently in the kernel): what arrives
    is kept (its tail) and forwarded to ipykernel's own pipe, so the notebook shows it as
    before; what a dying kernel wrote is here, whenever it died."""

    KEEP = 16_384

    def __init__(self, pid: int):
        self.kept = bytearray()
        self.path = os.path.join(tempfile.gettempdir(), f".graders-stderr-{os.getpid()}-{os.urandom(4).hex()}")
        os.mkfifo(self.path, 0o600)
        self.read = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self.hold = os.open(self.path, os.O_WRONLY)  # never an end-of-file while the kernel's comes and goes
        try:
            self.forward = os.open(f"/proc/{pid}/fd/2", os.O_WRONLY | os.O_NONBLOCK)  # ipykernel's pipe
        except OSError:
            self.forward = None
        asyncio.get_running_loop().add_reader(self.read, self._pump)

    def redirect(self) -> str:
        """The kernel's side: its fd 2 becomes the FIFO."""
        return (f"import os as _graders_os\n_graders_fd = _graders_os.open({self.path!r}, _graders_os.O_WRONLY)\n"
                "_graders_os.dup2(_graders_fd, 2)\n_graders_os.close(_graders_fd)\ndel _graders_os, _graders_fd\n")

    def _pump(self) -> bool:
        try:
            chunk = os.read(self.read, 65536)
        except BlockingIOError:
            return False
        self.kept = (self.kept + chunk)[-self.KEEP:]
        if self.forward is not None:
            try:
                os.write(self.forward, chunk)
            except OSError:  # ipykernel's pipe full or gone: the notebook misses it, we keep it
                pass
        return bool(chunk)

    def tail(self) -> str:
        while self._pump():
            pass
        return self.kept.decode(errors="replace")

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.read)
        for fd in (self.read, self.hold, self.forward):
            if fd is not None:
                os.close(fd)
        os.unlink(self.path)


def _tail(handle, size: int = 4096) -> str:
    """The last ``size`` bytes written to ``handle``."""
    try:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - size))
        return handle.read().decode(errors="replace")
    except (OSError, ValueError):
        return ""


async def _sample_memory(pid, peak) -> None:
    """Track the kernel's address space: a kernel killed near RLIMIT_AS ran out of memory."""
    while pid:
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmSize:"):
                        peak["vm"] = max(peak["vm"], int(line.split()[1]) * 1024)
        except OSError:
            return
        await asyncio.sleep(0.1)


def _exit_description(client) -> str:
    process = getattr(client.km.provisioner, "process", None) if client.km else None
    code = process.poll() if process is not None else None
    if code is None:
        return "the kernel stopped responding"
    if code < 0:
        return f"the kernel was killed by signal {signal.Signals(-code).name}"
    return f"the kernel exited with code {code}"


def _end_kernel(client) -> None:
    """Kill the kernel's session and reap the kernel: nothing of it is kept."""
    provisioner = client.km.provisioner if client.km else None
    process = getattr(provisioner, "process", None)
    if process is None:
        return
    _kill_group(process.pid)
    try:
        process.wait(timeout=5)
    except Exception:  # noqa: BLE001 - nbclient's own shutdown still follows
        pass


def _kill_group(pid: int) -> None:
    """The kernel leads its own session: end it and whatever it started (outside a sandbox)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="graders.sandbox.runner")
    parser.add_argument("--result-fd", type=int, required=True)
    parser.add_argument("--drop-to", type=int, help="uid (and gid) to become first: see graders.sandbox.bwrap")
    args = parser.parse_args(argv)
    os.set_inheritable(args.result_fd, False)  # the kernel must not get the result pipe
    if args.drop_to is not None:
        os.setgroups([])
        os.setgid(args.drop_to)
        os.setuid(args.drop_to)
    spec = json.load(sys.stdin)
    sys.stdin.close()
    started = {"at": time.time(), "cpu": time.process_time()}  # the interpreter, the imports
    result = asyncio.run(run(spec))
    result["started"] = started
    with os.fdopen(args.result_fd, "w") as out:
        json.dump(result, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
