"""`make grade-demo`: a demo course graded end to end, its summary table printed.

Builds DIR/demo (DIR: the COURSE_DIR environment variable, else course/; gitignored) from
notebooks/: per notebook, submissions with the reference answers, the untouched release
(blank), every other exercise answered with a plausible wrong answer, an alternative correct
answer, and one broken (not JSON) file; then runs `course autograde`, `course feedback` and
`course export` on it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from graders.autograde.batch import autograde
from graders.autograde.status import table
from graders.course.export import export
from graders.course.layout import DEFAULT_COURSE_DIR, available_assignments
from graders.course.release import release
from graders.feedback.pages import feedback

from . import submissions


def demo_dir() -> Path:
    return Path(os.environ.get("COURSE_DIR") or DEFAULT_COURSE_DIR).resolve() / "demo"


def build(demo: Path, stems: list[str] | None = None) -> None:
    shutil.rmtree(demo, ignore_errors=True)
    for stem in stems or available_assignments():
        release(demo, [stem])
        source = submissions.read(demo / "source" / stem / f"{stem}.ipynb")
        released = submissions.read(demo / "release" / stem / f"{stem}.ipynb")
        batch = {"reference": submissions.reference(source, released), "blank": released,
                 "alternative": submissions.alternative(stem, source, released)}
        batch["partly_wrong"], _ = submissions.partly_wrong(stem, source, released)
        for student, nb in batch.items():
            submissions.submit(demo, student, stem, nb)
        submissions.submit(demo, "broken", stem, text='{"cells": [ truncated by a bad upload')


def main() -> int:
    demo = demo_dir()
    build(demo)
    records = autograde(demo)
    print(table(records))
    print(f"feedback: {len(feedback(demo))} HTML files under {demo / 'feedback'}")
    print(f"grades: {export(demo)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
