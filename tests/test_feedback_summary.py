"""The top of a feedback page (`course feedback`, through the real CLI, nbgrader and sandbox):
every exercise by its name, its score and, for each lost point, the one-line message its
checks gave, linked to its cell; nbgrader's list of "Test cell (Score: …)" lines is gone and
no hidden test's code or misconception marker shows. (tests/test_browser.py opens such a page,
of a real notebook, in Chromium.)"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from nbformat.v4 import new_markdown_cell

import grading_course as gc
from conftest import sandbox_flags

pytestmark = pytest.mark.slow
COURSE_BIN = Path(sys.executable).parent / "course"

MINI = [
    ("code", None, 0, "from helpers import checks"),
    ("solution", "mini-add", 0,
     "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION"),
    ("test", "mini-add-test", 2,
     'checks.expect_equal(add(1, 2), 3, "add(1, 2)")\n### BEGIN HIDDEN TESTS\n'
     'checks.expect_true(add(-7, 7) == 0, "Negative numbers add too. [mc:mini.negative]")\n'
     "### END HIDDEN TESTS"),
    ("solution", "mini-quiz", 0, "### BEGIN SOLUTION\nanswer_count = 4\n### END SOLUTION"),
    ("test", "mini-quiz-test", 1,
     'checks.expect_true(answer_count == 4, "Count the rows and the columns. [mc:mini.count]")'),
    ("solution", "mini-sub", 0,
     "def sub(a, b):\n    ### BEGIN SOLUTION\n    return a - b\n    ### END SOLUTION"),
    ("test", "mini-sub-test", 1, 'checks.expect_equal(sub(3, 1), 2, "sub(3, 1)")'),
]
HEADINGS = {1: "# Mini\n\n## 1. Adding\n\n### Exercise 1: add two numbers (2 points)",
            3: "## 2. Counting\n\n**Quick quiz.** How many cells does a 2×2 grid have?",
            5: "### Exercise 2: subtract (1 point)"}


def mini():
    nb = gc.build("mini", MINI)
    for index in sorted(HEADINGS, reverse=True):
        nb.cells.insert(index, new_markdown_cell(HEADINGS[index]))
    return nb


def run_course(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run([str(COURSE_BIN), *args], env=env, capture_output=True, text=True, timeout=600)


def summary_rows(page: str) -> list[tuple[str, str, str, str]]:
    """(anchor, name, score, message) of each row of the page's summary table."""
    table = re.search(r'<table[^>]*id="course-summary".*?</table>', page, re.S)
    assert table, "the page has no summary table"
    rows = re.findall(r'<tr class="\w+">\s*<td><a href="#([^"]+)">(.*?)</a></td>\s*'
                      r'<td class="center score">(.*?)</td>\s*<td class="message">(.*?)</td>', table.group(0), re.S)
    return [tuple(html.unescape(" ".join(x.split())) for x in row) for row in rows]


def test_the_page_starts_with_each_exercise_its_score_and_what_was_wrong(tmp_path):
    course = tmp_path / "course"
    _, release = gc.release(course, {"mini": mini()})["mini"]
    wrong = gc.answers(release, **{"mini-add": "def add(a, b):\n    return a - b",
                                   "mini-quiz": "answer_count = 4"})  # sub left unanswered
    gc.submit(course, "wrong", "mini", wrong)
    graded = run_course("autograde", "mini", "--course-dir", str(course), *sandbox_flags())
    assert graded.returncode == 0, graded.stdout + graded.stderr
    fed = run_course("feedback", "mini", "--course-dir", str(course))
    assert fed.returncode == 0, fed.stdout + fed.stderr
    page = (course / "feedback" / "wrong" / "mini" / "mini.html").read_text()

    rows = summary_rows(page)
    assert [(a, n, s) for a, n, s, _ in rows] == [
        ("mini-add-test", "Exercise 1: add two numbers", "0 / 2"),
        ("mini-quiz-test", "Quick quiz in “Counting”: answer_count", "1 / 1"),
        ("mini-sub-test", "Exercise 2: subtract", "0 / 1")], rows
    assert rows[0][3] == "Check failed: add(1, 2) is -1, expected 3.", rows[0]
    assert rows[1][3] == "Every check passed."
    assert rows[2][3].startswith("Not answered yet"), rows[2]
    assert page.index('id="course-summary"') < page.index("Grading status") < page.index("mini-add-test\"></a>"), \
        "the summary comes first, the status next, the cells after"
    for anchor, *_ in rows:  # each row links to its cell
        assert f'<a name="{anchor}"></a>' in page
    assert "Test cell</a> (Score" not in page, "nbgrader's list of unnamed test cells is still there"
    assert "add(-7, 7)" not in page and "[mc:" not in page
    # below, each failed check's output reads as in the notebook
    assert "Check failed: add(1, 2) is -1, expected 3." in page and "CheckFailed:" not in page
