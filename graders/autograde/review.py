"""The static review of a submission: code that reaches for the grader, flagged for a person.

(Placeholder while the review is written: it flags nothing.)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Flag:
    cell: str   # the cell's grade_id, or "cell #N" (its position among the notebook's cells, from 1)
    line: int   # the line in that cell, from 1
    code: str   # the line as written (stripped, at most 120 characters)
    rule: str   # which rule it matched ("exec", "module-attribute", ...)
    why: str    # a sentence for the grader

    def quote(self) -> str:
        return f"{self.cell}, line {self.line}: `{self.code}` ({self.why})"


def review(nb, released) -> list[Flag]:
    return []


def affected(nb, flags: list[Flag]) -> list[str]:
    return []
