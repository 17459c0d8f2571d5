"""The course's side of nbgrader's filesystem exchange: publish releases, give feedback back.

The exchange is nbgrader's own (``c.Exchange.root``, ``c.Exchange.path_includes_course``
in the course's nbgrader_config.py), driven through NbGraderAPI, so `course`, the
formgrader's buttons and the students' Assignment List all move the same files. Two of
nbgrader's classes get one step more, for a server where every student is a Unix user:

* ``PrivateSubmit`` (students' Submit): nbgrader leaves a submission world-readable and its
  folder world-writable, hidden only by a random name in an unlistable inbound. Here the
  submission's folder is closed to everyone but the student and its group, which is the
  course's (inbound is set-group-id, so every folder made in it inherits inbound's group):
  another student who learns the name can neither read nor replace what is inside. The
  folder is the gate: the files in it stay readable (0644), since nbgrader writes two of
  them after the folder has lost its set-group-id bit, so they carry the student's group,
  and a student cannot give a file a group they are not in.
* ``PublishingRelease`` (the instructor's Release): inbound gets the sticky bit, so a student
  can add entries there but not rename or delete anyone else's.
* every class the course names (``CourseExchange``): the exchange root need not be writable.
  nbgrader asks for a world-writable root (1777), where any user can make
  ``exchange/<another course>/`` and squat a course id before its instructor; on a hub the
  root is root's (755) and each course's folder is made by deploy/hub/setup.py.
* ``PrivateSubmit`` also refuses ``--student`` naming someone else: a submission is its Unix
  user's (collect checks that too, graders.course.collect.CheckedCollect).

``shared(course)``: whether the exchange is one students reach, i.e. ``c.Exchange.root`` is
not the course directory's own DIR/exchange (which the formgrader alone uses); `course
release` publishes to a shared exchange (``publish``). ``give_back`` (`course return`) is
nbgrader's release_feedback, after checking each page for the code of a hidden test (the
course's feedback scrubs it; a page made some other way that shows one is refused).
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.exchange.default import (
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeReleaseAssignment,
    ExchangeReleaseFeedback,
    ExchangeSubmit,
)
from nbgrader.utils import get_username

from .config import FACTORY, Course
from .layout import CourseError

SUBMIT = "graders.course.exchange.PrivateSubmit"
RELEASE = "graders.course.exchange.PublishingRelease"
# a submission's folders: the student and the course's group (inbound's, inherited) only
SUBMITTED_DIR = 0o770
SUBMITTED_FILE = 0o644


class CourseExchange:
    """The exchange root must exist and be searchable; nbgrader's check that it is writable by
    everyone (or its release's chmod to 777) is what lets a student make another course's folder."""

    def ensure_root(self):
        if not os.path.isdir(self.root) or not os.access(self.root, os.X_OK):
            self.fail(f"The exchange {self.root} does not exist or cannot be entered: ask your instructor")


class Fetch(CourseExchange, ExchangeFetchAssignment):
    pass


class FetchFeedback(CourseExchange, ExchangeFetchFeedback):
    pass


class List(CourseExchange, ExchangeList):
    """nbgrader's list; a submission with no feedback to fetch says so (the Assignment List
    otherwise shows nothing, and its Fetch Feedback button then silently does nothing)."""

    NO_FEEDBACK = " (no feedback returned yet)"

    def parse_assignments(self):
        assignments = super().parse_assignments()
        if self.cached:
            for assignment in assignments:
                for info in assignment.get("submissions", []):
                    if not info.get("has_local_feedback") and not info.get("has_exchange_feedback"):
                        info["timestamp"] = f"{info['timestamp']}{self.NO_FEEDBACK}"
        return assignments


class ReleaseFeedback(CourseExchange, ExchangeReleaseFeedback):
    pass


class PrivateSubmit(CourseExchange, ExchangeSubmit):
    """nbgrader's submit as the Unix user alone, then the submission closed to everyone but
    the student and the course's group (nbgrader makes it 0777 / 0644, trusting the name to
    stay secret)."""

    def init_dest(self):
        me = get_username()
        if self.coursedir.student_id not in ("*", "", me) and os.geteuid() != 0:
            self.fail(f"You can only submit as yourself ({me}), not as {self.coursedir.student_id}: a "
                      f"submission belongs to the Unix user who makes it")
        super().init_dest()

    def copy_files(self):
        super().copy_files()
        close(Path(self.inbound_path) / self.assignment_filename)


class PublishingRelease(CourseExchange, ExchangeReleaseAssignment):
    """nbgrader's release, then the sticky bit on inbound (where its owner can set it):
    students add entries there but move nobody else's. The exchange root is made by whoever
    set the exchange up (deploy/hub/setup.py), or, for the course directory's own
    DIR/exchange, here."""

    def ensure_root(self):
        own = os.path.join(self.coursedir.root, "exchange")
        if not os.path.exists(self.root) and os.path.abspath(self.root) == os.path.abspath(own):
            os.makedirs(self.root, mode=0o755)
        super().ensure_root()

    def copy_files(self):
        super().copy_files()
        add_sticky_bit(Path(self.inbound_path))


def close(submission: Path) -> None:
    for folder, _, files in os.walk(submission):
        for name in files:
            os.chmod(os.path.join(folder, name), SUBMITTED_FILE)
        os.chmod(folder, SUBMITTED_DIR)


def add_sticky_bit(folder: Path) -> None:
    info = folder.stat()
    if info.st_uid == os.geteuid() and not info.st_mode & stat.S_ISVTX:
        folder.chmod(stat.S_IMODE(info.st_mode) | stat.S_ISVTX)


def exchange_root(course: Course) -> Path:
    return Path(course.config.Exchange.root)


def shared(course: Course) -> bool:
    """Whether students reach this course's exchange (it is not the course directory's own)."""
    return exchange_root(course).resolve() != (course.dir / "exchange").resolve()


def api(course: Course, **overrides) -> NbGraderAPI:
    """NbGraderAPI on the course's config, with the exchange classes above unless the file
    names others."""
    factory = dict(course.config.get("ExchangeFactory", {}))
    for action, name in FACTORY.items():
        factory.setdefault(action, name)
    nbgrader = NbGraderAPI(config=course.nbgrader(ExchangeFactory=factory, **overrides))
    nbgrader.log.setLevel(logging.WARNING)
    return nbgrader


def checked(result: dict, what: str) -> dict:
    if not result.get("success"):
        log, error = result.get("log", "").strip(), result.get("error", "")
        raise CourseError(f"nbgrader could not {what}:\n{log}\n{error}".rstrip())
    return result


def publish(course: Course, assignments: list[str]) -> list[Path]:
    """Release each assignment (already in DIR/release) to the exchange, replacing an
    earlier release of it; returns the exchange's folders."""
    root = exchange_root(course)
    if not root.is_dir():
        raise CourseError(f"the exchange {root} (c.Exchange.root in {course.dir / 'nbgrader_config.py'}) "
                          "does not exist: create it (owned by root, mode 755, with <course id>/ "
                          "owned by the instructor), as deploy/hub/setup.py does")
    nbgrader = api(course, ExchangeReleaseAssignment={"force": True})
    course_id = course.config.CourseDirectory.course_id
    published = []
    for assignment in assignments:
        checked(nbgrader.release_assignment(assignment), f"publish {assignment} to {root}")
        published.append(root / course_id / "outbound" / assignment)
    return published


def hidden_lines(course: Course, assignment: str) -> set[str]:
    """The code lines of the reference notebook's hidden test blocks (those of 6 characters or
    more: shorter ones, such as ``)``, would match any page)."""
    import nbformat
    from nbgrader.preprocessors import ClearHiddenTests

    delimiters = ClearHiddenTests(config=course.config)
    begin, end = delimiters.begin_test_delimeter, delimiters.end_test_delimeter
    source = course.dir / "source" / assignment / f"{assignment}.ipynb"
    lines, inside = set(), False
    for cell in nbformat.read(str(source), as_version=4).cells:
        for line in cell.source.splitlines() if cell.cell_type == "code" else []:
            if begin in line or end in line:
                inside = begin in line
            elif inside and len(line.strip()) >= 6:
                lines.add(line.strip())
    return lines


def released_lines(course: Course, assignment: str) -> set[str]:
    """Every line of the student's copy: a hidden test's line that is also there is no secret."""
    import nbformat

    release = course.dir / "release" / assignment / f"{assignment}.ipynb"
    return {line.strip() for cell in nbformat.read(str(release), as_version=4).cells
            for line in cell.source.splitlines()}


def secrets(hidden: set[str], released: set[str]) -> set[str]:
    """The hidden lines a page must not show: those that no line of the student's copy
    contains. A visible check such as ``expect_true(bool(got) == want, f"...")`` contains a
    hidden line ``expect_true(bool(got) == want,`` that only breaks its arguments over two
    lines, and the page shows the visible one."""
    return {line for line in hidden if not any(line in seen for seen in released)}


def page_text(page: str) -> str:
    """An HTML page as a reader sees its words: tags dropped, entities decoded."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]*>", "", page))


def give_back(course: Course, assignment: str) -> dict[str, str]:
    """Release DIR/feedback/<student>/<assignment>/ through the exchange (nbgrader's
    release_feedback), for each student's Fetch Feedback. Returns {student: what happened}.

    A page is returned only if no hidden test's code appears in it (the course's feedback
    scrubs them; a page written otherwise is refused, not sent), and only to a student who
    submitted through the exchange (nbgrader finds the page by a secret the submission
    carries; an archive from an LMS has none)."""
    hidden = secrets(hidden_lines(course, assignment), released_lines(course, assignment))
    outcome, excluded = {}, []
    for page in sorted((course.dir / "feedback").glob(f"*/{assignment}/*.html")):
        student, folder = page.parent.parent.name, page.parent
        submitted = course.dir / "submitted" / student / assignment
        leaked = sorted(line for line in hidden if line in page_text(page.read_text(errors="replace")))
        if leaked:
            outcome[student] = f"refused: {page.name} shows hidden test code ({leaked[0]!r})"
            excluded.append(student)
            continue
        for name in ("timestamp.txt", "submission_secret.txt"):
            # a submission graded as missing or invalid has no autograded copy of them
            if not (folder / name).exists() and (submitted / name).exists():
                (folder / name).write_text((submitted / name).read_text())
        if not (folder / "submission_secret.txt").exists() or not (folder / "timestamp.txt").exists():
            outcome[student] = "not returned: not submitted through the exchange (no submission secret)"
            excluded.append(student)
        else:
            outcome[student] = "returned"
    if not outcome:
        raise CourseError(f"no feedback for {assignment} in {course.dir / 'feedback'}: "
                          f"run `course feedback {assignment}`")
    if len(excluded) < len(outcome):
        overrides = {"CourseDirectory": {"student_id_exclude": ",".join(excluded)}} if excluded else {}
        checked(api(course, **overrides).release_feedback(assignment), f"return the feedback of {assignment}")
    return outcome
