"""What the judges of notebooks 01 and 02 share: reading an observation, and naming the
likely reason when the student's code raised (the judge's twin of ``checks.explain_errors``,
which the visible checks use with the same hints).

A judge runs in the grader, outside the kernel, on data (helpers.grading.probe); nothing here
holds an expected value.
"""

from __future__ import annotations

from collections.abc import Mapping

from helpers import checks
from helpers.grading.probe import Raised, got


def value(key: str, hints: Mapping[str, str] | None = None):
    """``got[key]``; when the student's code raised, a failed check that says what it raised
    and adds the hint of the first fragment found in the error (case-insensitive; "" matches
    any error), as ``checks.explain_errors`` does in the kernel."""
    found = got.outcome(key)
    if not isinstance(found, Raised):
        return found
    said = f"{key} raised {found}"
    said = said if said.endswith((".", "!", "?")) else said + "."
    for fragment, why in (hints or {}).items():
        if fragment.lower() in str(found).lower():
            raise checks.CheckFailed(f"{said} {why}")
    raise checks.CheckFailed(said)


def raised(key: str) -> Raised | None:
    """What the student's code raised under ``key``, or None when it returned."""
    found = got.outcome(key)
    return found if isinstance(found, Raised) else None
