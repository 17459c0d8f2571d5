"""The nbgrader course directory: where it is, what it holds, and how it is configured.

Layout (nbgrader's standard): DIR/source/<a>/<a>.ipynb, DIR/release/, DIR/submitted/<student>/<a>/,
DIR/autograded/, DIR/feedback/, DIR/gradebook.db, DIR/nbgrader_config.py.
Assignments are the stems of the notebooks in the repository's notebooks/ folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from traitlets.config import Config

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
DEFAULT_COURSE_DIR = REPO / "course"
COURSE_ID = "torch-mental-model"

CONFIG_TEXT = f'''\
# Written by `course`; edit freely; `course` only rewrites this file when it is missing.
c = get_config()  # noqa
c.CourseDirectory.course_id = "{COURSE_ID}"
c.CourseDirectory.root = __file__.rsplit("/", 1)[0]
# Notebooks that train small models need more than nbgrader's 30 s per cell.
c.ExecutePreprocessor.timeout = 120
c.Execute.timeout = 120
# Limits of `course autograde` per submission (flags of the same name override these):
# c.Limits.memory_mb = 2048
# c.Limits.cell_timeout_s = 120
# c.Limits.notebook_timeout_s = 600
# c.Limits.max_processes = 64
# c.Limits.max_output_chars = 100000
'''


def available_assignments() -> list[str]:
    """Every notebook stem in notebooks/, in course order."""
    return sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb"))


def resolve_assignments(names: list[str] | None) -> list[str]:
    known = available_assignments()
    if not names:
        return known
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SystemExit(f"unknown assignment(s) {', '.join(unknown)}; "
                         f"the notebooks/ folder has {', '.join(known) or 'none'}")
    return list(names)


def ensure_course_dir(course_dir: Path) -> Path:
    """Create the course directory and its nbgrader_config.py when missing."""
    course_dir = Path(course_dir).resolve()
    course_dir.mkdir(parents=True, exist_ok=True)
    config = course_dir / "nbgrader_config.py"
    if not config.exists():
        config.write_text(CONFIG_TEXT)
    return course_dir


def nbgrader_config(course_dir: Path, **overrides) -> Config:
    """The traitlets Config nbgrader's API needs for this course directory."""
    config = Config()
    config.CourseDirectory.root = str(course_dir)
    config.CourseDirectory.course_id = COURSE_ID
    config.Exchange.root = str(course_dir / "exchange")
    # the student copy tags the cells that may fail, so that Run All goes past them
    from .student_copy import preprocessors
    config.GenerateAssignment.preprocessors = preprocessors()
    for section, values in overrides.items():
        for key, value in values.items():
            setattr(getattr(config, section), key, value)
    return config


def copy_sources(course_dir: Path, assignments: list[str]) -> None:
    """Copy notebooks/<a>.ipynb to DIR/source/<a>/<a>.ipynb (the instructor versions)."""
    for assignment in assignments:
        target = course_dir / "source" / assignment
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NOTEBOOKS / f"{assignment}.ipynb", target / f"{assignment}.ipynb")
