"""The static review (graders.autograde.review): each rule flags what it names and leaves
honest code alone; obfuscations are caught; which cells are read; allowances come from the
release only; every reference solution and variant of the six notebooks passes unflagged;
and one real `course autograde` run: a flagged submission keeps its score, its status row
quotes the line, its test cells need a grade by hand, `course export` and `course report`
show it."""

from __future__ import annotations

import copy
import csv
import json
import logging
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

import grading_course as gc
from authoring import build, submissions
from conftest import REPO, sandbox_flags
from graders.autograde import review

PRELUDE = "import torch\nimport numpy as np\nfrom helpers import checks"
SPEC = [
    ("code", None, 0, PRELUDE),
    ("solution", "rv-a", 0, "# YOUR CODE HERE\nraise NotImplementedError()"),
    ("test", "rv-a-test", 1, "checks.expect_true(True, 'a')"),
    ("code", None, 0, "import inspect\nprint(inspect.getsource(checks.expect_true))"),
    ("code", None, 0, "report = torch._dynamo.explain(torch.sin)(torch.ones(2))"),
    ("solution", "rv-b", 0, "# YOUR CODE HERE\nraise NotImplementedError()"),
    ("test", "rv-b-test", 1, "checks.expect_true(True, 'b')"),
    ("test", "rv-b-test2", 1, "checks.expect_true(True, 'b2')"),
]


def release():
    return gc.build("rv", SPEC)


def reviewed(code: str, answer: str = "rv-a", released=None) -> list[review.Flag]:
    released = released if released is not None else release()
    return review.review(submissions.fill(released, {answer: code}), released)


def rules_of(flags) -> set[str]:
    return {f.rule for f in flags}


# -- each rule: one construct it flags, one honest neighbour it leaves alone -------------

RULES = [
    ("builtins", "import builtins", "names = ['builtin', 'functions']"),
    ("builtins", "b = __builtins__", "b = len([1, 2])"),
    ("graders", "_graders_verdict = 'pass'", "graders = ['ada', 'bob']"),
    ("graders", "import helpers.grading.probe as p", "import helpers.checks as c"),
    ("ipython", "get_ipython().events.register('post_run_cell', print)", "%timeit sum(range(10))"),
    ("ipython", "get_ipython().user_ns['x'] = 1", "%matplotlib inline"),
    ("ipython", "get_ipython().input_transformers_cleanup.append(str)", "%time y = sum(range(10))"),
    ("ipython", "from IPython import get_ipython", "from IPython.display import display"),
    ("ipython", "%load_ext autoreload", "torch.tensor?"),
    ("ipython", "sources = In[-3:]", "Input = 3\nprint(Input)"),
    ("ipython", "probe_code = _i5", "_ = 5"),
    ("ipython", "!cat /etc/passwd", "%%time\ny = 1"),
    ("sys-modules", "import sys\nsys.modules['helpers.checks'] = None", "import sys\nsys.path.append('.')"),
    ("introspection", "import gc\nobjects = gc.get_objects()", "import math\nr = math.sqrt(2)"),
    ("introspection", "from inspect import currentframe", "from math import sqrt"),
    ("introspection", "import ctypes", "import json"),
    ("introspection", "import linecache\nlines = linecache.getlines(name)", "import textwrap"),
    ("exec", "exec('x = 1')", "model = torch.nn.Linear(2, 2).eval()"),
    ("exec", "y = eval('1 + 1')", "fast = torch.compile(torch.sin)"),
    ("exec", "c = compile('x', 'f', 'eval')", "import re\npattern = re.compile('a+')"),
    ("import", "m = __import__('math')", "import math"),
    ("import", "import importlib\nm = importlib.import_module('math')", "from math import pi"),
    ("computed-name", "f = getattr(checks, 'expect_' + 'close')", "w = getattr(layer, 'weight', None)"),
    ("computed-name", "setattr(model, name, layer)", "setattr(model, 'fc', layer)"),
    ("computed-name", "globals()[name] = 1", "globals()['y'] = 1"),
    ("module-attribute", "torch.allclose = lambda *a, **k: True", "model.weight = w"),
    ("module-attribute", "checks.expect_close = lambda *a, **k: None", "close = checks.expect_close"),
    ("module-attribute", "np.testing.assert_allclose = print", "np.testing.assert_allclose(1.0, 1.0)"),
    ("module-attribute", "setattr(torch, 'allclose', max)", "setattr(layer, 'weight', w)"),
    ("module-attribute", "del torch.allclose", "del layer.weight"),
    ("module-attribute", "torch.Tensor.__eq__ = lambda a, b: True", "t = torch.Tensor([1.0])"),
    ("module-attribute", "from unittest import mock", "from collections import namedtuple"),
    ("module-value", "def handle():\n    return torch", "print(torch)"),
    ("dunder", "f.__globals__['x'] = 1", "print(f.__name__)"),
    ("dunder", "classes = object.__subclasses__()", "name = type(x).__name__"),
    ("dunder", "g.__code__ = h.__code__", "super().__init__()"),
    ("dunder", "d = layer.__dict__", "d = layer.state_dict()"),
    ("dunder", "f.__defaults__ = (1,)", "f.__doc__ = 'adds'"),
    ("dunder", "m = len.__self__", "s = len('abc')"),
    ("class-assignment", "x.__class__ = int", "name = x.__class__.__name__"),
    ("class-assignment", "C.__bases__ = (object,)", "bases = C.__bases__"),
    ("class-assignment", "type(x).__eq__ = lambda a, b: True", "kind = type(x).__name__"),
    ("class-assignment", "setattr(x.__class__, '__bool__', f)", "setattr(self, 'count', 0)"),
    ("dispatch", "lib = torch.library.Library('aten', 'IMPL')", "out = torch.add(x, 1)"),
    ("dispatch", "from torch.overrides import TorchFunctionMode", "from torch.nn import functional"),
    ("frame", "import sys\nf = sys._getframe(1)", "import sys\nv = sys.version"),
    ("frame", "g = error.__traceback__.tb_frame.f_globals", "line = error.__traceback__.tb_lineno"),
    ("frame", "import traceback\nstack = traceback.format_stack()", "import traceback\ns = traceback.format_exc()"),
    ("trace", "import sys\nsys.settrace(print)", "import sys\nn = sys.getrecursionlimit()"),
    ("trace", "import threading\nthreading.settrace(print)", "import threading\nt = threading.Thread(target=print)"),
    ("trace", "import sys\nsys.addaudithook(print)", "import sys\nsys.stdout.flush()"),
    ("code-object", "import pickle\nobj = pickle.loads(data)", "import json\nobj = json.loads(data)"),
    ("code-object", "import marshal", "import math"),
    ("code-object", "import types\nf = types.FunctionType(code, {})", "import types\nns = types.SimpleNamespace(a=1)"),
    ("private", "torch._C._set_grad_enabled(True)", "torch.set_grad_enabled(True)"),
    ("private", "from torch._dynamo import explain", "from torch.compiler import reset"),
    ("private", "limit = torch._dynamo.config.recompile_limit", "limit = torch.get_num_threads()"),
]


@pytest.mark.parametrize("rule, flagged, honest", RULES, ids=[f"{r[0]}:{r[1][:30]}" for r in RULES])
def test_each_rule_flags_its_construct_and_not_its_honest_neighbour(rule, flagged, honest):
    found = reviewed(flagged)
    assert rule in rules_of(found), (flagged, [f.quote() for f in found])
    assert reviewed(honest) == [], (honest, [f.quote() for f in reviewed(honest)])


def test_every_rule_has_a_case():
    assert {r[0] for r in RULES} == set(review.rules.WHY)


# -- obfuscations -------------------------------------------------------------------------

OBFUSCATED = [
    ("computed-name", "expect = getattr(checks, 'expect_' + 'close')"),
    ("computed-name", "name = ''.join(['all', 'close'])\nsetattr(torch, name, max)"),
    ("computed-name", "g = getattr(add, '__glo' + 'bals__')"),
    ("computed-name", "import operator\nf = operator.attrgetter(''.join(['__co', 'de__']))(add)"),
    ("computed-name", "s = setattr\ns(torch, 'allclose', max)"),
    ("exec", "import base64\nexec(base64.b64decode('dG9yY2guYWxsY2xvc2UgPSBtYXg='))"),
    ("exec", "import base64, timeit\ntimeit.timeit(base64.b64decode(s).decode(), number=1)"),
    ("import", "b = __import__('builtins')"),
    ("builtins", "b = __import__('builtins')"),
    ("builtins", "run = globals()['__builtins__']"),
    ("ipython", "get_ipython().events.register('pre_run_cell', lambda info: None)"),
    ("ipython", "shell = get_ipython()\nshell.events.register('post_execute', print)"),
    ("ipython", "import IPython\nIPython.get_ipython().kernel.shell_handlers.clear()"),
    ("module-attribute", "checks.expect_close = lambda *a, **k: None"),
    ("module-attribute", "torch.allclose = lambda *a, **k: True"),
    ("module-attribute", "setattr(checks, 'expect_true', print)"),
    ("module-attribute", "import helpers.checks as c\nc.expect_close = print"),
    ("module-attribute", "t = torch\nt.allclose = max"),
    ("module-attribute", "%timeit -n1 torch.allclose = max"),
    ("module-attribute", "%%time\ntorch.allclose = max"),
    ("module-attribute", "import timeit\ntimeit.timeit('torch.allclose = max', number=1)"),
    ("module-attribute", "code = 'checks.expect_close = print'"),
    ("module-value", "vars(torch)['allclose'] = max"),
    ("module-value", "for m in [torch]:\n    m.allclose = max"),
    ("module-value", "for m in (torch,):\n    m.allclose = max"),
    ("module-value", "def helper():\n    return checks\nhelper().expect_close = print"),  # checks: from-imported
    ("class-assignment", "torch.ones(1).__class__.__eq__ = lambda a, b: True"),
    ("dunder", "object.__setattr__(torch, 'allclose', max)"),
    ("dunder", "torch.__dict__['allclose'] = max"),
    ("ipython", "print(get_ipython().user_ns.get('In'))"),
    ("dunder", "import operator\nf = operator.attrgetter('__globals__')(add)"),
    ("dunder", "f = getattr(add, '__globals__')"),
]


@pytest.mark.parametrize("rule, code", OBFUSCATED, ids=[f"{r}:{c[:40]}" for r, c in OBFUSCATED])
def test_obfuscations_are_flagged(rule, code):
    found = reviewed(code)
    assert rule in rules_of(found), (code, [f.quote() for f in found])


HONEST = [
    "class L(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\nq = L(3)",
    "class T(torch.Tensor):\n    def __bool__(self):\n        return True",
    "def train(model, X, y):\n    model.train()\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    loss = torch.nn.functional.mse_loss(model(X), y)\n    opt.zero_grad()\n    loss.backward()\n"
    "    opt.step()\n    return loss.item()",
    "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.fc = torch.nn.Linear(2, 2)\n    def forward(self, x):\n"
    "        return self.fc(x)\nprint(Net().__class__.__name__)",
    "mode = 'eval'\nmodes = {'train': True, 'eval': False}",
    "def f(x):\n    \"\"\"Like torch._dynamo.explain(f)(x), but by hand.\"\"\"\n    return x",
    "%%timeit\ny = torch.ones(3).sum()",
    "import timeit\nt = timeit.timeit('sum(range(10))', number=10)",
    "import timeit\nt = timeit.timeit(lambda: sum(range(10)), number=10)",
    "fast = torch.compile(torch.sin, backend='eager')\ntorch.compiler.reset()",
    "import os\nos.environ['TORCH_LOGS'] = 'graph_breaks'",
    "x = torch.ones(2, requires_grad=True)\nx.grad = None\nlayer = torch.nn.Linear(2, 1)\n"
    "layer.weight.data.zero_()",
    "from torch.nn import Module\nclass M(Module):\n    pass\ndef f(m: Module) -> list[Module]:\n"
    "    return [m] if isinstance(m, (Module, int)) and Module.train is not None else []",
    "def (:",  # does not parse: it fails to run, nothing to flag
]


@pytest.mark.parametrize("code", HONEST, ids=[c[:30] for c in HONEST])
def test_honest_code_is_not_flagged(code):
    assert reviewed(code) == [], [f.quote() for f in reviewed(code)]


def test_a_flag_quotes_its_line_and_says_why():
    flags = reviewed("def add(a, b):\n    return a + b\n\ntorch.allclose = lambda *a, **k: True")
    assert len(flags) == 1
    flag = flags[0]
    assert (flag.cell, flag.line, flag.rule) == ("rv-a", 4, "module-attribute")
    assert flag.code == "torch.allclose = lambda *a, **k: True"
    assert flag.quote() == ("rv-a, line 4: `torch.allclose = lambda *a, **k: True` (changes torch.allclose: "
                            "changes an imported module (the test helpers and comparisons are imported modules))")


def test_a_cell_the_review_fails_on_is_flagged_for_a_person(monkeypatch):
    def broken(node, code):
        raise RecursionError("deep")
        yield

    monkeypatch.setattr(review.rules, "RULES", (*review.rules.RULES, broken))
    flags = reviewed("def add(a, b):\n    return a + b")
    assert [(f.cell, f.line, f.code, f.rule) for f in flags] == [("rv-a", 1, "def add(a, b):", "unreadable"),
                                                                 ("rv-b", 1, "# YOUR CODE HERE", "unreadable")]
    assert "RecursionError" in flags[0].why


# -- which cells are read -----------------------------------------------------------------

def cell_index(nb, source_start: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.source.startswith(source_start))


def test_cells_unchanged_from_the_release_and_test_cells_are_not_read():
    released = release()
    assert review.review(copy.deepcopy(released), released) == []  # inspect, torch._dynamo: the release's
    nb = copy.deepcopy(released)
    test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "rv-a-test")
    test.source = "import gc\n" + test.source  # as a gradebook restores it: the instructor's
    assert review.review(nb, released) == []


def test_a_cell_the_student_added_or_edited_is_read():
    released = release()
    nb = copy.deepcopy(released)
    nb.cells.insert(2, new_code_cell("import gc"))
    flags = review.review(nb, released)
    assert [(f.cell, f.line, f.rule) for f in flags] == [("cell #3", 1, "introspection")]
    nb = copy.deepcopy(released)
    nb.cells[cell_index(nb, "import inspect")].source = "import inspect\nf = inspect.currentframe()"
    assert [(f.cell, f.line, f.rule) for f in review.review(nb, released)] == [("cell #4", 2, "introspection")]


def test_an_edited_cell_keeps_what_its_release_does():
    released = release()
    nb = copy.deepcopy(released)
    demo = cell_index(nb, "report = torch._dynamo")
    nb.cells[demo].source = ("report = torch._dynamo.explain(torch.cos)(torch.ones(3))\n"
                             "torch._dynamo.reset()")
    assert review.review(nb, released) == []  # the same private module as released
    nb.cells[demo].source += "\nstate = torch._C._get_tracing_state()"
    assert [(f.line, f.rule) for f in review.review(nb, released)] == [(3, "private")]
    nb = copy.deepcopy(released)
    shown = cell_index(nb, "import inspect")
    nb.cells[shown].source = "import inspect\nprint(inspect.getsource(checks.expect_close))"
    assert review.review(nb, released) == []  # inspect.getsource, as released
    nb.cells[shown].source += "\nframe = inspect.currentframe()"
    assert [(f.line, f.rule) for f in review.review(nb, released)] == [(3, "introspection")]


def test_cells_without_ids_are_matched_by_source():
    released = release()
    nb = copy.deepcopy(released)
    for cell in nb.cells:
        cell.pop("id", None)
    assert review.review(nb, released) == []
    nb.cells[cell_index(nb, "import inspect")].source += "\nimport gc"
    assert rules_of(review.review(nb, released)) == {"introspection"}


# -- allowances ---------------------------------------------------------------------------

MARK_DYNAMIC = "t = torch.ones(4, 3)\ntorch._dynamo.mark_dynamic(t, 0)"


def allowing(released, grade_id: str, *items: str):
    for cell in released.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            cell.metadata["course"] = {review.ALLOW_KEY: list(items)}
    return released


def test_the_release_allowance_is_honoured_for_its_exercise_only():
    assert rules_of(reviewed(MARK_DYNAMIC, "rv-b")) == {"private"}
    released = allowing(release(), "rv-b", "private:torch._dynamo.mark_dynamic")
    assert reviewed(MARK_DYNAMIC, "rv-b", released) == []
    assert rules_of(reviewed(MARK_DYNAMIC, "rv-a", released)) == {"private"}  # another exercise
    other = reviewed(MARK_DYNAMIC + "\nstate = torch._C._get_tracing_state()", "rv-b", released)
    assert [(f.line, f.rule, f.target) for f in other] == [(3, "private", "torch._C._get_tracing_state")]
    whole_rule = allowing(release(), "rv-b", "exec")
    assert reviewed("y = eval('1 + 1')", "rv-b", whole_rule) == []


def test_an_allowance_written_into_the_submission_is_ignored():
    released = release()
    nb = submissions.fill(released, {"rv-b": MARK_DYNAMIC})
    allowing(nb, "rv-b", "private", "exec")
    assert rules_of(review.review(nb, released)) == {"private"}
    broken = allowing(release(), "rv-b", "private")
    broken.cells[5].metadata["course"][review.ALLOW_KEY] = "private"  # not a list: allows nothing
    assert rules_of(review.review(submissions.fill(broken, {"rv-b": MARK_DYNAMIC}), broken)) == {"private"}


def test_the_solution_header_option_reaches_the_cell_metadata(tmp_path):
    assert build.parse_header(" solution 06_compile-x allow=private,module-attribute:torch._dynamo.config") == {
        "kind": "solution", "grade_id": "06_compile-x",
        "allow": ["private", "module-attribute:torch._dynamo.config"]}
    for bad, said in [(" solution x allow=privat", "unknown review rule 'privat'"),
                      (" solution x allow=private:torch.", "not a dotted name"),
                      (" test x-test points=1 allow=exec", "unknown option")]:
        with pytest.raises(ValueError, match=said):
            build.parse_header(bad)
    source = tmp_path / "t.py"
    source.write_text("# %% solution t-a allow=private:torch._dynamo,computed-name:setattr\nx = 1\n\n"
                      '# %% solution t-b allow="exec"\ny = 2\n\n# %% test t-b-test points=1\nassert y\n\n'
                      "# %% solution t-c\nz = 3\n")
    nb = build.build(source)
    assert [c.metadata.get("course") for c in nb.cells] == [
        {"review_allow": ["private:torch._dynamo", "computed-name:setattr"]}, {"review_allow": ["exec"]}, None,
        None]
    assert review.declared(nb.cells[0]) == [review.Allowance("private", "torch._dynamo"),
                                            review.Allowance("computed-name", "setattr")]


# -- which test cells a flag sends to a grader ---------------------------------------------

def test_affected_test_cells():
    nb = release()
    flag = review.Flag("rv-a", 1, "x", "exec", "why")
    assert review.affected(nb, [flag]) == ["rv-a-test"]
    assert review.affected(nb, [review.Flag("rv-b", 1, "x", "exec", "why")]) == ["rv-b-test", "rv-b-test2"]
    assert review.affected(nb, [review.Flag("cell #1", 1, "x", "exec", "why")]) == [
        "rv-a-test", "rv-b-test", "rv-b-test2"]
    assert review.affected(nb, [review.Flag("cell #4", 1, "x", "exec", "why"), flag]) == [
        "rv-b-test", "rv-b-test2", "rv-a-test"]
    assert review.affected(nb, []) == [] and review.affected(nb, [review.Flag("cell #99", 1, "", "", "")]) == []


# -- honest answers: every reference solution and variant of the six notebooks ------------

# Allowances that reference solutions need and notebooks/src does not declare yet (the chapter
# sessions own those files): applied here as if declared, and reported. The test fails when
# one is no longer needed (declared in the source, or the answer changed): remove it then.
PENDING: dict[str, list[str]] = {}
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def student_copy(source_nb):
    """The release's answer cells and hidden tests, as nbgrader's generate_assignment clears them."""
    nb = copy.deepcopy(source_nb)
    for step in (ClearSolutions(), ClearHiddenTests()):
        nb, _ = step.preprocess(nb, {})
    return nb


def honest_submissions(stem: str, source_nb, released) -> list[tuple[str, object]]:
    """(what it is, the notebook): the reference, the alternatives, and round k of the wrong
    answers (each exercise's k-th, the rest reference), as authoring.submissions builds them."""
    have = submissions.solution_cells(released)
    wrong, alternative = submissions.load_variants(stem)
    reference = submissions.solution_cells(source_nb)
    out = [("reference", submissions.fill(released, reference)),
           ("ALTERNATIVE", submissions.fill(released, {**reference, **{g: c for g, c in alternative.items()
                                                                       if g in have}}))]
    for k in range(max((len(v) for v in wrong.values()), default=0)):
        answers = {g: submissions.unpack(v[k])[0] for g, v in wrong.items() if k < len(v) and g in have}
        out.append((f"WRONG[{k}]", submissions.fill(released, {**reference, **answers})))
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_references_and_variants_are_not_flagged(path):
    source_nb = nbformat.read(str(path), as_version=4)
    released = student_copy(source_nb)
    pending = {g: [review.Allowance.parse(a) for a in items] for g, items in PENDING.items()}
    used, flagged = set(), []
    for what, nb in honest_submissions(path.stem, source_nb, released):
        for flag in review.review(nb, released):
            covering = [a for a in pending.get(flag.cell, []) if a.covers(flag)]
            used |= {(flag.cell, a) for a in covering}
            if not covering:
                flagged.append(f"{what} {flag.quote()}: add `allow={flag.rule}:{flag.target}` to the header "
                               f"`# %% solution {flag.cell}` in notebooks/src if it is honest")
    assert flagged == [], "honest answers flagged:\n" + "\n".join(flagged)
    present = set(submissions.solution_cells(released))
    stale = [f"{g} {a.rule}:{a.target}" for g, items in pending.items() if g in present
             for a in items if (g, a) not in used]
    assert stale == [], f"PENDING allowances no longer needed (declared in notebooks/src?), remove them: {stale}"


# -- one real grading run -----------------------------------------------------------------

COURSE_BIN = Path(sys.executable).parent / "course"
GRADED = [
    ("code", None, 0, "import math"),
    ("solution", "rg-add", 0, "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION"),
    ("test", "rg-add-test", 2, "assert add(1, 2) == 3, 'add(1, 2) should be 3'"),
    ("solution", "rg-cache", 0,
     "import functools\n### BEGIN SOLUTION\nwrapper = functools._lru_cache_wrapper\n### END SOLUTION"),
    ("test", "rg-cache-test", 1, "assert wrapper is not None, 'wrapper is None'"),
]
FLAGGED_LINE = "frame = inspect.currentframe()"


def course_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(COURSE_BIN), *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = tmp_path_factory.mktemp("review") / "course"
    source = gc.build("rg", GRADED)
    source.cells[3].metadata["course"] = {review.ALLOW_KEY: ["private:functools._lru_cache_wrapper"]}
    _, released = gc.release(course, {"rg": source})["rg"]
    right = {"rg-add": "def add(a, b):\n    return a + b", "rg-cache": "import functools\n"
                                                                      "wrapper = functools._lru_cache_wrapper"}
    gc.submit(course, "honest", "rg", gc.answers(released, **right))
    gc.submit(course, "flagged", "rg", gc.answers(released, **{
        **right, "rg-add": f"import inspect\n{FLAGGED_LINE}\ndef add(a, b):\n    return a + b"}))
    added = gc.answers(released, **right)
    added.cells.insert(3, new_code_cell("exec('x = 1')"))
    gc.submit(course, "added", "rg", added)
    forged = gc.answers(released, **{**right, "rg-add": f"import inspect\n{FLAGGED_LINE}\ndef add(a, b):\n"
                                                        "    return a + b"})
    allowing(forged, "rg-add", "introspection")
    gc.submit(course, "forged", "rg", forged)
    ran = course_cli("autograde", "--course-dir", str(course), "--workers", "2", *sandbox_flags(), cwd=course)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return course, released, ran


def test_a_flagged_submission_keeps_its_score_and_says_why(graded):
    course, released, ran = graded
    assert released.cells[3].metadata["course"][review.ALLOW_KEY] == ["private:functools._lru_cache_wrapper"]
    records = json.loads((course / "grading_status.json").read_text())
    assert {k: (r["status"], r["score"]) for k, r in records.items()} == {
        "honest/rg": ("ok", 3), "flagged/rg": ("ok", 3), "added/rg": ("ok", 3), "forged/rg": ("ok", 3)}
    assert records["honest/rg"]["flags"] == []  # the release's allowance held, through nbgrader's release
    quoted = records["flagged/rg"]["flags"]
    assert [q.split(": `")[0] for q in quoted] == ["rg-add, line 1", "rg-add, line 2"], quoted
    assert f"rg-add, line 2: `{FLAGGED_LINE}`" in quoted[1] and "inspect.currentframe" in quoted[1]
    assert records["forged/rg"]["flags"] == quoted  # its own allowance counted for nothing
    assert [q.split(": `")[0] for q in records["added/rg"]["flags"]] == ["cell #4, line 1"]
    # the summary: under the row, the quoted lines
    lines = ran.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if line.split()[:3] == ["flagged", "rg", "ok"])
    assert lines[row + 1].strip() == f"review: {quoted[0]}" and lines[row + 2].strip() == f"review: {quoted[1]}"
    assert "3 submissions flagged by the static review" in ran.stdout, ran.stdout


def test_flagged_test_cells_need_a_grade_by_hand(graded):
    course, _, _ = graded
    manual = {(s, g): needs for s, _, g, _, _, _, needs in gc.gradebook_rows(course)}
    assert manual == {
        ("honest", "rg-add-test"): False, ("honest", "rg-cache-test"): False,
        ("flagged", "rg-add-test"): True, ("flagged", "rg-cache-test"): False,   # its answer cell's test
        ("forged", "rg-add-test"): True, ("forged", "rg-cache-test"): False,
        ("added", "rg-add-test"): False, ("added", "rg-cache-test"): True}      # every test after it
    from nbgrader.apps import NbGraderAPI

    from graders.course.config import Course
    api = NbGraderAPI(config=Course(course).config)
    api.log.setLevel(logging.ERROR)
    listed = {s["student"]: s["needs_manual_grade"] for s in api.get_notebook_submissions("rg", "rg")}
    assert listed == {"honest": False, "flagged": True, "forged": True, "added": True}  # the formgrader's list
    assert all(gc.scores(course)[(s, "rg", "rg-add-test")] == 2.0 for s in listed)  # the scores stand


def test_export_has_the_review_column(graded):
    course, _, _ = graded
    ran = course_cli("export", "--course-dir", str(course), cwd=course)
    assert ran.returncode == 0, ran.stderr
    with open(course / "grades.csv", newline="") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert list(rows["honest"]) == ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
                                    "email", "raw_score", "late_submission_penalty", "score", "max_score",
                                    "review_flags"]
    records = json.loads((course / "grading_status.json").read_text())
    assert rows["honest"]["review_flags"] == ""
    assert rows["flagged"]["review_flags"].split("\n") == records["flagged/rg"]["flags"]
    assert float(rows["flagged"]["score"]) == 3.0


def test_report_lists_flagged_submissions(graded):
    course, _, _ = graded
    ran = subprocess.run([sys.executable, "-m", "graders.cli", "report", "rg", "--course-dir", str(course)],
                         capture_output=True, text=True, cwd=REPO)
    assert ran.returncode == 0, ran.stderr
    page = (course / "reports" / "rg.html").read_text()
    section = page[page.index('id="flagged"'):]
    assert "<td>flagged</td>" in section and "<td>forged</td>" in section and "<td>added</td>" in section
    assert "<td>honest</td>" not in section
    assert f"rg-add, line 2: `{FLAGGED_LINE}`" in section
