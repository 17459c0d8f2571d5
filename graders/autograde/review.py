"""The static review of a submission: code that reaches for the grader, flagged for a person.

Before a submission runs, the worker reads (never runs) every code cell the student wrote or
changed: answer (solution) cells; ordinary cells whose source differs from the released cell
with the same id; cells the release does not have. Test and locked cells (nbgrader restored
them from the gradebook) and cells unchanged from the release are the instructor's and are
not read. IPython syntax becomes Python first (``%timeit f(x)`` is a call whose argument is
read as code too); a cell that still does not parse is not flagged: it fails to run.

The rules are graders.autograde.review_rules. A flag keeps the score: the test cells it
affects (``affected``) are marked needs_manual_grade, so nbgrader's formgrader lists them,
and its quoted line reaches `course autograde`'s summary, `course report` and `course export`.

Allowances, from the release only (the student copy, trusted), never from the submission:

- an exercise whose honest answers need a flagged construct declares it on its solution
  header in notebooks/src, ``# %% solution 06_compile-x allow=private,module-attribute:torch._dynamo.config``
  (a rule id, or ``rule:prefix`` of the dotted target); authoring.build writes it into the
  cell's metadata (``metadata["course"]["review_allow"]``), which the release keeps;
- in a cell the student edited (an answer cell or an ordinary one), what its released version
  already does is allowed again: the same rule on the same target (for a private module, any
  part of it: a student changing 06's ``torch._dynamo.explain`` cell is not flagged for it).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from . import review_rules as rules

ALLOW_KEY = "review_allow"  # in metadata["course"] of a released solution cell
UNREADABLE = "unreadable"   # the rule of a flag for a cell the review itself failed on


@dataclass
class Flag:
    cell: str   # the cell's grade_id, or "cell #N" (its position among the notebook's cells, from 1)
    line: int   # the line in that cell, from 1
    code: str   # the line as written (stripped, at most 120 characters)
    rule: str   # which rule it matched ("exec", "module-attribute", ...)
    why: str    # a sentence for the grader
    target: str = ""  # the dotted name it reached ("torch._dynamo.mark_dynamic"): what an allowance names

    def quote(self) -> str:
        return f"{self.cell}, line {self.line}: `{self.code}` ({self.why})"


@dataclass(frozen=True)
class Allowance:
    rule: str
    target: str = ""     # "" allows the rule on any target
    exact: bool = False  # else a prefix of the dotted target

    @classmethod
    def parse(cls, item: str) -> Allowance:
        """``rule`` or ``rule:dotted.prefix``."""
        rule, _, target = item.partition(":")
        return cls(rule.strip(), target.strip())

    def covers(self, finding: rules.Finding | Flag) -> bool:
        if finding.rule != self.rule or not self.target:
            return finding.rule == self.rule
        if self.exact:
            return finding.target == self.target
        return finding.target == self.target or finding.target.startswith(self.target + ".")


def parse_allowances(text: str) -> list[str]:
    """``private,module-attribute:torch._dynamo.config`` -> its items, each checked: a known
    rule id, optionally ``:`` and a dotted prefix. Raises ValueError saying what is wrong."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise ValueError("allow= names no rule")
    for item in items:
        rule, _, target = item.partition(":")
        if rule not in rules.WHY:
            raise ValueError(f"allow={text}: unknown review rule {rule!r} (known: {', '.join(sorted(rules.WHY))})")
        if ":" in item and not all(part.isidentifier() for part in target.split(".")):
            raise ValueError(f"allow={text}: {target!r} is not a dotted name")
    return items


def declared(cell) -> list[Allowance]:
    """The allowances a (released) solution cell's metadata declares; malformed ones none."""
    items = cell.get("metadata", {}).get("course", {}).get(ALLOW_KEY, [])
    if not isinstance(items, list):
        return []
    return [Allowance.parse(item) for item in items if isinstance(item, str)]


# -- reading cells ------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager
    return TransformerManager()


# a tree costs about 60 KB: 512 of them hold an assignment's instructor cells (80 to 150 code
# cells, read again for every submission) and a few submissions' own
@functools.lru_cache(maxsize=512)
def _parsed(source: str) -> ast.AST | None:
    try:
        return ast.parse(_transformer().transform_cell(source))
    except Exception:  # SyntaxError, or a transformer that gave up: the cell fails to run
        return None


def parse(source: str) -> ast.AST | None:
    """The cell's syntax tree once IPython syntax is Python; None when it does not parse.
    (Trees are shared between calls: the rules only read them.)"""
    return _parsed(source)


@functools.lru_cache(maxsize=2048)
def _bindings(source: str) -> rules.Bindings:
    tree = parse(source)
    return rules.bindings(tree) if tree is not None else rules.Bindings((), ())


def names_of(nb) -> rules.Names:
    """What the notebook's imports bind, across all its code cells."""
    return rules.imported([_bindings(c.source) for c in nb.cells if c.cell_type == "code"])


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _is_instructors(cell) -> bool:
    """A test or locked cell: after nbgrader's OverwriteCells, one that keeps its grade_id is
    in the gradebook, and a locked one holds the gradebook's source."""
    meta = _nbgrader(cell)
    return bool(meta.get("grade_id")) and bool(meta.get("locked")) and not meta.get("solution")


def label(cell, index: int) -> str:
    return _nbgrader(cell).get("grade_id") or f"cell #{index}"


@dataclass
class Release:
    """The student copy, as the review needs it."""

    by_id: dict
    solutions: dict
    sources: set
    names: rules.Names

    @classmethod
    def of(cls, released) -> Release:
        code = [c for c in released.cells if c.cell_type == "code"]
        return cls(by_id={c.get("id"): c for c in code if c.get("id")},
                   solutions={_nbgrader(c)["grade_id"]: c for c in code
                              if _nbgrader(c).get("solution") and _nbgrader(c).get("grade_id")},
                   sources={c.source for c in code if not _nbgrader(c)},
                   names=names_of(released))

    def counterpart(self, cell):
        """The released cell this one started as: the same grade_id (an answer cell), else
        the same cell id; None for a cell the release does not have."""
        grade_id = _nbgrader(cell).get("grade_id")
        if _nbgrader(cell).get("solution"):
            return self.solutions.get(grade_id)
        return self.by_id.get(cell.get("id"))

    def allowances(self, cell) -> list[Allowance]:
        """What the released version of ``cell`` allows: its declared allowances (an answer
        cell's) and the constructs it already uses."""
        original = self.counterpart(cell)
        if original is None:
            return []
        allowed = declared(original) if _nbgrader(original).get("solution") else []
        tree = parse(original.source)
        for finding in rules.findings(tree, self.names, parse) if tree is not None else []:
            if finding.rule == "private":  # any part of the private module the release uses
                allowed.append(Allowance("private", rules.private_part(finding.target)))
            else:
                allowed.append(Allowance(finding.rule, finding.target, exact=True))
        return allowed


def written_by_student(cell, release: Release) -> bool:
    """An answer cell, an ordinary cell changed from the release, or a cell the release lacks."""
    if cell.cell_type != "code" or _is_instructors(cell):
        return False
    if _nbgrader(cell).get("solution"):
        return True
    original = release.counterpart(cell)
    if original is not None:
        return original.source != cell.source
    return cell.source not in release.sources  # a client that drops cell ids: matched by source


# -- the review ---------------------------------------------------------------------------

def review(nb, released) -> list[Flag]:
    """The flags of submission ``nb`` (sanitized: test and locked cells restored) against its
    student copy ``released``: one per (cell, line, rule), in notebook order."""
    release = Release.of(released)
    names = names_of(nb)
    flags: list[Flag] = []
    for index, cell in enumerate(nb.cells, 1):
        if not written_by_student(cell, release):
            continue
        tree = parse(cell.source)
        if tree is None:
            continue
        lines = cell.source.splitlines()
        try:
            allowed, found = release.allowances(cell), rules.findings(tree, names, parse)
        except Exception as error:  # a defect of the review's own: a person reads the cell instead
            flags.append(Flag(label(cell, index), 1, (lines or [""])[0].strip()[:120], UNREADABLE,
                              f"the review could not read this cell ({type(error).__name__}): read it by hand"))
            continue
        seen = set()
        for finding in sorted(found, key=lambda f: f.line):
            if any(a.covers(finding) for a in allowed) or (finding.line, finding.rule) in seen:
                continue
            seen.add((finding.line, finding.rule))
            code = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
            flags.append(Flag(label(cell, index), finding.line, code[:120], finding.rule, finding.why,
                              finding.target))
    return flags


def affected(nb, flags: list[Flag]) -> list[str]:
    """The grade_ids of the test cells a grader should look at: for a flag in an answer cell,
    the test cells that follow it (up to the next answer cell, once one is found); for a flag
    in any other cell, every test cell after it."""
    cells = list(enumerate(nb.cells, 1))
    out: list[str] = []
    for flag in flags:
        start = next((i for i, (index, cell) in enumerate(cells) if label(cell, index) == flag.cell), None)
        if start is None:
            continue
        answer = bool(_nbgrader(cells[start][1]).get("solution"))
        found: list[str] = []
        for _, cell in cells[start + 1:]:
            meta = _nbgrader(cell)
            if answer and meta.get("solution") and found:
                break
            if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution") and meta.get("grade_id"):
                found.append(meta["grade_id"])
        out += [g for g in found if g not in out]
    return out
