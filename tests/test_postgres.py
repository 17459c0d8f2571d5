"""The gradebook on PostgreSQL: what SQLite gives, through course and the formgrader alike.

Two copies of one course grade the same four submissions (right, a wrong multiplication
whose message names the misconception, blank, and a file that is not a notebook): one with
nbgrader's default gradebook (DIR/gradebook.db), one whose nbgrader_config.py sets
``c.CourseDirectory.db_url`` to a real PostgreSQL server started for this module
(tests/pgserver.py: Debian's binaries, a throw-away data folder; psycopg 3, pinned). Then:

* `course autograde` leaves the same grade rows in both (student, cell, auto score, manual
  score), PostgreSQL holds them, and that course has no SQLite file at all;
* `course export` writes the same grades.csv and `course report` the same CSV of
  misconceptions;
* the formgrader, served from the PostgreSQL course, answers its submissions API with the
  scores of the SQLite gradebook.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

import grading_course as gc
from conftest import IN_CI, sandbox_flags
from graders.course.config import Course
from graders.course.layout import ensure_course_dir
from labserver import start_lab
from pgserver import binaries, postgres_server

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("postgres"), pytest.mark.timeout(900)]

MARK = "[mc:tiny.adds-for-mul]"
SPEC = [row if row[1] != "tiny-mul-test" else
        ("test", "tiny-mul-test", 3, f'assert mul(2, 3) == 6, "mul(2, 3) should be 6: did you add? {MARK}"')
        for row in gc.TINY]
RIGHT = {"tiny-add": "def add(a, b):\n    return a + b", "tiny-mul": "def mul(a, b):\n    return a * b"}
EXPECTED = {"right": 5.0, "wrong": 2.0, "blank": 0.0, "broken": 0.0}


def course_cli(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "graders.cli", *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"course {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def build(course: Path, db_url: str | None) -> None:
    ensure_course_dir(course)
    if db_url:
        with open(course / "nbgrader_config.py", "a") as config:
            config.write(f"# the gradebook on the test's PostgreSQL server\nc.CourseDirectory.db_url = {db_url!r}\n")
    _, release = gc.release(course, {"tiny": gc.build("tiny", SPEC)})["tiny"]
    right = gc.answers(release, **RIGHT)
    gc.submit(course, "right", "tiny", right)
    gc.submit(course, "wrong", "tiny", gc.answers(right, **{"tiny-mul": "def mul(a, b):\n    return a + b"}))
    gc.submit(course, "blank", "tiny", release)
    gc.submit(course, "broken", "tiny", text="{ this is not a notebook")
    course_cli("autograde", "tiny", "--course-dir", str(course), "--workers", "2", "--cell-timeout", "30",
               *sandbox_flags())


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    if binaries() is None:
        message = "PostgreSQL not found: install the Debian package postgresql (make test does, as root)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    tmp = tmp_path_factory.mktemp("postgres")
    with postgres_server() as url:
        for name, db_url in (("sqlite", None), ("postgres", url)):
            build(tmp / name, db_url)
        yield {"sqlite": tmp / "sqlite", "postgres": tmp / "postgres", "url": url}


def grade_rows(course: Path) -> list[tuple]:
    c = Course(course)
    with Gradebook(c.db_url, c.config.CourseDirectory.course_id) as gb:
        return sorted((s.student_id, g.name, g.auto_score, g.manual_score)
                      for a in gb.assignments for s in a.submissions for nb in s.notebooks for g in nb.grades)


def totals(course: Path) -> dict[str, float]:
    c = Course(course)
    with Gradebook(c.db_url, c.config.CourseDirectory.course_id) as gb:
        return {s.student_id: float(s.score) for s in gb.find_assignment("tiny").submissions}


def test_autograde_writes_the_same_grades_to_postgres(courses):
    assert Course(courses["postgres"]).db_url == courses["url"]
    assert not (courses["postgres"] / "gradebook.db").exists(), "the PostgreSQL course wrote a SQLite gradebook"
    rows = grade_rows(courses["postgres"])
    assert rows == grade_rows(courses["sqlite"])
    assert len(rows) == len(EXPECTED) * 2  # two test cells per student, all in PostgreSQL
    assert totals(courses["postgres"]) == totals(courses["sqlite"]) == EXPECTED


def test_export_and_report_read_postgres(courses):
    for name in ("sqlite", "postgres"):
        course_cli("export", "--course-dir", str(courses[name]))
        course_cli("report", "tiny", "--course-dir", str(courses[name]))
    assert (courses["postgres"] / "grades.csv").read_text() == (courses["sqlite"] / "grades.csv").read_text()
    report = (courses["postgres"] / "reports" / "tiny.csv").read_text()
    assert report == (courses["sqlite"] / "reports" / "tiny.csv").read_text()
    assert "tiny.adds-for-mul" in report  # the wrong answer's misconception, counted from PostgreSQL


def test_formgrader_reads_postgres(courses, tmp_path):
    server = start_lab(courses["postgres"], tmp_path / "jupyter-home", student=False)
    try:
        submissions = server.api("/formgrader/api/submissions/tiny")
        students = server.api("/formgrader/api/students")
    finally:
        server.stop()
    assert {s["student"]: s["score"] for s in submissions} == totals(courses["sqlite"])
    assert {s["id"]: s["score"] for s in students} == totals(courses["sqlite"])
