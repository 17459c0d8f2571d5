"""helpers.rerun: the cells an instrument's banner asks for after a restart are exactly those
its cell needs (the imports, the cells defining what it uses, and what those use in turn),
in order, named by their first lines; a self-sufficient cell is asked for alone. Checked on
sources, and in a real kernel, where each notebook's instrument cell, after a restart, runs
without an error once the cells its banner names have run."""

from __future__ import annotations

import re

import nbformat
import pytest

from conftest import REPO
from helpers import rerun

IMPORTS = "import math\n\nimport torch\n\nimport helpers.strides\nfrom helpers import checks"


def hint(*cells: str) -> str:
    return rerun.hint_for(list(cells), list(cells), len(cells) - 1)


def test_a_cell_using_only_helpers_needs_the_imports():
    assert hint(IMPORTS, "x = 1", "helpers.strides.explore()") == (
        "To use them again, run the cell that begins “import math”, then this cell")


def test_a_self_sufficient_cell_is_run_alone():
    assert hint(IMPORTS, "import helpers.strides  # runs alone\n\nhelpers.strides.explore()") == rerun.RERUN_ALONE


def test_a_function_the_cell_draws_and_what_it_uses_are_named_in_order():
    cells = (IMPORTS, "x = torch.ones(3)", "scale = 2.0",
             "def branchy(x):\n    y = x * scale  # x is its own, scale is the notebook's\n"
             "    return [v for v in range(3)] and torch.where(x > 0, y, -x)",
             "helpers.autograd_graph.explore(branchy)")
    assert hint(*cells) == ("To use them again, run the cell that begins “import math”, then "
                            "the cell that begins “scale = 2.0”, then the cell that begins “def branchy(x):”, "
                            "then this cell")


def test_the_latest_definition_counts_and_a_rerun_cell_is_named_once():
    cells = (IMPORTS, "models = {}", "class Net(torch.nn.Module):\n    pass", "models = {'a': Net()}",
             "class Net(torch.nn.Module):\n    pass", "helpers.modules.explore(models)")
    assert rerun.needed(list(cells), 5) == [0, 2, 3]  # models of cell 3, made with cell 2's Net
    cells = (IMPORTS, "class Net(torch.nn.Module):\n    pass", IMPORTS, "models = {'a': Net(), 't': torch.ones(1)}",
             "helpers.modules.explore(models)")
    assert rerun.needed(list(cells), 4) == [0, 1, 3]  # the imports once, where Net finds them


def test_locals_of_functions_classes_lambdas_and_comprehensions_are_not_needed():
    cells = ("n = 1", "k = 2", "v = 3", "w = 4",
             "class A:\n    n = 5\n    def f(self, k):\n        return [v for v in range(k)]\n"
             "g = lambda w: w + 1\nhelpers.x.explore(A, g)")
    assert rerun.needed(list(cells), 4) == []


def test_first_lines_skip_comments_and_are_shortened():
    assert rerun.first_line("# a comment\n\nvalues = compute()") == "values = compute()"
    long = "inspector_models = {'a long name that goes on': TwoLayer(), 'b': 1}"
    assert rerun.first_line(long).endswith("…") and len(rerun.first_line(long)) == rerun.FIRST_LINE_CHARS


def instrument_cells(nb) -> list[int]:
    return [k for k, c in enumerate(nb.cells) if c.cell_type == "code"
            and re.search(r"\bexplore\w*\(", c.source) and not c.source.lstrip().startswith("def ")]


@pytest.mark.slow
@pytest.mark.parametrize("stem", ["02_autograd", "03_modules"])
def test_after_a_restart_the_banner_s_cells_make_the_instrument_cell_run(stem):
    """A real kernel runs the notebook (reference answers) up to its first instrument; the
    kernel restarts; the cells the instrument's banner names run (found by their first
    lines), then the instrument's cell: no error. (A self-sufficient cell's banner names none:
    it runs alone.)"""
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient

    from authoring import submissions

    nb = nbformat.read(str(REPO / "notebooks" / f"{stem}.ipynb"), as_version=4)
    nb = submissions.reference(nb, nb)
    cells = instrument_cells(nb)
    target = cells[0]
    head = nbformat.v4.new_notebook(cells=nb.cells[:target + 1], metadata=nb.metadata)
    client = NotebookClient(head, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(REPO / "notebooks")}})
    with client.setup_kernel():
        for index, cell in enumerate(head.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        banner = _run(client, nbformat.v4.new_code_cell(
            "from ipywidgets.widgets.widget import _instances\n"
            "print([w for w in _instances.values() if hasattr(w, 'offline_hint')][-1].offline_hint)"))
        assert banner.strip().endswith(("then this cell.", rerun.RERUN_ALONE + ".")), banner
        run_sync(client.km.restart_kernel)(now=True)
        run_sync(client.kc.wait_for_ready)(timeout=120)
        assert _run(client, nbformat.v4.new_code_cell("print('helpers' in globals())")) == "False\n"
        named = re.findall(r"the cell that begins “(.+?)”", banner)
        sources = [c for c in head.cells if c.cell_type == "code"]
        for line in named:
            found = [c for c in sources if rerun.first_line(c.source) == line]
            assert found, f"{stem}: the banner names a cell no longer there: {line!r}"
            _run(client, found[-1], fail_on_error=True)
        out = _run(client, head.cells[target], fail_on_error=True)
        assert "Error" not in out, out


def _run(client, cell, fail_on_error: bool = False) -> str:
    """Execute one cell in the client's kernel; its text output (and errors, if asked to fail)."""
    cell = nbformat.from_dict(dict(cell, outputs=[], execution_count=None))
    client.execute_cell(cell, 0)
    errors = [o for o in cell.outputs if o.output_type == "error"]
    if fail_on_error and errors:
        raise AssertionError(f"{cell.source[:80]!r} failed: {errors[0].ename}: {errors[0].evalue}")
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
