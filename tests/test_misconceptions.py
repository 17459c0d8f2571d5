"""The misconception catalogue and the notebooks' test cells agree, both ways.

Identifiers are read statically with helpers.checks.MARKER from test cell sources (with the
checks they call in helpers' task modules, TASK_MODULES: 02's, 04's, 05's and 06's shared checks) and from
the known-wrong-answer tables (``# %% wrong`` cells of notebooks/src): every identifier a
test cell or a table can raise is in the catalogue, every catalogue entry is raised by some
test cell or table, and an entry lists exactly the exercises (solution grade_ids) that raise
it.
"""

import importlib
import inspect
import re
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from authoring import build, submissions
from helpers.checks import MARKER, UNANSWERED
from helpers.misconceptions import CATALOGUE, Misconception

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def wrong_tables() -> dict[str, dict]:
    """Every notebook's known wrong answers, {solution grade_id: {value: message}}."""
    tables: dict[str, dict] = {}
    for source in sorted(build.SOURCES.glob("*.py")):
        tables.update(build.wrong_answers(source))
    return tables


HELPER_REFERENCE = re.compile(r"\b(helpers\.\w+|\w+)\.(\w+)\b")
HELPER_ALIAS = re.compile(r"^\s*import (helpers\.\w+) as (\w+)\s*$", re.M)


def _helper_markers(module_name: str, attribute: str, seen: set) -> set[str]:
    """The markers a helpers function (and the module's functions it calls) or constant holds:
    a test cell that calls ``helpers.data_tasks.check_windows`` raises what that check raises."""
    if (module_name, attribute) in seen:
        return set()
    seen.add((module_name, attribute))
    module = importlib.import_module(module_name)
    value = getattr(module, attribute, None)
    if value is None:
        return set()
    if not callable(value):
        return set(MARKER.findall(repr(value)))
    try:
        source = inspect.getsource(value)
    except (OSError, TypeError):
        return set()
    found = set(MARKER.findall(source))
    for called in set(re.findall(r"\b(\w+)\(", source)) | set(re.findall(r"\b([A-Z_]{3,})\b", source)):
        if getattr(module, called, None) is not None and called != attribute:
            found |= _helper_markers(module_name, called, seen)
    return found


def cell_markers(source: str) -> set[str]:
    """The markers a test cell can raise: in its own source, and in the helpers checks it calls
    (``helpers.m.f``, or ``alias.f`` after ``import helpers.m as alias``)."""
    found = set(MARKER.findall(source))
    aliases = {alias: module for module, alias in HELPER_ALIAS.findall(source)}
    seen: set = set()
    for owner, attribute in HELPER_REFERENCE.findall(source):
        module = owner if owner.startswith("helpers.") else aliases.get(owner)
        if module and module.removeprefix("helpers.") in TASK_MODULES:
            found |= _helper_markers(module, attribute, seen)
    return found


# helpers modules whose checks test cells call (their markers count for the calling cell)
TASK_MODULES = {"data_tasks", "compile_tasks", "training_tasks", "autograd_tasks"}


def raised_by(notebooks, tables: dict[str, dict] | None = None) -> dict[str, set[str]]:
    """identifier -> the solution grade_ids whose test cells or wrong-answer tables carry it."""
    raised: dict[str, set[str]] = {}
    for solution, table in (tables or {}).items():
        for message in table.values():
            for identifier in MARKER.findall(message):
                raised.setdefault(identifier, set()).add(solution)
    for nb in notebooks:
        owner = {test: solution for solution, tests in submissions.tests_of(nb).items() for test in tests}
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade"):
                for identifier in cell_markers(cell.source):
                    raised.setdefault(identifier, set()).add(owner.get(meta["grade_id"], meta["grade_id"]))
    return raised


def disagreements(catalogue: dict[str, Misconception], notebooks,
                  tables: dict[str, dict] | None = None) -> list[str]:
    """Every way ``catalogue`` and the test cells of ``notebooks`` (and the wrong-answer
    ``tables``) disagree, one line each."""
    raised = raised_by(notebooks, tables)
    problems = []
    if UNANSWERED in catalogue:
        problems.append(f"{UNANSWERED!r} is reserved for unanswered exercises and must not be catalogued")
    for identifier, exercises in sorted(raised.items()):
        if identifier != UNANSWERED and identifier not in catalogue:
            problems.append(f"[mc:{identifier}] raised by {sorted(exercises)} is not in the catalogue")
    for identifier, entry in sorted(catalogue.items()):
        if identifier not in raised:
            problems.append(f"catalogue entry {identifier} is raised by no test cell")
        elif set(entry.exercises) != raised[identifier]:
            problems.append(f"catalogue entry {identifier} lists {sorted(entry.exercises)} but is raised "
                            f"by the test cells of {sorted(raised[identifier])}")
        if not MARKER.fullmatch(f"[mc:{identifier}]"):
            problems.append(f"catalogue identifier {identifier!r} cannot be written as a marker")
        if not entry.description.strip() or "\n" in entry.description:
            problems.append(f"catalogue entry {identifier} needs a one-line description")
    return problems


def test_catalogue_matches_the_test_cells():
    notebooks = [nbformat.read(str(p), as_version=4) for p in NOTEBOOKS]
    problems = disagreements(CATALOGUE, notebooks, wrong_tables())
    assert not problems, "\n".join(problems)


def _notebook(*cells):
    nb = new_notebook()
    for kind, grade_id, source in cells:
        cell = new_code_cell(source)
        cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": kind == "solution",
                                     "grade": kind == "test", "points": 1 if kind == "test" else 0}
        nb.cells.append(cell)
    return nb


def test_the_lint_catches_each_kind_of_disagreement():
    nb = _notebook(
        ("solution", "x-a", "a = 1"),
        ("test", "x-a-test", 'checks.reject(a, {2: "[mc:count.off-by-one] counted the end"})\n'
                             'checks.reject(a, {3: "[mc:count.uncatalogued] ..."})'),
        ("solution", "x-b", "b = 1"),
        ("test", "x-b-test", 'checks.reject(b, {2: "[mc:count.off-by-one] counted the end"})'),
        ("solution", "x-c", "c = 1"),
        ("test", "x-c-test", 'checks.reject(c, {2: "[mc:unanswered] reserved, never an error"})'),
    )
    catalogue = {
        "count.off-by-one": Misconception("counts one too many", ("x-a",)),  # x-b raises it too
        "count.never-raised": Misconception("no test cell names it", ("x-a",)),
        "unanswered": Misconception("reserved", ("x-c",)),
        "count.two-lines": Misconception("first line\nsecond line", ("x-a",)),
    }
    problems = "\n".join(disagreements(catalogue, [nb]))
    assert "[mc:count.uncatalogued] raised by ['x-a'] is not in the catalogue" in problems
    assert "count.off-by-one lists ['x-a'] but is raised by the test cells of ['x-a', 'x-b']" in problems
    assert "count.never-raised is raised by no test cell" in problems
    assert "'unanswered' is reserved" in problems
    assert "count.two-lines needs a one-line description" in problems
    fixed = {"count.off-by-one": Misconception("counts one too many", ("x-a", "x-b")),
             "count.uncatalogued": Misconception("something else", ("x-a",))}
    assert disagreements(fixed, [nb]) == []


def test_markers_in_solution_cells_do_not_count():
    nb = _notebook(("solution", "x-a", 'a = "[mc:count.in-solution]"'),
                   ("test", "x-a-test", "checks.expect_equal(a, 1)"))
    assert raised_by([nb]) == {}


def test_markers_in_wrong_answer_tables_count_for_their_exercise():
    nb = _notebook(("solution", "x-a", "a = 1"), ("test", "x-a-test", "checks.answer('x-a', a, 'a')"))
    tables = {"x-a": {2: "[mc:count.off-by-one] counted the end"}}
    assert raised_by([nb], tables) == {"count.off-by-one": {"x-a"}}
    catalogue = {"count.off-by-one": Misconception("counts one too many", ("x-a",))}
    assert disagreements(catalogue, [nb], tables) == []
    assert "is raised by no test cell" in "\n".join(disagreements(catalogue, [nb], {}))


def test_a_cell_raises_the_markers_of_the_helpers_checks_it_calls():
    """05's and 06's test cells call shared checks (helpers.data_tasks, helpers.compile_tasks):
    their markers, and those of the module's functions and constants they use, count for the
    cell; an alias from ``import helpers.m as a`` is followed; other modules are not read."""
    direct = cell_markers("helpers.data_tasks.check_chunks(a, b, c, d)")
    assert {"data.stream-iterator-once", "data.shard-strided"} <= direct
    aliased = cell_markers("import helpers.compile_tasks as _t\n_t.check_batch_form(v, 'x', 64)")
    assert {"roofline.never-compute-bound", "roofline.batch-powers"} <= aliased
    assert "data.stream-iterator-once" not in aliased
    assert cell_markers("helpers.roofline.bounds(c, r)") == set()
