"""What the gradebook recorded, as plain data a worker can carry: an assignment's notebooks
and cells (what nbgrader's generate_assignment saved from the source notebook), and one
student's submission (timestamp, extension, grades, comments, late penalty).

A worker rebuilds from them a scratch gradebook holding just that assignment and that
student, and nbgrader's own autograde and feedback steps run on it unchanged: OverwriteCells
restores the recorded cells, SaveAutoGrades scores, AssignLatePenalties reads the duedate
and the extension, GetGrades reads the scores for the page. The main process alone writes
the course's gradebook: from a graded submission, the fields autograding owns
(``write_autograded``), or 0 for every cell (``write_zero``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from nbgrader import api
from nbgrader.api import Gradebook, MissingEntry
from sqlalchemy import create_engine, text
from sqlalchemy.exc import SAWarning

# nbgrader's Gradebook builds a new submission with backrefs to its student and assignment,
# which SQLAlchemy 2 no longer cascades, and adds it to the session itself: the warning it
# gives for every new submission (plain `nbgrader autograde` prints it too) is noise here.
warnings.filterwarnings("ignore", message=r"Object of type <Submitted\w+> not in session", category=SAWarning)

GRADE_FIELDS = ("auto_score", "manual_score", "extra_credit", "needs_manual_grade")
COMMENT_FIELDS = ("auto_comment", "manual_comment")
# what autograding writes; everything else (manual scores, extra credit, manual comments,
# extensions) is the graders', read by the worker, never written back
AUTOGRADED = {"grades": ("auto_score", "needs_manual_grade"), "comments": ("auto_comment",)}
CELLS = {"grade_cells": ("max_score", "cell_type"), "solution_cells": (),
         "task_cells": ("max_score", "cell_type"), "source_cells": ("cell_type", "locked", "source", "checksum")}


@dataclass
class AssignmentRecord:
    name: str
    course_id: str
    duedate: datetime | None
    notebooks: list[dict]  # {"name", "kernelspec", and per kind of cell in CELLS: [{"name", fields}]}
    schema: str = ""       # the gradebook's alembic revision

    def cell_names(self, notebook: str) -> set[str]:
        """Every cell name the gradebook recorded for ``notebook`` (grade, solution, task, locked)."""
        found = next((n for n in self.notebooks if n["name"] == notebook), {})
        return {cell["name"] for kind in CELLS for cell in found.get(kind, [])}

    def grade_ids(self, notebook: str) -> list[str]:
        found = next((n for n in self.notebooks if n["name"] == notebook), {"grade_cells": []})
        return [cell["name"] for cell in found["grade_cells"]]


@dataclass
class SubmissionState:
    timestamp: datetime | None = None
    extension: timedelta | None = None
    # notebook name -> {"late_submission_penalty", "flagged", "grades": {cell: {GRADE_FIELDS}},
    #                   "comments": {cell: {COMMENT_FIELDS}}}
    notebooks: dict[str, dict] = field(default_factory=dict)


def read_assignment(gb: Gradebook, name: str) -> AssignmentRecord:
    assignment = gb.find_assignment(name)
    notebooks = [{"name": nb.name, "kernelspec": nb.kernelspec,
                  **{kind: [{"name": cell.name, **{f: getattr(cell, f) for f in fields}}
                            for cell in getattr(nb, kind)] for kind, fields in CELLS.items()}}
                 for nb in assignment.notebooks]
    schema = gb.db.execute(text("SELECT version_num FROM alembic_version")).scalar() or ""
    record = AssignmentRecord(assignment.name, assignment.course_id, assignment.duedate, notebooks, schema)
    gb.db.commit()  # end the read transaction
    return record


def _state(submission) -> SubmissionState:
    notebooks = {}
    for nb in submission.notebooks:
        notebooks[nb.name] = {
            "late_submission_penalty": nb.late_submission_penalty, "flagged": nb.flagged,
            "grades": {g.name: {f: getattr(g, f) for f in GRADE_FIELDS} for g in nb.grades},
            "comments": {c.name: {f: getattr(c, f) for f in COMMENT_FIELDS} for c in nb.comments}}
    return SubmissionState(submission.timestamp, submission.extension, notebooks)


def read_submission(gb: Gradebook, assignment: str, student: str) -> SubmissionState | None:
    try:
        return _state(gb.find_submission(assignment, student))
    except MissingEntry:
        return None
    finally:
        gb.db.commit()


def graders_states(gb: Gradebook, assignment: str) -> dict[str, SubmissionState]:
    """student -> state, for the submissions that hold something a grader set by hand (a
    manual score or comment, extra credit, an extension): what SaveAutoGrades and
    AssignLatePenalties take into account. One pass over the assignment, once per batch."""
    found = {}
    try:
        submissions = gb.find_assignment(assignment).submissions
    except MissingEntry:
        return found
    grades = {(g.notebook.assignment.student_id) for g in gb.db.query(api.Grade).join(api.SubmittedNotebook)
              .join(api.SubmittedAssignment).join(api.Assignment)
              .filter(api.Assignment.name == assignment,
                      (api.Grade.manual_score.isnot(None)) | (api.Grade.extra_credit.isnot(None)))}
    comments = {c.notebook.assignment.student_id for c in gb.db.query(api.Comment).join(api.SubmittedNotebook)
                .join(api.SubmittedAssignment).join(api.Assignment)
                .filter(api.Assignment.name == assignment, api.Comment.manual_comment.isnot(None))}
    for submission in submissions:
        if submission.extension is not None or submission.student_id in grades | comments:
            found[submission.student_id] = _state(submission)
    gb.db.commit()
    return found


def rebuild(record: AssignmentRecord, db_url: str) -> None:
    """A gradebook at ``db_url`` holding ``record``'s assignment, as generate_assignment left it.
    Its tables are made here, stamped with the course gradebook's revision: for a new file,
    nbgrader's Gradebook asks the ``alembic`` command for it (a process that imports alembic:
    11 s of a grading thread's time, measured on a busy machine)."""
    engine = create_engine(db_url)
    api.Base.metadata.create_all(engine)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
        connection.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": record.schema})
    engine.dispose()
    with Gradebook(db_url, record.course_id) as gb:
        assignment = api.Assignment(name=record.name, duedate=record.duedate, course_id=record.course_id)
        gb.db.add(assignment)
        for spec in record.notebooks:
            notebook = api.Notebook(name=spec["name"], assignment=assignment, kernelspec=spec["kernelspec"])
            gb.db.add(notebook)
            for kind, model in (("grade_cells", api.GradeCell), ("solution_cells", api.SolutionCell),
                                ("task_cells", api.TaskCell), ("source_cells", api.SourceCell)):
                for cell in spec[kind]:
                    gb.db.add(model(notebook=notebook, **cell))
        gb.db.commit()


def add_submission(db_url: str, record: AssignmentRecord, student: str, state: SubmissionState) -> None:
    """``student``'s submission in a rebuilt gradebook, every field as ``state`` has it."""
    with Gradebook(db_url, record.course_id) as gb:
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(record.name, student, **_given(
            timestamp=state.timestamp, extension=state.extension))
        _apply(submission, state, {"grades": GRADE_FIELDS, "comments": COMMENT_FIELDS}, notebook_fields=True)
        gb.db.commit()


def _given(**fields) -> dict:
    """Those of ``fields`` that are set (nbgrader's parse_utc refuses None)."""
    return {k: v for k, v in fields.items() if v is not None}


def read_back(db_url: str, record: AssignmentRecord, student: str) -> SubmissionState:
    with Gradebook(db_url, record.course_id) as gb:
        return read_submission(gb, record.name, student)


def _apply(submission, state: SubmissionState, fields: dict, notebook_fields: bool) -> None:
    for nb in submission.notebooks:
        given = state.notebooks.get(nb.name)
        if given is None:
            continue
        nb.late_submission_penalty = given["late_submission_penalty"]
        if notebook_fields:
            nb.flagged = given["flagged"]
        for kind, rows in (("grades", nb.grades), ("comments", nb.comments)):
            for row in rows:
                values = given[kind].get(row.name)
                for name in fields[kind] if values is not None else ():
                    setattr(row, name, values[name])


class _Flushes:
    """nbgrader's update_or_create_* commit as they go: inside, they only flush, so that a
    whole group of submissions lands in one transaction (one commit, one fsync)."""

    def __init__(self, gb: Gradebook):
        self.session = gb.db

    def __enter__(self):
        self.session.commit = self.session.flush
        return self

    def __exit__(self, *exc):
        del self.session.commit


def write_autograded(gb: Gradebook, assignment: str, student: str, state: SubmissionState):
    """What autograding wrote in the worker's gradebook, into ``gb`` (not committed); the
    submission."""
    with _Flushes(gb):
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student, **_given(timestamp=state.timestamp))
    _apply(submission, state, AUTOGRADED, notebook_fields=False)
    return submission


def write_zero(gb: Gradebook, assignment: str, student: str):
    """Score 0 in every cell, as nbgrader does for a missing notebook (not committed); the
    submission."""
    with _Flushes(gb):
        gb.update_or_create_student(student)
        submission = gb.update_or_create_submission(assignment, student)
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            grade.auto_score = 0
            grade.needs_manual_grade = False
    return submission


def score(submission) -> float:
    """nbgrader's SubmittedAssignment.score, from the rows in hand rather than a query: per
    grade, the manual score if any, else the automatic one, plus any extra credit."""
    total = 0.0
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            given = grade.manual_score if grade.manual_score is not None else grade.auto_score
            if given is not None:
                total += given + (grade.extra_credit or 0.0)
    return total


def forget(gb: Gradebook, submission) -> None:
    """Let the session drop a written submission's rows (a class's would pile up otherwise)."""
    for notebook in submission.notebooks:
        for row in [*notebook.grades, *notebook.comments]:
            gb.db.expunge(row)
        gb.db.expunge(notebook)
    gb.db.expunge(submission)
