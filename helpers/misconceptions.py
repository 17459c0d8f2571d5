"""The catalogue of misconceptions the course's checks can name.

A check names one by putting ``[mc:<identifier>]`` in its message (see ``helpers.checks``);
the student reads only the message, ``course report`` counts the identifiers. Each entry
says in one line what the student probably believes, and lists the exercises (solution
grade_ids) whose test cells can raise it. A lint test keeps this catalogue and the test
cells in agreement both ways.

Each notebook owns its own section; identifiers are ``<topic>.<belief>`` in lower case.
"""

from __future__ import annotations

from typing import NamedTuple


class Misconception(NamedTuple):
    description: str
    exercises: tuple[str, ...]


CATALOGUE: dict[str, Misconception] = {}

# --- 01_tensors -------------------------------------------------------------------------
CATALOGUE.update({
})

# --- 02_autograd ------------------------------------------------------------------------
CATALOGUE.update({
})

# --- 03_modules -------------------------------------------------------------------------
CATALOGUE.update({
})

# --- 04_training_loop -------------------------------------------------------------------
CATALOGUE.update({
})

# --- 05_data ----------------------------------------------------------------------------
CATALOGUE.update({
})

# --- 06_compile -------------------------------------------------------------------------
CATALOGUE.update({
})
