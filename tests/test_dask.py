"""`course autograde --scheduler` and `course feedback --scheduler`: a real
distributed.LocalCluster (2 worker processes of 2 threads each, the threads of a process
sharing its template; the same sandbox) grades as the local pool does, each worker running
the whole pipeline under the course's own nbgrader configuration; a worker killed mid-batch
loses nothing and duplicates nothing; a scheduler that cannot be reached, or a worker that
cannot sandbox, is a clear error."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

import grading_course as gc
from conftest import require_program
from graders.autograde.batch import autograde
from graders.autograde.cluster import connect
from graders.course.layout import CourseError

distributed = pytest.importorskip("distributed")

SLEEPY = "def mul(a, b):\n    import time\n    time.sleep(1.5)\n    return a * b"


def _sandbox() -> bool:
    require_program("bwrap", "bubblewrap")  # the hostile cases need the real sandbox
    return True


def _reference(release) -> dict:
    return gc.answers(release, **{"tiny-add": "def add(a, b):\n    return a + b",
                                  "tiny-mul": "def mul(a, b):\n    return a * b"})


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                                  dashboard_address=":0", memory_limit=0) as local:
        yield local


def _records(course: Path) -> dict:
    return {key: (r["status"], r["score"], r["max_score"], r["reason"])
            for key, r in json.loads((course / "grading_status.json").read_text()).items()}


def test_mixed_batch_grades_as_the_local_pool(cluster, tmp_path):
    local, remote = tmp_path / "local", tmp_path / "remote"
    for course in (local, remote):
        _, release = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
        ref = _reference(release)
        gc.submit(course, "ref", "tiny", ref)
        gc.submit(course, "blank", "tiny", release)
        gc.submit(course, "wrong", "tiny", gc.answers(ref, **{"tiny-mul": "def mul(a, b):\n    return a + b"}))
        gc.submit(course, "hooked", "tiny", gc.answers(ref, **{"tiny-add": (
            "get_ipython().events.register('pre_run_cell', lambda info: print(info.raw_cell))\n"
            "def add(a, b):\n    return a + b")}))
        gc.submit(course, "reader", "tiny", gc.answers(ref, **{"tiny-add": (
            "import glob\nfound = glob.glob('/work/**/gradebook.db', recursive=True) + glob.glob('/tmp/**/*.db')\n"
            "def add(a, b):\n    return a + b if not found else 0")}))
        gc.submit(course, "dies", "tiny",
                  gc.answers(ref, **{"tiny-mul": "def mul(a, b):\n    import os\n    os._exit(3)"}))
    expected = autograde(local, workers=2, sandbox=_sandbox(), progress=False)
    started = time.monotonic()
    got = autograde(remote, scheduler=cluster.scheduler_address, sandbox=_sandbox(), progress=False)
    print(f"LocalCluster: {len(got)} submissions in {time.monotonic() - started:.1f} s")
    assert [(r.key, r.status, r.score) for r in got] == [(r.key, r.status, r.score) for r in expected]
    assert _records(remote) == _records(local)
    assert gc.scores(remote) == gc.scores(local)
    status = {key: r[0] for key, r in _records(remote).items()}
    assert status == {"ref/tiny": "ok", "blank/tiny": "ok", "wrong/tiny": "ok", "hooked/tiny": "invalid",
                      "reader/tiny": "ok", "dies/tiny": "crashed"}
    assert _records(remote)["reader/tiny"][1] == 5, "the sandbox on a Dask worker hides the gradebook"
    assert _records(remote)["wrong/tiny"][1] == 2


def test_worker_killed_mid_batch_loses_nothing(cluster, tmp_path):
    course = tmp_path / "course"
    _, release = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
    ref = gc.answers(_reference(release), **{"tiny-mul": SLEEPY})
    students = [f"s{k}" for k in range(4)]
    for student in students:
        gc.submit(course, student, "tiny", ref)
    watcher = distributed.Client(cluster.scheduler_address, set_as_default=False)
    pids = watcher.run(os.getpid)
    killed = {}

    def kill_a_busy_worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for address, keys in watcher.processing().items():
                if keys and address in pids:
                    time.sleep(1.0)  # inside the submission: kernel started, cells running
                    killed["key"] = list(watcher.processing().get(address, []))
                    os.kill(pids[address], signal.SIGKILL)
                    killed["address"] = address
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=kill_a_busy_worker)
    thread.start()
    try:
        records = autograde(course, scheduler=cluster.scheduler_address, sandbox=_sandbox(), progress=False)
    finally:
        thread.join()
        watcher.close()
    assert killed.get("key"), "no worker was killed while it held a submission"
    assert [r.key for r in records] == [f"{s}/tiny" for s in students]
    assert {r.key: (r.status, r.score) for r in records} == {f"{s}/tiny": ("ok", 5.0) for s in students}
    stored = json.loads((course / "grading_status.json").read_text())
    assert sorted(stored) == sorted(f"{s}/tiny" for s in students)
    rows = gc.gradebook_rows(course)
    assert len(rows) == len({(r[0], r[2]) for r in rows}) == 2 * len(students), "one row per cell per submission"
    # the cluster is whole again for other tests (the nanny restarts the killed process)
    cluster.wait_for_workers(2, timeout=60)


def test_unreachable_scheduler_is_a_clear_error_not_a_hang():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once closed
    started = time.monotonic()
    with pytest.raises(CourseError, match="cannot reach the Dask scheduler"):
        connect(f"tcp://127.0.0.1:{port}", timeout=2)
    assert time.monotonic() - started < 15


def test_worker_without_bwrap_is_named_before_anything_is_sent(tmp_path):
    course = tmp_path / "course"
    _, release = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
    gc.submit(course, "ref", "tiny", _reference(release))
    # a PATH without bwrap: as on a machine where the package is missing
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit=0, env={"PATH": str(Path(sys.executable).parent)}) as lone:
        worker_address = next(iter(lone.scheduler_info["workers"]))
        with pytest.raises(CourseError) as error:
            autograde(course, scheduler=lone.scheduler_address, sandbox=True, progress=False)
    assert "bwrap not found" in str(error.value) and "bubblewrap" in str(error.value)
    assert worker_address in str(error.value)
    assert not (course / "grading_status.json").exists(), "nothing graded, nothing recorded"
    assert not (course / "autograded").exists(), "nothing was sent"


def test_warm_starts_each_workers_template_before_any_submission():
    from graders.autograde.cluster import DaskPool
    from graders.sandbox import template_host
    from graders.sandbox.limits import Limits

    _sandbox()
    if not template_host.usable(Limits()):
        pytest.skip("submissions are forked from a template only for a root grader")

    def template_running() -> bool:
        from graders.sandbox import template_host
        template = template_host._SHARED
        return template is not None and template.proc is not None and template.proc.poll() is None

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit=0) as fresh:
        pool = DaskPool(fresh.scheduler_address, sandbox=True, limits=Limits().values())
        try:
            assert set(pool.client.run(template_running).values()) == {False}
            pool.warm()
            deadline = time.monotonic() + 60
            while set(pool.client.run(template_running).values()) != {True} and time.monotonic() < deadline:
                time.sleep(0.2)
            assert set(pool.client.run(template_running).values()) == {True}, "a worker has no template"
        finally:
            pool.close()


def test_the_course_config_acts_on_the_workers_and_the_main_process_never_sanitizes(cluster, tmp_path, monkeypatch):
    """An instructor's nbgrader_config.py (its own steps defined in the file, LimitOutput, the
    hidden-test delimiters) takes effect on Dask workers; a sanitize step that raises there
    makes that one submission invalid with the exception as its reason; feedback pages
    rendered on the cluster are the ones rendered locally."""
    from graders.autograde import scratch
    from graders.feedback.pages import feedback
    from test_course_config import RIGHT, SECRET, configured_course

    course = tmp_path / "course"
    release = configured_course(course)
    gc.submit(course, "tripped", "cfg", gc.answers(release, **RIGHT))
    here = []  # nbgrader's sanitize steps, had this process run them
    monkeypatch.setattr(scratch.ScratchCourse, "sanitize", lambda self: here.append(self) or 1 / 0)
    records = {r.student: r for r in autograde(course, scheduler=cluster.scheduler_address, sandbox=_sandbox(),
                                                 progress=False)}
    assert here == [], "the main process ran nbgrader's sanitize steps"
    assert (records["ref"].status, records["ref"].score, records["ref"].max_score) == ("ok", 3, 3)
    assert (records["wrong"].status, records["wrong"].score) == ("ok", 1)
    assert records["tripped"].status == "invalid"
    assert records["tripped"].reason == \
        "nbgrader could not sanitize it: RuntimeError: the vetting step broke on this notebook"
    graded = nbformat.read(str(course / "autograded" / "ref" / "cfg" / "cfg.ipynb"), as_version=4)
    assert graded.metadata.get("stamped_by_instructor") is True  # the step defined in the config file ran
    test = next(c for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "cfg-echo-test")
    printed = "".join(o.get("text", "") for o in test.outputs if o.output_type == "stream")
    assert "line 0" in printed and "line 19" not in printed  # c.LimitOutput.max_lines = 7
    monkeypatch.undo()
    on_cluster = {p.parent.parent.name: p.read_text() for p in feedback(course, scheduler=cluster.scheduler_address)}
    assert set(on_cluster) == {"ref", "wrong", "tripped"}
    for student, page in on_cluster.items():
        assert "echo(-99)" not in page and SECRET not in page and "BEGIN SECRET" not in page, student
    assert "did you add one?" in on_cluster["wrong"] and "the vetting step broke" in on_cluster["tripped"]
    local = {p.parent.parent.name: p.read_text() for p in feedback(course, workers=2)}
    assert local == on_cluster


def test_a_compiled_assignment_finds_the_warmed_cache_on_the_workers(cluster, tmp_path):
    """The warmed torch.compile cache crosses to each worker once per batch, as a future that
    Dask must resolve there: a submission graded on the cluster hits it (torch's own counter),
    as a local batch's does. It arrived unresolved once (a future inside the submission's
    dataclass), and every such submission was 'crashed' with a harness error."""
    from test_compile_cache import COMPILED, HONEST

    course = tmp_path / "course"
    _, released = gc.release(course, {"cc": gc.build("cc", COMPILED)})["cc"]
    gc.submit(course, "honest", "cc", gc.answers(released, **{"cc-f": HONEST}))
    records = autograde(course, scheduler=cluster.scheduler_address, sandbox=_sandbox(), progress=False)
    assert [(r.status, r.score) for r in records] == [("ok", 1)], [(r.status, r.reason) for r in records]
    graded = nbformat.read(str(course / "autograded" / "honest" / "cc" / "cc.ipynb"), as_version=4)
    test = next(c for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "cc-f-test")
    assert "fx graph cache hits: 1" in "".join(o.get("text", "") for o in test.outputs), test.outputs
