"""Submissions built from a notebook's variants: which cells change, and how."""

from pathlib import Path

import nbformat
import pytest

from authoring import submissions

SOURCES = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_partly_wrong_answers_every_other_exercise_wrong():
    for path in SOURCES:
        source = nbformat.read(str(path), as_version=4)
        nb, wronged = submissions.partly_wrong(path.stem, source, source)
        reference = submissions.solution_cells(source)
        got = submissions.solution_cells(nb)
        changed = [g for g in reference if got[g] != reference[g]]
        assert changed == wronged, path.stem
        assert 0 < len(wronged) < len(reference), f"{path.stem}: not partly wrong"
        # the lint test guarantees every exercise has a wrong variant: exactly alternate ones
        assert wronged == list(reference)[::2]


def test_fill_refuses_unknown_cells():
    source = nbformat.read(str(SOURCES[0]), as_version=4)
    with pytest.raises(KeyError, match="no-such-cell"):
        submissions.fill(source, {"no-such-cell": "x = 1"})
