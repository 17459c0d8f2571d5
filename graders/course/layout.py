"""The nbgrader course directory: where it is and what it holds.

Layout (nbgrader's standard): DIR/source/<a>/<a>.ipynb, DIR/release/, DIR/submitted/<student>/<a>/,
DIR/autograded/, DIR/feedback/, DIR/exchange/, DIR/gradebook.db, DIR/nbgrader_config.py
(see graders.course.config). Assignments are the stems of the notebooks in the repository's
notebooks/ folder.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .config import CONFIG_TEXT, FILENAME

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
# $COURSE_DIR: where a hub's instructor's course is (deploy/hub sets it in their server)
DEFAULT_COURSE_DIR = Path(os.environ.get("COURSE_DIR") or REPO / "course")


class CourseError(Exception):
    """A request the course cannot satisfy (unknown assignment, nothing released): one line
    for the person who typed the command; `course` exits 2 with it."""


def available_assignments() -> list[str]:
    """Every notebook stem in notebooks/, in course order."""
    return sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb"))


def resolve_assignments(names: list[str] | None) -> list[str]:
    known = available_assignments()
    if not names:
        return known
    unknown = [name for name in names if name not in known]
    if unknown:
        raise CourseError(f"unknown assignment(s) {', '.join(unknown)}; "
                          f"the notebooks/ folder has {', '.join(known) or 'none'}")
    return list(names)


def released_assignments(course_dir: Path, names: list[str] | None) -> list[str]:
    """The assignments to grade or give feedback on: those named, else every released one."""
    source = Path(course_dir) / "source"
    released = sorted(p.name for p in source.iterdir() if p.is_dir()) if source.is_dir() else []
    unknown = [n for n in names or [] if n not in released]
    if unknown:
        raise CourseError(f"not released in {course_dir}: {', '.join(unknown)} (run `course release` first)")
    return list(names) if names else released


def ensure_course_dir(course_dir: Path) -> Path:
    """Create the course directory, its exchange and its nbgrader_config.py when missing."""
    course_dir = Path(course_dir).resolve()
    course_dir.mkdir(parents=True, exist_ok=True)
    (course_dir / "exchange").mkdir(exist_ok=True)
    config = course_dir / FILENAME
    if not config.exists():
        config.write_text(CONFIG_TEXT)
    return course_dir


def copy_sources(course_dir: Path, assignments: list[str]) -> None:
    """Copy notebooks/<a>.ipynb to DIR/source/<a>/<a>.ipynb (the instructor versions)."""
    for assignment in assignments:
        target = course_dir / "source" / assignment
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NOTEBOOKS / f"{assignment}.ipynb", target / f"{assignment}.ipynb")
