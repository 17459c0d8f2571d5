"""What a misconception is, and how a check's message names one.

A message may carry a misconception identifier as "[mc:broadcast.outer-product]" anywhere
in its text. The student never sees the marker; the error's evalue keeps it at the end so
that `course report` can count misconceptions from autograded notebooks alone. (Here, not
in helpers.checks, so that reading markers does not import torch.)
"""

from __future__ import annotations

import re
from typing import NamedTuple

MARKER = re.compile(r"\s*\[mc:([a-z0-9_-]+(?:\.[a-z0-9_-]+)*)\]")
UNANSWERED = "unanswered"  # reserved identifier: the exercise was not attempted


def split_marker(text: str) -> tuple[str, str | None]:
    """``"x is wrong. [mc:a.b]"`` -> ``("x is wrong.", "a.b")``; the first marker wins."""
    found = MARKER.search(text)
    return MARKER.sub("", text).strip(), (found.group(1) if found else None)


class Misconception(NamedTuple):
    description: str
    exercises: tuple[str, ...]
