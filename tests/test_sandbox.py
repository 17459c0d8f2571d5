"""Hostile submissions through graders.sandbox (with the integrity canaries of
graders.autograde.integrity): contained, reported, honest ones exact.

Every hostile program bounds its own damage (bytes, processes, seconds), so running these
tests is safe even where containment fails. Tests that need bubblewrap skip outside CI
when it is missing and fail under CI=true.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
import uuid
from pathlib import Path

import nbformat
import psutil
import pytest
from nbclient import NotebookClient

from conftest import require_program
from graders.autograde.integrity import execute_checked
from graders.sandbox import bwrap as sb
from graders.sandbox import template_host
from graders.sandbox.execute import execute
from graders.sandbox.limits import Limits

REPO = Path(__file__).resolve().parent.parent
FAST = Limits(memory_mb=2048, cell_timeout_s=60, notebook_timeout_s=180, max_processes=64,
              max_output_chars=10_000)


@pytest.fixture(autouse=True)
def bwrap():
    require_program("bwrap", "bubblewrap")


RESTING: set[int] = set()  # the shared template's own processes, alive between submissions


@pytest.fixture(params=["fresh sandbox", "template"])
def workdir(request, tmp_path):
    """Each hostile program twice: in a bubblewrap of its own, and forked from this
    process's template (graders.sandbox.template_host: a folder in its inbox)."""
    if request.param == "fresh sandbox":
        path = tmp_path / "scratch"
        path.mkdir()
        yield path
        return
    if not template_host.usable(FAST):
        pytest.skip("the template needs a root grader (it makes namespaces, then drops to the submission's uid)")
    template = template_host.shared(FAST.preload)
    template.wait_ready()
    RESTING.update(p.pid for p in psutil.Process(template.proc.pid).children(recursive=True))
    RESTING.add(template.proc.pid)
    path = Path(tempfile.mkdtemp(prefix="grade-", dir=template.inbox()))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def nothing_left_behind():
    """After each test: none of our children (bwrap, runner, kernel) and no process of this
    grading process's submission uid (an orphan escaping the tree) is alive. Other gradings
    on the same machine have other uids and are not ours to judge."""
    me = psutil.Process()
    # Children older than the test (multiprocessing's resource tracker, started by an earlier
    # test's worker pool, lives as long as pytest) are not this test's leftovers.
    before = {p.pid for p in me.children(recursive=True)}
    yield
    uid = sb.submission_uid()

    def alive(proc) -> bool:
        try:
            return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    def leftovers():
        found = [(p.pid, " ".join(p.cmdline())[:100]) for p in me.children(recursive=True)
                 if p.pid not in before | RESTING and alive(p)]
        for proc in psutil.process_iter(["pid", "uids", "cmdline"]):
            # the submission's uid: a zombie counts too, as it always did here
            if uid is not None and proc.info["uids"] and proc.info["uids"].real == uid and proc.is_running():
                found.append((proc.info["pid"], " ".join(proc.info["cmdline"] or [])[:100]))
        return found
    # A killed pid namespace's processes are SIGKILLed at once but exit one by one: after a
    # fork bomb, a slow machine still listed some of them (no command line: exiting) at
    # teardown. Killed ones are gone within seconds; an escaped orphan is still here after 10.
    deadline = time.monotonic() + 10
    while (found := leftovers()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not found, found


def code(source: str, test_id: str | None = None):
    cell = nbformat.v4.new_code_cell(source)
    if test_id:
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True,
                                     "grade_id": test_id, "points": 1, "schema_version": 3}
    return cell


def notebook(*sources) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=[code(s) if isinstance(s, str) else s for s in sources])


def texts(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def run(nb, workdir, limits=FAST):
    return execute_checked(nb, workdir, limits, sandbox=True)


# --- honest ------------------------------------------------------------------------------

HONEST = notebook(
    "import torch\nx = torch.arange(6.).reshape(2, 3)\nprint(x.sum(dim=0))",
    "x.T",
    "from IPython.display import display, Markdown\ndisplay(Markdown('**hi**'))",
    "import sys\nprint('to stderr', file=sys.stderr)",
    "1 / 0",
    code("assert x.shape == (2, 3)", test_id="shape-test"),
    "open('answer.txt', 'w').write('42')\nprint(open('answer.txt').read())",
)


def _normalized(nb):
    return [(c.get("execution_count"), [
        {k: v for k, v in o.items() if k != "traceback"} for o in c.get("outputs", [])])
        for c in nb.cells]


def test_honest_notebook_executes_exactly_as_plain_nbclient(workdir, tmp_path):
    plain_dir = tmp_path / "plain"
    plain_dir.mkdir()
    expected = NotebookClient(nbformat.from_dict(HONEST), allow_errors=True, kernel_name="python3",
                              resources={"metadata": {"path": str(plain_dir)}}).execute()
    outcome = run(HONEST, workdir)
    assert outcome.status == "ok", outcome.reason
    assert outcome.findings == []
    assert len(outcome.notebook.cells) == len(HONEST.cells)  # canaries stripped
    assert _normalized(outcome.notebook) == _normalized(expected)
    assert (workdir / "answer.txt").read_text() == "42"
    assert os.stat(workdir / "answer.txt").st_uid == os.stat(workdir).st_uid  # handed back


# --- time, memory, crashes -----------------------------------------------------------------

def test_endless_loop_is_a_timeout_naming_the_cell(workdir):
    limits = Limits(cell_timeout_s=3, notebook_timeout_s=60)
    outcome = run(notebook("print('start')", "while True:\n    pass", "print('never')"), workdir, limits)
    assert outcome.status == "timeout"
    assert "cell #2" in outcome.reason and "per-cell limit of 3 s" in outcome.reason
    assert texts(outcome.notebook.cells[0]) == "start\n"
    assert "CellTimeoutError" in [o.ename for o in outcome.notebook.cells[1].outputs
                                  if o.output_type == "error"]  # scores 0, as under nbgrader


def test_notebook_limit_is_a_timeout_naming_the_limit(workdir):
    limits = Limits(cell_timeout_s=30, notebook_timeout_s=12)
    sleepy = "import time\ntime.sleep(4)"
    outcome = run(notebook(sleepy, sleepy, sleepy, sleepy, sleepy), workdir, limits)
    assert outcome.status == "timeout"
    assert "total limit of 12 s" in outcome.reason


@pytest.mark.parametrize("bomb", ["x = bytearray(3 * 2**30)",
                                  "import torch\nx = torch.ones(3 * 2**30, dtype=torch.uint8)"])
def test_memory_bomb_is_memory(bomb, workdir):
    # 3 GiB at most, above the 2 GiB limit: bounded even without RLIMIT_AS
    outcome = run(notebook(bomb, "print('after')"), workdir)
    assert outcome.status == "memory", outcome.reason
    assert "cell #1" in outcome.reason and "2048 MiB" in outcome.reason


def test_a_check_reporting_a_failed_allocation_is_a_verdict_not_the_memory_limit():
    from graders.sandbox.execute import first_memory_error
    said = "DefaultCPUAllocator: can't allocate memory: you tried to allocate 4000000000000000000 bytes"
    nb = notebook("x", "y")
    nb.cells[1].outputs = [nbformat.v4.new_output("error", ename="CheckFailed", traceback=[],
                                                  evalue=f"strides((10**6,) * 3) raised RuntimeError: {said}")]
    assert first_memory_error(nb) is None  # a wrong answer the test caught
    nb.cells[1].outputs[0].ename = "RuntimeError"
    nb.cells[1].outputs[0].evalue = f"[enforce fail at alloc_cpu.cpp:127] {said}"
    assert first_memory_error(nb) == 1
    nb.cells[1].outputs[0].ename = "_ArrayMemoryError"  # numpy's
    assert first_memory_error(nb) == 1


def test_a_kernel_killed_near_its_memory_limit_is_memory(workdir):
    # no MemoryError to see: only the sampled address space says why the kernel died
    near = ("import mmap, os, time\n"
            "vm = int([l for l in open('/proc/self/status') if l.startswith('VmSize')][0].split()[1]) * 1024\n"
            f"block = mmap.mmap(-1, int({FAST.memory_mb} * 2**20 * 0.95) - vm)\n"
            "time.sleep(0.5)\n"
            "os.kill(os.getpid(), 9)")
    outcome = run(notebook(near, "print('after')"), workdir)
    assert outcome.status == "memory", outcome.reason
    assert "cell #1" in outcome.reason and "SIGKILL" in outcome.reason


def test_os_exit_is_a_crash_naming_the_cell(workdir):
    outcome = run(notebook("print(1)", "import os\nos._exit(3)", "print(2)"), workdir)
    assert outcome.status == "crashed"
    assert "cell #2" in outcome.reason and "code 3" in outcome.reason


def test_segfault_is_a_crash_naming_the_signal(workdir):
    outcome = run(notebook("import ctypes\nctypes.string_at(0)"), workdir)
    assert outcome.status == "crashed"
    assert "cell #1" in outcome.reason and "SIGSEGV" in outcome.reason


def test_fork_bomb_is_bounded_by_the_process_limit(workdir):
    bomb = ("import os, time\nn, err = 0, None\n"
            "for i in range(300):\n"
            "    try:\n        pid = os.fork()\n"
            "    except OSError as e:\n        err = e.errno; break\n"
            "    if pid == 0:\n        time.sleep(5); os._exit(0)\n"
            "    n += 1\nprint(n, err)")
    outcome = run(notebook(bomb), workdir)
    assert outcome.status == "ok", outcome.reason
    started, err = texts(outcome.notebook.cells[0]).split()
    assert int(started) < FAST.max_processes and err == "11"  # EAGAIN
    # the sleeping children died with the sandbox: the autouse fixture checks



MATMUL = "a = torch.randn(1024, 1024)\nprint(bool((a @ a).isfinite().all()), torch.get_num_threads())"


def test_more_threads_than_allowed_are_clamped_with_a_line_not_a_dead_kernel(workdir):
    # graded `crashed` (SIGSEGV) before: 64 threads asked, each started at the next product
    outcome = run(notebook("import torch\ntorch.set_num_threads(64)", MATMUL, "print('after')"), workdir)
    assert outcome.status == "ok", outcome.reason
    said = texts(outcome.notebook.cells[0])
    assert "torch.set_num_threads(64) asks for more threads than this sandbox allows" in said, said
    finite, threads = texts(outcome.notebook.cells[1]).split()
    assert finite == "True" and 1 < int(threads) < 32 and f"using {threads}." in said
    assert texts(outcome.notebook.cells[2]) == "after\n"
    # within the limits, a request is left alone
    outcome = run(notebook("import torch\ntorch.set_num_threads(4)", MATMUL), workdir)
    assert outcome.status == "ok" and texts(outcome.notebook.cells[0]) == "", outcome.reason
    assert texts(outcome.notebook.cells[1]).split() == ["True", "4"]


def test_a_kernel_that_cannot_create_a_thread_says_so(workdir):
    # torch._C's own setter, under the clamp: the threads are asked for at the product
    outcome = run(notebook("import torch\ntorch._C.set_num_threads(64)", MATMUL, "print('after')"), workdir)
    assert outcome.status == "crashed", outcome.reason
    assert "cell #2" in outcome.reason and "could not create a thread or process" in outcome.reason, outcome.reason
    assert "64 processes and threads" in outcome.reason


# --- network and files -----------------------------------------------------------------------

def test_host_loopback_is_unreachable(workdir):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(1)
    port = listener.getsockname()[1]
    received = []

    def accept():
        try:
            conn, _ = listener.accept()
            received.append(conn.recv(100))
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    probe = (f"import socket\ns = socket.socket(); s.settimeout(2)\n"
             f"try:\n    s.connect(('127.0.0.1', {port})); s.sendall(b'leak'); print('connected')\n"
             f"except OSError as e:\n    print('refused')")
    outcome = run(notebook(probe), workdir)
    thread.join()
    listener.close()
    assert texts(outcome.notebook.cells[0]) == "refused\n"
    assert received == []


def test_nothing_outside_the_scratch_copy_is_visible_or_writable(workdir, tmp_path):
    course = tmp_path / "course"
    (course / "source" / "a").mkdir(parents=True)
    (course / "source" / "a" / "a.ipynb").write_text("SECRET-SOURCE")
    (course / "submitted" / "other" / "a").mkdir(parents=True)
    (course / "submitted" / "other" / "a" / "a.ipynb").write_text("OTHER-STUDENT")
    (course / "gradebook.db").write_text("GRADEBOOK")
    mark = uuid.uuid4().hex
    targets = [course / "gradebook.db", course / "source" / "a" / "a.ipynb",
               course / "submitted" / "other" / "a" / "a.ipynb", course / f"new-{mark}",
               REPO / f"new-{mark}", REPO / "helpers" / f"new-{mark}",
               Path("/tmp") / f"host-{mark}", Path.home() / f"home-{mark}"]
    probe = ("import json\nresult = {}\n"
             f"for path in {[str(t) for t in targets]!r}:\n"
             "    try:\n        result[path + ' read'] = open(path).read()[:20]\n"
             "    except OSError as e:\n        result[path + ' read'] = type(e).__name__\n"
             "    try:\n        open(path, 'a').write('pwned')\n        result[path + ' write'] = 'written'\n"
             "    except OSError as e:\n        result[path + ' write'] = type(e).__name__\n"
             "import os\nresult['repo'] = sorted(os.listdir('" + str(REPO) + "'))\n"
             "result['env'] = sorted(os.environ)\nprint(json.dumps(result))")
    outcome = run(notebook(probe), workdir)
    assert outcome.status == "ok", outcome.reason
    import json
    result = json.loads(texts(outcome.notebook.cells[0]))
    for path in targets:
        assert result[f"{path} read"] in ("FileNotFoundError", "PermissionError"), (path, result)
        if path.parent != Path("/tmp"):  # /tmp inside is the sandbox's own tmpfs
            assert result[f"{path} write"] != "written", path
    assert result["repo"] == sorted(p.name for p in sb.package_paths() + [Path(os.sys.prefix)]
                                    if p.parent == REPO)
    assert not any("TOKEN" in name or "KEY" in name for name in result["env"])
    # the host is untouched
    assert (course / "gradebook.db").read_text() == "GRADEBOOK"
    assert (course / "source" / "a" / "a.ipynb").read_text() == "SECRET-SOURCE"
    for path in targets:
        assert not path.name.startswith(("new-", "host-", "home-")) or not path.exists()


def test_output_flood_is_cut_with_a_note(workdir):
    # 64 MB printed in 1 MB pieces; the client keeps 10 000 characters
    flood = "import sys\nfor _ in range(64):\n    sys.stdout.write('x' * 2**20)\nprint('done')"
    outcome = run(notebook(flood, "print('next cell')"), workdir)
    assert outcome.status == "ok", outcome.reason
    kept = texts(outcome.notebook.cells[0])
    assert len(kept) < FAST.max_output_chars + 200
    assert "output cut by the grader" in kept
    assert texts(outcome.notebook.cells[1]) == "next cell\n"


LOADER = """
import torch
from torch.utils.data import DataLoader, TensorDataset
data = TensorDataset(torch.arange(64.).reshape(32, 2))
total = sum(float(b[0].sum()) for b in DataLoader(data, batch_size=4, num_workers=2))
print(total)
"""


def test_dataloader_workers_run_and_shared_memory_is_capped(workdir):
    # 05_data asks for num_workers > 0: the workers hand batches back through /dev/shm
    shm = "import shutil\nprint(shutil.disk_usage('/dev/shm').total // 2**20)"
    outcome = run(notebook(LOADER, shm), workdir)
    assert outcome.status == "ok", outcome.reason
    assert texts(outcome.notebook.cells[0]).strip() == str(float(sum(range(64))))
    assert int(texts(outcome.notebook.cells[1])) == sb.SHM_BYTES // 2**20


# --- tampering -------------------------------------------------------------------------------

SETUP = "import torch, numpy as np\nfrom helpers import checks\nx = torch.tensor([1., 2.])"
TEST = code("checks.expect_close(x, torch.tensor([5., 6.]))\n"
            "assert torch.allclose(x, torch.tensor([5., 6.]))\n"
            "assert torch.equal(x, torch.tensor([5., 6.]))\n"
            "np.testing.assert_allclose(x.numpy(), [5., 6.])", test_id="close-test")

TAMPERING = {
    "comparisons": (
        "torch.allclose = lambda *a, **k: True\ntorch.equal = lambda *a, **k: True\n"
        "np.testing.assert_allclose = lambda *a, **k: None",
        ["torch.allclose was replaced", "torch.equal was replaced",
         "numpy.testing.assert_allclose was replaced"]),
    "checks": (
        # a check is a decorator's wrapper (helpers.checks counts the checks that ran): the
        # function it wraps is patched in place
        "checks.expect_close = lambda *a, **k: None\n"
        "checks.expect_equal.__wrapped__.__code__ = (lambda *a, **k: None).__code__",
        ["helpers.checks.expect_close was replaced", "helpers.checks.expect_equal was modified",
         "a check that must fail did not fail"]),
    "builtins": (
        "import builtins, functools\nbuiltins.isinstance = functools.partial(builtins.isinstance)\n"
        "builtins.print = lambda *a, **k: None\nAssertionError = ZeroDivisionError",
        ["builtins.isinstance was replaced", "builtins.print was replaced",
         "the name AssertionError was rebound"]),
    "hooks": (
        "import sys\nip = get_ipython()\nip.set_custom_exc((Exception,), lambda *a, **k: None)\n"
        "sys.excepthook = lambda *a: None\n"
        "type(ip).showtraceback = lambda *a, **k: None",
        # ipykernel reinstalls its own sys.excepthook per execution: that one cannot stick
        ["custom exception handler", "IPython's showtraceback"]),
    "rewriting": (
        "import ast\nclass Swallow(ast.NodeTransformer):\n"
        "    def visit_Module(self, node):\n"
        "        body = ast.Try(body=node.body or [ast.Pass()], handlers=[ast.ExceptHandler(\n"
        "            type=None, name=None, body=[ast.Pass()])], orelse=[], finalbody=[])\n"
        "        return ast.fix_missing_locations(ast.Module(body=[body], type_ignores=[]))\n"
        "get_ipython().ast_transformers.append(Swallow())",
        ["ast_transformers were changed"]),
    "self-restoring": (
        "_real = torch.allclose\n"
        "def _once(*a, **k):\n    torch.allclose = _real\n    return True\n"
        "torch.allclose = _once",
        ["torch.allclose was replaced (before close-test)"]),
    "module-name": (
        "class _Fake:\n    def __getattr__(self, name):\n        return lambda *a, **k: True\n"
        "torch = _Fake()",
        ["the name torch no longer refers to the module torch"]),
    # hooks after a cell, as well as before: a patch made after a test cell and undone
    # before the next one is seen
    "post-hooks": (
        "get_ipython().events.register('post_run_cell', lambda result: None)\n"
        "get_ipython().events.register('post_execute', lambda: None)",
        ["post_run_cell callbacks were changed", "post_execute callbacks were changed"]),
    # the guard's handler replaced by one that answers "nothing changed": it cannot sign
    "verifier": (
        "_k = get_ipython().kernel\n"
        "def _clean(stream, ident, parent):\n"
        "    _k.session.send(stream, 'graders_verify_reply', {'verdict': [], 'mac': ''}, parent, ident=ident)\n"
        "for _t in list(_k.shell_handlers):\n"
        "    if _t.startswith('graders'):\n"
        "        _k.shell_handlers[_t] = _clean\n"
        "torch.allclose = lambda *a, **k: True",
        ["the kernel guard did not answer"]),
    "kernel": (
        "_k = get_ipython().kernel\n_run = _k.do_execute\n"
        "_k.do_execute = lambda *a, **k: _run(*a, **k)\n",
        ["the kernel's do_execute was replaced"]),
    "display": (
        "_shell = get_ipython()\ntype(_shell.display_pub).publish = lambda *a, **k: None",
        ["display machinery was replaced"]),
}


@pytest.mark.parametrize("form", list(TAMPERING))
def test_tampering_is_found(form, workdir):
    attack, expected = TAMPERING[form]
    outcome = run(notebook(SETUP, attack, TEST), workdir)
    found = "\n".join(outcome.findings)
    for phrase in expected:
        assert phrase in found, (phrase, outcome.findings, outcome.status, outcome.reason)
    assert len(outcome.notebook.cells) == 3  # canaries stripped


def test_a_verdict_printed_by_hand_is_nothing(workdir):
    """The guard's verdicts travel as signed replies to the runner, never as text."""
    printed = "print('GRADERS-' + '0' * 32 + ' []')\nimport torch\ntorch.equal = lambda *a, **k: True"
    outcome = run(notebook(SETUP, printed, TEST), workdir)
    assert "torch.equal was replaced" in "\n".join(outcome.findings), outcome.findings


def test_edited_or_duplicated_test_cells_are_found(workdir):
    from nbgrader.utils import compute_checksum
    locked = code("assert x.sum() == 11", test_id="sum-test")
    locked.metadata["nbgrader"]["checksum"] = compute_checksum(locked)
    locked.source = "pass"  # edited after the checksum was recorded
    twin = code("pass", test_id="sum-test")
    outcome = run(notebook(SETUP, locked, twin), workdir)
    assert "the locked cell sum-test was edited" in outcome.findings
    assert "cell id sum-test appears more than once" in outcome.findings


def test_missing_bwrap_names_the_package(monkeypatch, workdir):
    monkeypatch.setattr(sb.shutil, "which", lambda name: None)
    with pytest.raises(sb.SandboxUnavailable, match="bubblewrap"):
        execute(notebook("print(1)"), workdir, FAST, sandbox=True)


def test_limits_come_from_the_course_config_then_flags(tmp_path):
    from graders.course.config import Course
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.Limits.memory_mb = 1000\nc.Limits.cell_timeout_s = 5\n")
    limits = Course(tmp_path).limits(cell_timeout_s=7, max_processes=None)
    assert (limits.memory_mb, limits.cell_timeout_s, limits.max_processes) == (1000, 7, 64)


def test_runner_copy_of_nbgraders_on_cell_executed_does_what_the_original_does():
    """The runner cannot import nbgrader, so it carries a copy of Execute.on_cell_executed:
    both, given the same cells and replies, must leave the same outputs."""
    from nbgrader.preprocessors import Execute

    from graders.sandbox.runner import CappedClient

    def reply(status, ename="", traceback=None):
        return {"content": {"status": status, "ename": ename, "evalue": "why",
                            "traceback": [] if traceback is None else traceback}}

    shown = nbformat.v4.new_output("error", ename="ValueError", evalue="why", traceback=["tb"])
    cases = [([], reply("ok")), ([], reply("error", "ValueError", ["tb"])),
             ([shown], reply("error", "ValueError", ["tb"])), ([shown], reply("error", "KeyError")),
             ([], reply("error", "CellTimeoutError"))]
    for outputs, execute_reply in cases:
        theirs, ours = code("x"), code("x")
        theirs.outputs, ours.outputs = [dict(o) for o in outputs], [dict(o) for o in outputs]
        theirs, ours = nbformat.from_dict(theirs), nbformat.from_dict(ours)
        Execute().on_cell_executed(cell=theirs, cell_index=0, execute_reply=execute_reply)
        CappedClient.show_undisplayed_error(cell=ours, cell_index=0, execute_reply=execute_reply)
        assert ours.outputs == theirs.outputs, (outputs, execute_reply)


def test_execution_side_never_imports_nbgrader():
    """What a worker, the runner and the kernel guard import: no nbgrader, no gradebook."""
    import subprocess
    import sys
    probe = ("import sys\nimport graders.autograde.worker, graders.sandbox.runner, graders.sandbox.guard\n"
             "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'nbgrader', 'sqlalchemy', "
             "'jupyter_server', 'alembic', 'tqdm'})\nprint(heavy)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


# --- a batch through `course autograde` --------------------------------------------------------

SWALLOW = ("import ast\nclass _Swallow(ast.NodeTransformer):\n"
           "    def visit_Module(self, node):\n"
           "        body = ast.Try(body=node.body or [ast.Pass()], handlers=[ast.ExceptHandler(\n"
           "            type=None, name=None, body=[ast.Pass()])], orelse=[], finalbody=[])\n"
           "        return ast.fix_missing_locations(ast.Module(body=[body], type_ignores=[]))\n"
           "get_ipython().ast_transformers.append(_Swallow())\n")


def test_hostile_and_honest_graded_together_through_course_autograde(tmp_path):
    import json
    import subprocess
    import sys

    import grading_course as gc
    course = tmp_path / "course"
    _, release = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
    add_ok = "def add(a, b):\n    return a + b"
    mul_ok, mul_wrong = "def mul(a, b):\n    return a * b", "def mul(a, b):\n    return a + b"
    snoop = (f"import os\nprint('EXISTS', os.path.exists({str(course)!r}))\n"
             f"try:\n    open({str(course / 'gradebook.db')!r}, 'w').write('x')\n"
             "except OSError:\n    pass\n")
    gc.submit(course, "honest", "tiny", gc.answers(release, **{"tiny-add": add_ok, "tiny-mul": mul_ok}))
    gc.submit(course, "wrong", "tiny", gc.answers(release, **{"tiny-add": add_ok, "tiny-mul": mul_wrong}))
    gc.submit(course, "swallow", "tiny", gc.answers(release, **{"tiny-add": SWALLOW + add_ok,
                                                                "tiny-mul": mul_wrong}))
    gc.submit(course, "snoop", "tiny", gc.answers(release, **{"tiny-add": snoop + add_ok, "tiny-mul": mul_ok}))
    gc.submit(course, "loop", "tiny", gc.answers(release, **{"tiny-add": add_ok,
                                                             "tiny-mul": "while True:\n    pass"}))
    gradebook_before = (course / "gradebook.db").read_bytes()
    ran = subprocess.run([str(Path(sys.executable).parent / "course"), "autograde", "--course-dir",
                          str(course), "--workers", "2", "--cell-timeout", "5", "--notebook-timeout", "60"],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    records = json.loads((course / "grading_status.json").read_text())
    got = {key.split("/")[0]: (r["status"], r["score"]) for key, r in records.items()}
    assert got["honest"] == ("ok", 5) and got["wrong"] == ("ok", 2)
    assert got["snoop"] == ("ok", 5)  # saw nothing, wrote nothing, still graded exactly
    assert got["swallow"] == ("invalid", 0), records["swallow/tiny"]
    assert "ast_transformers" in records["swallow/tiny"]["reason"]
    assert got["loop"][0] == "timeout"
    assert gradebook_before[:15] == (course / "gradebook.db").read_bytes()[:15] == b"SQLite format 3"
    snooped = nbformat.read(str(course / "autograded" / "snoop" / "tiny" / "tiny.ipynb"), as_version=4)
    printed = "".join(texts(c) for c in snooped.cells if c.cell_type == "code")
    assert "EXISTS False" in printed  # the course directory did not exist inside


def test_small_memory_limit_where_torch_cannot_import_is_not_tampering(workdir):
    # under 1 GiB torch cannot import: the prologue must watch what exists, not cry wolf
    outcome = run(notebook("print(1)"), workdir, Limits(memory_mb=1024, cell_timeout_s=60))
    assert outcome.status == "ok", outcome.reason
    assert outcome.findings == []


def test_without_sandbox_the_same_statuses_and_nothing_left(workdir):
    # a duration no other test uses: xdist runs this test's other parameter at the same time
    duration = f"30.{uuid.uuid4().int % 10**9}"
    outcome = execute(notebook("print(1)", f"import subprocess\nsubprocess.Popen(['sleep', '{duration}'])",
                               "while True:\n    pass"),
                      workdir, Limits(cell_timeout_s=5, notebook_timeout_s=60), sandbox=False)
    assert outcome.status == "timeout" and "cell #3" in outcome.reason
    assert texts(outcome.notebook.cells[0]) == "1\n"
    # the sleep started by the submission is in the kernel's session, killed with it
    assert not [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", duration]]
