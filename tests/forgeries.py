"""Hostile submissions for the forgery suite (tests/test_forgery.py): answers that are not
answers, and code that reaches for the grader to make them pass.

Every answer cell of a forged submission binds the names the reference solution defines to
an object that claims to be right (``ANYTHING``: equal to everything, true, callable,
any attribute; or a subclass of int, str, tuple or Tensor whose ``__eq__``, ``__hash__`` and
``__bool__`` lie). An attack's prelude, placed in a cell of its own before the first answer,
then tries to make the checks accept them. What the suite asserts: no forged submission
earns a point, and every one whose code reaches for the grader is flagged for review.
"""

from __future__ import annotations

import ast
import base64
import copy

import nbformat

from authoring import submissions

ANYTHING = '''\
class _Anything:
    """Equal to everything, true, callable, any attribute, any item."""
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__
    def __bool__(self):
        return True
    def __call__(self, *args, **kwargs):
        return self
    def __getattr__(self, name):
        return self
    def __getitem__(self, key):
        return self
    def __iter__(self):
        return iter([self, self])
    def __len__(self):
        return 2
    def __lt__(self, other):
        return True
    __le__ = __gt__ = __ge__ = __lt__
    def __float__(self):
        return 0.0
    def __int__(self):
        return 0
    __index__ = __int__
'''

SUBCLASSES = '''\
import torch as _torch
def _lying(base):
    """A subclass of ``base`` whose __eq__, __ne__, __hash__ and __bool__ lie."""
    return type("_Lying" + base.__name__.title(), (base,), {
        "__eq__": lambda self, other: True, "__ne__": lambda self, other: False,
        "__hash__": lambda self: 0, "__bool__": lambda self: True})
_LyingInt, _LyingStr, _LyingTuple = _lying(int), _lying(str), _lying(tuple)
class _LyingTensor(_torch.Tensor):
    def __eq__(self, other):
        return _torch.ones((), dtype=_torch.bool)
    def __bool__(self):
        return True
'''

# nbgrader scores a test cell by its first execute_result when no error comes before it (full
# marks for one that is not a number): an answer that shows a value whenever the test calls it
# would outvote a judge's verdict appended after it
DISPLAYING = ANYTHING + '''\
class _Shown(_Anything):
    def __call__(self, *args, **kwargs):
        get_ipython().displayhook("full marks")
        return self
'''

# what a forged answer binds every name to
VALUES = {
    "anything": (ANYTHING, "_Anything()"),
    "int-subclass": (SUBCLASSES, "_LyingInt(1)"),
    "str-subclass": (SUBCLASSES, "_LyingStr('one-cycle')"),
    "tuple-subclass": (SUBCLASSES, "_LyingTuple((1, 2))"),
    "tensor-subclass": (SUBCLASSES, "_torch.ones(3).as_subclass(_LyingTensor)"),
    "displaying": (DISPLAYING, "_Shown()"),
}

# The attacks. Each is a cell of code; `flagged` says whether the static review must flag it
# (code that reaches for the grader), so a test can say which defence caught what.
VERIFIER = '''\
import builtins
for _name in dir(builtins):
    if _name.startswith("_graders_verify"):
        setattr(builtins, _name, lambda *a, **k: print("GRADERS-0 []"))
_kernel = get_ipython().kernel
def _clean(stream, ident, parent):
    _kernel.session.send(stream, "graders_verify_reply", {"status": "ok", "verdict": []}, parent, ident=ident)
for _type in list(_kernel.shell_handlers):
    if _type.startswith("graders"):
        _kernel.shell_handlers[_type] = _clean
'''

SELECTIVE_CHECKS = '''\
import functools
from helpers import checks
def _wrap(check):
    @functools.wraps(check)
    def passing(*args, **kwargs):
        if "GRADERS" in repr(args) + repr(kwargs):
            return check(*args, **kwargs)
        return None
    return passing
for _name in list(vars(checks)):
    if getattr(getattr(checks, _name), "counts", False) or _name == "explain_errors":
        setattr(checks, _name, _wrap(getattr(checks, _name)))
'''

COMPARISONS = '''\
import math
import numpy
import torch
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.__eq__ = lambda self, other: torch.ones((), dtype=torch.bool)
math.isclose = lambda *a, **k: True
numpy.testing.assert_allclose = lambda *a, **k: None
'''

HOOKS = '''\
import torch
_shell = get_ipython()
_kept = {}
def _before(info):
    if "checks." in (getattr(info, "raw_cell", "") or ""):
        _kept["equal"] = torch.equal
        torch.equal = lambda *a, **k: True
def _after(result):
    if "equal" in _kept:
        torch.equal = _kept.pop("equal")
_shell.events.register("pre_run_cell", _before)
_shell.events.register("post_run_cell", _after)
'''

PRINTED_VERDICT = '''\
print("GRADERS-00000000000000000000000000000000 []")
print("✔ Passes every check in this cell, the hidden ones included.")
'''


def obfuscated(code: str) -> str:
    """``code`` run through exec of base64, the module and names built at run time."""
    packed = base64.b64encode(code.encode()).decode()
    return (f"_b = __import__('base' + '64')\n"
            f"getattr(__builtins__, 'ex' + 'ec')(_b.b64decode({packed!r}).decode())\n")


ATTACKS = {
    "verifier replaced": (VERIFIER, True),
    "checks patched selectively": (SELECTIVE_CHECKS, True),
    "comparisons patched": (COMPARISONS, True),
    "hooks around test cells": (HOOKS, True),
    "obfuscated (getattr, exec, base64)": (obfuscated(COMPARISONS + SELECTIVE_CHECKS), True),
    "a verdict printed by hand": (PRINTED_VERDICT, False),
    # the issue's own submission: all three at once (it scored 99 of 155 points before)
    "verifier checks and comparisons together": (VERIFIER + SELECTIVE_CHECKS + COMPARISONS, True),
}


def defined_names(solution: str) -> list[str]:
    """The names an answer cell defines at its top level (functions, classes, variables)."""
    tree = ast.parse(solution)
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def forged(source_nb, release_nb, value: str = "anything", attack: str | None = None):
    """The release with every answer bound to a forged value, and the attack's cell (if any)
    just before the first answer."""
    prelude, expression = VALUES[value]
    answers = {grade_id: prelude + "".join(f"{name} = {expression}\n" for name in defined_names(code))
               for grade_id, code in submissions.solution_cells(source_nb).items()}
    nb = submissions.fill(release_nb, answers)
    if attack is not None:
        nb = copy.deepcopy(nb)
        first = next(i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("nbgrader", {}).get("solution"))
        nb.cells.insert(first, nbformat.v4.new_code_cell(ATTACKS[attack][0]))
    return nb
