"""The course's nbgrader_config.py is the one configuration: options set there take effect in
real `course autograde` / `course feedback` runs, `course` says what it overrides, and
nbgrader's own `nbgrader generate_feedback` on a `course`-graded course keeps hidden tests out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

import grading_course as gc
from graders.course.config import Course

# its module fixtures build a graded course: under xdist, one worker builds it once
pytestmark = pytest.mark.xdist_group("test_course_config")

BIN = Path(sys.executable).parent
SECRET = 'assert echo(-99) == -99, "secret check"'

CFG = [
    ("code", None, 0, "import time"),
    ("solution", "cfg-echo", 0, "def echo(n):\n    ### BEGIN SOLUTION\n    return n\n    ### END SOLUTION"),
    ("test", "cfg-echo-test", 2,
     'for i in range(20):\n    print("line", i)\n'
     'assert echo(3) == 3, "echo(3) should be 3: did you add one? [mc:cfg.adds-one]"\n'
     f"### BEGIN SECRET\n{SECRET}\n### END SECRET"),
    ("solution", "cfg-slow", 0, "def slow():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION"),
    ("test", "cfg-slow-test", 1, 'assert slow() == 1, "slow() should give 1"'),
]

# Each line is an option nbgrader's own apps read; the test below shows each one acting.
CONFIG = '''
from nbgrader.preprocessors import NbGraderPreprocessor

class Stamp(NbGraderPreprocessor):
    """An instructor's own autograde step: marks the graded notebook."""
    def preprocess(self, nb, resources):
        nb.metadata["stamped_by_instructor"] = True
        return nb, resources

class Vet(NbGraderPreprocessor):
    """An instructor's own sanitize step that breaks on one student's notebook."""
    def preprocess(self, nb, resources):
        if resources["nbgrader"]["student"] == "tripped":
            raise RuntimeError("the vetting step broke on this notebook")
        return nb, resources

c.LimitOutput.max_lines = 7
c.Execute.timeout = 4
c.Execute.allow_errors = False
c.Autograde.autograde_preprocessors = [
    "nbgrader.preprocessors.Execute", "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
    Stamp, "nbgrader.preprocessors.SaveAutoGrades", "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec", "nbgrader.preprocessors.OverwriteCells", Vet,
    "nbgrader.preprocessors.CheckCellMetadata",
]
c.ClearHiddenTests.begin_test_delimeter = "BEGIN SECRET"
c.ClearHiddenTests.end_test_delimeter = "END SECRET"
'''


def course_cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "course"), *args], cwd=cwd, capture_output=True, text=True, timeout=600)


RIGHT = {"cfg-echo": "def echo(n):\n    return n", "cfg-slow": "def slow():\n    return 1"}


def configured_course(course: Path):
    """``course`` with the options above appended to its config, cfg released and two
    submissions: ref (right) and wrong (echo adds one). Returns the released notebook."""
    from graders.course.layout import ensure_course_dir
    ensure_course_dir(course)
    with open(course / "nbgrader_config.py", "a") as handle:
        handle.write(CONFIG)
    _, release = gc.release(course, {"cfg": gc.build("cfg", CFG)})["cfg"]
    gc.submit(course, "ref", "cfg", gc.answers(release, **RIGHT))
    gc.submit(course, "wrong", "cfg", gc.answers(release, **{**RIGHT, "cfg-echo": "def echo(n):\n    return n + 1"}))
    return release


@pytest.fixture(scope="module")
def configured(tmp_path_factory):
    """A course whose config sets the options above, released, graded and given feedback."""
    course = tmp_path_factory.mktemp("configured") / "course"
    course.mkdir()
    release = configured_course(course)
    gc.submit(course, "sleepy", "cfg", gc.answers(release, **{
        **RIGHT, "cfg-slow": "def slow():\n    time.sleep(30)\n    return 1"}))
    gc.submit(course, "tripped", "cfg", gc.answers(release, **RIGHT))
    graded = course_cli("autograde", "--course-dir", str(course), "--workers", "2", cwd=course.parent)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    fed = course_cli("feedback", "--course-dir", str(course), cwd=course.parent)
    assert fed.returncode == 0, fed.stdout + fed.stderr
    return course, release, graded, fed


def _records(course: Path) -> dict:
    return {k.split("/")[0]: r for k, r in json.loads((course / "grading_status.json").read_text()).items()}


def _autograded(course: Path, student: str):
    return nbformat.read(str(course / "autograded" / student / "cfg" / "cfg.ipynb"), as_version=4)


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


@pytest.mark.slow
def test_a_sanitize_step_that_raises_invalidates_that_notebook_with_the_exception(configured):
    course, *_ = configured
    records = _records(course)
    assert records["tripped"]["status"] == "invalid", records["tripped"]
    assert records["tripped"]["reason"] == ("nbgrader could not sanitize it: "
                                            "RuntimeError: the vetting step broke on this notebook")
    assert records["ref"]["status"] == "ok" and records["ref"]["score"] == records["ref"]["max_score"]


@pytest.mark.slow
def test_output_limit_from_config_cuts_output(configured):
    course, *_ = configured
    printed = "".join(o.get("text", "") for o in _cell(_autograded(course, "ref"), "cfg-echo-test").outputs
                      if o.output_type == "stream")
    assert "line 0" in printed and "line 19" not in printed, printed  # LimitOutput.max_lines = 7
    assert len(printed.strip().splitlines()) <= 8, printed


@pytest.mark.slow
def test_cell_timeout_from_config_is_the_one_limit(configured):
    course, _, graded, _ = configured
    records = _records(course)
    assert records["sleepy"]["status"] == "timeout", records["sleepy"]
    assert "per-cell limit of 4 s" in records["sleepy"]["reason"], records["sleepy"]["reason"]
    assert (records["ref"]["status"], records["ref"]["score"]) == ("ok", 3)
    assert (records["wrong"]["status"], records["wrong"]["score"]) == ("ok", 1)


@pytest.mark.slow
def test_extra_autograde_preprocessor_from_config_runs(configured):
    course, *_ = configured
    assert _autograded(course, "ref").metadata.get("stamped_by_instructor") is True


@pytest.mark.slow
def test_overridden_options_are_said_at_start(configured):
    _, _, graded, _ = configured
    assert "Execute.allow_errors not used" in graded.stderr, graded.stderr
    assert "LimitOutput" not in graded.stderr and "Autograde" not in graded.stderr  # honoured: not said


@pytest.mark.slow
def test_hidden_test_delimiters_from_config_hide_the_release_and_the_feedback(configured):
    course, release, _, fed = configured
    assert SECRET not in json.dumps(release), "the release keeps the course's hidden tests out"
    pages = {p.parent.parent.name: p.read_text() for p in (course / "feedback").glob("*/cfg/cfg.html")}
    assert set(pages) == {"ref", "wrong", "sleepy", "tripped"}
    for student, page in pages.items():
        assert "echo(-99)" not in page and "secret check" not in page and "BEGIN SECRET" not in page, student
        assert "[mc:" not in page, f"{student}'s feedback shows a misconception marker"
    assert "did you add one?" in pages["wrong"]  # the message itself stays
    assert "ran too long" in pages["sleepy"]
    assert "not graded (invalid)" in pages["tripped"] and "the vetting step broke" in pages["tripped"]


@pytest.mark.slow
def test_nbgrader_generate_feedback_on_a_course_graded_course_keeps_hidden_tests_out(configured):
    course, *_ = configured
    done = subprocess.run([str(BIN / "nbgrader"), "generate_feedback", "cfg", "--force"], cwd=course,
                          capture_output=True, text=True, timeout=600,
                          env={"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(course.parent)})
    assert done.returncode == 0, done.stdout + done.stderr
    pages = {p.parent.parent.name: p.read_text() for p in (course / "feedback").glob("*/cfg/cfg.html")}
    assert set(pages) == {"ref", "wrong", "sleepy", "tripped"}
    for student, page in pages.items():
        assert "echo(-99)" not in page and "BEGIN SECRET" not in page, student
        assert "Grading status:" in page, student  # the same page as `course feedback`'s
    assert (course / "exchange").is_dir() and Course(course).config.Exchange.root == str(course / "exchange")


@pytest.mark.slow
def test_autograde_without_force_reports_the_gradebooks_score(configured):
    course, *_ = configured
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        grade = gb.find_grade("cfg-echo-test", "cfg", "cfg", "ref")
        grade.manual_score = 0.5  # the instructor's manual grade
        gb.db.commit()
    again = course_cli("autograde", "--course-dir", str(course), "--workers", "1", cwd=course.parent)
    assert again.returncode == 0, again.stderr
    row = next(line.split() for line in again.stdout.splitlines() if line.split()[:2] == ["ref", "cfg"])
    assert row[3] == "1.5/3", again.stdout


def test_the_graded_notebook_is_validated_once_unless_the_file_says_otherwise(tmp_path):
    from nbconvert.exporters import NotebookExporter

    (tmp_path / "nbgrader_config.py").write_text("c = get_config()  # noqa\n")
    assert NotebookExporter(config=Course(tmp_path).config).optimistic_validation is True
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()  # noqa\n"
                                                 "c.Exporter.optimistic_validation = False\n")
    assert NotebookExporter(config=Course(tmp_path).config).optimistic_validation is False
