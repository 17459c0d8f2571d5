"""Submissions forked from one template (graders.sandbox.template): each still gets a fresh
sandbox. What one submission leaves behind — files, processes, sockets, IPC objects — is
invisible to the next, and two running side by side (the grading threads of one process
share its template) see nothing of each other; the kernel cannot reach the runner's
descriptors; a submission over its time is killed without disturbing the one beside it; a
template that dies is replaced and the batch goes on.

The hostile programs of test_sandbox.py also run through a template (its ``workdir``
fixture): these tests cover what only a shared template could get wrong.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from conftest import require_program
from graders.sandbox import bwrap, template_host
from graders.sandbox.execute import execute
from graders.sandbox.limits import Limits

LIMITS = Limits(memory_mb=2048, cell_timeout_s=60, notebook_timeout_s=120, max_processes=64,
                max_output_chars=20_000)


@pytest.fixture(autouse=True)
def template():
    require_program("bwrap", "bubblewrap")
    if not template_host.usable(LIMITS):
        pytest.skip("the template needs a root grader (it makes namespaces, then drops to the submission's uid)")
    template = template_host.shared(LIMITS.preload)
    template.wait_ready()
    return template


def run(template, *sources, **limits):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    workdir = Path(tempfile.mkdtemp(prefix="grade-", dir=template.inbox()))
    return execute(nb, workdir, Limits(**{**LIMITS.values(), **limits}), sandbox=True)


def printed(outcome, index: int = 0) -> str:
    cell = outcome.notebook.cells[index]
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


LEAVE_TRACES = """
import ctypes, os, socket, subprocess, time
open('/tmp/left-by-first', 'w').write('x')
open('/dev/shm/left-by-first', 'w').write('x')
open(os.path.expanduser('~/left-by-first'), 'w').write('x')
libc = ctypes.CDLL(None)
segment = libc.shmget(0x5eed, 4096, 0o1666)   # IPC_CREAT | 0666: outlives its creator
listener = socket.socket(); listener.bind(('127.0.0.1', 47123)); listener.listen(1)
subprocess.Popen(['sleep', '300'], start_new_session=True)   # a daemon that would linger
print(segment >= 0, os.getuid())
"""

LOOK_FOR_TRACES = """
import json, os, socket
seen = {}
seen['tmp'] = sorted(os.listdir('/tmp'))
seen['shm'] = sorted(os.listdir('/dev/shm'))
seen['home'] = sorted(os.listdir(os.path.expanduser('~')))
seen['inbox'] = sorted(os.listdir('/grading/inbox'))
seen['ipc'] = open('/proc/sysvipc/shm').read().splitlines()[1:]
seen['processes'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
seen['kernel'] = os.getpid()
probe = socket.socket(); probe.settimeout(2)
seen['port'] = probe.connect_ex(('127.0.0.1', 47123))
seen['caps'] = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0]
seen['uid'] = os.getuid()
for what in ('fd', 'environ', 'mem'):
    try:
        os.listdir('/proc/1/fd') if what == 'fd' else open(f'/proc/1/{what}', 'rb').read(1)
        seen['runner ' + what] = 'readable'
    except OSError as error:
        seen['runner ' + what] = type(error).__name__
print(json.dumps(seen))
"""


def test_what_one_submission_leaves_the_next_cannot_see(template):
    first = run(template, LEAVE_TRACES)
    assert first.status == "ok", first.reason
    assert printed(first).split()[0] == "True"
    second = run(template, LOOK_FOR_TRACES)
    assert second.status == "ok", second.reason
    seen = json.loads(printed(second))
    assert "left-by-first" not in seen["tmp"] + seen["shm"] + seen["home"]
    assert seen["inbox"] == []                     # no other submission's folder
    assert seen["ipc"] == []                       # a fresh IPC namespace
    # its own pid namespace: the runner (1) and this kernel, nothing of the first submission
    assert seen["processes"] == [1, seen["kernel"]], seen["processes"]
    assert seen["port"] != 0                       # the listener died with its namespace
    assert seen["caps"] == "0000000000000000"
    assert seen["uid"] != 0 and str(seen["uid"]) == printed(first).split()[1]
    # the runner (pid 1 here) holds the result stream: not dumpable, so not even its uid reads it
    assert seen["runner fd"] == seen["runner environ"] == seen["runner mem"] == "PermissionError"


def test_the_kernel_starts_as_a_fresh_one_would(template):
    outcome = run(template, "import os, sys, gc\n"
                  "print(os.getcwd(), sys.path[0], sorted(os.listdir('/proc/self/fd'))[:3],\n"
                  "      os.environ['HOME'], sorted(n for n in dir() if not n.startswith('_')))",
                  "def f():\n    return 1\nprint(__name__, f.__module__, f())")
    assert outcome.status == "ok", outcome.reason
    cwd, path0, *rest = printed(outcome, 0).split(" ", 2)
    assert cwd == path0 == "/grading/work"          # files next to the notebook import
    assert printed(outcome, 1) == "__main__ __main__ 1\n"


def test_a_template_killed_mid_submission_costs_that_submission_only(template):
    killer = threading.Timer(4.0, lambda: os.killpg(template.proc.pid, signal.SIGKILL))
    killer.start()
    try:
        hit = run(template, "import time\ntime.sleep(30)")
    finally:
        killer.cancel()
    assert hit.status == "crashed", hit.reason
    assert "without a result" in hit.reason
    started = time.monotonic()
    after = run(template, "print(6 * 7)")  # a new template starts on demand
    assert after.status == "ok", after.reason
    assert printed(after) == "42\n"
    assert time.monotonic() - started < template_host.READY_S


SIDE_BY_SIDE = """
import json, os, time
began = time.time()
open(f'/tmp/mine-{os.getuid()}', 'w').write('x')
time.sleep(2.5)   # long enough for the other submission to be running too
print(json.dumps({'uid': os.getuid(), 'tmp': sorted(os.listdir('/tmp')), 'inbox': os.listdir('/grading/inbox'),
                  'processes': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
                  'kernel': os.getpid(), 'began': began, 'ended': time.time()}))
"""


def side_by_side(*jobs):
    """Run each ``job()`` in a thread of its own, as the local pool does; their results."""
    results = [None] * len(jobs)

    def call(index, job):
        results[index] = (job(), bwrap.submission_uid())

    threads = [threading.Thread(target=call, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    return results


def test_two_submissions_side_by_side_see_nothing_of_each_other(template):
    pid = template.proc.pid
    (first, first_uid), (second, second_uid) = side_by_side(lambda: run(template, SIDE_BY_SIDE),
                                                            lambda: run(template, SIDE_BY_SIDE))
    assert first.status == second.status == "ok", (first.reason, second.reason)
    a, b = json.loads(printed(first)), json.loads(printed(second))
    assert a["began"] < b["ended"] and b["began"] < a["ended"]  # they did run at the same time
    assert template.proc.pid == pid                             # through the one template
    assert (a["uid"], b["uid"]) == (first_uid, second_uid) and first_uid != second_uid
    for seen in (a, b):
        assert [n for n in seen["tmp"] if n.startswith("mine-")] == [f"mine-{seen['uid']}"]
        assert seen["inbox"] == []
        assert seen["processes"] == [1, seen["kernel"]]


def test_a_submission_over_its_time_is_killed_and_the_one_beside_it_finishes(template, monkeypatch):
    pid = template.proc.pid
    # the grader's own deadline (notebook limit + 30 s) made short: the grader hangs up on
    # the channel, and the template's fork must kill that submission alone
    monkeypatch.setattr(template, "run", lambda w, h, b, _: template_host.Template.run(template, w, h, b, 6))
    (slow, slow_uid), (quick, _) = side_by_side(lambda: run(template, "import time\ntime.sleep(120)"),
                                                lambda: run(template, "import time\ntime.sleep(1)\nprint(6 * 7)"))
    assert slow.status == "timeout", slow.reason
    assert quick.status == "ok" and printed(quick) == "42\n", quick.reason
    assert template.proc.pid == pid and template.proc.poll() is None  # nothing else was killed
    deadline = time.monotonic() + 10
    while (left := [p.pid for p in psutil.process_iter(["uids"]) if p.info["uids"].real == slow_uid]) \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == []
    monkeypatch.undo()
    after = run(template, "print(6 * 7)")
    assert after.status == "ok" and printed(after) == "42\n", after.reason


def test_a_folder_outside_the_inbox_gets_a_sandbox_of_its_own(template, tmp_path):
    outcome = execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import os; print(os.getcwd())")]),
                      tmp_path, LIMITS, sandbox=True)
    assert outcome.status == "ok", outcome.reason
    assert printed(outcome) == f"{tmp_path.resolve()}\n"


def test_the_template_can_be_turned_off_in_the_course_config(tmp_path):
    from graders.course.config import Course
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.Limits.template = False\n")
    limits = Course(tmp_path).limits()
    assert limits.template is False
    assert not template_host.usable(limits)
