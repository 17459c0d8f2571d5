"""`course feedback`: nbgrader's GenerateFeedback, configured by the course's config, one
page per autograded notebook, rendered by the same workers as autograde.

Writes DIR/feedback/<student>/<assignment>/<assignment>.html for every notebook in
DIR/autograded: `course autograde` leaves one for every submission it graded or could not
grade (for invalid ones, the test cells say why), none for a student who submitted nothing,
and so no page either. The course's nbgrader_config.py lists the preprocessors
(graders.course.config): hidden tests scrubbed (graders.feedback.scrub), the status on top
(graders.feedback.banner), nbgrader's GetGrades, so the formgrader's button writes the same
pages.

A page is mostly Python's work (the HTML export): workers render them side by side, local
processes (``workers``) or the Dask workers of ``scheduler``, each on a scratch course
holding that one submission (graders.autograde.scratch: its autograded folder, its grades,
its status record). This process reads what they need and writes the pages, alone.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory

from graders.autograde import recorded
from graders.autograde.pipeline import Assignment
from graders.autograde.scratch import ScratchCourse, temporary_folder
from graders.autograde.status import Record, StatusStore
from graders.autograde.worker import read_files, write_files
from graders.course.config import Course
from graders.course.layout import CourseError, ensure_course_dir, released_assignments


@dataclass
class Page:
    """What a worker needs for one page."""

    student: str
    autograded: dict[str, bytes]  # DIR/autograded/<s>/<a>/'s files
    mtime: float                  # the notebook's (the page says when it was graded)
    state: recorded.SubmissionState
    record: Record | None         # how `course autograde` ended (the banner); None: plain nbgrader


def render(page: Page, assignment: Assignment) -> dict[str, bytes]:
    """The page's folder, DIR/feedback/<s>/<a>/, as nbgrader's GenerateFeedback writes it."""
    with ScratchCourse(assignment, page.student, {}, page.state) as course:
        return course.feedback(page.autograded, page.mtime, page.record)


def feedback(course_dir: Path, assignments: list[str] | None = None, workers: int | None = None,
             scheduler: str | None = None) -> list[Path]:
    course = Course(ensure_course_dir(course_dir))
    coursedir = CourseDirectory(config=course.config)
    store = StatusStore(course.dir)
    mode = int(str(GenerateFeedback(coursedir=coursedir, config=course.config).permissions), 8)
    # this process's temporary files (multiprocessing's pymp-* folder for its workers among
    # them) go to its scratch folder under the course directory, swept even after a kill
    previous, tempfile.tempdir = tempfile.tempdir, str(temporary_folder(str(course.dir)))
    try:
        return _feedback(course, coursedir, store, mode, assignments, workers, scheduler)
    finally:
        tempfile.tempdir = previous


def _feedback(course, coursedir, store, mode, assignments, workers, scheduler) -> list[Path]:
    if scheduler is not None:
        from graders.autograde.cluster import DaskPool
        pool = DaskPool(scheduler, sandbox=False, limits={})
    else:
        from graders.autograde.local import ProcessPool
        pool = ProcessPool(workers or os.cpu_count(), preload=(__name__,))
    written, failed, running = [], [], {}

    def absorb(done) -> None:
        for future in done:
            student, assignment = running.pop(future)
            try:
                files = pool.result(future)
            except Exception as error:  # one page nbgrader cannot render must not cost the others
                failed.append(f"{student}/{assignment}: {type(error).__name__}: {_first_line(error)}")
                continue
            folder = Path(coursedir.format_path(coursedir.feedback_directory, student, assignment))
            shutil.rmtree(folder, ignore_errors=True)
            write_files(folder, files)
            for name in files:
                os.chmod(folder / name, mode)
            written.append(folder / f"{assignment}.html")

    try:
        with Gradebook(coursedir.db_url, coursedir.course_id) as gb:
            for assignment in released_assignments(course.dir, assignments):
                handout = pool.share(Assignment(assignment, course.config, recorded.read_assignment(gb, assignment),
                                                {}, "", {}, False))
                pattern = coursedir.format_path(coursedir.autograded_directory, "*", assignment)
                for notebook in sorted(Path(found) for found in glob.glob(f"{pattern}/{assignment}.ipynb")):
                    student = notebook.parent.parent.name
                    state = recorded.read_submission(gb, assignment, student)
                    if state is None:
                        failed.append(f"{student}/{assignment}: not in the gradebook (autograde it first)")
                        continue
                    while len(running) >= pool.capacity:
                        absorb(pool.ready(running, block=True))
                    page = Page(student, read_files(notebook.parent), notebook.stat().st_mtime, state,
                                store.get(student, assignment))
                    running[pool.submit(render, page, handout)] = (student, assignment)
                    absorb(pool.ready(running, block=False))
            while running:
                absorb(pool.ready(running, block=True))
    finally:
        pool.close()
    if failed:
        raise CourseError("nbgrader could not write feedback for:\n  " + "\n  ".join(failed) +
                          f"\n(the other {len(written)} pages were written)")
    return sorted(written)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]
