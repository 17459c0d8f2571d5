"""What each student's graded notebook says about each exercise, and the class's tallies.

Reads only what grading left behind: scores from nbgrader's gradebook, error outputs from
DIR/autograded/<student>/<assignment>/*.ipynb, statuses and the static review's flags
(quoted lines, graders.autograde.review) from DIR/grading_status.json.
Nothing is executed. Each exercise (a solution grade_id) of each student gets a set of
outcomes: ``correct``, or the misconception identifiers its failing test cells carry, or
one of the reserved outcomes below.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from helpers.misconceptions import UNANSWERED, split_marker

CORRECT = "correct"
UNCLASSIFIED = "unclassified"   # lost points, but no identifier (older releases, plain asserts)
NOT_GRADED = "not graded"       # nothing ran for it: missing, invalid, crashed, or stopped before
RESERVED = (UNCLASSIFIED, UNANSWERED, NOT_GRADED, CORRECT)

# What an untouched student copy raises: the stub's NotImplementedError, or NameError in a
# test cell whose variable the stub never assigned.
_UNANSWERED_ERRORS = ("NotImplementedError", "NameError")


class ReportError(Exception):
    """Bad input for the report: said in one line, exit status 2."""


@dataclass
class Exercise:
    name: str                 # the solution grade_id
    tests: list[str]          # its test cells' grade_ids
    max_score: float = 0.0


@dataclass
class StudentResult:
    student: str
    status: str               # from the harness's status record; "ok" when there is none
    reason: str
    score: float
    max_score: float
    scores: dict[str, float] = field(default_factory=dict)          # exercise -> points
    outcomes: dict[str, frozenset[str]] = field(default_factory=dict)  # exercise -> outcomes
    flags: list[str] = field(default_factory=list)  # the static review's quoted lines


@dataclass
class AssignmentResults:
    assignment: str
    exercises: list[Exercise]
    students: list[StudentResult]

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)


# -- one cell -----------------------------------------------------------------------------

def _errors(cell) -> list:
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def cell_outcome(cell) -> str:
    """The outcome of a test cell that lost points, from its error output alone."""
    errors = _errors(cell)
    if any(e.get("ename") == "NotRun" for e in errors):  # graders' mark: the run stopped first
        return NOT_GRADED
    if not errors:
        return UNCLASSIFIED  # e.g. a cell that wrote to stderr: nbgrader scores it 0
    ename, evalue = errors[0].get("ename", ""), errors[0].get("evalue", "")
    _, identifier = split_marker(evalue)
    if identifier:
        return identifier
    if ename in _UNANSWERED_ERRORS or "NotImplementedError" in evalue:
        return UNANSWERED
    return UNCLASSIFIED


def exercise_outcomes(exercise: Exercise, cells: dict, lost: list[str]) -> frozenset[str]:
    """Outcomes of one exercise; ``cells`` maps grade_id -> autograded cell, ``lost`` names
    its test cells that scored below their points."""
    if not lost:
        return frozenset({CORRECT})
    solution = cells.get(exercise.name)
    if solution is not None and any(e.get("ename") == "NotImplementedError"
                                    or split_marker(e.get("evalue", ""))[1] == UNANSWERED
                                    for e in _errors(solution)):
        return frozenset({UNANSWERED})  # the answer cell itself is still the release's stub
    return frozenset(cell_outcome(cells[t]) if t in cells else NOT_GRADED for t in lost)


# -- reading a course ---------------------------------------------------------------------

def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def exercises_of(nb) -> dict[str, str]:
    """test grade_id -> the solution grade_id it follows, in notebook order."""
    owner, current = {}, None
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            current = meta["grade_id"]
        elif meta.get("grade") and cell.cell_type == "code":
            owner[meta["grade_id"]] = current or meta["grade_id"].removesuffix("-test")
    return owner


def autograded_notebook(course_dir: Path, student: str, assignment: str):
    folder = course_dir / "autograded" / student / assignment
    paths = sorted(folder.glob("*.ipynb"))
    preferred = folder / f"{assignment}.ipynb"
    path = preferred if preferred in paths else (paths[0] if paths else None)
    if path is None:
        return None
    try:
        return nbformat.read(str(path), as_version=4)
    except Exception:
        return None  # unreadable: the exercises count as not graded rather than sinking the report


def _statuses(course_dir: Path, assignment: str) -> dict[str, tuple[str, str, list[str]]]:
    from graders.autograde.status import StatusStore
    try:
        store = StatusStore(course_dir)
    except (ValueError, TypeError):
        return {}
    return {r.student: (r.status, r.reason, list(r.flags)) for r in store.records.values()
            if r.assignment == assignment}


def _gradebook_scores(course_dir: Path, assignment: str) -> dict[str, dict[str, tuple[float, float]]]:
    """student -> {test grade_id: (score, max_score)} for every submission of ``assignment``."""
    from nbgrader.api import MissingEntry

    with _open_gradebook(course_dir) as gb:
        try:
            found = gb.find_assignment(assignment)
        except MissingEntry:
            raise ReportError(f"{assignment} was never graded in {course_dir}: "
                              f"run `course autograde {assignment}`") from None
        scores = {}
        for submission in found.submissions:
            scores[submission.student_id] = {g.name: (float(g.score), float(g.max_score))
                                             for notebook in submission.notebooks for g in notebook.grades}
    if not scores:
        raise ReportError(f"{assignment} was never graded in {course_dir}: run `course autograde {assignment}`")
    return scores


def _open_gradebook(course_dir: Path):
    """nbgrader's Gradebook at the course's c.CourseDirectory.db_url (DIR/gradebook.db by
    default); never creates a SQLite file (Gradebook would)."""
    from nbgrader.api import Gradebook

    from graders.course.config import Course

    course = Course(course_dir)
    url = course.db_url
    database = Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None
    if database is not None and not database.is_file():
        raise ReportError(f"no gradebook in {course_dir} (no {database.name}): grade with `course autograde` first")
    try:
        return Gradebook(url, course.config.CourseDirectory.course_id)
    except Exception as error:
        first = (str(error).strip().splitlines() or [""])[0][:200]
        raise ReportError(f"cannot read the gradebook {database or url}: {type(error).__name__}: {first}") from None


def graded_assignments(course_dir: Path) -> list[str]:
    """Every assignment of the gradebook that has at least one submission."""
    with _open_gradebook(course_dir) as gb:
        return sorted(a.name for a in gb.assignments if a.submissions)


def load(course_dir: Path, assignment: str) -> AssignmentResults:
    course_dir = Path(course_dir)
    scores = _gradebook_scores(course_dir, assignment)
    statuses = _statuses(course_dir, assignment)
    notebooks = {s: autograded_notebook(course_dir, s, assignment) for s in sorted(scores)}
    source = course_dir / "source" / assignment / f"{assignment}.ipynb"
    layout = nbformat.read(str(source), as_version=4) if source.is_file() else \
        next((nb for nb in notebooks.values() if nb is not None), None)
    owner = exercises_of(layout) if layout is not None else {}
    tests = sorted({t for per in scores.values() for t in per})
    for test in tests:  # a test cell the layout lacks still counts, under its own name
        owner.setdefault(test, test.removesuffix("-test"))
    exercises: dict[str, Exercise] = {}
    for test, name in owner.items():
        if test in tests:
            exercises.setdefault(name, Exercise(name, [])).tests.append(test)
    for exercise in exercises.values():
        exercise.max_score = sum(max((per[t][1] for per in scores.values() if t in per), default=0.0)
                                 for t in exercise.tests)
    students = []
    for student in sorted(scores):
        per = scores[student]
        nb = notebooks[student]
        cells = {_grade_id(c): c for c in nb.cells if _grade_id(c)} if nb is not None else {}
        status, reason, flags = statuses.get(student, ("ok", "", []))
        result = StudentResult(student, status, reason, score=sum(s for s, _ in per.values()),
                               max_score=sum(m for _, m in per.values()), flags=flags)
        for exercise in exercises.values():
            result.scores[exercise.name] = sum(per.get(t, (0.0, 0.0))[0] for t in exercise.tests)
            lost = [t for t in exercise.tests if per.get(t, (0.0, 1.0))[0] < per.get(t, (0.0, 1.0))[1]]
            result.outcomes[exercise.name] = exercise_outcomes(exercise, cells, lost)
        students.append(result)
    return AssignmentResults(assignment, list(exercises.values()), students)


# -- tallies ------------------------------------------------------------------------------

def exercise_counts(results: AssignmentResults) -> dict[str, Counter]:
    """exercise -> {outcome: students}; a student counts once per outcome per exercise."""
    counts = {}
    for exercise in results.exercises:
        counter = Counter({name: 0 for name in RESERVED})
        for student in results.students:
            counter.update(student.outcomes[exercise.name])
        counts[exercise.name] = counter
    return counts


def assignment_counts(results: AssignmentResults) -> Counter:
    """outcome -> students with it in at least one exercise; ``correct`` means in all."""
    counter = Counter({name: 0 for name in RESERVED})
    for student in results.students:
        held = set().union(*student.outcomes.values()) if student.outcomes else set()
        counter.update(held - {CORRECT})
        if student.outcomes and all(o == {CORRECT} for o in student.outcomes.values()):
            counter[CORRECT] += 1
    return counter


def misconceptions(counter: Counter) -> list[tuple[str, int]]:
    """The identifiers in ``counter`` (reserved outcomes left out), largest first."""
    return sorted(((k, n) for k, n in counter.items() if k not in RESERVED), key=lambda kn: (-kn[1], kn[0]))


def problems(results: AssignmentResults) -> list[StudentResult]:
    """Students whose run did not end ok: whom the instructor should look at."""
    return [s for s in results.students if s.status != "ok"]


def flagged(results: AssignmentResults) -> list[StudentResult]:
    """Students whose code the static review flagged: whom a grader should read."""
    return [s for s in results.students if s.flags]
