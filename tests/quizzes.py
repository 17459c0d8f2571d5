"""Wrong answers that a quiz's visible test does not know: for tests of the honest pass line
(tests/test_checks.py in a kernel, tests/test_browser.py in the lab).

A quiz is a test cell whose visible part calls ``checks.answer(grade_id, value, "name", …)``
and whose answer cell assigns ``name`` a literal. Its unlisted wrong answer is a value near
the right one (one of the question's choices where it lists them) that its sealed table of
known wrong answers (helpers/answer_tables) does not hold: what a student who guessed
differently would type, for which the visible test can only say that the hidden checks are
still to come.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from helpers import answers, checks


@dataclass(frozen=True)
class Quiz:
    test_id: str      # the test cell's grade_id
    answer_id: str    # the answer cell's (checks.answer's first argument)
    name: str         # the variable the answer cell sets
    right: object
    wrong: object     # a wrong value its table does not list
    visible: str      # the test cell's visible source


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def unlisted_wrong_answer(grade_id: str, right, choices=None):
    """A value near ``right`` (one of ``choices`` where given) that the exercise's table does
    not list, or None."""
    if choices is not None:
        candidates = list(choices)
    elif isinstance(right, bool):
        candidates = [not right]
    elif isinstance(right, (int, float)):
        candidates = [right + d for d in (1, 2, 3, -1, -2, 7)] + [-right, right * 3]
    elif isinstance(right, tuple) and right and isinstance(right[0], (int, float)) and not isinstance(right[0], bool):
        candidates = [(right[0] + d, *right[1:]) for d in (1, 2, 3, 7)]
    else:
        return None
    return next((v for v in candidates if v != right and answers.known_wrong(grade_id, v) is None), None)


def quizzes(nb) -> list[Quiz]:
    """Every quiz of a notebook that has its solutions (the source, or a reference copy)
    for which an unlisted wrong answer exists."""
    solutions = {_nbgrader(c).get("grade_id"): c.source for c in nb.cells if _nbgrader(c).get("solution")}
    found = []
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        visible = cell.source.split(checks.HIDDEN_DELIMITER)[0]
        calls = [n for n in ast.walk(ast.parse(visible)) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "answer"
                 and len(n.args) >= 3 and all(isinstance(a, ast.Constant) for a in (n.args[0], n.args[2]))]
        if not calls:
            continue
        answer_id, name = calls[0].args[0].value, calls[0].args[2].value
        assigned = [n.value for n in ast.walk(ast.parse(solutions.get(answer_id, ""))) if isinstance(n, ast.Assign)
                    and [getattr(t, "id", None) for t in n.targets] == [name]]
        given = {k.arg: k.value for k in calls[0].keywords}
        try:
            right = ast.literal_eval(assigned[0]) if assigned else None
            choices = ast.literal_eval(given["choices"]) if "choices" in given else None
        except ValueError:
            continue
        wrong = unlisted_wrong_answer(answer_id, right, choices)
        if right is not None and wrong is not None:
            found.append(Quiz(meta["grade_id"], answer_id, name, right, wrong, visible))
    return found
