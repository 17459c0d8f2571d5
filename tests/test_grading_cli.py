"""`course autograde` refuses to run unconfined unless told to, and limits come from the course."""

import subprocess
import sys
from pathlib import Path

import grading_course
from graders.course.config import Course
from graders.sandbox.limits import Limits

COURSE = Path(sys.executable).parent / "course"


def run_course(args, path: str):
    return subprocess.run([str(COURSE), *args], capture_output=True, text=True,
                          env={"PATH": path, "HOME": "/tmp"}, timeout=120)


def test_missing_bwrap_refuses_and_names_the_package(tmp_path):
    # PATH without /usr/bin: bwrap cannot be found, as on a machine without the package
    done = run_course(["autograde", "--course-dir", str(tmp_path)], path=str(COURSE.parent))
    assert done.returncode != 0
    assert "bubblewrap" in done.stderr and "--no-sandbox" in done.stderr


def test_no_sandbox_warns_every_run(tmp_path):
    for _ in range(2):
        done = run_course(["autograde", "--no-sandbox", "--course-dir", str(tmp_path)],
                          path=f"{COURSE.parent}:/usr/bin:/bin")
        assert done.returncode == 0, done.stderr
        assert "WARNING: --no-sandbox" in done.stderr


def test_limits_flags_override_course_config(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.Limits.memory_mb = 3000\nc.Limits.cell_timeout_s = 9\n")
    limits = Course(tmp_path).limits(memory_mb=None, cell_timeout_s=4, max_processes=None)
    assert limits.memory_mb == 3000 and limits.cell_timeout_s == 4
    assert limits.max_processes == Limits().max_processes


def test_first_grading_prints_no_sqlalchemy_noise(tmp_path):
    # nbgrader's gradebook warns (SAWarning) for each new submission it records; the
    # instructor can do nothing about it, so `course autograde` must not pass it on
    tiny = grading_course.build("tiny", grading_course.TINY)
    released = grading_course.release(tmp_path, {"tiny": tiny})["tiny"][1]
    answers = {"tiny-add": "def add(a, b):\n    return a + b", "tiny-mul": "def mul(a, b):\n    return a * b"}
    grading_course.submit(tmp_path, "ada", "tiny", grading_course.answers(released, **answers))
    done = run_course(["autograde", "--no-sandbox", "--course-dir", str(tmp_path)],
                      path=f"{COURSE.parent}:/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr.replace("WARNING: --no-sandbox", ""), done.stderr
    assert grading_course.scores(tmp_path) == {("ada", "tiny", "tiny-add-test"): 2.0,
                                               ("ada", "tiny", "tiny-mul-test"): 3.0}
