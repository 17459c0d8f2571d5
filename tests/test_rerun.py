"""helpers.lab.rerun: the cells an instrument's banner asks for after a restart are exactly those
its cell needs (the imports, the cells defining what it uses, and what those use in turn),
in order, named by their first lines; a self-sufficient cell is asked for alone. Checked on
sources, and in a real kernel, where each notebook's instrument cell, after a restart, runs
without an error once the cells its banner names have run."""

from __future__ import annotations

import re

import nbformat
import pytest

from conftest import REPO
from helpers.lab import rerun

IMPORTS = "import math\n\nimport torch\n\nimport helpers.strides\nfrom helpers import checks"


def hint(*cells: str) -> str:
    return rerun.hint_for(list(cells), list(cells), len(cells) - 1)


def test_a_cell_using_only_helpers_needs_the_imports():
    assert hint(IMPORTS, "x = 1", "helpers.strides.explore()") == (
        "To use them again, run the cell that begins “import math”, then this cell. "
        "Run ▸ Run All Above Selected Cell runs every cell above it")


def test_a_self_sufficient_cell_is_run_alone():
    assert hint(IMPORTS, "import helpers.strides  # runs alone\n\nhelpers.strides.explore()") == rerun.RERUN_ALONE


def test_a_function_the_cell_draws_and_what_it_uses_are_named_in_order():
    cells = (IMPORTS, "x = torch.ones(3)", "scale = 2.0",
             "def branchy(x):\n    y = x * scale  # x is its own, scale is the notebook's\n"
             "    return [v for v in range(3)] and torch.where(x > 0, y, -x)",
             "helpers.autograd_graph.explore(branchy)")
    assert hint(*cells) == ("To use them again, run the cell that begins “import math”, then "
                            "the cell that begins “scale = 2.0”, then the cell that begins “def branchy(x):”, "
                            "then this cell. " + rerun.ALL_ABOVE)


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
    assert rerun.first_line("import helpers.strides  # so that this cell runs alone") == "import helpers.strides"
    assert rerun.first_line("label = '#1'  # the first") == "label = '#1'"
    assert rerun.first_line("values = f(1,  # the first\n  2)") == "values = f(1,"
    long = "inspector_models = {'a long name that goes on': TwoLayer(), 'b': 1}"
    assert rerun.first_line(long).endswith("…") and len(rerun.first_line(long)) == rerun.FIRST_LINE_CHARS


BRANCHY = (IMPORTS, "scale = 2.0",
           "def branchy(x):\n    return torch.where(x > 0, x * scale, -x)",
           "import helpers.autograd_graph\n\nhelpers.autograd_graph.explore(branchy)")


def test_a_name_an_earlier_cell_defines_is_answered_with_the_cells_to_run():
    cells = list(BRANCHY)
    assert rerun.not_defined_yet("branchy", cells, cells, 3, defined={"helpers"}) == (
        "Not defined yet: branchy. Run the cell that begins “import math”, then the cell that "
        "begins “scale = 2.0”, then the cell that begins “def branchy(x):”, then this cell "
        f"({rerun.ALL_ABOVE}).")
    # what the kernel has already is not asked for again
    have = {"helpers", "math", "torch", "checks", "scale"}
    assert rerun.not_defined_yet("branchy", cells, cells, 3, defined=have) == (
        f"Not defined yet: branchy. Run the cell that begins “def branchy(x):”, then this cell "
        f"({rerun.ALL_ABOVE}).")
    # a name no earlier cell defines (a typo) keeps IPython's own error
    assert rerun.not_defined_yet("brachy", cells, cells, 3, defined={"helpers"}) is None


def test_an_instrument_cell_must_import_what_an_earlier_cell_imports():
    cells = [IMPORTS, "from torch import nn\nnet = nn.Linear(2, 2)",
             "helpers.modules.explore({'net': net, 'x': torch.ones(2)})",
             "import torch\nimport helpers.modules\n\nhelpers.modules.explore({'net': net})"]
    assert rerun.imports_elsewhere(cells, 2) == ["helpers", "torch"]  # net: a cell names it
    assert rerun.imports_elsewhere(cells, 3) == []
    assert rerun.makes_an_instrument(cells[2]) and not rerun.makes_an_instrument(
        "# helpers.strides.explore()\ndef explore_more():\n    pass\nmake = helpers.modules.explore")


STEMS = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("stem", STEMS)
def test_every_instrument_cell_imports_what_it_uses(stem):
    """Run alone after a restart, an instrument cell finds every module it uses: it imports
    each itself (issue 38: 02's, 03's and 06's stopped on ``helpers`` is not defined)."""
    nb = nbformat.read(str(REPO / "notebooks" / f"{stem}.ipynb"), as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    missing = {rerun.first_line(code[k]): rerun.imports_elsewhere(code, k)
               for k in range(len(code)) if rerun.makes_an_instrument(code[k])}
    assert not {k: v for k, v in missing.items() if v}, \
        f"{stem}: instrument cells that use a module an earlier cell imports: {missing}"


class Shell:
    """What explain_missing_name reads of IPython: history, namespace, transform_cell."""

    def __init__(self, raw, user_ns):
        self.history_manager = type("History", (), {"input_hist_raw": raw})()
        self.user_ns = user_ns

    def transform_cell(self, source):
        return source


def test_the_kernel_reads_the_cells_from_the_notebook_it_runs(tmp_path):
    """The cells come from the notebook's file (Jupyter Server gives the kernel its path as
    ``__session__``), the running cell found by its source when no cell id is sent."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title")]
                                  + [nbformat.v4.new_code_cell(c) for c in BRANCHY])
    path = tmp_path / "02.ipynb"
    nbformat.write(nb, str(path))
    shell = Shell(["import helpers.autograd_graph\n\nhelpers.autograd_graph.explore(branchy)"],
                  {"__session__": str(path), "helpers": object()})
    said = rerun.explain_missing_name(shell, NameError("name 'branchy' is not defined", name="branchy"))
    assert isinstance(said, NameError) and "the cell that begins “def branchy(x):”, then this cell" in str(said)
    assert said._render_traceback_() == [str(said).replace("Not defined yet", "\x1b[1;33mNot defined yet\x1b[0m")]
    # a cell that makes no instrument, an unknown notebook, another error: IPython's own
    assert rerun.explain_missing_name(Shell(["branchy(1)"], shell.user_ns), NameError("x", name="branchy")) is None
    assert rerun.explain_missing_name(Shell(shell.history_manager.input_hist_raw, {}),
                                      NameError("x", name="branchy")) is None
    assert rerun.explain_missing_name(shell, ValueError("branchy")) is None


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
        assert banner.strip().endswith((rerun.ALL_ABOVE + ".", rerun.RERUN_ALONE + ".")), banner
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


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_an_instrument_cell_run_alone_after_a_restart_runs_or_says_what_to_run(stem, tmp_path, monkeypatch):
    """A real kernel, started for the notebook's file (reference answers; as Jupyter Server
    starts it), and for each instrument cell: a restart, then the cell alone. It makes its
    instrument, or stops with one line naming the cells to run first ("Not defined yet:
    branchy. Run the cell that begins “def branchy(x):”, …"), never a bare NameError; run
    those, then the cell again: no error."""
    from jupyter_core.utils import run_sync
    from nbclient import NotebookClient

    from authoring import submissions

    nb = nbformat.read(str(REPO / "notebooks" / f"{stem}.ipynb"), as_version=4)
    nb = submissions.reference(nb, nb)
    path = tmp_path / f"{stem}.ipynb"
    nbformat.write(nb, str(path))
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))  # what Jupyter Server tells a kernel
    code = [c for c in nb.cells if c.cell_type == "code"]
    targets = [c for c in code if rerun.makes_an_instrument(c.source)]
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(REPO / "notebooks")}})
    problems = []
    with client.setup_kernel():
        for target in targets:
            run_sync(client.km.restart_kernel)(now=True)
            run_sync(client.kc.wait_for_ready)(timeout=120)
            where = f"{stem}: {rerun.first_line(target.source)!r}"
            errors = _errors(client, target)
            if not errors:
                continue
            said = "".join(errors[0].traceback)
            if len(errors) != 1 or not said.startswith("\x1b[1;33mNot defined yet"):
                problems.append(f"{where} run alone stops with {errors[0].ename}: {errors[0].evalue}")
                continue
            named = re.findall(r"the cell that begins “(.+?)”", said)
            for line in named:
                found = [c for c in code if rerun.first_line(c.source) == line]
                assert found, f"{where}: the message names a cell that is not there: {line!r}"
                assert not _errors(client, found[0]), f"{where}: {line!r} failed"
            again = _errors(client, target)
            if again:
                problems.append(f"{where}: after the cells it named ({named}), it stops with "
                                f"{again[0].ename}: {again[0].evalue}")
    assert not problems, "\n".join(problems)


def _errors(client, cell) -> list:
    """Execute one cell (its own id, as JupyterLab sends it) in the client's kernel; its errors."""
    cell = nbformat.from_dict(dict(cell, outputs=[], execution_count=None))
    client.execute_cell(cell, 0)
    return [o for o in cell.outputs if o.output_type == "error"]
