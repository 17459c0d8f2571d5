"""Compare a `course report` CSV with outcomes known before grading (test_report.py and the
round trips use it)."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from authoring import submissions
from helpers.checks import MARKER

WHOLE = "(assignment)"
RESERVED = ("unclassified", "unanswered", "not graded", "correct")


def expected_counts(exercises: list[str], known: dict[str, dict[str, str]]) -> Counter:
    """{(exercise, outcome): students} from each student's known outcome per exercise
    (an exercise a student's entry leaves out is ``correct``)."""
    counts = Counter()
    for outcomes in known.values():
        full = {e: outcomes.get(e, "correct") for e in exercises}
        for exercise, outcome in full.items():
            counts[exercise, outcome] += 1
        for outcome in set(full.values()) - {"correct"}:
            counts[WHOLE, outcome] += 1
        counts[WHOLE, "correct"] += set(full.values()) == {"correct"}
    return +counts


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def csv_counts(path: Path, exercises: set[str] | None = None) -> tuple[dict, set[int]]:
    """({(exercise, outcome): students} for the rows with students, the denominators seen)."""
    counts, ofs = {}, set()
    for row in read_csv(path):
        ofs.add(int(row["of"]))
        assert abs(float(row["share"]) - int(row["students"]) / int(row["of"])) < 1e-4, row
        if int(row["students"]) and (exercises is None or row["exercise"] in exercises):
            counts[row["exercise"], row["misconception"]] = int(row["students"])
    return counts, ofs


def wrong_outcome(source, grade_id: str, variant) -> str | None:
    """What a WRONG variant must be counted as: its misconception id; ``unclassified`` when
    it has none and the exercise's test cells carry no identifier either; None (cannot be
    known in advance) for a 2-tuple beside test cells with identifiers."""
    _, _, identifier = submissions.unpack(variant)
    if identifier:
        return identifier
    tests = submissions.tests_of(source)[grade_id]
    sources = [c.source for c in source.cells
               if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in tests]
    return None if any(MARKER.search(s) for s in sources) else "unclassified"


def assert_counts(course: Path, assignment: str, exercises: list[str],
                  known: dict[str, dict[str, str]], unknown: set[str] = frozenset()) -> None:
    """The report's CSV counts equal those of ``known``, exactly, on every exercise not in
    ``unknown`` (and on the whole-assignment rows when nothing is unknown)."""
    keep = set(exercises) - set(unknown) | ({WHOLE} if not unknown else set())
    expected = {k: n for k, n in expected_counts(exercises, known).items() if k[0] in keep}
    got, ofs = csv_counts(course / "reports" / f"{assignment}.csv", keep)
    assert ofs == {len(known)}, f"the report counts {ofs} students, the batch has {len(known)}"
    if got != expected:
        from graders.report.model import load
        results = load(course, assignment)
        wrong = sorted({k for k in set(got) | set(expected) if got.get(k) != expected.get(k)})
        detail = [f"  {e} / {o}: report {got.get((e, o), 0)}, known {expected.get((e, o), 0)}" for e, o in wrong]
        for exercise in sorted({e for e, _ in wrong} - {WHOLE}):
            for student in results.students:
                want = known.get(student.student, {}).get(exercise, "correct")
                have = sorted(student.outcomes.get(exercise, ()))
                if have != [want]:
                    detail.append(f"  {student.student} on {exercise}: counted as {have}, known {want!r}")
        raise AssertionError("report counts differ from the known outcomes:\n" + "\n".join(detail))
