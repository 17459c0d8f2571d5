"""Build submissions from a release: reference answers, blanks, and known variants.

Each notebook may have ``notebooks/variants/<stem>.py`` defining

    WRONG = {solution_grade_id: [(code, misconception_phrase[, misconception_id]), ...]}
    ALTERNATIVE = {solution_grade_id: code}

``code`` replaces the whole solution cell. A wrong answer must lose exactly the points of
its exercise and its test output must contain ``misconception_phrase`` (and, when given,
``[mc:<misconception_id>]`` in its error's evalue); an alternative
(another correct way to write it) must keep full marks. The round-trip tests and
``make grade-demo`` both build their submissions here.
"""

from __future__ import annotations

import copy
import runpy
from pathlib import Path

import nbformat

from graders.course.layout import NOTEBOOKS

VARIANTS = NOTEBOOKS / "variants"


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def solution_cells(nb) -> dict[str, str]:
    """grade_id -> source of every solution cell."""
    return {_nbgrader(c)["grade_id"]: c.source for c in nb.cells if _nbgrader(c).get("solution")}


def test_cells(nb) -> dict[str, float]:
    """grade_id -> points of every autograded test cell."""
    return {_nbgrader(c)["grade_id"]: _nbgrader(c)["points"]
            for c in nb.cells if _nbgrader(c).get("grade") and c.cell_type == "code"}


def tests_of(nb) -> dict[str, list[str]]:
    """solution grade_id -> the test cells that follow it (up to the next solution)."""
    pairs: dict[str, list[str]] = {}
    current = None
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if meta.get("solution"):
            current = meta["grade_id"]
            pairs[current] = []
        elif meta.get("grade") and current is not None:
            pairs[current].append(meta["grade_id"])
    return pairs


def fill(release_nb, answers: dict[str, str]):
    """A copy of ``release_nb`` with the given solution cells replaced by ``answers``."""
    nb = copy.deepcopy(release_nb)
    unknown = set(answers) - set(solution_cells(nb))
    if unknown:
        raise KeyError(f"no solution cell with grade_id {sorted(unknown)}")
    for cell in nb.cells:
        grade_id = _nbgrader(cell).get("grade_id")
        if _nbgrader(cell).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
    return nb


def load_variants(stem: str) -> tuple[dict, dict]:
    path = VARIANTS / f"{stem}.py"
    if not path.exists():
        return {}, {}
    namespace = runpy.run_path(str(path))
    return namespace.get("WRONG", {}), namespace.get("ALTERNATIVE", {})


def reference(source_nb, release_nb):
    """The release with every solution cell holding the instructor's answer."""
    return fill(release_nb, solution_cells(source_nb))


def unpack(variant) -> tuple[str, str, str | None]:
    """A WRONG entry, 2- or 3-tuple, as (code, phrase, misconception_id or None)."""
    code, phrase, *rest = variant
    return code, phrase, (rest[0] if rest else None)


def wrong_rounds(stem: str, source_nb, release_nb, ids: bool = False) -> list[tuple]:
    """Submissions in which every exercise with a k-th wrong variant uses it.

    Returns (notebook, {solution_grade_id: misconception_phrase}) per round, and with
    ``ids`` a third element {solution_grade_id: misconception_id or None}; exercises
    without a k-th variant keep the reference answer.
    """
    wrong, _ = load_variants(stem)
    rounds = []
    for k in range(max((len(v) for v in wrong.values()), default=0)):
        answers = dict(solution_cells(source_nb))
        phrases, identifiers = {}, {}
        for grade_id, variants in wrong.items():
            if k < len(variants):
                answers[grade_id], phrases[grade_id], identifiers[grade_id] = unpack(variants[k])
        nb = fill(release_nb, answers)
        rounds.append((nb, phrases, identifiers) if ids else (nb, phrases))
    return rounds


def partly_wrong(stem: str, source_nb, release_nb, rest_untouched: bool = False):
    """Every other exercise (in notebook order) answered with its first wrong answer, the
    rest with the reference answers (``rest_untouched``: left as released).

    Returns (notebook, the solution grade_ids answered wrong).
    """
    wrong, _ = load_variants(stem)
    reference = solution_cells(source_nb)
    answers = {} if rest_untouched else dict(reference)
    wronged = [grade_id for grade_id in reference if wrong.get(grade_id)][::2]
    for grade_id in wronged:
        answers[grade_id] = wrong[grade_id][0][0]
    return fill(release_nb, answers), wronged


def alternative(stem: str, source_nb, release_nb):
    _, alternatives = load_variants(stem)
    return fill(release_nb, {**solution_cells(source_nb), **alternatives})


def submit(course_dir: Path, student: str, stem: str, nb=None, text: str | None = None,
           name: str | None = None) -> Path:
    """Put a submission where nbgrader looks: DIR/submitted/<student>/<stem>/<stem>.ipynb.

    ``text`` writes raw bytes instead of a notebook (a broken upload); ``name`` another file
    name (a misnamed one).
    """
    path = Path(course_dir) / "submitted" / student / stem / (name or f"{stem}.ipynb")
    path.parent.mkdir(parents=True, exist_ok=True)
    if text is not None:
        path.write_text(text)
    else:
        nbformat.write(nb, str(path))
    return path


def read(path: Path):
    return nbformat.read(str(path), as_version=4)
