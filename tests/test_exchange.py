"""nbgrader's exchange between real Unix users: release, submit, collect, return; an LMS archive.

A throwaway class (deploy.hub.throwaway: an instructor, two students, each a Unix user with
a private home; the exchange and course laid out by deploy.hub.setup) gets the tiny course
(tests/grading_course.py) released and published by its instructor. Every student command
is nbgrader's own CLI run as that student, with the student lab's configuration (the
course's nbgrader_config.py among it), as their hub server runs it; every instructor
command is `course` run as the instructor:

* each student submits, and the exchange's warden (deploy/hub/warden.py, run here as the hub
  runs it) freezes the submission; the other student, as that Unix user, cannot list inbound
  or the frozen submissions, read the first one's notebook or secret at their exact paths,
  write into the submission, rename or delete it, list the released feedback, or enter the
  course directory;
* `course collect` takes both, keeps nbgrader's timestamps and reports the one submitted
  after the due date (set with `nbgrader db assignment add --duedate`) as late; after
  `course autograde` the gradebook and grades.csv keep both, the late one with its lateness;
* `course return` releases the feedback pages and each student's Fetch Feedback gets their
  own page, with their score and no hidden test;

and, in a course run by root alone: `course collect --zip` takes an archive with Canvas's
file names (a late one, a resubmitted one, a file that is no notebook); `course return`
refuses a page that shows hidden test code and returns the rest.
"""

from __future__ import annotations

import csv
import grp
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import parse_utc

import grading_course as gc
from conftest import REPO, require_program, require_root, sandbox_flags

sys.path.insert(0, str(REPO))  # deploy/ is a folder of the repository, not an installed package
from deploy.hub import roster  # noqa: E402
from deploy.hub.throwaway import Throwaway  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("exchange"), pytest.mark.timeout(900)]

RIGHT = {"tiny-add": "def add(a, b):\n    return a + b", "tiny-mul": "def mul(a, b):\n    return a * b"}


RELEASE_TINY = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
import grading_course as gc
from graders.course.config import Course
from graders.course import exchange
course = Path({course!r})
gc.release(course, {{"tiny": gc.build("tiny", gc.TINY)}})
exchange.publish(Course(course), ["tiny"])
"""


@pytest.fixture(scope="module")
def klass():
    require_root("the exchange tests create Unix users")
    require_program("bwrap", "bubblewrap")
    with Throwaway(students=2, grant=True, ports=False) as cls:
        cls.run(cls.instructor, str(cls.python), "-c",
                RELEASE_TINY.format(tests=str(REPO / "tests"), course=str(cls.course_dir)))
        yield cls  # (without a hub, the class runs the exchange's warden itself)


def submit(cls, student: str, answers: dict[str, str] | None = None) -> Path:
    """Fetch tiny as the student, answer it, submit it; the submission's folder once the
    warden has frozen it."""
    cls.nbgrader(student, "fetch_assignment", "tiny", check=False)  # the second time: already there
    home = Path(cls.env(student)["HOME"])
    path = home / cls.settings.course_id / "tiny" / "tiny.ipynb"
    write_as(student, path, gc.answers(nbformat.read(str(path), as_version=4), **(answers or {})))
    cls.nbgrader(student, "submit", "tiny")
    inbound = Path(cls.settings.exchange) / cls.settings.course_id / "inbound"
    (name,) = [p.name for p in inbound.glob(f"{student}+tiny+*")] or [None]
    received = Path(cls.settings.exchange) / "received" / cls.settings.course_id
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if name is not None and (received / name).is_dir() and not (inbound / name).exists():
            return received / name
        if name is None:  # frozen before we looked
            return max(received.glob(f"{student}+tiny+*"), key=lambda p: p.stat().st_mtime)
        time.sleep(0.25)
    raise TimeoutError(f"the warden did not freeze {name}")


def write_as(user: str, path: Path, nb) -> None:
    """Write the notebook into the user's file as that user (their file, their umask)."""
    done = subprocess.run(["runuser", "-u", user, "--", "tee", str(path)], input=nbformat.writes(nb),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def attempt(cls, user: str, action: str, path: Path) -> str:
    return cls.attempt(user, action, path)


def test_a_student_cannot_reach_another_students_submission(klass):
    cls = klass
    ada, bob = cls.students
    submission = submit(cls, ada, RIGHT)
    notebook, secret = submission / "tiny.ipynb", submission / "submission_secret.txt"
    inbound = Path(cls.settings.exchange) / cls.settings.course_id / "inbound"
    assert notebook.is_file() and secret.is_file()
    # frozen: root's and the course's group's, closed to others, the owner recorded
    assert submission.stat().st_uid == 0 and submission.stat().st_gid == grp.getgrnam(cls.settings.group).gr_gid
    assert submission.stat().st_mode & 0o007 == 0, oct(submission.stat().st_mode)
    assert json.loads((submission / "warden.json").read_text())["owner"] == ada

    for kind, path in [("list", inbound), ("list", submission.parent), ("read", notebook), ("read", secret),
                       ("write", submission),
                       ("overwrite", notebook), ("delete", notebook), ("rename", submission),
                       ("list", cls.course_dir), ("read", cls.course_dir / "source" / "tiny" / "tiny.ipynb")]:
        said = attempt(cls, bob, kind, path)
        assert said.startswith("DENIED"), f"{bob} could {kind} {path}: {said}"
    listed = cls.nbgrader(bob, "list", "--inbound")
    assert ada not in listed.stdout + listed.stderr, listed.stdout + listed.stderr
    # the submission is intact, and the instructor (the course's group) reads it
    assert nbformat.read(str(notebook), as_version=4).cells
    assert attempt(cls, cls.instructor, "read", notebook) == "ALLOWED"
    assert attempt(cls, cls.instructor, "read", secret) == "ALLOWED"


def test_collect_keeps_timestamps_and_reports_late_submissions(klass):
    cls = klass
    ada, bob = cls.students
    if not list((Path(cls.settings.exchange) / "received" / cls.settings.course_id).glob(f"{ada}+tiny+*")):
        submit(cls, ada, RIGHT)
    time.sleep(1.5)
    due = datetime.now(timezone.utc).replace(tzinfo=None)
    time.sleep(1.5)
    submit(cls, bob, {"tiny-add": RIGHT["tiny-add"]})
    cls.run(cls.instructor, str(cls.python), "-m", "nbgrader", "db", "assignment", "add", "tiny",
            f"--duedate={due.isoformat(' ')} UTC", cwd=cls.course_dir)

    collected = cls.course("collect", "tiny").stdout
    rows = {line.split()[0]: line for line in collected.splitlines() if line.split() and line.split()[0] in (ada, bob)}
    assert set(rows) == {ada, bob}, collected
    late = re.search(r"(\d+) s\s", rows[bob])
    assert late and 1 <= int(late.group(1)) <= 120, f"{bob} submitted after the due date:\n{collected}"
    assert not re.search(r"\d+ s\s", rows[ada]), f"{ada} was on time:\n{collected}"
    assert "1 late" in collected and "kept and graded" in collected, collected
    for student in (ada, bob):  # nbgrader's timestamp, as the student's submit wrote it
        stamp = parse_utc((cls.course_dir / "submitted" / student / "tiny" / "timestamp.txt").read_text().strip())
        assert stamp.isoformat(" ", "seconds") in rows[student], collected

    graded = cls.course("autograde", "tiny", "--workers", "2", *sandbox_flags()).stdout
    assert re.search(rf"^{ada}\s+tiny\s+ok\s+5/5", graded, re.M), graded
    assert re.search(rf"^{bob}\s+tiny\s+ok\s+2/5", graded, re.M), graded
    cls.course("export")
    with open(cls.course_dir / "grades.csv") as handle:
        exported = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert set(exported) == {ada, bob}
    assert exported[ada]["timestamp"] and exported[bob]["timestamp"] > exported[ada]["timestamp"]
    assert exported[bob]["duedate"], exported[bob]
    assert float(exported[bob]["score"]) == 2.0  # late, kept, graded (no penalty configured)


def test_returned_feedback_reaches_each_student_alone(klass):
    cls = klass
    ada, bob = cls.students
    if not (cls.course_dir / "autograded" / ada / "tiny").is_dir():
        test_collect_keeps_timestamps_and_reports_late_submissions(cls)
    cls.course("feedback", "tiny")
    returned = cls.course("return", "tiny").stdout
    assert re.search(rf"^{ada}\s+returned", returned, re.M) and re.search(rf"^{bob}\s+returned", returned, re.M), \
        returned
    feedback = Path(cls.settings.exchange) / cls.settings.course_id / "feedback"
    assert attempt(cls, bob, "list", feedback).startswith("DENIED")

    for student, score in ((ada, "5"), (bob, "2")):
        cls.nbgrader(student, "fetch_feedback", "tiny")
        fetched = Path(cls.env(student)["HOME"]) / cls.settings.course_id / "tiny" / "feedback"
        pages = list(fetched.glob("*/tiny.html"))
        assert len(pages) == 1, pages
        text = gc_text(pages[0].read_text())
        assert re.search(rf"Score:\s*{score}(\.0)?\s*/\s*5", text), text[:2000]
        assert gc.LEAK_MARK not in text and "hidden check failed" not in text
        assert "BEGIN HIDDEN TESTS" not in pages[0].read_text()


def gc_text(page: str) -> str:
    from graders.course.exchange import page_text
    return page_text(page)


@pytest.fixture
def root_course(tmp_path):
    """The tiny course run by root alone, with a shared exchange of its own."""
    from graders.course.config import config_text

    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o1777)
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text(config_text(str(exchange)))
    gc.release(course, {"tiny": gc.build("tiny", gc.TINY)})
    return course


def canvas_zip(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def test_collect_from_a_canvas_archive(root_course, tmp_path):
    course = root_course
    release = nbformat.read(str(course / "release" / "tiny" / "tiny.ipynb"), as_version=4)
    right, blank = nbformat.writes(gc.answers(release, **RIGHT)), nbformat.writes(release)
    archive = canvas_zip(tmp_path / "submissions.zip", {
        "lovelaceada_48213_9911234_tiny.ipynb": right,
        "hopperg_LATE_50321_9911876_tiny-1.ipynb": blank,   # late, uploaded a second time
        "notes_for_grader.txt": "not a notebook",
    })
    done = subprocess.run([sys.executable, "-m", "graders.cli", "collect", "tiny", "--zip", str(archive),
                           "--course-dir", str(course)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (course / "submitted" / "lovelaceada" / "tiny" / "tiny.ipynb").read_text() == right
    assert (course / "submitted" / "hopperg" / "tiny" / "tiny.ipynb").read_text() == blank
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["hopperg", "lovelaceada"]
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.split()}
    assert "marked late by the LMS" in rows["hopperg"] and "late" not in rows["lovelaceada"].split("from")[1]
    assert "2 submission(s), 1 late (1 marked late by the LMS)" in done.stdout, done.stdout
    # their pages cannot go back through the exchange (no submission secret): `course return`
    # says which and why, and exits 1
    for student in ("lovelaceada", "hopperg"):
        (course / "feedback" / student / "tiny").mkdir(parents=True)
        (course / "feedback" / student / "tiny" / "tiny.html").write_text("<html><body>Score: 0 / 5</body></html>")
    returned = subprocess.run([sys.executable, "-m", "graders.cli", "return", "tiny", "--course-dir", str(course)],
                              capture_output=True, text=True, timeout=300)
    assert returned.returncode == 1, returned.stdout + returned.stderr
    assert "2 of 2 page(s) not returned" in returned.stderr and "hopperg: not returned: not submitted through " \
        "the exchange" in returned.stderr, returned.stderr


def test_return_refuses_a_page_that_shows_hidden_tests(root_course, tmp_path):
    """Two 'students' (root, submitting under two ids) get feedback pages; one page, written
    by hand, quotes a hidden test: it is refused and never reaches the exchange."""
    from graders.course import exchange
    from graders.course.config import Course

    course = Course(root_course)
    exchange.publish(course, ["tiny"])
    student_dir = tmp_path / "student"
    student_dir.mkdir()
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(root_course))
    for step, student in (("fetch_assignment", "honest"), ("submit", "honest"), ("submit", "leaky")):
        done = subprocess.run([sys.executable, "-m", "nbgrader", step, "tiny", "--course",
                               course.config.CourseDirectory.course_id, f"--student={student}"],
                              cwd=student_dir, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    done = subprocess.run([sys.executable, "-m", "graders.cli", "collect", "tiny", "--course-dir", str(root_course)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for student, extra in (("honest", "all fine"), ("leaky", 'assert add(-7, 7) == 0, "hidden check failed"')):
        folder = root_course / "feedback" / student / "tiny"
        folder.mkdir(parents=True)
        (folder / "tiny.html").write_text(f"<html><body><p>Score: 2 / 5</p><pre>{extra}</pre></body></html>")
    outcome = exchange.give_back(course, "tiny")
    assert outcome["honest"] == "returned"
    assert outcome["leaky"].startswith("refused") and "add(-7, 7)" in outcome["leaky"], outcome
    released = list((tmp_path / "exchange" / course.config.CourseDirectory.course_id / "feedback").glob("*.html"))
    assert len(released) == 1 and "all fine" in released[0].read_text()


def test_a_roster_with_bad_rows_is_refused_whole(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("username,role,name,password\nada,student,Ada,\nBad Name,student,,\nbob,teacher,,\nada,student,,\n")
    with pytest.raises(roster.RosterError) as refused:
        roster.read(path)
    said = str(refused.value)
    assert "line 3" in said and "'Bad Name'" in said
    assert "line 4" in said and "teacher" in said
    assert "line 5" in said and "twice" in said
    path.write_text("user,role\nada,student\n")
    with pytest.raises(roster.RosterError, match="lacks username"):
        roster.read(path)
    path.write_text("username,role,name,password\nada,student,Ada Lovelace,\ngrace,instructor,,s3cret\n")
    assert [(m.username, m.role, m.password) for m in roster.read(path)] == \
        [("ada", "student", ""), ("grace", "instructor", "s3cret")]



def test_a_folder_opened_for_two_classes_closes_with_the_last(tmp_path):
    """A checkout in a mode-700 folder: each throwaway class opens the way (o+x) and the
    folder gets its mode back only when the last class that holds it open ends."""
    from deploy.hub.throwaway import close_way, open_way, unsearchable

    private = tmp_path / "private"
    checkout = private / "checkout"
    checkout.mkdir(parents=True)
    private.chmod(0o700)
    assert private in unsearchable(checkout)
    first = open_way([checkout])
    second = open_way([checkout])
    assert private in first and private in second
    assert private.stat().st_mode & 0o777 == 0o701 and not unsearchable(checkout)
    close_way(first)
    assert private.stat().st_mode & 0o777 == 0o701, "closed while another class still needs it"
    close_way(second)
    assert private.stat().st_mode & 0o777 == 0o700


def test_a_hidden_line_the_student_copy_contains_is_no_secret():
    """course return refuses a page that shows hidden test code, but a hidden line that a
    visible check contains (the same call, its arguments broken over two lines) is already on
    the student's screen: 01's round trip on the hub was refused for it."""
    from graders.course.exchange import secrets

    hidden = {"checks.expect_true(bool(_got) == _want,", "_m = torch.randn(3, 4, generator=g)"}
    released = {'checks.expect_true(bool(_got) == _want, f"{_name} returned {bool(_got)}. {_why}")', "x = 1"}
    assert secrets(hidden, released) == {"_m = torch.randn(3, 4, generator=g)"}
    assert secrets(hidden, set()) == hidden


def test_a_canvas_archive_is_filed_under_the_rosters_user_names(root_course, tmp_path):
    """With a roster (its lms_id column), Canvas's lastnamefirstname becomes the hub's user name;
    a name not on the roster is skipped and said; a file Canvas marked late counts as late."""
    course = root_course
    roster = tmp_path / "roster.csv"
    roster.write_text("username,role,name,lms_id\nada,student,Ada Lovelace,lovelaceada\n"
                      "grace,student,Grace Hopper,hopperg\ngrace2,instructor,Someone,\n")
    with open(course / "nbgrader_config.py", "a") as config:
        config.write(f"\nc.CheckedCollect.roster = {str(roster)!r}\n")
    release = nbformat.read(str(course / "release" / "tiny" / "tiny.ipynb"), as_version=4)
    right, blank = nbformat.writes(gc.answers(release, **RIGHT)), nbformat.writes(release)
    archive = canvas_zip(tmp_path / "submissions.zip", {
        "lovelaceada_48213_9911234_tiny.ipynb": right,
        "hopperg_LATE_50321_9911876_tiny-1.ipynb": blank,
        "strangerx_50999_9911999_tiny.ipynb": blank,          # not on the roster
    })
    done = subprocess.run([sys.executable, "-m", "graders.cli", "collect", "tiny", "--zip", str(archive),
                           "--course-dir", str(course)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["ada", "grace"]
    assert (course / "submitted" / "ada" / "tiny" / "tiny.ipynb").read_text() == right
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.split()}
    assert "marked late by the LMS" in rows["grace"]
    assert "2 submission(s), 1 late (1 marked late by the LMS)" in done.stdout, done.stdout
    assert "strangerx is not on the roster" in done.stdout + done.stderr, done.stdout + done.stderr


def test_roster_remove_names_a_user_it_could_not_remove():
    """A user with a running process (their server, when the hub still runs) is not removed:
    `roster remove` says who and why, and exits 1; once the process ends, it removes them."""
    require_root("the test creates a Unix user")
    import secrets

    member = roster.Member(f"rm{secrets.token_hex(3)}", "student")
    roster.create([member])
    import pwd
    account = pwd.getpwnam(member.username)
    sleeper = subprocess.Popen(["sleep", "120"], user=account.pw_uid, group=account.pw_gid)
    try:
        time.sleep(0.5)
        problems = roster.remove([member])
        assert len(problems) == 1 and member.username in problems[0] and "stop the hub first" in problems[0], problems
        assert roster.exists(member.username)
    finally:
        sleeper.kill()
        sleeper.wait()
    time.sleep(0.5)
    assert roster.remove([member]) == [] and not roster.exists(member.username)
