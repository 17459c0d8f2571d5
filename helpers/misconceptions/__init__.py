"""The catalogue of misconceptions the course's checks can name.

A check names one by putting ``[mc:<identifier>]`` in its message (see ``helpers.checks``);
the student reads only the message, ``course report`` counts the identifiers. Each entry
says in one line what the student probably believes, and lists the exercises (solution
grade_ids) whose test cells (or answer tables, see ``helpers.answers``) can raise it. A lint
test keeps this catalogue and the notebooks in agreement both ways.

Each notebook owns one module here (``tensors`` for 01_tensors, …), so that work on one
notebook never edits another's file; identifiers are ``<topic>.<belief>`` in lower case and
unique across the course.
"""

from __future__ import annotations

from helpers.misconceptions import autograd, compile, data, modules, tensors, training_loop
from helpers.misconceptions.core import MARKER, UNANSWERED, Misconception, split_marker

__all__ = ["CATALOGUE", "MARKER", "UNANSWERED", "Misconception", "split_marker"]

NOTEBOOKS = (tensors, autograd, modules, training_loop, data, compile)


def _merged() -> dict[str, Misconception]:
    catalogue: dict[str, Misconception] = {}
    for module in NOTEBOOKS:
        clash = catalogue.keys() & module.ENTRIES.keys()
        if clash:
            raise ValueError(f"{module.__name__} repeats identifiers of an earlier notebook: {sorted(clash)}")
        catalogue.update(module.ENTRIES)
    return catalogue


CATALOGUE: dict[str, Misconception] = _merged()
