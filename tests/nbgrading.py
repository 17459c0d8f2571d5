"""Grade real submissions of real notebooks with the harness (nbgrader underneath), for the
round-trip tests."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from graders.autograde import batch as harness
from graders.course.release import release


def release_course(course_dir: Path, stem: str):
    """Release one notebook into a fresh course; return (source_nb, release_nb)."""
    release(course_dir, [stem])
    source = nbformat.read(str(course_dir / "source" / stem / f"{stem}.ipynb"), as_version=4)
    released = nbformat.read(str(course_dir / "release" / stem / f"{stem}.ipynb"), as_version=4)
    return source, released


def autograde(course_dir: Path, stem: str, students: list[str]) -> dict[str, dict]:
    """Grade with `course autograde` (2 workers, sandboxed); every submission must end `ok`.

    Returns {student: {test grade_id: (score, max, output text)}} read back from nbgrader's
    gradebook and the autograded notebooks.
    """
    records = harness.autograde(course_dir, [stem], workers=2, sandbox=True, progress=False)
    not_ok = {r.student: f"{r.status}: {r.reason}" for r in records if r.status != "ok"}
    assert not not_ok, not_ok
    results = {}
    for student in students:
        graded = nbformat.read(str(course_dir / "autograded" / student / stem / f"{stem}.ipynb"),
                               as_version=4)
        texts = {c.metadata["nbgrader"]["grade_id"]: _output_text(c)
                 for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade")}
        with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
            notebook = gb.find_submission_notebook(stem, stem, student)
            results[student] = {g.name: (g.score, g.max_score, texts.get(g.name, ""))
                                for g in notebook.grades}
    return results


def _output_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
        elif "data" in output:
            parts.append(output.data.get("text/plain", ""))
    return "\n".join(parts)
