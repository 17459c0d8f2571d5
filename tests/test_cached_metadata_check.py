"""CachedCheckCellMetadata: nbgrader's metadata check, its schema compiled once per process.

It must accept and refuse exactly what nbgrader's own check does, with the same error, on the
course's notebooks and on any corruption of their nbgrader metadata."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.preprocessors import CheckCellMetadata, ClearOutput, Execute

from graders.autograde.finish import finishing_preprocessors, sanitizing_preprocessors
from graders.autograde.preprocessors import CachedCheckCellMetadata, CachedMetadataValidator, ExecutedElsewhere

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
SOURCE = nbformat.read(str(NOTEBOOKS[0]), as_version=4)
GRADED = [i for i, c in enumerate(SOURCE.cells) if c.metadata.get("nbgrader", {}).get("grade")]


def verdict(validator_class, nb):
    try:
        validator_class().validate_nb(copy.deepcopy(nb))
        return None
    except Exception as error:  # the type and the text are what a grader's log shows
        return type(error).__name__, str(error)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_course_notebooks_pass_both_checks(path):
    nb = nbformat.read(str(path), as_version=4)
    assert any("nbgrader" in c.metadata for c in nb.cells)
    assert verdict(MetadataValidator, nb) is None
    assert verdict(CachedMetadataValidator, nb) is None


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 5), st.floats(-1, 3, allow_nan=False),
                   st.text("ab-_ !0", max_size=4), st.text("0123456789abcdef", min_size=31, max_size=33),
                   st.sampled_from(["code", "markdown", "raw", "heading"]))
KEYS = st.sampled_from(["schema_version", "grade", "locked", "solution", "task", "grade_id", "points",
                        "checksum", "cell_type", "surprise"])


@settings(max_examples=150, deadline=None)
@given(cell=st.sampled_from(GRADED), changes=st.lists(st.tuples(KEYS, st.one_of(st.just("delete"), VALUES)),
                                                      min_size=1, max_size=3))
def test_any_corrupted_metadata_gets_the_same_verdict(cell, changes):
    nb = copy.deepcopy(SOURCE)
    meta = nb.cells[cell].metadata.nbgrader
    for key, value in changes:
        if value == "delete":
            meta.pop(key, None)
        else:
            meta[key] = value
    assert verdict(CachedMetadataValidator, nb) == verdict(MetadataValidator, nb)


@pytest.mark.parametrize("version", [None, 0, 1, 2, 3, 4, 7, "3", 3.0])
def test_every_schema_version_gets_the_same_verdict(version):
    nb = copy.deepcopy(SOURCE)
    meta = nb.cells[GRADED[0]].metadata.nbgrader
    if version is None:
        del meta["schema_version"]
    else:
        meta["schema_version"] = version
    assert verdict(CachedMetadataValidator, nb) == verdict(MetadataValidator, nb)


def test_a_duplicate_grade_id_gets_the_same_verdict():
    nb = copy.deepcopy(SOURCE)
    first, second = GRADED[:2]
    nb.cells[second].metadata.nbgrader.grade_id = nb.cells[first].metadata.nbgrader.grade_id
    assert verdict(CachedMetadataValidator, nb) == verdict(MetadataValidator, nb) is not None


def test_the_preprocessor_fails_a_corrupted_notebook_with_nbgraders_message():
    nb = copy.deepcopy(SOURCE)
    nb.cells[GRADED[0]].metadata.nbgrader.points = -1
    with pytest.raises(ValidationError) as theirs:
        CheckCellMetadata().preprocess(copy.deepcopy(nb), {})
    with pytest.raises(ValidationError) as ours:
        CachedCheckCellMetadata().preprocess(nb, {})
    assert str(ours.value) == str(theirs.value)


def test_both_halves_swap_the_check_and_keep_everything_else():
    assert CheckCellMetadata not in sanitizing_preprocessors()
    assert CachedCheckCellMetadata in sanitizing_preprocessors()
    assert CachedCheckCellMetadata in finishing_preprocessors()
    # an instructor's own lists, written as import strings in nbgrader_config.py
    mine = ["nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.CheckCellMetadata"]
    assert sanitizing_preprocessors(mine) == [ClearOutput, CachedCheckCellMetadata]
    assert sanitizing_preprocessors(["nbgrader.preprocessors.ClearOutput"]) == [ClearOutput]
    assert finishing_preprocessors([Execute, "nbgrader.preprocessors.CheckCellMetadata"]) == \
        [ExecutedElsewhere, CachedCheckCellMetadata]
