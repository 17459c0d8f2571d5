"""`course autograde | feedback | export` on a small course, through the real CLI, nbgrader
and sandbox: every status, the table (with the review's quoted lines), export columns,
feedback without hidden tests, stderr warnings, idempotent reruns, parallel grades equal to
sequential nbgrader's."""

from __future__ import annotations

import csv
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.apps import NbGraderAPI

import grading_course as gc
from conftest import sandbox_flags
from graders.autograde.batch import autograde
from graders.autograde.status import StatusStore
from graders.course.config import Course

# its module fixtures build a graded course: under xdist, one worker builds it once
pytestmark = pytest.mark.xdist_group("test_grading")

COURSE_BIN = Path(sys.executable).parent / "course"
LIMITS = ["--cell-timeout", "8", "--notebook-timeout", "60"]  # memory: the 2 GiB default


def run_course(*args, cwd: Path) -> subprocess.CompletedProcess:
    """The installed script by absolute path, from elsewhere, venv not on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV",)}
    env["PATH"] = "/usr/bin:/bin"
    return subprocess.run([str(COURSE_BIN), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def tiny_batch(course: Path) -> None:
    released = gc.release(course, {"tiny": gc.build("tiny", gc.TINY), "warny": gc.build("warny", gc.WARNY)})
    source, release = released["tiny"]
    ref = gc.answers(release, **{"tiny-add": "def add(a, b):\n    return a + b",
                                 "tiny-mul": "def mul(a, b):\n    return a * b"})
    gc.submit(course, "ref", "tiny", ref)
    gc.submit(course, "blank", "tiny", release)
    gc.submit(course, "wrong", "tiny", gc.answers(ref, **{"tiny-mul": "def mul(a, b):\n    return a + b"}))
    gc.submit(course, "leak", "tiny", gc.answers(ref, **{"tiny-add": (
        "def add(a, b):\n"
        "    import inspect, traceback\n"
        "    if a == -7:\n"
        "        print([f.code_context for f in inspect.stack()])\n"
        "        print(get_ipython().user_ns.get('In'))\n"
        "        print(list(get_ipython().history_manager.input_hist_raw))\n"
        "        raise RuntimeError(''.join(traceback.format_stack()))\n"
        "    return a + b")}))
    # prints every cell's source (hidden tests included) before it runs: tampering, and the
    # printed test code must still stay out of the feedback
    gc.submit(course, "hooked", "tiny", gc.answers(ref, **{"tiny-add": (
        "get_ipython().events.register('pre_run_cell', lambda info: print(info.raw_cell))\n"
        "def add(a, b):\n    return a + b")}))
    deleted = nbformat.from_dict(json.loads(json.dumps(ref)))
    deleted.cells = [c for c in deleted.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "tiny-mul-test"]
    gc.submit(course, "deleted", "tiny", deleted)
    badmeta = nbformat.from_dict(json.loads(json.dumps(ref)))
    badmeta.cells[1].metadata["nbgrader"]["schema_version"] = 99
    gc.submit(course, "badmeta", "tiny", badmeta)
    gc.submit(course, "broken", "tiny", text="{ this is not json")
    gc.submit(course, "misnamed", "tiny", ref, name="my_homework.ipynb")
    gc.submit(course, "slow", "tiny", gc.answers(ref, **{"tiny-mul": "def mul(a, b):\n    while True:\n        pass"}))
    gc.submit(course, "dies", "tiny", gc.answers(ref, **{"tiny-mul": "def mul(a, b):\n    import os\n    os._exit(3)"}))
    gc.submit(course, "greedy", "tiny", gc.answers(ref, **{"tiny-mul": (
        "def mul(a, b):\n    hog = [bytearray(256 * 2**20) for _ in range(16)]\n    return a * b")}))
    _, warny_release = released["warny"]
    gc.submit(course, "ref", "warny", gc.answers(warny_release, **{"warny-copy": (
        "def copy(t):\n    warnings.warn('copy: this is only a warning')\n    return torch.tensor(t)")}))


PARITY = ["ref", "blank", "wrong", "leak"]  # graded alike by plain nbgrader's default config


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("grading") / "course"
    tiny_batch(course)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    ran = run_course("autograde", "--course-dir", str(course), "--workers", "2", *LIMITS, *sandbox_flags(),
                     cwd=elsewhere)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return course, ran, elsewhere


def test_every_status_with_score_and_reason(graded):
    course, ran, _ = graded
    records = json.loads((course / "grading_status.json").read_text())
    status = {key: r["status"] for key, r in records.items()}
    expected = {"ref/tiny": "ok", "blank/tiny": "ok", "wrong/tiny": "ok", "leak/tiny": "ok",
                "deleted/tiny": "invalid", "badmeta/tiny": "invalid", "broken/tiny": "invalid",
                "misnamed/tiny": "missing", "slow/tiny": "timeout", "dies/tiny": "crashed",
                "greedy/tiny": "memory", "ref/warny": "ok", "blank/warny": "missing", "hooked/tiny": "invalid"}
    assert {k: status[k] for k in expected} == expected
    students = {p.name for p in (course / "submitted").iterdir()}
    assert set(records) == {f"{s}/{a}" for s in students for a in ("tiny", "warny")}
    score = {key: (r["score"], r["max_score"]) for key, r in records.items()}
    assert score["ref/tiny"] == (5, 5) and score["blank/tiny"] == (0, 5)
    assert score["wrong/tiny"] == (2, 5) and score["deleted/tiny"] == (0, 5)  # DESIGN: deleted cells are invalid
    assert score["leak/tiny"] == (3, 5)
    for key in ("badmeta/tiny", "broken/tiny", "misnamed/tiny", "slow/tiny", "dies/tiny"):
        assert score[key][0] <= 2 and records[key]["reason"], (key, records[key])
    assert score["slow/tiny"] == (2, 5), "tests before the timeout count, those after score 0"
    # the table: one row per submission, with its status and reason
    lines = ran.stdout.splitlines()
    assert lines[0].split()[:5] == ["student", "assignment", "status", "score", "seconds"]
    assert any(line.split()[:4] == ["broken", "tiny", "invalid", "0/5"] for line in lines), ran.stdout
    assert any(line.split()[:4] == ["ref", "tiny", "ok", "5/5"] for line in lines)
    # the static review's flags: kept in the record, quoted under the row; the score stands
    assert records["ref/tiny"]["flags"] == [] and score["leak/tiny"] == (3, 5)
    leak = next(i for i, line in enumerate(lines) if line.split()[:3] == ["leak", "tiny", "ok"])
    assert lines[leak + 1].strip().startswith("review: tiny-add, line 2: `import inspect, traceback`"), ran.stdout
    assert any("get_ipython().user_ns" in q for q in records["leak/tiny"]["flags"])
    assert any("get_ipython().events" in q for q in records["hooked/tiny"]["flags"])  # ungraded, still quoted


def test_a_change_seen_by_many_checks_is_said_once(graded):
    course, _, _ = graded
    reason = json.loads((course / "grading_status.json").read_text())["hooked/tiny"]["reason"]
    assert reason.count("pre_run_cell") == 1, reason
    assert "first seen" in reason and "checks saw it" in reason, reason


def test_torch_warning_on_stderr_keeps_points(graded):
    course, _, _ = graded
    records = json.loads((course / "grading_status.json").read_text())
    assert (records["ref/warny"]["score"], records["ref/warny"]["max_score"]) == (2, 2)
    graded_nb = (course / "autograded" / "ref" / "warny" / "warny.ipynb").read_text()
    assert "only a warning" in graded_nb and "To copy construct" in graded_nb


def test_export_has_nbgrader_columns_and_every_row(graded):
    course, _, elsewhere = graded
    ran = run_course("export", "--course-dir", str(course), cwd=elsewhere)
    assert ran.returncode == 0, ran.stderr
    with open(course / "grades.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
                             "email", "raw_score", "late_submission_penalty", "score", "max_score",
                             "review_flags"]  # nbgrader's columns, then the static review's quoted lines
    students = {p.name for p in (course / "submitted").iterdir()}
    assert {(r["student_id"], r["assignment"]) for r in rows} == {(s, a) for s in students for a in ("tiny", "warny")}
    by_key = {(r["student_id"], r["assignment"]): float(r["score"]) for r in rows}
    assert by_key[("ref", "tiny")] == 5 and by_key[("broken", "tiny")] == 0 and by_key[("wrong", "tiny")] == 2
    flags = {(r["student_id"], r["assignment"]): r["review_flags"] for r in rows}
    assert flags[("ref", "tiny")] == "" and "inspect.stack()" in flags[("leak", "tiny")]


def test_feedback_shows_results_not_hidden_tests(graded):
    course, _, elsewhere = graded
    ran = run_course("feedback", "--course-dir", str(course), cwd=elsewhere)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    pages = {p.parent.parent.name: p.read_text() for p in (course / "feedback").glob("*/tiny/tiny.html")}
    records = json.loads((course / "grading_status.json").read_text())
    rows = {key.split("/")[0]: r for key, r in records.items() if r["assignment"] == "tiny"}
    submitted = {student for student, r in rows.items() if r["status"] != "missing"}
    assert set(pages) == submitted, "a page for every submission, whatever its status; none for a missing one"
    for student, page in pages.items():
        for needle in (gc.LEAK_MARK, "add(-7,", "BEGIN HIDDEN", "hidden check failed\\"):
            assert needle not in page, f"{student}'s feedback shows hidden test code ({needle})"
        assert f"Grading status: {rows[student]['status']}." in page, student
    # a missing submission costs no placeholder notebook and no page
    assert rows["misnamed"]["status"] == "missing" and "misnamed" not in pages
    assert not (course / "autograded" / "misnamed").exists() and not (course / "feedback" / "misnamed").exists()
    assert "could not be graded" in pages["hooked"] and "pre_run_cell" in pages["hooked"]
    assert "ran too long" in pages["slow"] and "not graded (invalid)" in pages["broken"]
    assert "mul(2, 3) should be 6: did you add?" in pages["wrong"]      # visible test message
    assert "RuntimeError" in pages["leak"]                               # the result, reduced
    assert "hidden tests" in pages["ref"]                                # the placeholder


def test_rerun_leaves_gradebook_unchanged(graded):
    course, _, _ = graded
    before = gc.gradebook_rows(course), (course / "grading_status.json").read_text()
    records = autograde(course, workers=2, progress=False)
    assert len(records) == len(json.loads(before[1]))
    assert (gc.gradebook_rows(course), (course / "grading_status.json").read_text()) == before


def test_parallel_grades_equal_sequential_nbgrader(graded, tmp_path):
    course, _, _ = graded
    plain = tmp_path / "plain"
    for part in ("source", "release", "nbgrader_config.py"):
        src = course / part
        shutil.copytree(src, plain / part) if src.is_dir() else shutil.copy(src, plain / part)
    for student in PARITY:
        shutil.copytree(course / "submitted" / student / "tiny", plain / "submitted" / student / "tiny")
    api = NbGraderAPI(config=Course(plain).config)
    api.log.setLevel(logging.ERROR)
    api.generate_assignment("tiny", force=True, create=True)
    for student in PARITY:
        assert api.autograde("tiny", student, force=True, create=True)["success"]
    ours = {k: v for k, v in gc.scores(course).items() if k[0] in PARITY and k[1] == "tiny"}
    assert ours == gc.scores(plain)


def test_sigkill_mid_batch_then_resume(tmp_path):
    import signal
    import time
    course = tmp_path / "course"
    _, release = gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})["tiny"]
    ref = gc.answers(release, **{"tiny-add": "def add(a, b):\n    return a + b",
                                 "tiny-mul": "def mul(a, b):\n    return a * b"})
    students = [f"s{k}" for k in range(4)]
    for student in students:
        gc.submit(course, student, "tiny", ref)
    args = [str(COURSE_BIN), "autograde", "--course-dir", str(course), "--workers", "1", *sandbox_flags()]
    status_file = course / "grading_status.json"
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not StatusStore(course).records and time.monotonic() < deadline:
            time.sleep(0.05)
        assert StatusStore(course).records, "the first submission never finished"
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the run and its workers, all at once
        process.wait()
    graded_before = StatusStore(course).records  # from the journal: the run never reached its end
    assert 0 < len(graded_before) < len(students), "kill came too late to test a resume"
    ran = run_course("autograde", "--course-dir", str(course), "--workers", "2", *sandbox_flags(), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    records = json.loads(status_file.read_text())
    assert {k: (r["status"], r["score"]) for k, r in records.items()} == {f"{s}/tiny": ("ok", 5.0) for s in students}
    rows = gc.gradebook_rows(course)
    assert len(rows) == len({(r[0], r[2]) for r in rows}) == 2 * len(students)  # no duplicates
    assert {(r[2], r[4]) for r in rows} == {("tiny-add-test", 2.0), ("tiny-mul-test", 3.0)}
