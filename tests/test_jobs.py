"""The batch's light front half (graders.autograde.jobs and .local): what `course autograde`
reads before it imports nbgrader, to start its workers and templates early, or not at all."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from graders.autograde.batch import interleaved
from graders.autograde.jobs import Job, find_jobs, likely_to_execute, submitted_path
from graders.autograde.status import Record, StatusStore, fingerprint


def submit(course, student, assignment, text="{}"):
    path = submitted_path(course, Job(student, assignment))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def graded(course, student, assignment):
    path = submitted_path(course, Job(student, assignment))
    StatusStore(course).put(Record(student, assignment, "ok", 1.0, 1.0, 0.5, "", fingerprint(path)))


def test_every_student_folder_meets_every_assignment(tmp_path):
    submit(tmp_path, "bo", "01_tensors")
    (tmp_path / "submitted" / "al").mkdir()
    jobs = find_jobs(tmp_path, ["01_tensors", "02_autograd"])
    assert [j.key for j in jobs] == ["al/01_tensors", "bo/01_tensors", "al/02_autograd", "bo/02_autograd"]


def test_nothing_to_execute_without_submissions_or_when_all_are_graded(tmp_path):
    assert not likely_to_execute(tmp_path, find_jobs(tmp_path, ["01_tensors"]), force=False)
    (tmp_path / "submitted" / "al").mkdir(parents=True)  # a student with no notebook: scored 0, not run
    assert not likely_to_execute(tmp_path, find_jobs(tmp_path, ["01_tensors"]), force=False)
    submit(tmp_path, "bo", "01_tensors")
    graded(tmp_path, "bo", "01_tensors")
    assert not likely_to_execute(tmp_path, find_jobs(tmp_path, ["01_tensors"]), force=False)


def test_a_new_a_changed_or_a_forced_submission_is_executed(tmp_path):
    submit(tmp_path, "bo", "01_tensors")
    jobs = find_jobs(tmp_path, ["01_tensors"])
    assert likely_to_execute(tmp_path, jobs, force=False)  # never graded
    graded(tmp_path, "bo", "01_tensors")
    assert likely_to_execute(tmp_path, jobs, force=True)
    submit(tmp_path, "bo", "01_tensors", text='{"cells": []}')  # resubmitted: another file
    assert likely_to_execute(tmp_path, jobs, force=False)


def test_an_unreadable_status_file_leaves_the_decision_to_the_batch(tmp_path):
    submit(tmp_path, "bo", "01_tensors")
    graded(tmp_path, "bo", "01_tensors")
    StatusStore(tmp_path).path.write_text("{not json")
    assert likely_to_execute(tmp_path, find_jobs(tmp_path, ["01_tensors"]), force=False)


def test_the_front_half_imports_neither_nbgrader_nor_torch():
    # `course autograde` starts the pool before importing nbgrader; an import of it (or of
    # torch) here would put that second back in front of the workers' start
    code = ("import sys, graders.cli, graders.autograde.local, graders.autograde.jobs; "
            "print(sorted(m for m in ('nbgrader', 'torch', 'sqlalchemy', 'nbconvert') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("pqrst")), unique=True),
       st.sets(st.sampled_from("abcd")))
def test_interleaved_takes_assignments_in_turn_and_the_last_ones_last(pairs, last):
    jobs = [Job(student, assignment) for assignment, student in pairs]
    order = interleaved(jobs, last=last)
    assert sorted(j.key for j in order) == sorted(j.key for j in jobs)
    flags = [job.assignment in last for job in order]
    assert flags == sorted(flags), "an assignment in `last` came before another"
    for assignment in "abcd":  # each assignment's own order is kept
        assert [j for j in order if j.assignment == assignment] == [j for j in jobs if j.assignment == assignment]
    # the k-th submission of any assignment comes before the (k+1)-th of any other in its group
    rank = {job.key: [j for j in jobs if j.assignment == job.assignment].index(job) for job in jobs}
    for group in (False, True):
        ranks = [rank[job.key] for job in order if (job.assignment in last) == group]
        assert ranks == sorted(ranks)


def _source(course, assignment, code):
    import nbformat
    path = course / "source" / assignment / f"{assignment}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), str(path))


def test_the_template_preloads_dynamo_only_for_notebooks_that_may_use_it(tmp_path):
    from graders.autograde.jobs import batch_limits
    from graders.sandbox.limits import Limits

    _source(tmp_path, "plain", "import torch\nx = torch.ones(3)")
    _source(tmp_path, "trains", "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)")
    _source(tmp_path, "compiles", "f = torch.compile(f)")
    (tmp_path / "source" / "broken").mkdir()
    limits = Limits()
    assert "torch._dynamo" in limits.preload
    plain = batch_limits(limits, tmp_path, ["plain"])
    assert plain.preload == [m for m in limits.preload if m != "torch._dynamo"]
    assert plain.values() == {**limits.values(), "preload": plain.preload}  # nothing else changes
    for batch in (["plain", "trains"], ["compiles"], ["broken"]):  # unreadable: keep all
        assert batch_limits(limits, tmp_path, batch).preload == limits.preload, batch


def test_the_local_pool_runs_as_many_sandboxes_as_workers_and_twice_the_threads(monkeypatch):
    import threading
    import time

    from graders.autograde import worker
    from graders.autograde.local import LocalPool

    running, most, lock = [0], [0], threading.Lock()

    def sandbox(*args):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.2)
        with lock:
            running[0] -= 1

    monkeypatch.setattr(worker, "_execute_in", sandbox)
    pool = LocalPool(2)
    try:
        started = time.monotonic()
        futures = [pool.submit(worker.execute_in, None, None, {}, False, "") for _ in range(8)]
        for future in futures:
            future.result()
        assert most[0] == 2 and time.monotonic() - started >= 0.8  # 8 runs, 2 at a time
        assert pool.executor._max_workers == 4
    finally:
        pool.close()
        worker.limit_executions(None)


def test_the_template_starts_before_the_course_config_is_read_and_is_the_one_the_batch_uses(tmp_path, monkeypatch):
    from graders.autograde import local
    from graders.sandbox import template_host
    from graders.sandbox.limits import Limits

    _source(tmp_path, "plain", "x = 1")
    submit(tmp_path, "bo", "plain")
    started = []
    monkeypatch.setattr(template_host, "usable", lambda limits: True)
    monkeypatch.setattr(template_host.Template, "start", lambda self: started.append(self))
    monkeypatch.setattr(template_host, "_SHARED", None)
    local.prestart(tmp_path, None, sandbox=True, force=False)
    assert len(started) == 1 and "torch._dynamo" not in started[0].preload
    pool = local.start(tmp_path, None, 2, Limits(), sandbox=True, force=False)  # the course's limits
    try:
        assert started[1:] == [started[0]], "the batch started a second template"
    finally:
        pool.close()
    graded(tmp_path, "bo", "plain")
    monkeypatch.setattr(template_host, "_SHARED", None)
    local.prestart(tmp_path, None, sandbox=True, force=False)  # nothing left to grade: no template
    local.prestart(tmp_path, None, sandbox=False, force=True)   # no sandbox: none either
    assert len(started) == 2
