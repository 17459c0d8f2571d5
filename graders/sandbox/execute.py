"""Execute one prepared notebook, contained, and say how it ended.

The seam between grading (graders.autograde: which notebooks, what goes into the gradebook)
and containment (graders.sandbox.bwrap, graders.sandbox.runner: how untrusted code runs).
``execute`` is called once per submission, from a grading thread; it imports neither
nbgrader nor anything the gradebook needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import CANARY_KEY, bwrap, template_host
from .environment import child_env
from .limits import Limits
from .streams import Capped

STATUSES = ("ok", "timeout", "memory", "crashed")
# the runner's result: every cell's capped output, and the hidden tests' observations
RESULT_BYTES = 256 * 2**20


@dataclass
class Outcome:
    status: str                    # one of STATUSES
    reason: str                    # for a person: what happened and what to do
    seconds: float
    notebook: object | None = None  # the executed NotebookNode (partial on timeout/crash)
    findings: list[str] = field(default_factory=list)  # tampering detected after execution
    prologue_error: str = ""       # the prologue (the kernel guard) failed: no integrity verdicts
    # {phase: [wall s, CPU s]}: where the time went (benchmarks/grading.py), see ``phases``
    timing: dict = field(default_factory=dict)


def execute(nb, workdir: Path, limits: Limits | None = None, sandbox: bool = True,
            prologue: str = "", verify_key: str = "") -> Outcome:
    """Execute ``nb`` with ``workdir`` (a private scratch copy) as its only writable place;
    ``prologue`` runs silently in the kernel before any cell; ``verify_key`` is the key the
    kernel guard the prologue installs signs its verdicts with (graders.sandbox.guard).

    Never raises for anything the submission does; raises only when the grader itself
    cannot run (e.g. ``sandbox=True`` without bubblewrap installed).
    """
    limits = limits if limits is not None else Limits()
    workdir = Path(workdir).resolve()
    if sandbox:
        bwrap.require_bwrap()
    started = time.monotonic()
    spec = {"notebook": nb, "cwd": str(workdir), "prologue": prologue, "verify_key": verify_key,
            "limits": {**limits.values(), "memory_bytes": limits.memory_mb * 2**20}}
    with tempfile.TemporaryDirectory(prefix="graders-exec-") as private:
        env = child_env(workdir, scratch_tmp="/tmp" if sandbox else private)
        owner = bwrap.hand_over(workdir) if sandbox else None
        spawned = time.time()
        try:
            template = _template_for(workdir, limits, sandbox)
            if template is not None:
                result, stderr, killed = _in_template(template, workdir, spec, limits, env)
            else:
                result, stderr, killed = _supervise(env, workdir, spec, limits, sandbox)
        finally:
            bwrap.take_back(workdir, owner)
        wall = time.time() - spawned
    outcome = classify(result, stderr, killed, limits, time.monotonic() - started)
    outcome.prologue_error = (result or {}).get("prologue_error", "")
    outcome.timing = phases(result, spawned, wall)
    return outcome


def phases(result, spawned: float, wall: float) -> dict:
    """{phase: [wall s, CPU s]} of one run, as the runner measured it (its own CPU and the
    kernel's; bwrap's few milliseconds are not counted): sandbox and runner start (bwrap, the
    interpreter, the runner's imports), the runner's phases, and the rest as teardown."""
    if not result or "started" not in result:
        return {}
    out = {"sandbox+runner start": [result["started"]["at"] - spawned, result["started"]["cpu"]]}
    out.update(result.get("phases", {}))
    teardown = out.pop("teardown, result", [0.0, 0.0])
    # the runner's own teardown, and the parent's wait for the sandbox to end
    out["teardown, result"] = [wall - sum(v[0] for v in out.values()), teardown[1]]
    out["total"] = [wall, sum(v[1] for v in out.values())]
    return out


def _template_for(workdir: Path, limits: Limits, sandbox: bool):
    """This process's template when ``workdir`` was made in its inbox (graders.sandbox.worker)."""
    template = template_host.for_submissions(limits, sandbox)
    return template if template is not None and workdir.parent == template.inbox().resolve() else None


def _in_template(template, workdir: Path, spec: dict, limits: Limits, env: dict):
    header = {"limits": spec["limits"], "uid": bwrap.submission_uid()}
    body = {"notebook": spec["notebook"], "prologue": spec["prologue"], "verify_key": spec["verify_key"]}
    try:
        return template.run(workdir, header, body, limits.notebook_timeout_s + 30)
    except template_host.TemplateUnavailable as error:
        print(f"WARNING: {error}; this submission gets a sandbox of its own", file=sys.stderr)
        return _supervise(env, workdir, spec, limits, sandbox=True)


def _supervise(env, workdir, spec, limits: Limits, sandbox: bool):
    """Start the runner, feed it the spec, and kill everything at the notebook deadline."""
    read_fd, write_fd = os.pipe()
    argv = [sys.executable, "-m", "graders.sandbox.runner", "--result-fd", str(write_fd)]
    if sandbox:
        argv = bwrap.wrap(argv, workdir, limits)
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=env, cwd=workdir, start_new_session=True,
        pass_fds=(write_fd,),
    )
    os.close(write_fd)
    # the result can hold every cell's capped output; anything beyond that is not ours
    result_reader = Capped(os.fdopen(read_fd, "rb"), RESULT_BYTES + 4 * limits.max_output_chars * 400)
    stderr_reader = Capped(proc.stderr, 16_384, keep="tail")
    result_reader.start(), stderr_reader.start()
    try:
        proc.stdin.write(json.dumps(spec).encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    killed = False
    try:
        # the runner enforces the notebook limit itself; this is the backstop for a runner
        # that cannot (kernel start hung, client starved): kill the whole sandbox
        proc.wait(timeout=limits.notebook_timeout_s + 30)
    except subprocess.TimeoutExpired:
        killed = True
    _kill_all(proc)
    result_reader.join(10)
    stderr_reader.join(10)
    result = None
    if not result_reader.overflow and result_reader.data:
        try:
            result = json.loads(result_reader.data)
        except ValueError:
            result = None
    return result, stderr_reader.data.decode(errors="replace"), killed


def _kill_all(proc: subprocess.Popen) -> None:
    """Kill the runner's process group (the sandbox's pid namespace dies with its init)."""
    import signal
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def classify(result, stderr: str, killed: bool, limits: Limits, seconds: float) -> Outcome:
    """Map the runner's report to a status and a reason a person can act on."""
    if result is None:
        if killed:
            return Outcome("timeout", f"the notebook did not finish within its limit of "
                           f"{limits.notebook_timeout_s:g} s and was stopped; make it faster or "
                           "raise --notebook-timeout", seconds)
        tail = stderr.strip().splitlines()[-1:] or ["no message"]
        return Outcome("crashed", f"the grader's runner ended without a result ({tail[0]}); "
                       "rerun this submission alone to investigate", seconds)
    nb = nbformat.from_dict(result["notebook"])
    cell = result.get("cell")
    where = f"cell {cell_label(nb, cell)}" if cell is not None else ""
    status = result["status"]
    if status == "timeout":
        if result.get("detail") == "notebook":
            why = f"the notebook reached its total limit of {limits.notebook_timeout_s:g} s during {where}"
        else:
            why = f"{where} ran longer than the per-cell limit of {limits.cell_timeout_s:g} s"
        return Outcome("timeout", why + "; look for an endless loop or raise the limit", seconds, nb)
    memory_cell = first_memory_error(nb)
    if status == "crashed":
        if memory_cell is not None or result.get("near_memory_limit"):
            return Outcome("memory", f"{where}: {result.get('detail')} at the memory limit of "
                           f"{limits.memory_mb} MiB; the code needs less memory", seconds, nb)
        said = thread_failure(result.get("kernel_stderr", "") + _stderr_outputs(nb, cell))
        if said:
            return Outcome("crashed", f"the kernel died in {where} ({result.get('detail')}): it could not create "
                           f"a thread or process (\"{said}\"); the sandbox allows {limits.max_processes} "
                           "processes and threads in all: ask for fewer (torch.set_num_threads, "
                           "DataLoader's num_workers) or raise --max-processes", seconds, nb)
        return Outcome("crashed", f"the kernel died in {where} ({result.get('detail')}); "
                       "look for os._exit, sys.exit in a subprocess, or native code that crashes",
                       seconds, nb)
    if memory_cell is not None:
        return Outcome("memory", f"cell {cell_label(nb, memory_cell)} ran out of memory (limit "
                       f"{limits.memory_mb} MiB); allocate less or raise the limit", seconds, nb)
    return Outcome("ok", "executed", seconds, nb)


def cell_label(nb, index) -> str:
    """'#7 (grade_id ex2_test)': the position a person counts (the grader's own cells not
    counted), and nbgrader's name if any."""
    if index is None or index >= len(nb.cells):
        return "?"
    position = 1 + sum(CANARY_KEY not in c.get("metadata", {}) for c in nb.cells[:index])
    grade_id = nb.cells[index].get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return f"#{position}" + (f" ({grade_id})" if grade_id else "")


# what native code prints when it cannot start a thread or process (libgomp, pthreads, a
# C++ std::thread, CPython), just before the kernel dies of it
THREAD_MARKERS = ("Thread creation failed", "pthread_create", "can't start new thread",
                  "Resource temporarily unavailable", "fork failed", "std::system_error")


def thread_failure(text: str) -> str:
    """The first line of ``text`` saying a thread or process could not be created, or ""."""
    for line in text.splitlines():
        if any(marker in line for marker in THREAD_MARKERS):
            return line.strip()[:200]
    return ""


def _stderr_outputs(nb, index) -> str:
    """What the cell the kernel died in wrote to stderr before it died."""
    if index is None or index >= len(nb.cells):
        return ""
    return "".join(o.get("text", "") for o in nb.cells[index].get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


ALLOCATOR_ERRORS = ("RuntimeError", "OSError")  # how torch and the C++ runtime raise a failed allocation
MEMORY_MARKERS = ("DefaultCPUAllocator: can't allocate memory", "std::bad_alloc", "Cannot allocate memory")


def first_memory_error(nb):
    """The first cell whose error is running out of memory: a MemoryError (numpy's and torch's
    are named so too), or an allocator's failure raised as such. An error that only quotes one
    (a test's check reporting that the student's function failed to allocate, say) is that
    test's verdict, not the sandbox's limit."""
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            ename, evalue = str(out.get("ename", "")), str(out.get("evalue", ""))
            allocator = ename in ALLOCATOR_ERRORS and any(m in evalue for m in MEMORY_MARKERS)
            if ename.endswith("MemoryError") or allocator:
                return index
    return None
