"""Tampering with grading from inside the kernel: canaries injected before, read after.

Nothing inside the kernel can be *prevented* — the student's code runs with the same
interpreter as the tests — so we *detect* after execution (graders/THREATS.md):

- a **prologue**, run silently before any student code, captures references to what test
  cells rely on: builtins, the comparison functions of torch and numpy, every function of
  ``helpers.checks`` (object, code, defaults), IPython's traceback/run machinery and hooks,
  sys.excepthook/stdout/stderr;
- an **integrity canary** before and after every test cell and at the end compares the live objects
  with those references (and flags user names that shadow builtins or modules the tests
  use) and reports through the *captured* stdout, tagged with a per-run random nonce;
- a **must-fail canary** at the end runs a check that has to fail; if its cell ends
  without an error, failures of test cells are being hidden.

The runner executes canaries with store_history=False (execution counts stay the
student's), and ``strip`` removes them from the notebook the harness sees. A canary that
was executed but left no verdict is itself a finding (its output was suppressed).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field

import nbformat
from nbgrader.utils import compute_checksum, is_grade, is_locked, is_solution

CANARY_KEY = "graders_canary"

# Names that, rebound in the student's namespace, change what a test cell concludes.
# Honest code shadows ``sum`` or ``id``; it has no reason to shadow these.
CRITICAL_BUILTINS = ("AssertionError", "BaseException", "Exception", "isinstance", "issubclass",
                     "print", "all", "any", "abs", "len", "bool", "float", "round", "type",
                     "getattr", "hasattr", "callable", "max", "min")
MODULE_NAMES = {"torch": "torch", "np": "numpy", "numpy": "numpy", "checks": "helpers.checks",
                "helpers": "helpers", "math": "math"}

PROLOGUE = r'''
def _graders_prologue(nonce):
    import builtins, importlib, math, sys, types
    missing = types.ModuleType("missing")  # stands in for what cannot be imported here

    def load(name):
        # a module the kernel cannot import (e.g. torch under a small RLIMIT_AS) cannot be
        # used by the tests either: watch what exists, never fail the prologue
        try:
            return importlib.import_module(name)
        except BaseException:
            return missing

    numpy, torch, checks = load("numpy"), load("torch"), load("helpers.checks")
    load("numpy.testing"), load("torch.testing")
    shell = get_ipython()
    watched = {
        "torch": (torch, ["allclose", "equal", "isclose", "eq", "all", "any", "abs", "max",
                          "sum", "tensor", "as_tensor", "is_tensor"]),
        "torch.testing": (getattr(torch, "testing", missing), ["assert_close"]),
        "torch.Tensor": (getattr(torch, "Tensor", missing), ["allclose", "equal", "isclose", "eq", "__eq__", "__ne__",
                                        "all", "any", "item", "tolist", "__bool__", "__float__",
                                        "abs", "max", "sum", "__getitem__", "__len__"]),
        "numpy": (numpy, ["allclose", "array_equal", "isclose", "array", "all", "any", "abs"]),
        "numpy.testing": (getattr(numpy, "testing", missing), ["assert_allclose", "assert_array_equal", "assert_equal",
                                          "assert_almost_equal", "assert_array_almost_equal"]),
        "math": (math, ["isclose"]),
    }
    shell_names = ["showtraceback", "_showtraceback", "showsyntaxerror", "run_cell",
                   "run_cell_async", "run_code", "run_ast_nodes", "transform_cell",
                   "should_run_async", "_run_cell", "ex", "ev"]
    refs = {}
    for label, (owner, names) in watched.items():
        for name in names if owner is not missing else ():
            if hasattr(owner, name):
                refs[f"{label}.{name}"] = (owner, name, getattr(owner, name))
    for name, value in vars(checks).items():
        if callable(value) and not name.startswith("__"):
            refs[f"helpers.checks.{name}"] = (checks, name, value)
    code = {n: (f, f.__code__, f.__defaults__, f.__kwdefaults__)
            for n, f in vars(checks).items() if type(f).__name__ == "function"}
    builtins_snapshot = dict(vars(builtins))
    cls = type(shell)
    shell_refs = {n: (getattr(cls, n, None), vars(shell).get(n)) for n in shell_names}
    sysrefs = {n: getattr(sys, n) for n in ("excepthook", "stdout", "stderr", "displayhook")}
    modules = {m: sys.modules[m] for m in set(__MODULES__.values()) if m in sys.modules}
    hooks = {
        "ast_transformers": list(shell.ast_transformers),
        "input_transformers_post": list(shell.input_transformers_post),
        "input_transformers_cleanup": list(shell.input_transformer_manager.cleanup_transforms),
        "input_transformers_line": list(shell.input_transformer_manager.line_transforms),
        "pre_run_cell": list(shell.events.callbacks.get("pre_run_cell", [])),
        "pre_execute": list(shell.events.callbacks.get("pre_execute", [])),
    }
    out = sys.stdout
    dumps = __import__("json").dumps

    def same(a, b):
        # ipykernel re-binds some methods (input, excepthook) per execution: same function
        # on the same object is the same hook
        if a is b:
            return True
        fa, fb = getattr(a, "__func__", None), getattr(b, "__func__", None)
        return fa is not None and fa is fb and getattr(a, "__self__", 0) is getattr(b, "__self__", 1)

    def verify():
        found = []
        for key, (owner, name, value) in refs.items():
            if not same(getattr(owner, name, None), value):
                found.append(f"{key} was replaced")
        for name, (f, c, d, k) in code.items():
            if f.__code__ is not c or f.__defaults__ is not d or f.__kwdefaults__ is not k:
                found.append(f"helpers.checks.{name} was modified in place")
        live = vars(builtins)
        for name, value in builtins_snapshot.items():
            if not same(live.get(name), value) and name != "_":
                found.append(f"builtins.{name} was replaced")
        ns = shell.user_ns
        for name in __CRITICAL__:
            if name in ns and ns[name] is not builtins_snapshot.get(name):
                found.append(f"the name {name} was rebound in the notebook (shadows the builtin)")
        for name, module in __MODULES__.items():
            if name in ns and ns[name] is not modules.get(module, ns[name]):
                found.append(f"the name {name} no longer refers to the module {module}")
        for name, module in modules.items():
            if sys.modules.get(name) is not module:
                found.append(f"sys.modules[{name!r}] was replaced")
        for name, (cls_value, own) in shell_refs.items():
            if not same(getattr(cls, name, None), cls_value) or not same(vars(shell).get(name), own):
                found.append(f"IPython's {name} was replaced")
        if type(shell) is not cls:
            found.append("IPython's shell class was replaced")
        if shell.custom_exceptions:
            found.append("a custom exception handler was installed (set_custom_exc)")
        for name, value in sysrefs.items():
            if not same(getattr(sys, name), value):
                found.append(f"sys.{name} was replaced")
        now = {
            "ast_transformers": shell.ast_transformers,
            "input_transformers_post": shell.input_transformers_post,
            "input_transformers_cleanup": shell.input_transformer_manager.cleanup_transforms,
            "input_transformers_line": shell.input_transformer_manager.line_transforms,
            "pre_run_cell": shell.events.callbacks.get("pre_run_cell", []),
            "pre_execute": shell.events.callbacks.get("pre_execute", []),
        }
        for name, before in hooks.items():
            if list(now[name]) != before:
                found.append(f"IPython's {name} were changed (code is rewritten before it runs)")
        out.write(f"GRADERS-{nonce} " + dumps(sorted(set(found))) + "\n")
        out.flush()

    return verify


setattr(__import__("builtins"), "_graders_verify___NONCE__", _graders_prologue("__NONCE__"))
del _graders_prologue
'''

MUST_FAIL = '''\
import helpers.checks as _graders_checks___NONCE__
_graders_checks___NONCE__.expect_equal(1, 2, name="GRADERS-__NONCE__")
'''


@dataclass
class Check:
    """What one run injected, and how to read it back."""

    nonce: str
    prologue: str
    structural: list[str] = field(default_factory=list)

    def findings(self, nb, integrity: bool = True) -> list[str]:
        """Findings from the executed ``nb``; ``integrity=False`` when the prologue failed
        (nothing was captured, so the integrity canaries cannot give a verdict)."""
        found = list(self.structural)
        tag = f"GRADERS-{self.nonce} "
        for index, cell in enumerate(nb.cells):
            kind = cell.get("metadata", {}).get(CANARY_KEY)
            if kind is None or not cell.metadata.get("graders_ran"):
                continue  # not a canary, or never reached (timeout/crash stopped the run)
            if kind == "integrity" and integrity:
                found += _read_integrity(cell, tag, _after(nb, index))
            elif kind == "must-fail":
                # any displayed error will do: failures are visible (checks may not even import)
                if not any(o.get("output_type") == "error" and o.get("ename") for o in cell.outputs):
                    found.append("a check that must fail did not fail: test failures are being hidden")
        return sorted(set(found), key=found.index)


def _after(nb, index) -> str:
    """Where a canary stood: before/after which test cell, or at the end."""
    following = nb.cells[index + 1] if index + 1 < len(nb.cells) else None
    if following is not None and is_test_cell(following):
        return f"before {following.metadata['nbgrader'].get('grade_id')}"
    for cell in reversed(nb.cells[:index]):
        if CANARY_KEY not in cell.get("metadata", {}):
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            return f"after {grade_id}" if grade_id and is_test_cell(cell) else "at the end"
    return "at the start"


def _read_integrity(cell, tag, where) -> list[str]:
    verdicts = [line[len(tag):] for o in cell.get("outputs", []) if o.get("output_type") == "stream"
                for line in o.get("text", "").splitlines() if line.startswith(tag)]
    if len(verdicts) != 1 or any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
        return [f"the grader's integrity check {where} left no verdict (its output was suppressed "
                "or it was made to fail)"]
    try:
        found = json.loads(verdicts[0])
    except ValueError:
        return [f"the grader's integrity check {where} left an unreadable verdict"]
    return [f"{item} ({where})" for item in found]


def _canary(kind: str, source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata[CANARY_KEY] = kind
    return cell


def is_test_cell(cell) -> bool:
    return cell.cell_type == "code" and is_grade(cell) and not is_solution(cell)


def structure(nb) -> list[str]:
    """What OverwriteCells leaves: duplicate grade ids, locked or test cells whose source or
    type no longer matches their recorded checksum."""
    found, seen = [], set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        if not meta:
            continue
        grade_id = meta.get("grade_id")
        if grade_id in seen:
            found.append(f"cell id {grade_id} appears more than once")
        seen.add(grade_id)
        if (is_locked(cell) or is_test_cell(cell)) and meta.get("checksum"):
            if compute_checksum(cell) != meta["checksum"]:
                found.append(f"the locked cell {grade_id} was edited")
    return found


def instrument(nb):
    """A copy of ``nb`` with canaries after each test cell and at the end, and its Check."""
    nonce = secrets.token_hex(16)
    verify = f"_graders_verify_{nonce}()\n"
    cells = []
    for cell in nb.cells:
        # before: a patch that restores itself when first used is still in place here
        if is_test_cell(cell):
            cells.append(_canary("integrity", verify))
        cells.append(cell)
        if is_test_cell(cell):
            cells.append(_canary("integrity", verify))
    cells.append(_canary("integrity", verify))
    cells.append(_canary("must-fail", MUST_FAIL.replace("__NONCE__", nonce)))
    run_nb = nbformat.from_dict({**nb, "cells": cells})
    prologue = (PROLOGUE.replace("__NONCE__", nonce)
                .replace("__CRITICAL__", repr(CRITICAL_BUILTINS))
                .replace("__MODULES__", repr(MODULE_NAMES)))
    return run_nb, Check(nonce, prologue, structure(nb))


def strip(nb):
    """The executed notebook without the grader's canaries."""
    nb = nbformat.from_dict(nb)
    nb.cells = [c for c in nb.cells if CANARY_KEY not in c.get("metadata", {})]
    # the kernel counted the canaries too: number the student's cells as a plain run would
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
            for out in cell.get("outputs", []):
                if out.get("output_type") == "execute_result":
                    out["execution_count"] = count
    return nb
