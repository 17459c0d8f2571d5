"""Cells whose nbgrader markings a copy carried along, put right before nbgrader reads them.

JupyterLab copies a cell with its metadata: a student who pastes an answer or test cell (or
a cell from another notebook) hands in two cells with one grade id, or a grade id the
assignment does not have. nbgrader's sanitize steps then fail on the whole notebook (a
KeyError on 'grade_id' after DeduplicateIds empties a duplicate's markings), and the
submission would be `invalid`. Instead, every such cell loses its nbgrader markings and runs
as an ordinary cell (its code still runs where it stands); the first cell with an id keeps
it, and a note for the grader says which cell and why.
"""

from __future__ import annotations

MARKS = ("grade", "solution", "locked", "task")


def repair(nb, known: set[str]) -> list[str]:
    """Strip the markings of pasted cells in ``nb`` (in place); the notes, one per cell.
    ``known``: every cell name the gradebook recorded for this notebook."""
    seen: set[str] = set()
    notes = []
    for index, cell in enumerate(nb.cells, 1):
        meta = cell.get("metadata", {}).get("nbgrader")
        if meta is None:
            continue
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        why = None
        if not isinstance(grade_id, str) or not grade_id:
            if isinstance(meta, dict) and any(meta.get(mark) for mark in MARKS):
                why = "has nbgrader's markings but no grade id"
        elif grade_id not in known:
            why = f"carries the id {grade_id}, which this assignment does not have (pasted from another notebook?)"
        elif grade_id in seen:
            why = f"repeats the cell {grade_id} (a pasted copy keeps its markings); the first one is graded"
        else:
            seen.add(grade_id)
        if why is not None or not isinstance(meta, dict) or not grade_id:
            del cell.metadata["nbgrader"]
        if why is not None:
            notes.append(f"cell #{index} {why}: it ran as an ordinary cell")
    return notes
