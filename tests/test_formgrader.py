"""nbgrader's own instructor tool, the formgrader, sees the course that `course` grades.

A tiny course (one assignment, three students: right, partly wrong, blank) is graded by the
`course autograde` CLI and exported by `course export`; JupyterLab then serves the course
directory with nbgrader's server extensions on (not the student's lab/ configuration, which
hides them) and headless Chromium drives the formgrader's own pages, at /formgrader (the lab's
Formgrader panel shows the same pages in an iframe):

* Manage Assignments and Manual Grading list the assignment; the scores of the gradebook page
  (per student) and of Manage Students (per student, over the course) equal grades.csv's;
* a manual score and a comment typed into the manual-grading page of a submission are in the
  gradebook, and still there (and shown) after `course autograde --force`;
* the "Generate Feedback" button writes a page per student with no hidden test code and no
  misconception marker (the course's nbgrader_config.py carries the scrubber);
* the server's log says nothing about a missing exchange directory (the formgrader reads the
  course's DIR/exchange) and has no error.

The tests share one module fixture (course, server, browser) but do not rely on one another:
pytest-xdist may hand them to different workers. Only 127.0.0.1 is reached.
Screenshots: formgrader-assignments.png, formgrader-gradebook.png (with the manual grade),
formgrader-feedback.png (the button's result) and formgrader-feedback-page.png (one generated
page) in $COURSE_SCREENSHOTS (default artifacts/screenshots/).
"""

from __future__ import annotations

import csv
import html
import os
import re
import subprocess
import time
import urllib.parse
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

import grading_course as gc
from conftest import REPO, require_program, sandbox_flags
from graders.course.config import COURSE_ID
from labserver import CHROMIUM, VENV_BIN, LabServer, chromium, start_lab

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("formgrader")]

SCREENSHOTS = Path(os.environ.get("COURSE_SCREENSHOTS", REPO / "artifacts" / "screenshots"))
COURSE_BIN = VENV_BIN / "course"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
LOAD_MS = 60_000
FEEDBACK_MS = 120_000

ASSIGNMENT = "tiny"
MARKER = "[mc:tiny.adds-for-mul]"
HIDDEN = 'assert add(-7, 7) == 0, "hidden check failed"'
# grading_course.TINY with a misconception marker in the visible test's message
SPEC = [row if row[1] != "tiny-mul-test" else
        ("test", "tiny-mul-test", 3, f'assert mul(2, 3) == 6, "mul(2, 3) should be 6: did you add? {MARKER}"')
        for row in gc.TINY]
RIGHT = {"tiny-add": "def add(a, b):\n    return a + b", "tiny-mul": "def mul(a, b):\n    return a * b"}
WRONG_MUL = "def mul(a, b):\n    return a + b"
EXPECTED = {"ref": 5.0, "wrong": 2.0, "blank": 0.0}
# (student, test cell given a manual score, the score, answer cell given a comment, the comment):
# the formgrader has a comment box on answer (solution) cells only
MANUAL = ("wrong", "tiny-mul-test", 1.5, "tiny-mul", "Close: mul must multiply, not add.")


def course_cli(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([str(COURSE_BIN), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"course {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def autograde(course: Path, *flags: str) -> subprocess.CompletedProcess:
    return course_cli("autograde", ASSIGNMENT, "--course-dir", str(course), "--workers", "2",
                      "--cell-timeout", "20", "--notebook-timeout", "120", *sandbox_flags(), *flags)


class Formgrader:
    def __init__(self, course: Path, server: LabServer, browser):
        self.course, self.server, self.browser = course, server, browser
        self.graded_by_hand = False  # MANUAL's score and comment given (grade_by_hand)
        self.context = browser.new_context(viewport={"width": 1300, "height": 900})
        # only 127.0.0.1 is reached (nbgrader's manual-grading page asks a CDN for MathJax: aborted)
        self.blocked: list[str] = []
        self.context.route("**/*", self._local_only)
        self.page = self.context.new_page()
        self.page.set_default_timeout(LOAD_MS)
        # log in once: the token sets the server's cookie (and the _xsrf cookie the pages post with)
        self.page.goto(f"{server.base}/formgrader?token={server.token}", wait_until="domcontentloaded")

    def _local_only(self, route) -> None:
        if urllib.parse.urlsplit(route.request.url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def goto(self, path: str, ready: str = "() => window.models !== undefined && models.loaded"):
        self.page.goto(f"{self.server.base}/formgrader/{path}", wait_until="domcontentloaded")
        self.page.wait_for_function(ready)
        return self.page

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    def gradebook_scores(self) -> dict[str, str]:
        """Student -> "score / max" as the gradebook's notebook page shows them."""
        page = self.goto(f"gradebook/{ASSIGNMENT}/{ASSIGNMENT}")
        rows = page.locator("#main-table tr")
        return {row.locator(".name .name-shown").text_content().strip():
                row.locator(".score").text_content().strip() for row in rows.all()}


@pytest.fixture(scope="module")
def fg(tmp_path_factory):
    require_program(CHROMIUM, "chromium")
    require_program("bwrap", "bubblewrap")

    tmp = tmp_path_factory.mktemp("formgrader")
    course = tmp / "course"
    _, release = gc.release(course, {ASSIGNMENT: gc.build(ASSIGNMENT, SPEC)})[ASSIGNMENT]
    right = gc.answers(release, **RIGHT)
    gc.submit(course, "ref", ASSIGNMENT, right)
    gc.submit(course, "wrong", ASSIGNMENT, gc.answers(right, **{"tiny-mul": WRONG_MUL}))
    gc.submit(course, "blank", ASSIGNMENT, release)
    autograde(course)

    server = start_lab(course, tmp / "jupyter-home", student=False)
    try:
        with chromium() as browser:
            yield Formgrader(course, server, browser)
    finally:
        server.stop()


def expected_scores(fg) -> dict[str, float]:
    student, _, score, _, _ = MANUAL
    return {s: total + (score if fg.graded_by_hand and s == student else 0) for s, total in EXPECTED.items()}


def exported_scores(course: Path) -> dict[str, float]:
    with open(course / "grades.csv") as handle:
        return {r["student_id"]: float(r["score"]) for r in csv.DictReader(handle)
                if r["assignment"] == ASSIGNMENT}


def shown(score: float, max_score: float = 5.0) -> str:
    """A score as the formgrader writes it (roundToPrecision, then JS number formatting)."""
    return f"{score:g} / {max_score:g}"


def test_formgrader_lists_the_assignment_and_the_course_scores(fg):
    page = fg.goto("manage_assignments")
    names = [n.strip() for n in page.locator("#main-table .name").all_text_contents()]
    assert ASSIGNMENT in names, names
    row = page.locator("#main-table tr", has=page.locator(".name", has_text=ASSIGNMENT))
    assert row.locator(".num-submissions").text_content().strip() == str(len(EXPECTED))
    fg.shot("formgrader-assignments")
    page = fg.goto("gradebook")  # Manual Grading: the assignment, graded
    assert ASSIGNMENT in [n.strip() for n in page.locator("#main-table .name").all_text_contents()]

    course_cli("export", "--course-dir", str(fg.course))
    exported = exported_scores(fg.course)
    assert exported == expected_scores(fg)
    scores = fg.gradebook_scores()
    fg.page.locator("#toggle_names").click()  # the screenshot shows the students' names
    fg.shot("formgrader-gradebook")
    assert scores == {student: shown(score) for student, score in exported.items()}
    # the students page: each student's total over the course
    page = fg.goto("manage_students")
    totals = {row.locator(".id").text_content().strip(): row.locator(".score").text_content().strip()
              for row in page.locator("#main-table tr").all()}
    assert totals == {student: shown(score) for student, score in exported.items()}


def grade_row(course: Path, student: str, grade_id: str, comment_id: str):
    """(auto score, manual score, manual comment, submission's total) from the gradebook."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        grade = gb.find_grade(grade_id, ASSIGNMENT, ASSIGNMENT, student)
        comment = gb.find_comment(comment_id, ASSIGNMENT, ASSIGNMENT, student)
        return (grade.auto_score, grade.manual_score, comment.manual_comment,
                gb.find_submission(ASSIGNMENT, student).score)


def open_submission(fg, student: str):
    """The manual-grading page of student's notebook, reached by the gradebook's link."""
    fg.gradebook_scores()
    fg.page.locator("#toggle_names").click()  # names, not "Submission #n"
    fg.page.locator("#main-table tr .name a.name-shown", has_text=re.compile(f"^{student}$")).click()
    fg.page.wait_for_function("() => window.formgrader !== undefined && formgrader.grades !== undefined"
                              " && formgrader.grades.loaded && formgrader.comments.loaded")
    return fg.page


def grade_by_hand(fg) -> None:
    """Type MANUAL's score and comment into the manual-grading page, once per course (the
    feedback test needs them too: pytest-xdist may run it on a worker, hence a course, of its own)."""
    if fg.graded_by_hand:
        return
    student, grade_id, score, comment_id, comment = MANUAL
    page = open_submission(fg, student)
    # typed as a grader types: each widget saves on change (when it loses focus)
    with page.expect_response(lambda r: "/formgrader/api/grade/" in r.url and r.request.method == "PUT"):
        page.locator(f"input.score#{grade_id}").fill(str(score))
        page.locator(f"input.score#{grade_id}").blur()
    with page.expect_response(lambda r: "/formgrader/api/comment/" in r.url and r.request.method == "PUT"):
        page.locator(f"#{comment_id}-comment").fill(comment)
        page.locator(f"#{comment_id}-comment").blur()
    fg.graded_by_hand = True


def test_manual_grade_and_comment_survive_a_forced_autograde(fg):
    student, grade_id, score, comment_id, comment = MANUAL
    grade_by_hand(fg)
    auto, manual, saved_comment, total = grade_row(fg.course, student, grade_id, comment_id)
    assert (auto, manual, saved_comment) == (0, score, comment)
    assert total == EXPECTED[student] + score

    ran = autograde(fg.course, "--force")
    assert re.search(rf"^{student}\s+{ASSIGNMENT}\s+ok\b", ran.stdout, re.M), ran.stdout
    auto, manual, saved_comment, total = grade_row(fg.course, student, grade_id, comment_id)
    assert (auto, manual, saved_comment) == (0, score, comment), "a forced regrade dropped the manual grade"
    assert total == EXPECTED[student] + score

    assert fg.gradebook_scores()[student] == shown(EXPECTED[student] + score)
    fg.page.locator("#toggle_names").click()
    fg.shot("formgrader-gradebook")  # with the manual grade
    page = open_submission(fg, student)
    assert page.locator(f"input.score#{grade_id}").input_value() == f"{score:g}"
    assert page.locator(f"#{comment_id}-comment").input_value() == comment


def hidden_test_lines(spec) -> list[str]:
    """Each line of the hidden blocks of the spec's test cells (delimiters excluded)."""
    lines, inside = [], False
    for kind, _, _, source in spec:
        for line in source.splitlines() if kind == "test" else []:
            if "BEGIN HIDDEN TESTS" in line or "END HIDDEN TESTS" in line:
                inside = "BEGIN" in line
            elif inside and line.strip():
                lines.append(line.strip())
    return lines


def as_text(page: str) -> str:
    """The page without tags, entities decoded: highlighted code reads as it was written."""
    return html.unescape(re.sub(r"<[^>]*>", "", page))


def wait_modal_shown(page):
    """The modal once Bootstrap's fade-in is over (its dialog no longer sliding)."""
    page.wait_for_function(
        """() => {
            const modal = document.querySelector('.modal.in');
            if (!modal) return false;
            const dialog = modal.querySelector('.modal-dialog');
            const moved = getComputedStyle(dialog).transform;
            const still = moved === 'none' || moved === 'matrix(1, 0, 0, 1, 0, 0)';
            return getComputedStyle(modal).opacity === '1' && still;
        }""", timeout=FEEDBACK_MS)
    return page.locator(".modal.in").first


def test_generate_feedback_button_writes_pages_without_hidden_tests(fg):
    grade_by_hand(fg)  # done already unless this test runs alone
    page = fg.goto("manage_assignments")
    row = page.locator("#main-table tr", has=page.locator(".name", has_text=ASSIGNMENT))
    started = time.monotonic()
    row.locator(".generate-feedback a").click()
    modal = wait_modal_shown(page)
    print(f"generate feedback: {time.monotonic() - started:.1f} s")
    fg.shot("formgrader-feedback")
    assert modal.locator(".modal-title").text_content() == "Success", modal.text_content()[-4000:]

    files = {p.parent.parent.name: p for p in (fg.course / "feedback").glob(f"*/{ASSIGNMENT}/{ASSIGNMENT}.html")}
    assert set(files) == set(EXPECTED)
    hidden = hidden_test_lines(SPEC)
    assert HIDDEN in hidden and gc.LEAK_MARK in HIDDEN  # the needles are the course's hidden tests
    for student, path in files.items():
        raw = path.read_text()
        text = as_text(raw)
        assert path.stat().st_mtime > started - 1, f"{student}'s feedback was not written by the button"
        for needle in ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", gc.LEAK_MARK, "add(-7,", "hidden check failed",
                       *hidden):
            assert needle not in raw and needle not in text, f"{student}'s feedback shows hidden test code ({needle})"
        assert "[mc:" not in raw and "[mc:" not in text, f"{student}'s feedback shows a misconception marker"
        assert "hidden tests" in text, f"{student}'s feedback lacks the hidden tests' placeholder"
        # the course's page (its exercise summary), written through the course config's exporter
        assert 'id="course-summary"' in raw, f"{student}'s page from the button is nbgrader's plain one"
    wrong = as_text(files["wrong"].read_text())
    assert "mul(2, 3) should be 6: did you add?" in wrong  # the visible test's message stays
    assert MANUAL[4] in wrong  # the grader's comment reaches the student
    show_feedback_page(fg, files["wrong"])


def show_feedback_page(fg, path: Path) -> None:
    """A screenshot of one generated page, as the student opens it (offline: CDN scripts aborted)."""
    context = fg.browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                      else route.abort())
        page = context.new_page()
        page.goto(path.as_uri(), wait_until="domcontentloaded")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "formgrader-feedback-page.png"), full_page=True)
    finally:
        context.close()


def test_server_log_says_nothing_about_the_exchange(fg):
    fg.goto("manage_assignments")
    fg.server.api("/formgrader/api/assignments")
    log = fg.server.log.read_text(errors="replace")
    # nbgrader's words for an exchange it cannot use (its default root, absent here)
    assert not re.search(r"exchange directory|Unwritable directory|Error fetching courses", log, re.I), log[-4000:]
    errors = [line for line in log.splitlines() if re.search(r"^\[E |Traceback|ERROR", line)]
    assert not errors, "\n".join(errors[:20])
    # and the exchange was read: the course's own (DIR/exchange, from its nbgrader_config.py)
    assert "Released assignments:" in log, log[-4000:]
    assert (fg.course / "exchange").is_dir()
