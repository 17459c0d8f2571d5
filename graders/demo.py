"""`make grade-demo`: a demo course graded end to end, its summary table printed.

Builds course/demo/ (gitignored) from notebooks/: per notebook, submissions with the
reference answers, the untouched release (blank), every other exercise answered with a
plausible wrong answer, an alternative correct answer, and one broken (not JSON) file; then runs
`course autograde`, `course feedback` and `course export` on it.
"""

from __future__ import annotations

import shutil
import sys

from . import coursedir, submissions
from .autograde import autograde
from .export import export
from .feedback import feedback
from .release import release
from .status import table

DEMO_DIR = coursedir.DEFAULT_COURSE_DIR / "demo"


def build() -> None:
    shutil.rmtree(DEMO_DIR, ignore_errors=True)
    for stem in coursedir.available_assignments():
        release(DEMO_DIR, [stem])
        source = submissions.read(DEMO_DIR / "source" / stem / f"{stem}.ipynb")
        released = submissions.read(DEMO_DIR / "release" / stem / f"{stem}.ipynb")
        batch = {"reference": submissions.reference(source, released), "blank": released,
                 "alternative": submissions.alternative(stem, source, released)}
        batch["partly_wrong"], _ = submissions.partly_wrong(stem, source, released)
        for student, nb in batch.items():
            submissions.submit(DEMO_DIR, student, stem, nb)
        submissions.submit(DEMO_DIR, "broken", stem, text='{"cells": [ truncated by a bad upload')


def main() -> int:
    build()
    records = autograde(DEMO_DIR)
    print(table(records))
    print(f"feedback: {len(feedback(DEMO_DIR))} HTML files under {DEMO_DIR / 'feedback'}")
    print(f"grades: {export(DEMO_DIR)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
